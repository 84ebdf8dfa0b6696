"""Hash every registered method's ranking and packed context: proof that a refactor changed nothing.

    python -m experiments.benchmarks.method_outputs --out /tmp/after.json
    python -m experiments.benchmarks.method_outputs --check experiments/benchmarks/method_outputs.baseline.json

For each instance of the 21 real dev issues (``swebench_lite_dev`` and
``swebench_lite_devsplit``) and of the mined ``tune`` split, the base-commit
graph is loaded once with every history input (``RepoInputs``) and
every registered method, configured from its ``conf/method/<name>.yaml``,
ranks the problem statement and packs a context at each budget. The SHA-256
of the ranking (symbol ids and scores rounded to 9 significant digits, so a
last-bit float difference in a sum does not count) and of the rendered
context is taken per method, budget and instance, and folded into one hash
per method. ``--check`` compares against a saved file and lists, per method,
the instances whose output differs. The ``target_file`` oracle is given the
gold patch's first file (it needs a location). A method that raises on an
instance contributes the exception's type and message, so a new error shows
as a change too. The file records the machine (``machine()``: CPU, numpy's
dispatch level, OpenBLAS's kernel, versions), and ``--check`` prints both
machines when they differ. ``--kernels`` runs the same again in a child process
under other CPU kernels (OpenBLAS's generic ones, numpy's baseline loops) and
compares: the release check that rankings do not depend on the CPU's kernels.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from beacon.localize.instances import SnapshotCache, load_instances
from beacon.retrieval import assemble_context
from beacon.retrieval.registry import known_methods
from beacon.data.unified_diff import parse_unified_diff
from beacon.repo.history import INPUT_NAMES
from beacon.retrieval.recipes import method_params

SHARED = Path("../shared/data")
SETS = (
    ("dev", SHARED / "swebench_lite_dev/instances.jsonl", None),
    ("devsplit", SHARED / "swebench_lite_devsplit/instances.jsonl", None),
    ("tune", Path("experiments/data/mined_tasks.jsonl"), "tune"),
)
REPOS = [SHARED / "swebench_lite_dev/repos", SHARED / "swebench_lite_devsplit/repos", SHARED / "git_repos"]
BUDGETS = (2000, 8000)


def _digest(result) -> str:
    h = hashlib.sha256()
    for sid, score in result.ranking:
        h.update(f"{sid}\t{score:.9g}\n".encode())
    h.update(b"\0context\0")
    h.update(result.context.render().encode())
    h.update(f"\0{result.context.total_tokens}".encode())
    return h.hexdigest()


def machine() -> dict[str, str]:
    """What the float kernels depend on: CPU, numpy's dispatch level, OpenBLAS's kernel, library versions.

    Recorded in the output so that a ``--check`` on another machine says
    whether a difference could be the machine's: rankings are meant to be the
    same bytes on any x86-64 CPU (``tests/retrieval/test_cpu_invariance.py``),
    but transcendental functions (``np.exp``, ``np.log``) have AVX-512 loops
    that round differently and cannot be exercised on a CPU without it.
    """
    import platform

    import numpy as np
    import scipy
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    cpu = ""
    with contextlib.suppress(OSError):
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "")
    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    return {"arch": platform.machine(), "cpu": cpu or platform.processor(),
            "numpy_dispatch": " ".join(k for k in __cpu_dispatch__ if __cpu_features__.get(k)),
            "blas": blas.get("openblas configuration", blas.get("name", "")), "blas_core": _blas_core(np),
            "numpy": np.__version__, "scipy": scipy.__version__, "python": platform.python_version()}


def _blas_core(np) -> str:
    """The kernel family OpenBLAS chose at run time (``OPENBLAS_CORETYPE`` overrides it), or '' if not found.

    Read from the OpenBLAS that numpy's wheel bundles (``numpy.libs``); the
    build configuration string names the build machine's, not this one's.
    """
    import ctypes
    import glob
    import os

    for lib in sorted(glob.glob(os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs", "*openblas*"))):
        with contextlib.suppress(OSError, AttributeError):
            handle = ctypes.CDLL(lib)
            name = next((n for n in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                                     "openblas_get_corename64_", "openblas_get_corename") if hasattr(handle, n)), None)
            if name:
                getter = getattr(handle, name)
                getter.restype = ctypes.c_char_p
                return (getter() or b"").decode()
    return ""


def _first_file(patch: str) -> str | None:
    for change in parse_unified_diff(patch):
        path = getattr(change, "old_path", None) or getattr(change, "path", None)
        if path:
            return path
    return None


def dump(limit: int | None, methods: list[str], cache_dir: Path) -> dict:
    cache = SnapshotCache(cache_dir, REPOS)
    params = {m: method_params(m) for m in methods}
    per: dict[str, dict[str, str]] = {m: {} for m in methods}
    seconds: dict[str, float] = {m: 0.0 for m in methods}
    for label, path, split in SETS:
        instances = load_instances(path)
        if split:
            instances = [i for i in instances if i.extra.get("split") == split]
        for n, inst in enumerate(instances[:limit], 1):
            graph = cache.graph(inst.repo, inst.base_commit)
            inputs = cache.inputs(inst.repo, inst.base_commit, set(INPUT_NAMES))
            for m in methods:
                extra = {"target": _first_file(inst.patch)} if m == "target_file" else {}
                start = time.perf_counter()
                for budget in BUDGETS:
                    key = f"{label}/{inst.instance_id}/{budget}"
                    try:
                        result = assemble_context(graph, inst.problem_statement, m, budget=budget,
                                                  inputs=inputs, **{**params[m], **extra})
                        per[m][key] = _digest(result)
                    except Exception as exc:  # noqa: BLE001  (an error is an output too)
                        per[m][key] = f"error {type(exc).__name__}: {exc}"
                seconds[m] += time.perf_counter() - start
            print(f"\r{label} {n}/{len(instances[:limit])}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    total = {m: hashlib.sha256(json.dumps(per[m], sort_keys=True).encode()).hexdigest() for m in methods}
    return {"budgets": list(BUDGETS), "methods": total, "instances": per, "machine": machine(),
            "seconds": {m: round(s, 2) for m, s in seconds.items()}}


def kernel_variant_env() -> dict[str, str]:
    """The environment of the ``--kernels`` re-run: OpenBLAS's generic SSE3 kernels and numpy's baseline loops
    (every feature it dispatches on turned off, in its own names), unlike the default of any current x86-64 CPU."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__
    return {**os.environ, "OPENBLAS_CORETYPE": "Prescott", "NPY_DISABLE_CPU_FEATURES": " ".join(__cpu_dispatch__)}


def compare(result: dict, saved: dict, methods: list[str], label: str, here_label: str = "this run") -> int:
    """Print SAME/CHANGED/NEW per method (and GONE for saved ones not run); the number of CHANGED methods."""
    here, there = result["machine"], saved.get("machine", {})
    if here != there:
        print(f"machine: {label}: {there or '(not recorded)'}; {here_label}: {here}")
    changed = 0
    for m in methods:
        before = saved["instances"].get(m)
        if before is None:
            print(f"NEW      {m}: not in {label}")
            continue
        diffs = sorted(k for k in result["instances"][m] if before.get(k) != result["instances"][m][k])
        if diffs:
            changed += 1
            print(f"CHANGED  {m}: {len(diffs)} of {len(before)} outputs, e.g. {diffs[:3]}")
        else:
            print(f"SAME     {m}")
    for m in sorted(set(saved["instances"]) - set(methods)):
        print(f"GONE     {m}")
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the hashes here (JSON)")
    ap.add_argument("--check", type=Path, help="compare with this saved file; exit 1 on any difference")
    ap.add_argument("--kernels", action="store_true",
                    help="also run again in a child process under other CPU kernels (kernel_variant_env) and "
                         "compare; exit 1 on any difference")
    ap.add_argument("--methods", default=None, help="comma-separated (default: every registered method)")
    ap.add_argument("--limit", type=int, default=None, help="first N instances of each set (development)")
    ap.add_argument("--cache-dir", type=Path, default=Path(".beacon-cache"))
    args = ap.parse_args(argv)
    methods = args.methods.split(",") if args.methods else known_methods()
    result = dump(args.limit, methods, args.cache_dir)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    for m in methods:
        print(f"{m:<28}{result['methods'][m][:16]}  {result['seconds'][m]:8.1f} s")
    changed = compare(result, json.loads(args.check.read_text()), methods, str(args.check)) if args.check else 0
    if args.kernels:
        with tempfile.TemporaryDirectory(prefix="method-outputs-") as tmp:
            out = Path(tmp) / "variant.json"
            child = [sys.executable, "-m", "experiments.benchmarks.method_outputs", "--out", str(out),
                     "--methods", ",".join(methods), "--cache-dir", str(args.cache_dir)]
            if args.limit is not None:
                child += ["--limit", str(args.limit)]
            env = kernel_variant_env()
            print(f"--kernels: OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']} "
                  f"NPY_DISABLE_CPU_FEATURES={env['NPY_DISABLE_CPU_FEATURES']!r}", flush=True)
            subprocess.run(child, env=env, check=True, stdout=subprocess.DEVNULL)
            changed += compare(json.loads(out.read_text()), result, methods, "default kernels",
                               "--kernels' variant")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Localization in a larger repository: each instance's snapshot padded with other projects' library code.

    python -m experiments.benchmarks.localize_distractors [--sets real[,tune]] [--tune-sample N]
        [--methods SPECS] [--without PACKAGES] [--cache-dir DIR] [--per-instance] [--time]

A diagnostic (it reads gold). Issue 14 is judged on large libraries (hundreds
to thousands of files) while the dev repositories are small, so this measures
how a method degrades when the candidate pool grows and nothing else changes.
For each instance the *padded* tree is its base-commit snapshot, every file
unchanged at its path, plus the library code of the other repositories in
``DISTRACTORS`` (each at one fixed commit) as extra top-level packages:
``click/``, ``werkzeug/``, ``httpx/``, ``requests/``, ... Never the instance's
own repository, never a held-out one; only ``.py`` files of the import
package, without tests (``is_test_path``) or vendored folders
(``masks.VENDOR_DIRS``), so the distractors are library code, as a larger
library's other modules would be. Gold comes from the patch on the original
snapshot (its paths are unchanged in the padded tree) and every configuration
is scored with the runner's own ``evaluate`` on both graphs, exactly as in
``localize_real_signals`` (same ``--methods`` specs: recipes and
``name:param=value`` overrides). It prints each instance's size (files,
definitions) original -> padded, then per configuration and metric the
original mean, the padded mean and the drop with its paired 95% bootstrap
interval over instances, each configuration's difference from the first on
both graphs, and, where the gold file leaves the top 5 only on the padded
graph, which distractor packages took those slots.

Distractors from other projects share fewer words with the issue than a
library's own modules do, so the drop is a lower bound on the scale effect,
not a prediction of the held-out numbers.

Deterministic: fixed distractor commits, files copied in sorted order, the
padded graph saved under ``<cache-dir>/padded/<key>`` where the key hashes the
composition (the instance's repository and commit, each distractor's
repository, commit and package, ``VERSION``), so a rerun loads it.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from beacon.graph.codebase import CodebaseGraph, StaleGraphError
from beacon.graph.symbols import is_test_path
from beacon.localize.evaluate import evaluate
from beacon.localize.gold import Gold, gold_from_patch
from beacon.localize.instances import Instance, SnapshotCache
from beacon.retrieval.indexes import attach_store
from beacon.retrieval.masks import VENDOR_DIRS
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from experiments.benchmarks.localize_methods import parse_method
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, REPOS, base_set, instances
from experiments.benchmarks.localize_real_signals import METRICS, paired

VERSION = 1  # bump when the padding rules change: cached padded graphs are keyed by it
# The table in docs/localization_real.md (issue 14, "Scale"): the default configurations.
DEFAULT_METHODS = ("bm25;hybrid_prf;hybrid_code;hybrid_uses;hybrid_flow;hybrid_title;hybrid_uses:w_flow=0.5")
# SWE-bench Lite test repositories (the held-out set): never a distractor.
HELD_OUT = frozenset({"sympy", "django", "astropy", "matplotlib", "scikit-learn", "sphinx", "pytest", "pylint",
                      "xarray", "seaborn"})


@dataclass(frozen=True)
class Distractor:
    """One repository's import package at one commit: ``package`` is its folder in the snapshot."""

    repo: str
    commit: str
    package: str

    @property
    def name(self) -> str:  # the top-level folder it becomes in a padded tree
        return PurePosixPath(self.package).name


# Fixed commits: the bundle HEADs of ../shared/data/git_repos (its README) and, for the dev repositories,
# the base commit of one of their real issues (flask-5063, requests-3362, marshmallow-1359, astroid-1978,
# sqlfluff-2419: the latest listed). In this order in every padded tree.
DISTRACTORS = (
    Distractor("pallets/click", "2c8cd3ac958a7eb316d67f2d316c27086c4c0369", "src/click"),
    Distractor("pallets/werkzeug", "1b00618e787f40dfb21eba29caf8f8be7c8e1d93", "src/werkzeug"),
    Distractor("encode/httpx", "ae1b9f66238f75ced3ced5e4485408435de10768", "httpx"),
    Distractor("pallets/flask", "182ce3dd15dfa3537391c3efaf9c3ff407d134d4", "src/flask"),
    Distractor("psf/requests", "36453b95b13079296776d11b09cab2567ea3e703", "requests"),
    Distractor("marshmallow-code/marshmallow", "b40a0f4e33823e6d0f341f7e8684e359a99060d1", "src/marshmallow"),
    Distractor("pylint-dev/astroid", "0c9ab0fe56703fa83c73e514a1020d398d23fa7f", "astroid"),
    Distractor("sqlfluff/sqlfluff", "f1dba0e1dd764ae72d67c3d5e1471cf14d3db030", "src/sqlfluff"),
)


def composition(repo: str, pool: Sequence[Distractor] = DISTRACTORS) -> list[Distractor]:
    """The distractors of an instance of ``repo``: the pool without ``repo`` itself, in the pool's order."""
    chosen = [d for d in pool if d.repo != repo]
    for d in chosen:
        if d.repo.split("/")[-1] in HELD_OUT:
            raise ValueError(f"{d.repo} is a held-out repository: never a distractor")
    return chosen


def composition_key(repo: str, commit: str, distractors: Sequence[Distractor]) -> str:
    """A hash naming the padded tree: the instance's snapshot and every distractor, in order."""
    spec = {"version": VERSION, "repo": repo, "commit": commit,
            "distractors": [[d.repo, d.commit, d.package] for d in distractors]}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:20]


def library_files(package_dir: Path) -> list[str]:
    """The package's ``.py`` files relative to ``package_dir``, sorted: no tests, no vendored folders."""
    out = []
    for path in package_dir.rglob("*.py"):
        rel = path.relative_to(package_dir).as_posix()
        if path.is_file() and not is_test_path(rel) and not VENDOR_DIRS.intersection(PurePosixPath(rel).parts[:-1]):
            out.append(rel)
    return sorted(out)


def pad_tree(snapshot: Path, extras: Sequence[tuple[str, Path]], out: Path) -> list[str]:
    """Copy ``snapshot`` to ``out`` unchanged, then each ``(name, package_dir)``'s library files under ``out/name``.

    Returns the added paths (relative to ``out``), in the order written. A name that is already a top-level
    entry of the tree is an error: a distractor never replaces or merges into the instance's own files.
    """
    shutil.copytree(snapshot, out, symlinks=True)
    added = []
    for name, package_dir in extras:
        if os.path.lexists(out / name):
            raise ValueError(f"distractor package {name!r} collides with {out / name}")
        for rel in library_files(package_dir):
            target = out / name / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(package_dir / rel, target)
            added.append(f"{name}/{rel}")
    return added


def definitions(graph: CodebaseGraph, *, library: bool = False) -> int:
    """Classes, functions and methods (``library``: outside test files only)."""
    return sum(1 for s in graph.symbols if s.kind != "module" and not (library and s.is_test))


class PaddedCache:
    """Original and padded graphs per instance: snapshots and original graphs from the ``SnapshotCache``,
    padded graphs built once per composition and saved under ``root/padded/<key>``; both use ``root/indexes``."""

    def __init__(self, root: Path, pool: Sequence[Distractor] = DISTRACTORS):
        self.root = Path(root)
        self.snapshots = SnapshotCache(self.root, REPOS)
        self.pool = tuple(pool)

    def padded(self, repo: str, commit: str) -> CodebaseGraph:
        chosen = composition(repo, self.pool)
        saved = self.root / "padded" / composition_key(repo, commit, chosen)
        graph = None
        if (saved / "graph.json").is_file():
            with contextlib.suppress(StaleGraphError):  # an older schema: rebuilt below
                graph = CodebaseGraph.load(saved)
        if graph is None:
            extras = [(d.name, self.snapshots.snapshot(d.repo, d.commit) / d.package) for d in chosen]
            with tempfile.TemporaryDirectory(prefix="beacon-padded-") as tmp:
                pad_tree(self.snapshots.snapshot(repo, commit), extras, Path(tmp) / "tree")
                graph = CodebaseGraph.from_repo(Path(tmp) / "tree", cache_dir=self.root / "parse-cache")
            staging = saved.with_name(f".{saved.name}.tmp-{os.getpid()}")
            shutil.rmtree(staging, ignore_errors=True)
            graph.save(staging)
            shutil.rmtree(saved, ignore_errors=True)
            os.replace(staging, saved)
        # the padded tree was temporary: the project's own snapshot is where its documentation lives (docs bridge)
        graph.root = str(self.snapshots.snapshot(repo, commit))
        attach_store(graph, self.root / "indexes")
        return graph

    def loaded(self, insts: Sequence[Instance]) -> Iterator[tuple[Instance, CodebaseGraph, CodebaseGraph, Gold]]:
        """Each instance with its original graph, its padded graph and its gold (checked to resolve in both)."""
        for inst in insts:
            original = self.snapshots.graph(inst.repo, inst.base_commit)
            padded = self.padded(inst.repo, inst.base_commit)
            missing = set(original.files) - set(padded.files)
            if missing:
                raise AssertionError(f"{inst.instance_id}: padded graph lacks {sorted(missing)[:5]}")
            gold = gold_from_patch(inst.instance_id, inst.patch, self.snapshots.snapshot(inst.repo, inst.base_commit))
            yield inst, original, padded, gold


def chosen_instances(sets: Sequence[str], tune_sample: int) -> list[tuple[str, Instance]]:
    """``real`` (21) and, with ``tune``, ``tune_sample`` mined tune tasks evenly spaced in file order."""
    out = []
    for which in sets:
        insts = instances(which)
        if base_set(which) != "real" and 0 < tune_sample < len(insts):
            step = len(insts) / tune_sample
            insts = [insts[int(i * step)] for i in range(tune_sample)]
        out += [(which, inst) for inst in insts]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real", help="real and/or tune (never the held-out set); real:title, real:prose,"
                    " real:code: only that part of each issue (text_variants)")
    ap.add_argument("--tune-sample", type=int, default=0, help="mined tune tasks used with --sets tune (0: all)")
    ap.add_argument("--methods", default=DEFAULT_METHODS, help="';'-separated specs as in localize_real_signals")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--without", default="", help="','-separated distractor packages left out (e.g. sqlfluff)")
    ap.add_argument("--per-instance", action="store_true", help="list each instance a metric changes on")
    ap.add_argument("--time", action="store_true", help="median per-query time on the padded graphs")
    args = ap.parse_args(argv)
    sets = args.sets.split(",")
    if "test" in map(base_set, sets):
        raise SystemExit("the mined test split is a final check, not a diagnostic set here")
    specs = [s for s in args.methods.split(";") if s]
    configs = {spec: parse_method(spec) for spec in specs}
    without = set(filter(None, args.without.split(",")))
    unknown = without - {d.name for d in DISTRACTORS}
    if unknown:
        raise SystemExit(f"unknown distractor package(s) {sorted(unknown)}; known: {[d.name for d in DISTRACTORS]}")
    cache = PaddedCache(args.cache_dir, [d for d in DISTRACTORS if d.name not in without])
    rows = {(w, spec, kind): [] for w in sets for spec in specs for kind in ("orig", "padded")}
    ids: dict[str, list[str]] = {w: [] for w in sets}
    timings: dict[str, list[float]] = {spec: [] for spec in specs}
    changed: list[str] = []
    intruders: dict[tuple[str, str], Counter] = {(w, spec): Counter() for w in sets for spec in specs}
    lost: Counter = Counter()
    same_name: Counter = Counter()
    print(f"{'instance':<40}{'files':>16}{'definitions':>18}{'x defs':>8}{'library defs':>20}{'x lib':>7}")
    ratios, lib_ratios = [], []
    chosen = chosen_instances(sets, args.tune_sample)
    for (which, inst), (_, original, padded, gold) in zip(chosen, cache.loaded([i for _, i in chosen])):
        ids[which].append(inst.instance_id)
        ratio = definitions(padded) / max(1, definitions(original))
        lib = definitions(original, library=True), definitions(padded, library=True)
        ratios.append(ratio)
        lib_ratios.append(lib[1] / max(1, lib[0]))
        print(f"{inst.instance_id:<40}{len(original.files):>7} -> {len(padded.files):<6}"
              f"{definitions(original):>8} -> {definitions(padded):<7}{ratio:>6.1f}"
              f"{lib[0]:>10} -> {lib[1]:<7}{lib_ratios[-1]:>6.1f}", flush=True)
        q = inst.problem_statement
        for spec, (name, overrides) in configs.items():
            params = method_params(name, overrides)
            got = {}
            for kind, graph in (("orig", original), ("padded", padded)):
                scored = evaluate(graph, inst.instance_id, q, gold, name, args.budget, params)
                got[kind] = {k: scored["metrics"][v] for k, v in METRICS.items()}
            if got["orig"]["file_acc@5"] == 1 and got["padded"]["file_acc@5"] == 0:
                # the gold file left the top 5: which distractor packages took the slots (``scored`` is the padded run)
                lost[which, spec] += 1
                names = {d.name for d in cache.pool if d.repo != inst.repo}
                taken = [f for f in scored["ranked"]["files"][:5] if f.split("/")[0] in names]
                intruders[which, spec].update(f.split("/")[0] for f in taken)
                # a distractor module named like the gold file (``utils.py`` for ``utils.py``)
                same_name[which, spec] += sum(PurePosixPath(f).name in {PurePosixPath(g).name for g in gold.paths}
                                              for f in taken)
            for kind in ("orig", "padded"):
                rows[which, spec, kind].append(got[kind])
            moved = [f"{m} {got['orig'][m]:g}->{got['padded'][m]:g}" for m in METRICS
                     if None not in (got["orig"][m], got["padded"][m]) and got["orig"][m] != got["padded"][m]]
            if moved:
                changed.append(f"  {spec} on {which}: {inst.instance_id}: " + ", ".join(moved))
            if args.time:
                method = get_method(name, **params)  # indexes built by evaluate: the per-query time
                start = time.perf_counter()
                method.retrieve(padded, q, args.budget)
                timings[spec].append(time.perf_counter() - start)
        original.cache.clear()
        padded.cache.clear()
    for label, rs in (("definitions", ratios), ("library definitions", lib_ratios)):
        print(f"{label} padded/original: median {statistics.median(rs):.1f}x, min {min(rs):.1f}x, max {max(rs):.1f}x")
    print(f"recall within {args.budget} tokens")
    width = max(24, *(len(s) + 2 for s in specs))
    for which in sets:
        print(f"\n{which} (n={len(ids[which])}): original -> padded, drop in points [paired 95% bootstrap interval]")
        print(f"{'method':<{width}}" + "".join(f"{m:>36}" for m in METRICS))
        for spec in specs:
            orig, pad = rows[which, spec, "orig"], rows[which, spec, "padded"]
            cells = []
            for m in METRICS:
                a = [r[m] for r in orig if r[m] is not None]
                b = [r[m] for r in pad if r[m] is not None]
                cells.append(f"{100 * sum(a) / len(a):.1f} -> {100 * sum(b) / len(b):.1f} "
                             f"{paired(pad, orig, ids[which], m)}" if a else "--")
            print(f"{spec:<{width}}" + "".join(f"{c:>36}" for c in cells))
        if len(specs) > 1:  # does the order of the methods hold at scale?
            print(f"difference from {specs[0]} on the padded graphs (original graphs in parentheses):")
            for spec in specs[1:]:
                print(f"  {spec}: " + "; ".join(
                    f"{m} {paired(rows[which, spec, 'padded'], rows[which, specs[0], 'padded'], ids[which], m)}"
                    f" ({paired(rows[which, spec, 'orig'], rows[which, specs[0], 'orig'], ids[which], m)})"
                    for m in METRICS))
    print("\nthe gold file out of the top 5 only on the padded graph: instances, and the distractor packages in"
          " their top-5 slots")
    for (which, spec), count in intruders.items():
        print(f"  {spec} on {which}: {lost[which, spec]}; " + ", ".join(f"{k} {v}" for k, v in count.most_common())
              + f" ({same_name[which, spec]} named like a gold file)")
    if args.per_instance:
        print("\ninstances whose metrics change (original -> padded):")
        print("\n".join(changed) if changed else "  none")
    if args.time:
        for spec, ts in timings.items():
            print(f"median per-query time on the padded graphs {spec}: {1000 * statistics.median(ts):.1f} ms "
                  f"(p90 {1000 * sorted(ts)[int(0.9 * (len(ts) - 1))]:.1f} ms, {len(ts)} queries)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Graph build and retrieval speed/memory benchmark on a pinned sympy sdist.

    python -m experiments.benchmarks.graph_build [--cache DIR] [--version X] [--repeat N]

Downloads the sympy sdist with pip (cached in ``--cache``, default
``~/.cache/beacon/sdists``), checks its SHA-256 against the pin below, unpacks
it into a temporary directory and measures, in one process:

* a bare ``ast.parse`` of the same ``.py`` files the graph indexes (read bytes
  + parse, trees discarded, default GC settings): the yardstick;
* the cold build (``GraphBuilder`` with an empty cache dir), the warm build (a
  new builder on the now-populated cache dir), and rebuilds after a one-line
  edit inside one function body, with the cold build's long-lived builder;
* select + pack + count latency of every registered retrieval method at two
  budgets: the first query (which builds the indexes), the first query when
  the indexes are loaded from an index store (``beacon.retrieval.index_store``)
  and the steady state;
* the first query of every method in a row on one fresh graph (indexes shared
  by all methods), built from scratch (and written to an index store) and
  loaded from that store, as a second process on the same graph would;
* peak RSS.

It prints a table with each target and PASS/MISS. A MISS is a measurement, not
an error: the exit status is 0 either way, and non-zero only if something
failed (download, hash mismatch, build, a method raising).
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import os
import platform
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from beacon.graph import GraphBuilder, scan
from beacon.graph.build import DEFAULT_MAX_FILE_BYTES, POOL_MIN_BYTES
from beacon.retrieval import method_names
from beacon.repo.history import EMPTY_HISTORY
from beacon.retrieval.indexes import attach_store
from beacon.retrieval.registry import get_method
from beacon.tokens import count_tokens

PACKAGE = "sympy"
DEFAULT_VERSION = "1.13.3"
# SHA-256 of the sdist tarball as published on PyPI. Only pinned versions run:
# timing an unverified download would not be reproducible.
PINNED_SHA256 = {
    "1.13.3": "b27fd2c6530e0ab39e275fc9b683895367e51d5da91baa8d3d64db2565fec4d9",
}
DEFAULT_CACHE = Path("~/.cache/beacon/sdists").expanduser()

# The file and function edited for the incremental rebuild, and the oracle
# control's target: a large, central module of sympy.
EDIT_FILE = "sympy/core/basic.py"
EDIT_FUNCTION = ("Basic", "atoms")
REBUILD_EDITS = 9  # a median over several edits: single rebuilds are noisy on a shared machine
METHOD_PARAMS: dict[str, dict[str, object]] = {"target_file": {"target": EDIT_FILE}}
BUDGETS = (2000, 8000)
QUERIES = (
    "Basic.atoms returns the wrong atoms when called with a type argument on an expression containing a Derivative",
    "simplify hangs on a trigonometric expression with nested square roots; regression in trigsimp",
    "Matrix.inv raises ZeroDivisionError for an invertible matrix with symbolic entries",
    "solveset returns a ConditionSet instead of a FiniteSet for a polynomial equation with rational coefficients",
)
QUERY_REPEATS = 3  # steady state: each (query, budget) is timed this many times

# Targets: (label, limit); a measurement passes when value <= limit.
COLD_RATIO_TARGET = 1.5
REBUILD_TARGET_MS = 100.0
SELECT_TARGET_MS = 50.0
FIRST_TARGET_S = 1.0  # first query of one method on a fresh graph
ALL_FIRST_TARGET_S = 3.0  # first queries of every method in a row on one fresh graph
RSS_TARGET_MB = 1024.0


# -- the sdist ---------------------------------------------------------------
def fetch_sdist(version: str, cache: Path) -> Path:
    """The verified sdist tarball, downloaded with pip into ``cache`` if missing."""
    expected = PINNED_SHA256.get(version)
    if expected is None:
        raise SystemExit(
            f"error: no pinned SHA-256 for {PACKAGE}=={version}; pinned versions: "
            f"{', '.join(sorted(PINNED_SHA256))} (add the hash to PINNED_SHA256 in {__file__})"
        )
    cache.mkdir(parents=True, exist_ok=True)
    tarball = cache / f"{PACKAGE}-{version}.tar.gz"
    if not tarball.exists():
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               f"{PACKAGE}=={version}", "-d", str(cache)]
        print("$", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        if not tarball.exists():
            raise SystemExit(f"error: pip did not produce {tarball}")
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if digest != expected:
        raise SystemExit(
            f"error: {tarball}: sha256 {digest} does not match the pinned {expected}; "
            "delete the file to download it again"
        )
    return tarball


def unpack(tarball: Path, into: Path) -> Path:
    with tarfile.open(tarball) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4: refuse unsafe members
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)
    (root,) = [p for p in into.iterdir() if p.is_dir()]
    return root


# -- measurements ------------------------------------------------------------
def bare_parse(root: Path, paths: list[str]) -> float:
    """Seconds to read and ``ast.parse`` every file, trees discarded at once."""
    start = time.perf_counter()
    for rel in paths:
        try:
            ast.parse((root / rel).read_bytes())
        except (SyntaxError, ValueError):
            pass  # the graph skips such files too; the time spent still counts
    return time.perf_counter() - start


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def edited_source(text: str, stamp: int) -> str:
    """``text`` with one statement added at the top of ``EDIT_FUNCTION``'s body."""
    cls_name, fn_name = EDIT_FUNCTION
    tree = ast.parse(text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls_name)
    fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == fn_name)
    body = fn.body
    first = body[1] if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else body[0]
    lines = text.splitlines(keepends=True)
    # The value's length changes with the stamp, so the file's size changes too:
    # two writes within one coarse mtime tick must still look modified.
    line = " " * first.col_offset + f"_beacon_bench_edit = {10 ** stamp}\n"
    lines.insert(first.lineno - 1, line)
    return "".join(lines)


def rebuild_times(builder: GraphBuilder, root: Path) -> tuple[list[float], list[int], object]:
    """Rebuild after each of ``REBUILD_EDITS`` one-line edits; check one file was reparsed."""
    path = root / EDIT_FILE
    original = path.read_text(encoding="utf-8")
    times, resolved = [], []
    graph = None
    for stamp in range(1, REBUILD_EDITS + 1):
        path.write_text(edited_source(original, stamp), encoding="utf-8")
        graph, seconds = timed(builder.build)
        if builder.last_reparsed != [EDIT_FILE]:
            raise RuntimeError(f"expected exactly {EDIT_FILE} to be reparsed, got {builder.last_reparsed}")
        times.append(seconds)
        resolved.append(len(builder.last_resolved))
    return times, resolved, graph


def fresh(graph, store: Path | None) -> None:
    """Drop every index of ``graph`` (and its store link); attach ``store`` if given."""
    graph.cache.clear()
    if store is not None:
        attach_store(graph, store)


def all_first_queries(graph, store: Path | None) -> float:
    """Seconds for the first query of every method in a row on fresh indexes that all methods share."""
    methods = [get_method(name, **METHOD_PARAMS.get(name, {})) for name in method_names()]
    fresh(graph, store)
    start = time.perf_counter()
    for method in methods:
        method.select(graph, QUERIES[0], BUDGETS[0], EMPTY_HISTORY)
    return time.perf_counter() - start


def method_latencies(graph, store: Path) -> list[tuple[str, float, float, dict[int, float]]]:
    """Per method: first-query seconds (indexes built from scratch; loaded from ``store``) and per-budget medians."""
    rows = []
    for name in method_names():
        method = get_method(name, **METHOD_PARAMS.get(name, {}))

        def query(q: str, budget: int) -> int:
            # a plain tree has no git history: the history-reading methods get an empty one
            return method.select(graph, q, budget, EMPTY_HISTORY).total_tokens  # select + pack + count

        fresh(graph, store)  # the indexes this method needs, loaded from the store (filled by all_first_queries)
        _, stored = timed(lambda: query(QUERIES[0], BUDGETS[0]))
        fresh(graph, None)  # every method's first query pays for the indexes it needs
        _, first = timed(lambda: query(QUERIES[0], BUDGETS[0]))
        medians = {}
        for budget in BUDGETS:
            samples = []
            for q in QUERIES:
                for _ in range(QUERY_REPEATS):
                    tokens, seconds = timed(lambda: query(q, budget))
                    if tokens > budget:
                        raise RuntimeError(f"{name}: {tokens} tokens over the budget {budget}")
                    samples.append(seconds)
            medians[budget] = statistics.median(samples)
        rows.append((name, first, stored, medians))
    return rows


def peak_rss_mb(who: int) -> float:
    peak = resource.getrusage(who).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB elsewhere


# -- report ------------------------------------------------------------------
def verdict(value: float, limit: float) -> tuple[str, str]:
    return f"{value / limit:.2f}", "PASS" if value <= limit else "MISS"


def print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    print(fmt.format(*header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt.format(*r))


def readme_rows(rows: list[tuple[str, str, str, str]], command: str) -> None:
    """Print the README performance table's rows for ``rows`` (what, measured, target, status)."""
    print("\nREADME performance rows (replace this benchmark's rows in README.md with these):")
    for what, value, target, status in rows:
        print(f"| {what} | {value} | {target} | {status} | `{command}` |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"sdist cache (default {DEFAULT_CACHE})")
    parser.add_argument("--version", default=DEFAULT_VERSION, help=f"{PACKAGE} version (default {DEFAULT_VERSION})")
    parser.add_argument("--repeat", type=int, default=1,
                        help="time the bare parse and the cold build N times each and keep the fastest")
    parser.add_argument("--skip-methods", action="store_true",
                        help="build and rebuild timings only (minutes faster; no select/first-query rows)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")

    tarball = fetch_sdist(args.version, args.cache.expanduser())
    with tempfile.TemporaryDirectory(prefix="beacon-bench-") as tmp:
        tmp = Path(tmp)
        root = unpack(tarball, tmp / "src")
        paths, scan_skipped = scan(root, DEFAULT_MAX_FILE_BYTES)
        source_bytes = sum((root / p).stat().st_size for p in paths)
        for rel in paths:  # read once, so that neither timing pays for a cold page cache
            (root / rel).read_bytes()

        bare = min(bare_parse(root, paths) for _ in range(args.repeat))
        cold = float("inf")
        for i in range(args.repeat):
            builder = graph = None  # drop the previous repeat's parses before timing again
            builder = GraphBuilder(root, cache_dir=tmp / f"cache{i}")
            graph, seconds = timed(builder.build)
            cold = min(cold, seconds)
        cache_dir = tmp / f"cache{args.repeat - 1}"
        stats = graph.stats
        n_edges = sum(len(indices) for _, indices in graph.edges.values())
        del graph

        warm_builder = GraphBuilder(root, cache_dir=cache_dir)
        warm_graph, warm = timed(warm_builder.build)
        del warm_builder, warm_graph  # done with it; the rest needs only the long-lived cold builder

        rebuilds, resolved, graph = rebuild_times(builder, root)
        latencies, all_cold, all_warm = [], 0.0, 0.0
        if not args.skip_methods:
            count_tokens("warm up")  # the tokenizer loads once per process: not an index cost
            all_cold = all_first_queries(graph, tmp / "indexes")  # builds, and writes the store
            all_warm = all_first_queries(graph, tmp / "indexes")  # loads what the first pass wrote
            latencies = method_latencies(graph, tmp / "indexes")

    rss_self = peak_rss_mb(resource.RUSAGE_SELF)
    rss_children = peak_rss_mb(resource.RUSAGE_CHILDREN)
    rebuild = statistics.median(rebuilds)

    print()
    print(f"{PACKAGE} {args.version} sdist ({tarball.name}, sha256 verified); Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, workers={builder.workers} "
          f"(pool used for >= {POOL_MIN_BYTES >> 20} MiB of uncached source)")
    print(f"{len(paths)} .py files scanned ({source_bytes / 1e6:.1f} MB), {len(scan_skipped)} skipped by the scan; "
          f"indexed {stats['files_indexed']}, skipped {stats['files_skipped']}; "
          f"{stats['symbols']} symbols, {n_edges} edges")
    print()
    rows = [
        ("bare ast.parse (read + parse)", f"{bare:.2f} s", "", "", ""),
        ("cold build", f"{cold:.2f} s = {cold / bare:.2f}x bare", f"<= {COLD_RATIO_TARGET}x bare",
         *verdict(cold / bare, COLD_RATIO_TARGET)),
        ("warm build (new builder, disk cache)", f"{warm:.2f} s = {warm / bare:.2f}x bare", "", "", ""),
        (f"rebuild after one-line edit (median of {len(rebuilds)})",
         f"{rebuild * 1000:.0f} ms", f"<= {REBUILD_TARGET_MS:.0f} ms", *verdict(rebuild * 1000, REBUILD_TARGET_MS)),
        ("  each rebuild", " ".join(f"{t * 1000:.0f}" for t in rebuilds) + " ms", "", "", ""),
        ("  files reparsed / re-resolved per rebuild",
         f"1 / {resolved[0]}" if len(set(resolved)) == 1 else f"1 / {resolved}", "", "", ""),
        ("peak RSS (this process)", f"{rss_self:.0f} MB", f"<= {RSS_TARGET_MB:.0f} MB", *verdict(rss_self, RSS_TARGET_MB)),
        ("peak RSS (largest child: pool worker, pip)", f"{rss_children:.0f} MB", "", "", ""),
    ]
    print_table(("measurement", "value", "target", "ratio", "status"), rows)
    print()
    method_rows = []
    for name, first, stored, medians in latencies:
        worst = max(medians.values()) * 1000
        method_rows.append((
            name, f"{first * 1000:.1f}", f"{stored * 1000:.1f}",
            *(f"{medians[b] * 1000:.1f}" for b in BUDGETS),
            *verdict(worst, SELECT_TARGET_MS),
        ))
    first_rows = []
    if method_rows:
        print(f"select + pack + count, ms (first query builds the indexes, or loads them from the index store; "
              f"then median of {len(QUERIES)} queries x {QUERY_REPEATS}; target <= {SELECT_TARGET_MS:.0f} ms per "
              "method and budget)")
        print_table(("method", "first query", "first, stored", *(f"median @{b}" for b in BUDGETS), "ratio",
                     "status"), method_rows)
        first_built = max(r[1] for r in latencies)
        first_stored = max(r[2] for r in latencies)
        first_rows = [
            ("first query, slowest method (indexes built)", f"{first_built:.2f} s", f"<= {FIRST_TARGET_S:.0f} s",
             *verdict(first_built, FIRST_TARGET_S)),
            ("first query, slowest method (index store)", f"{first_stored:.2f} s", f"<= {FIRST_TARGET_S:.0f} s",
             *verdict(first_stored, FIRST_TARGET_S)),
            ("first queries of all methods, shared indexes built", f"{all_cold:.2f} s",
             f"<= {ALL_FIRST_TARGET_S:.0f} s", *verdict(all_cold, ALL_FIRST_TARGET_S)),
            ("first queries of all methods, index store", f"{all_warm:.2f} s", f"<= {ALL_FIRST_TARGET_S:.0f} s",
             *verdict(all_warm, ALL_FIRST_TARGET_S)),
        ]
        print()
        print_table(("first query (index build or load)", "value", "target", "ratio", "status"), first_rows)
    misses = sum(r[-1] == "MISS" for r in rows + method_rows + first_rows)
    print()
    print(f"{misses} target(s) missed" if misses else "all targets met")
    build_rows = [
        (f"{PACKAGE} cold build / bare `ast.parse`", f"{cold / bare:.2f}x", f"<= {COLD_RATIO_TARGET}x", rows[1][-1]),
        (f"{PACKAGE} one-line rebuild, median of {len(rebuilds)}", f"{rebuild * 1000:.0f} ms",
         f"<= {REBUILD_TARGET_MS:.0f} ms", rows[3][-1]),
        (f"{PACKAGE} peak RSS", f"{rss_self:.0f} MB", f"<= {RSS_TARGET_MB:.0f} MB", rows[6][-1]),
    ]
    if not latencies:
        readme_rows(build_rows, "python -m experiments.benchmarks.graph_build --skip-methods")
        return 0
    slowest = max(latencies, key=lambda r: max(r[3].values()))
    first = max(latencies, key=lambda r: r[1])
    stored = max(latencies, key=lambda r: r[2])
    over = [r for r in method_rows if r[-1] == "MISS"]
    readme_rows(build_rows + [
        (f"{PACKAGE} select+pack+count, slowest method ({len(over)} of {len(method_rows)} over)",
         f"{slowest[0]} {max(slowest[3].values()) * 1000:.0f} ms", f"<= {SELECT_TARGET_MS:.0f} ms",
         "MISS" if over else "PASS"),
        (f"{PACKAGE} first query (index build), slowest method", f"{first[0]} {first[1]:.1f} s",
         f"<= {FIRST_TARGET_S:.0f} s", first_rows[0][-1]),
        (f"{PACKAGE} first query (indexes loaded from the index store), slowest method",
         f"{stored[0]} {stored[2]:.2f} s", f"<= {FIRST_TARGET_S:.0f} s", first_rows[1][-1]),
        (f"{PACKAGE} first queries of all {len(latencies)} methods on a fresh graph, indexes shared / loaded",
         f"{all_cold:.1f} s / {all_warm:.1f} s", f"<= {ALL_FIRST_TARGET_S:.0f} s",
         f"{first_rows[2][-1]} / {first_rows[3][-1]}"),
    ], "python -m experiments.benchmarks.graph_build")
    return 0


if __name__ == "__main__":
    sys.exit(main())

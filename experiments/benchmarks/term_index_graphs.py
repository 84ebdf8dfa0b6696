"""The fast term index equals the string-per-document reference on every graph ``method_outputs`` hashes.

    python -m experiments.benchmarks.term_index_graphs [--cache-dir DIR] [--limit N]

For each base commit of the 21 real dev issues and the mined ``tune`` split (the instance sets of
``method_outputs``), the saved graph is loaded from the snapshot cache with no index store (so the index is built,
not read), and ``text.term_index`` is compared byte for byte with ``term_reference.reference_term_index``; the
build times of both are summed. Exit status 1 if any graph differs. ``method_outputs --check`` cannot show this:
with an index store it reads the term index saved by an earlier build.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from beacon.localize.instances import SnapshotCache, load_instances
from beacon.retrieval import text
from experiments.benchmarks.method_outputs import REPOS, SETS
from experiments.benchmarks.term_reference import reference_term_index, same_index


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache-dir", type=Path, default=Path(".beacon-cache"))
    ap.add_argument("--limit", type=int, default=None, help="first N instances of each set")
    args = ap.parse_args(argv)
    cache = SnapshotCache(args.cache_dir, REPOS, index_store=False)
    seen: set[tuple[str, str]] = set()
    fast = ref = 0.0
    differ: list[str] = []
    for label, path, split in SETS:
        instances = load_instances(path)
        if split:
            instances = [i for i in instances if i.extra.get("split") == split]
        for inst in instances[:args.limit]:
            if (inst.repo, inst.base_commit) in seen:
                continue
            seen.add((inst.repo, inst.base_commit))
            graph = cache.graph(inst.repo, inst.base_commit)
            graph.cache.clear()
            start = time.perf_counter()
            built = text.term_index(graph)
            middle = time.perf_counter()
            expected = reference_term_index(graph)
            fast, ref = fast + middle - start, ref + time.perf_counter() - middle
            if not same_index(built, expected):
                differ.append(f"{label}/{inst.instance_id} ({inst.repo}@{inst.base_commit[:12]})")
            print(f"\r{len(seen)} graphs", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{len(seen)} graphs: term_index {fast:.2f} s, reference {ref:.2f} s (ratio {fast / max(ref, 1e-9):.2f}); "
          f"{len(differ)} differ" + "".join(f"\n  {d}" for d in differ))
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m experiments.mine``: mine localization tasks from git histories into an instances file.

    python -m experiments.mine \\
        --repo ../shared/data/git_repos/pallets__click.bundle --repo ../shared/data/git_repos/encode__httpx.bundle \\
        --exclude-instances ../shared/data/swebench_lite_dev/instances.jsonl \\
        --out experiments/data/mined_tasks.jsonl

Each ``--repo`` is a working tree, bare repository or bundle named
``owner__name`` (or given as ``PATH=owner/name``). The instances file is
JSONL, loadable by ``beacon.localize.instances.load_instances``; a sidecar
``<out>.stats.json`` holds the filters, per-repository counts of commits
seen and skipped per reason, and the output's SHA-256. See
``beacon.tasks.mine`` for the rules.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from beacon.localize.instances import load_instances
from beacon.repo.git import open_source
from beacon.tasks.mine import MINED_BY, MineFilters, instance_functions, mine_repository


def _repo_arg(text: str) -> tuple[Path, str]:
    path, _, name = text.partition("=")
    p = Path(path)
    if not name:
        stem = p.name.removesuffix(".bundle").removesuffix(".git")
        if "__" not in stem:
            raise argparse.ArgumentTypeError(f"{text}: name the repository as PATH=owner/name "
                                             f"(or call the path owner__name[.bundle|.git])")
        name = stem.replace("__", "/", 1)
    return p, name


def _exclusions(args: argparse.Namespace) -> tuple[set[str], set[str], list[str]]:
    commits: set[str] = set()
    functions: set[str] = set()
    notes = []
    sources = {name: path for path, name in args.repo}
    for path in args.exclude_instances or []:
        instances = load_instances(path)
        bases = {inst.base_commit for inst in instances}
        commits |= bases
        notes.append(f"base commits of {path} ({len(bases)})")
        held = set()
        for inst in instances:
            if inst.repo in sources:  # its gold needs the repository; others cannot collide anyway
                source = open_source(sources[inst.repo], cache_dir=args.cache_dir)
                held |= instance_functions(source, inst.repo, inst.instance_id, inst.base_commit, inst.patch)
        functions |= held
        notes.append(f"gold functions of {path} ({len(held)})")
    for path in args.exclude_commits or []:
        listed = {ln.split("#", 1)[0].strip() for ln in Path(path).read_text().splitlines()} - {""}
        commits |= listed
        notes.append(f"commits listed in {path} ({len(listed)})")
    return commits, functions, notes


def mine_filters(args: argparse.Namespace, min_chars: int) -> tuple[MineFilters, list[str]]:
    """The filters the flags ask for, exclusions resolved, and notes on what was excluded."""
    excluded, functions, notes = _exclusions(args)
    return MineFilters(min_chars, args.max_changed_lines, args.cap or None, args.seed,
                       frozenset(excluded), frozenset(functions)), notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.mine", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", action="append", required=True, type=_repo_arg, help="PATH[=owner/name]")
    ap.add_argument("--out", required=True, type=Path, help="instances JSONL to write")
    ap.add_argument("--rev", default=None, help="history to mine (default HEAD, or every ref without a HEAD)")
    ap.add_argument("--min-message-chars", type=int, default=MineFilters.min_message_chars)
    ap.add_argument("--max-changed-lines", type=int, default=MineFilters.max_changed_lines)
    ap.add_argument("--cap", type=int, default=MineFilters.cap, help="tasks per repository (0: no cap)")
    ap.add_argument("--seed", type=int, default=MineFilters.seed)
    ap.add_argument("--exclude-instances", action="append", type=Path,
                    help="held-out instances: their base commits are never mined (as commit or base), nor "
                         "commits changing one of their gold functions")
    ap.add_argument("--exclude-commits", action="append", type=Path, help="file of commit hashes, one a line")
    ap.add_argument("--cache-dir", type=Path, default=Path(".beacon-cache/bundles"), help="bundle clones")
    args = ap.parse_args(argv)

    filters, notes = mine_filters(args, args.min_message_chars)
    rows, stats = [], {}
    for path, name in args.repo:
        t0 = time.perf_counter()
        result = mine_repository(open_source(path, cache_dir=args.cache_dir), name, filters, rev=args.rev)
        seconds = time.perf_counter() - t0
        rows += result.tasks
        stats[name] = dict(sorted(result.counts.items()))  # no timings: the sidecar is deterministic
        print(f"{name}: {result.counts['seen']} commits, {result.counts['candidates']} candidates, "
              f"{len(result.tasks)} tasks ({seconds:.1f} s)", file=sys.stderr)
        for key, n in sorted(result.counts.items()):
            if key.startswith("skip:"):
                print(f"    {key[5:]:<34} {n}", file=sys.stderr)
    write_tasks(args.out, rows, {"mined_by": MINED_BY, "filters": filters.describe(), "exclusions": notes,
                                 "rev": args.rev, "repositories": stats})
    return 0


def write_tasks(out: Path, rows: list[dict], sidecar: dict) -> None:
    """``rows`` as JSONL at ``out`` and ``sidecar`` (plus task and split counts and the output's SHA-256)
    at ``<out>.stats.json``; checks that the runner can load what was written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows).encode("utf-8")
    out.write_bytes(data)
    splits = {s: sum(1 for r in rows if r["split"] == s) for s in ("tune", "test")}
    sidecar = {**sidecar, "tasks": len(rows), "splits": splits, "sha256": hashlib.sha256(data).hexdigest()}
    out.with_suffix(".stats.json").write_text(json.dumps(sidecar, indent=2, sort_keys=True) + "\n")
    load_instances(out)  # what we wrote must be loadable by the localization runner
    print(f"{len(rows)} tasks -> {out} (sha256 {sidecar['sha256'][:16]}); {splits}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())

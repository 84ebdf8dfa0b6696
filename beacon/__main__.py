"""Command line: ``python -m beacon {context,graph,methods,prune-indexes,prune-snapshots}``.

``context`` indexes a directory, selects context for a query with a retrieval
method under an exact token budget, and prints the rendered context (stdout)
and a summary line (stderr). Everything runs offline.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .graph import CodebaseGraph
from .retrieval import assemble_context, method_names


# prune command -> (the cache folder's subfolder it prunes, what it holds)
_PRUNED = {"prune-indexes": ("indexes", "graph stores"), "prune-snapshots": ("snapshots", "snapshots")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m beacon", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ctx = sub.add_parser("context", help="select context for a query under a token budget")
    ctx.add_argument("repo", type=Path)
    ctx.add_argument("query")
    ctx.add_argument("--method", default="bm25")
    ctx.add_argument("--budget", type=int, default=2000)
    ctx.add_argument("--renderer", default=None, help="override the method's renderer")
    ctx.add_argument("--target", default=None, help="path.py[:line] for the target_file oracle")
    ctx.add_argument("--top", type=int, default=10, help="ranked candidates to list on stderr")
    ctx.add_argument("--cache", type=Path, default=None, help="parse cache directory")
    graph_cmd = sub.add_parser("graph", help="index a directory and print graph statistics")
    graph_cmd.add_argument("repo", type=Path)
    graph_cmd.add_argument("--save", type=Path, default=None, help="write the graph (.npy + JSON) here")
    graph_cmd.add_argument("--cache", type=Path, default=None)
    sub.add_parser("methods", help="list registered retrieval methods")
    for name, (folder, what) in _PRUNED.items():
        prune_cmd = sub.add_parser(name, help=f"evict least recently used {what} to a size")
        prune_cmd.add_argument("cache_dir", type=Path, help=f"a cache folder (its {folder}/ is pruned)")
        prune_cmd.add_argument("--max-size", required=True, help="keep at most this much, e.g. 2G, 500M")
        prune_cmd.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")
    args = parser.parse_args(argv)

    if args.command == "methods":
        print("\n".join(method_names()))
        return 0
    if args.command in _PRUNED:
        return _prune(parser, args)
    if not args.repo.is_dir():
        parser.error(f"{args.repo}: not a directory")
    graph = CodebaseGraph.from_repo(args.repo, cache_dir=args.cache)
    if args.command == "graph":
        for key, value in graph.stats.items():
            print(f"{key}\t{value}")
        for skipped in graph.skipped:
            print(f"skipped\t{skipped.path}\t{skipped.reason}")
        if args.save:
            print(f"saved\t{graph.save(args.save)}")
        return 0
    params = {"target": args.target} if args.target else {}
    try:
        result = assemble_context(graph, args.query, args.method, budget=args.budget,
                                  renderer=args.renderer, **params)
    except (KeyError, ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(result.context.render())
    print(f"# method={result.method} budget={args.budget} tokens={result.context.total_tokens} "
          f"snippets={len(result.context)} candidates={len(result.ranking)}", file=sys.stderr)
    for note in result.context.notes:
        print(f"# note: {note}", file=sys.stderr)
    for symbol_id, score in result.ranking[: args.top]:
        print(f"#   {score:9.4f}  {symbol_id}", file=sys.stderr)
    return 0


def _prune(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from .retrieval.index_prune import parse_size, prune, prune_snapshots

    try:
        max_bytes = parse_size(args.max_size)
    except ValueError as exc:
        parser.error(f"--max-size: {exc}")
    folder, what = _PRUNED[args.command]
    root = args.cache_dir / folder
    if not root.is_dir():
        parser.error(f"{root}: not a directory (expected the {what} of cache folder {args.cache_dir})")
    stale = []  # half-made snapshot extractions; index stores write theirs inside each store
    if folder == "snapshots":
        removed, kept, stale = prune_snapshots(root, max_bytes, dry_run=args.dry_run)
    else:
        removed, kept = prune(root, max_bytes, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for entry in [*stale, *removed]:
        # a commit names a snapshot only within its repository's folder; a digest names a store alone
        name = entry.folder.relative_to(root) if folder == "snapshots" else entry.folder.name
        print(f"{verb}\t{name}\t{entry.bytes}")
    also = f" and {len(stale)} stale extractions ({sum(s.bytes for s in stale)} bytes)" if stale else ""
    print(f"# {verb} {len(removed)} {what} ({sum(s.bytes for s in removed)} bytes){also}; {kept} bytes kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())

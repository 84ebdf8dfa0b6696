"""``python -m experiments.discover REPO_OR_TREE --commit C --out tasks.jsonl``: mutation discovery.

Reads the repository (working tree, bare repository or bundle) at the commit
through git only, enumerates every single-line mutation candidate of its
non-test source files within the limits, and writes a JSONL task manifest the
repair runner loads. With ``--validate --allow-local-execution`` the
repository's tests run (through the repair harness) and only mutants that the
passing original suite kills are written, each with a ``test_command`` that
selects the failing node ids. A reached limit writes nothing and exits 2.
A plain argparse tool (not Hydra): it prepares inputs, it is not a scored run.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from beacon.repo.git import GitError, open_source
from beacon.tasks.discover import (
    DEFAULT_TOKEN_BUDGET, DiscoveryError, Limits, ValidateOptions, discover, write_manifest,
)
from beacon.tasks.mutate import OPERATORS

_DEFAULTS = Limits()


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


_UNITS = {"": 1, "K": 1 << 10, "KI": 1 << 10, "M": 1 << 20, "MI": 1 << 20, "G": 1 << 30, "GI": 1 << 30}


def _size(text: str) -> int:
    """Bytes: a positive integer, optionally with K/M/G (binary units; ``KiB`` etc. accepted)."""
    raw = text.strip().upper().removesuffix("B")
    number = raw.rstrip("KMGI")
    unit = raw[len(number):]
    if unit not in _UNITS or not number.isdigit() or int(number) <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive size such as 262144, 256K or 1G, got {text!r}")
    return int(number) * _UNITS[unit]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments.discover", description=__doc__.split("\n\n")[0])
    p.add_argument("repo", metavar="REPO_OR_TREE", help="git working tree, bare repository or .bundle")
    p.add_argument("--commit", required=True, help="commit to read (any rev; the full hash is recorded)")
    p.add_argument("--out", required=True, type=Path, help="JSONL manifest to write (atomically)")
    p.add_argument("--repo-name", help="manifest 'repo' field (default: the source's name without .git/.bundle)")
    p.add_argument("--paths", nargs="+", default=[], metavar="PATH",
                   help="only mutate .py files at or under these repository paths")
    p.add_argument("--tests", nargs="+", metavar="SEL",
                   help="base test selection: paths or node ids (default: the tests/ or test/ directory)")
    p.add_argument("--operators", nargs="+", metavar="OP", choices=list(OPERATORS),
                   help=f"only these operators (default: all of {', '.join(OPERATORS)})")
    p.add_argument("--token-budget", type=_positive, default=DEFAULT_TOKEN_BUDGET)
    lim = p.add_argument_group("limits (reaching one writes nothing and exits 2)")
    lim.add_argument("--max-file-bytes", type=_size, default=_DEFAULTS.max_file_bytes,
                     help="bytes of one source file; K/M/G suffixes allowed (default %(default)s)")
    lim.add_argument("--max-check-bytes", type=_size, default=_DEFAULTS.max_check_bytes,
                     help="cumulative bytes of mutant files compiled; K/M/G allowed (default %(default)s)")
    lim.add_argument("--max-checks", type=_positive, default=_DEFAULTS.max_checks,
                     help="number of syntax checks (default %(default)s)")
    lim.add_argument("--max-tasks", type=_positive, default=_DEFAULTS.max_tasks,
                     help="manifest rows; with --validate, candidates to validate (default %(default)s)")
    val = p.add_argument_group("validation (runs the repository's tests on this machine)")
    val.add_argument("--validate", action="store_true", help="keep only mutants the passing original suite kills")
    val.add_argument("--allow-local-execution", action="store_true",
                     help="required with --validate: consent to execute the repository's code")
    val.add_argument("--max-validate", type=_positive, help="validate at most N candidates")
    val.add_argument("--select", choices=("spread", "first"), default="spread",
                     help="which N: evenly spread over the ordered candidates (default) or the first N")
    val.add_argument("--timeout", type=float, default=60.0,
                     help="seconds per pytest run (mutant runs: min(this, max(10, 5 x original)))")
    val.add_argument("--sandbox", choices=("auto", "required", "off"), default="auto")
    val.add_argument("--no-confirm", action="store_true",
                     help="skip re-checking each kept task with the repair runner's preconditions")
    val.add_argument("--max-node-ids", type=_positive, default=25,
                     help="select the failing tests' files instead of node ids beyond this many")
    p.add_argument("--cache-dir", type=Path, help="where bundles are cloned (default: a temp folder)")
    return p


def _repo_name(path: Path) -> str:
    name = path.resolve().name
    for suffix in (".bundle", ".git"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.validate and not args.allow_local_execution:
        parser.error("--validate runs the repository's test suite (arbitrary code) on this machine; "
                     "add --allow-local-execution to consent, or drop --validate for an unvalidated candidate list")
    if not args.validate and (args.max_validate or args.no_confirm):
        parser.error("--max-validate and --no-confirm only apply with --validate")
    limits = Limits(args.max_file_bytes, args.max_check_bytes, args.max_checks, args.max_tasks)
    options = None
    if args.validate:
        from beacon.repair.prepare import RunSettings
        settings = RunSettings(allow_local_execution=True, timeout_s=args.timeout, sandbox=args.sandbox)
        options = ValidateOptions(settings, max_validate=args.max_validate, select=args.select,
                                  confirm=not args.no_confirm, max_node_ids=args.max_node_ids)
    try:
        source = open_source(args.repo, cache_dir=args.cache_dir)
        result = discover(source, args.commit, repo=args.repo_name or _repo_name(Path(args.repo)),
                          paths=args.paths, tests=args.tests, token_budget=args.token_budget, limits=limits,
                          operators=args.operators,
                          validate=options, progress=lambda line: print(line, file=sys.stderr, flush=True))
    except (DiscoveryError, GitError, PermissionError) as exc:
        print(f"discover: error: {exc}", file=sys.stderr)
        return 2
    rows = result.rows()
    write_manifest(rows, args.out)
    summary = {**result.summary(), "written": len(rows), "out": str(args.out)}
    print(json.dumps(summary, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

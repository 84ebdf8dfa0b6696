"""Audit the dev task sets: gold the retriever cannot rank, leakage between halves, degenerate queries.

    python -m experiments.benchmarks.task_audit [--sets real,tune,test,clog_tune,clog_test,clog2_tune,clog2_test]
        [--no-graphs] [--cache-dir DIR] [--near 0.9] [--budget 4000]

Rerun after any re-mining. Four checks, each printed as counts per set and per
repository, then the offending instance ids:

1. **Rankable gold** (reads the base-commit graphs from the cache; ``--no-graphs``
   skips it): a gold file (``gold.files(added=False)``, the files every
   retrieval metric scores against) is *unrankable* when the graph skipped it
   (syntax error under Python 3.11, undecodable, too big), does not hold it
   (not ``.py``), or holds only test code (never a candidate, ``masks.packable``);
   it is *demoted* (rankable, multiplied down by recipes that set ``vendored`` or
   ``peripheral``) when under a vendored or peripheral folder (``masks``). A gold
   function is unrankable when the graph has no such definition or it is test
   code. ``no_rankable_file``/``_function``: tasks with no rankable gold file/function.
   ``gold_function_over_budget``: a gold function longer than ``--budget`` tokens, which
   ``budget_recall`` can never count (it asks for the whole span in one snippet).
   The metrics keep such a task (its gold is not empty, so ``acc_at_k`` and
   ``budget_recall`` score it): it is a certain miss, never dropped.
2. **Leakage**: two tasks in different halves (``tune`` vs ``test``; the real
   issues count as ``tune``: choices are made on them) sharing a fix commit, a
   (repo, base, gold functions) key, the same change (the patch's ``+``/``-``
   lines, so a cherry-pick at another base counts) or a near-identical query
   (``difflib`` ratio ≥ ``--near`` on whitespace-normalized lower-case text, same
   repository), within a family and across families. The same pairs inside one
   half are listed too (not leakage, but one fix weighs twice).
3. **Degenerate queries**: shorter than the miners' 30 characters, or than 4 words
   once commit hashes and ``#N`` are dropped; a query that names a gold file (its path, its dotted module
   or its ``name.py``).
4. **Integrity**: an instance id in two sets' files, a base commit the bundle
   lacks, a patch ``gold_from_patch`` cannot place, a row whose ``gold_functions``
   are not its gold's (``--no-graphs`` skips the last three); and the miners'
   hold-out rule (``dev_issue_overlap``: a mined or changelog task at a real
   issue's base commit or changing one of its gold functions; with ``real`` in
   ``--sets``, functions only when graphs are read).
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from beacon.graph.codebase import CodebaseGraph
from beacon.localize.gold import Gold, gold_from_patch
from beacon.localize.instances import Instance, SnapshotCache
from beacon.retrieval.masks import PERIPHERAL_DIRS, VENDOR_DIRS
from beacon.tasks.mine import change_key
from beacon.tokens import count_tokens
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, REPOS, base_set, instances

ALL_SETS = "real,tune,test,clog_tune,clog_test,clog2_tune,clog2_test"
MIN_CHARS = 30  # the miners' min_message_chars: below it a query is degenerate by their own rule
MIN_WORDS = 4  # three words or fewer ("Documented send_from_directory") say little
BUDGET = 4000  # the recall budget the README reports


def family(which: str) -> str:
    """``real``, ``mined``, ``clog`` or ``clog2``: the file a set (or a text variant of one) comes from."""
    base = base_set(which)
    return {"tune": "mined", "test": "mined"}.get(base, base.rsplit("_", 1)[0])


def half(which: str) -> str:
    """``tune`` or ``test``; the real issues count as ``tune`` (methods are chosen on them)."""
    base = base_set(which)
    return "tune" if base == "real" else base.rsplit("_", 1)[-1]


@dataclass
class Task:
    """One instance of one set, with what the checks need."""

    which: str
    inst: Instance
    gold_functions: tuple[str, ...] | None = None  # from the row, or from the gold when graphs are read
    gold_files: tuple[str, ...] = ()
    flags: dict[str, list[str]] = field(default_factory=dict)  # category -> details
    checked: Counter = field(default_factory=Counter)  # gold files / functions the graph checks looked at

    @property
    def id(self) -> str:
        return self.inst.instance_id

    def flag(self, category: str, detail: str = "") -> None:
        self.flags.setdefault(category, []).append(detail)


def load(sets: Iterable[str]) -> list[Task]:
    tasks = []
    for which in sets:
        for inst in instances(which):
            gf = inst.extra.get("gold_functions")
            files = inst.extra.get("files") or ([inst.extra["file"]] if "file" in inst.extra else [])
            tasks.append(Task(which, inst, tuple(sorted(gf)) if gf is not None else None, tuple(files)))
    return tasks


# -- 1. rankable gold ------------------------------------------------------------------------------

def file_status(path: str, skipped: dict[str, str], test_only: set[str], present: set[str]) -> str:
    """``ok``, ``demoted:vendored|peripheral`` or ``unrankable:<why>`` for one gold file."""
    if path in skipped:
        return f"unrankable:skipped ({skipped[path]})"
    if path not in present:
        return "unrankable:not_in_graph"
    if path in test_only:
        return "unrankable:test"
    folders = PurePosixPath(path).parts[:-1]
    if any(p in VENDOR_DIRS for p in folders):
        return "demoted:vendored"
    if any(p in PERIPHERAL_DIRS for p in folders):
        return "demoted:peripheral"
    return "ok"


def check_gold(task: Task, graph: CodebaseGraph, gold: Gold, budget: int = BUDGET) -> None:
    """Flag ``task``'s unrankable and demoted gold, and gold functions longer than ``budget`` tokens (the
    budget recall counts a function only when one snippet holds all of it: such a function never counts)."""
    skipped = {s.path: s.reason.split(":")[0] for s in graph.skipped}
    present, not_test = set(), set()
    for s in graph.symbols:
        present.add(s.path)
        if not s.is_test:
            not_test.add(s.path)
    test_only = present - not_test
    files = gold.files(added=False)
    task.checked.update(gold_files=len(files), gold_functions=len(gold.functions), graphs=1,
                        graph_skipped_files=len(skipped))
    ok_files = 0
    for path in files:
        status = file_status(path, skipped, test_only, present)
        if status.startswith("unrankable"):
            task.flag("gold_file_unrankable", f"{path}: {status.split(':', 1)[1]}")
        else:
            ok_files += 1
            if status != "ok":
                task.flag("gold_file_demoted", f"{path}: {status.split(':', 1)[1]}")
    if files and not ok_files:
        task.flag("no_rankable_file")
    index = graph.index
    ok_functions = over = 0
    for f in gold.functions:
        i = index.get(f)
        if i is None:
            task.flag("gold_function_unrankable", f"{f}: not a definition in the graph")
        elif graph.symbols[i].is_test:
            task.flag("gold_function_unrankable", f"{f}: test code")
        else:
            ok_functions += 1
            if (n := count_tokens(graph.source(i))) > budget:
                task.flag("gold_function_over_budget", f"{f}: {n} tokens")
                over += 1
    if gold.functions and not ok_functions:
        task.flag("no_rankable_function")
    if gold.functions and over == len(gold.functions):
        task.flag("no_packable_function", f"every gold function is over {budget} tokens: budget recall 0")
    if not files:
        task.flag("no_gold_file", "every gold file is added by the patch (file metrics: not eligible)")
    if not gold.functions:
        task.flag("no_gold_function", "no gold function (function metrics: not eligible)")


def check_graphs(tasks: list[Task], cache_dir: Path, log=sys.stderr, budget: int = BUDGET) -> None:
    """Check 1 and the integrity checks that need the base commit: snapshot, gold, graph per task."""
    cache = SnapshotCache(cache_dir, REPOS)
    for n, task in enumerate(tasks, 1):
        inst = task.inst
        try:
            snapshot = cache.snapshot(inst.repo, inst.base_commit)
        except Exception as exc:  # a base commit the bundle lacks (GitError), or no bundle at all
            task.flag("base_missing", f"{type(exc).__name__}: {str(exc)[:120]}")
            continue
        try:
            gold = gold_from_patch(inst.instance_id, inst.patch, snapshot)
        except Exception as exc:  # GoldError: a hunk that does not apply at the base, a file that does not parse
            task.flag("patch_does_not_apply", f"{type(exc).__name__}: {str(exc)[:160]}")
            continue
        if task.gold_functions is None:
            task.gold_functions = tuple(sorted(gold.functions))
        elif task.gold_functions != tuple(sorted(gold.functions)):
            task.flag("gold_functions_field_differs", "the row's gold_functions are not gold_from_patch's")
        task.gold_files = gold.files(added=False)
        graph = cache.graph(inst.repo, inst.base_commit)
        check_gold(task, graph, gold, budget)
        graph.cache.clear()
        if n % 100 == 0:
            print(f"  graphs: {n}/{len(tasks)}", file=log)


# -- 2. leakage ------------------------------------------------------------------------------------

def normal_query(text: str) -> str:
    return " ".join(re.sub(r"[^\w./]+", " ", text.lower()).split())


def leak_pairs(tasks: list[Task], near: float = 0.9) -> list[tuple[str, Task, Task, str]]:
    """``(kind, a, b, detail)`` for every pair of tasks sharing a fix, a (repo, base, gold), a change or a
    near-identical query (see the module docstring); each unordered pair once per kind."""
    keys: dict[str, dict[object, list[Task]]] = defaultdict(lambda: defaultdict(list))
    for t in tasks:
        if t.inst.extra.get("commit"):
            keys["same_fix"][(t.inst.repo, t.inst.extra["commit"])].append(t)
        if t.gold_functions:
            keys["same_base_gold"][(t.inst.repo, t.inst.base_commit, t.gold_functions)].append(t)
        keys["same_change"][(t.inst.repo, change_key(t.inst.patch))].append(t)
    out = []
    for kind, groups in keys.items():
        for key, group in groups.items():
            for i, a in enumerate(group):
                out += [(kind, a, b, "") for b in group[i + 1:] if a.id != b.id or a.which != b.which]
    by_repo: dict[str, list[tuple[str, Task]]] = defaultdict(list)
    for t in tasks:
        by_repo[t.inst.repo].append((normal_query(t.inst.problem_statement), t))
    for items in by_repo.values():
        for i, (qa, a) in enumerate(items):
            for qb, b in items[i + 1:]:
                if a.id == b.id:
                    continue
                m = difflib.SequenceMatcher(None, qa, qb, autojunk=False)
                if m.real_quick_ratio() >= near and m.quick_ratio() >= near and (r := m.ratio()) >= near:
                    out.append(("near_query", a, b, f"ratio {r:.2f}"))
    return out


def dev_overlap(tasks: list[Task]) -> None:
    """The miners' hold-out rule, checked: no mined or changelog task at a real issue's base commit (as its
    base or its fix) or changing one of its gold functions (known once graphs are read)."""
    real = [t for t in tasks if family(t.which) == "real"]
    bases = {(t.inst.repo, t.inst.base_commit): t.id for t in real}
    functions = {(t.inst.repo, f): t.id for t in real for f in t.gold_functions or ()}
    for t in tasks:
        if family(t.which) == "real":
            continue
        for commit in (t.inst.base_commit, t.inst.extra.get("commit")):
            if (t.inst.repo, commit) in bases:
                t.flag("dev_issue_overlap", f"commit {commit[:12]} is the base of {bases[(t.inst.repo, commit)]}")
        for f in t.gold_functions or ():
            if (t.inst.repo, f) in functions:
                t.flag("dev_issue_overlap", f"{f} is gold of {functions[(t.inst.repo, f)]}")


# -- 3. degenerate queries -------------------------------------------------------------------------

def gold_mentions(query: str, files: Iterable[str]) -> list[str]:
    """How ``query`` names a gold file: ``path`` (``src/pkg/mod.py``), ``module`` (``pkg.mod``, a ``src/``
    prefix dropped) or ``name`` (``mod.py``); ``__init__.py`` names its package."""
    found = []
    low = query.lower()
    for path in files:
        p = PurePosixPath(path)
        parts = list(p.with_suffix("").parts)
        if parts and parts[0] == "src":
            parts = parts[1:]
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        dotted = ".".join(parts)
        if path.lower() in low:
            found.append(f"path {path}")
        elif "." in dotted and re.search(rf"(?<![\w.]){re.escape(dotted.lower())}(?![\w])", low):
            found.append(f"module {dotted}")
        elif p.name != "__init__.py" and re.search(rf"(?<![\w/.]){re.escape(p.name.lower())}", low):
            found.append(f"name {p.name}")
    return found


def content_words(query: str) -> list[str]:
    """The query's words without commit hashes and ``#N`` references ("Partially revert ab84f9b…" is 2)."""
    return [w for w in query.split() if not re.fullmatch(r"\(?(#\d+|[0-9a-f]{7,40})\)?[.,:]?", w)]


def check_queries(task: Task) -> None:
    q = task.inst.problem_statement.strip()
    words = content_words(q)
    if len(q) < MIN_CHARS or len(words) < MIN_WORDS:
        task.flag("short_query", f"{len(q)} chars, {len(words)} words: {q[:60]!r}")
    if family(task.which) != "real":  # an issue naming its file is how users write; a mined query doing so is easy
        for how in gold_mentions(q, task.gold_files):
            task.flag("query_names_gold_file", how)


# -- report ----------------------------------------------------------------------------------------

CATEGORIES = ("no_rankable_file", "no_rankable_function", "gold_file_unrankable", "gold_function_unrankable",
              "gold_file_demoted", "gold_function_over_budget", "no_packable_function",
              "no_gold_file", "no_gold_function", "short_query", "query_names_gold_file",
              "base_missing", "patch_does_not_apply", "gold_functions_field_differs", "duplicate_id",
              "dev_issue_overlap")
GRAPH_CATEGORIES = frozenset(CATEGORIES[:9]) | {"base_missing", "patch_does_not_apply", "gold_functions_field_differs"}


def audit(sets: list[str], *, graphs: bool, cache_dir: Path = DEFAULT_CACHE, near: float = 0.9,
          budget: int = BUDGET, log=sys.stderr) -> tuple[list[Task], list[tuple[str, Task, Task, str]]]:
    """Every check on ``sets``: the tasks with their flags, and the leak pairs."""
    tasks = load(sets)
    seen: dict[str, Task] = {}
    for t in tasks:  # the same id in two files (one file refuses duplicates when loaded)
        if t.id in seen and family(seen[t.id].which) != family(t.which):
            t.flag("duplicate_id", f"also in {seen[t.id].which}")
        seen.setdefault(t.id, t)
    if graphs:
        check_graphs(tasks, cache_dir, log, budget)
    for t in tasks:
        check_queries(t)
    dev_overlap(tasks)
    return tasks, leak_pairs(tasks, near)


def report(tasks: list[Task], pairs: list[tuple[str, Task, Task, str]], sets: list[str], *, graphs: bool = True,
           out=sys.stdout) -> None:
    def p(*a):
        print(*a, file=out)

    per_set = {w: Counter() for w in sets}
    per_repo: dict[str, Counter] = defaultdict(Counter)
    for t in tasks:
        per_set[t.which]["tasks"] += 1
        per_repo[t.inst.repo]["tasks"] += 1
        for c in t.flags:
            per_set[t.which][c] += 1
            per_repo[t.inst.repo][c] += 1
    cats = [c for c in CATEGORIES if graphs or c not in GRAPH_CATEGORIES]
    repos = sorted(per_repo)
    p("## tasks flagged per category and set (a task counts once per category)")
    p(f"{'category':<28}" + "".join(f"{w:>11}" for w in sets))
    for c in ["tasks", *cats]:
        p(f"{c:<28}" + "".join(f"{per_set[w][c]:>11}" for w in sets))
    if graphs:
        total = sum((t.checked for t in tasks), Counter())
        p(f"checked: {total['gold_files']} gold files and {total['gold_functions']} gold functions in "
          f"{total['graphs']} base-commit graphs (which skipped {total['graph_skipped_files']} files in all)")
    p("\n## per repository")
    p(f"{'category':<28}" + "".join(f"{r.split('/')[1][:10]:>11}" for r in repos))
    for c in ["tasks", *cats]:
        p(f"{c:<28}" + "".join(f"{per_repo[r][c]:>11}" for r in repos))
    p("\n## leak pairs (kind: cross-half / same-half, by family pair)")
    table: Counter = Counter()
    for kind, a, b, _ in pairs:
        fam = "/".join(sorted((family(a.which), family(b.which))))
        table[(kind, fam, "cross" if half(a.which) != half(b.which) else "same")] += 1
    for (kind, fam, where), n in sorted(table.items()):
        p(f"  {kind:<16}{fam:<14}{where + '-half':<12}{n:>5}")
    if not pairs:
        p("  none")
    p(f"  (checked: {len(tasks)} tasks; kinds same_fix, same_base_gold, same_change, near_query; a kind or "
      "family pair not listed has no pair)")
    p("\n## offending ids")
    for c in cats:
        hits = [t for t in tasks if c in t.flags]
        if not hits:
            continue
        p(f"{c} ({len(hits)}):")
        for t in hits:
            p(f"  {t.which:<11} {t.id}  " + "; ".join(d for d in t.flags[c] if d)[:200])
    p("leak pairs, cross-half (a | b):")
    for kind, a, b, detail in pairs:
        if half(a.which) != half(b.which):
            p(f"  {kind:<15} {a.which}:{a.id} | {b.which}:{b.id} {detail}")
    p("leak pairs, same half:")
    for kind, a, b, detail in pairs:
        if half(a.which) == half(b.which):
            p(f"  {kind:<15} {a.which}:{a.id} | {b.which}:{b.id} {detail}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=ALL_SETS, help=f"comma-separated (default {ALL_SETS})")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--no-graphs", action="store_true", help="skip the checks that read snapshots and graphs")
    ap.add_argument("--near", type=float, default=0.9, help="difflib ratio for near-identical queries")
    ap.add_argument("--budget", type=int, default=BUDGET, help="tokens: gold functions longer cannot be packed")
    args = ap.parse_args(argv)
    sets = args.sets.split(",")
    tasks, pairs = audit(sets, graphs=not args.no_graphs, cache_dir=args.cache_dir, near=args.near,
                         budget=args.budget)
    report(tasks, pairs, sets, graphs=not args.no_graphs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Localization tasks mined from git history: one commit, one non-test ``.py`` file, existing functions.

A commit is a task when it is not a merge, changes exactly one non-test
``.py`` file (test ``.py`` files and non-Python files such as docs or the
changelog may change too, but are left out of the patch), that file exists
at the parent and is a source file (not under ``docs/``/``examples/``, not
``setup.py``), and the gold of that file's diff, computed by the same rules
as SWE-bench instances (``beacon.localize.gold.gold_from_patch``), names at
least one function or method of the parent. Gold units always come from the
original file, so a gold function always exists at the base commit; a
change only at module level or only adding new functions names none and is
skipped.

The query is the commit message without its trailer block (see
``strip_trailers``) and ``(cherry picked from …)`` lines. The base is the
parent commit. Leak guard: a commit whose gold functions include a gold
function of a held-out instance (the SWE-bench dev slice, given as
``exclude_functions``) is skipped, since it may be that instance's fix or
a close relative; commits equal to a held-out base commit (as commit or
base) are skipped too (``exclude_commits``). Cheap filters (message
length, changed lines, exclusions) run on one ``git log --numstat`` pass;
diffs and parent files are read only for the commits passing them, and gold
is computed on the one parent file written to a temporary folder rather
than a full snapshot.

Sampling is deterministic: the candidates (commits passing the log
filters), sorted by commit hash, are shuffled by ``random.Random(seed)``
and checked for gold in that order until ``cap`` tasks are found; that is a
uniform sample of the eligible set, without diffing every candidate
(candidates after the cap are counted as ``not_examined_cap_reached``).
Tasks are then sorted by commit time so the file reads chronologically.
``split`` is ``tune`` or ``test`` by the parity of the instance id's
SHA-256 (about 50/50, stable under re-mining with other filters). A commit
whose change (``change_key``: its ``+``/``-`` lines) equals a chosen task's is
skipped (``duplicate_change``): a commit re-made on the same parent or a
cherry-pick would otherwise be the same task, possibly once in each half.
"""
from __future__ import annotations

import hashlib
import random
import re
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

# Test files by the graph's predicate, so a file is gold here exactly when it can be a retrieval candidate.
from ..graph.symbols import is_test_path
from ..localize.gold import Gold, GoldError, gold_from_patch
from ..data.unified_diff import parse_unified_diff
from ..repo.git import GitError, GitSource, run_git
from ..repo.history import git_log

# 2: test files by the graph's is_test_path (testsuite/ added, test.py is source); 3: duplicate_change (the
# committed set is mined by 3)
MINED_BY = "beacon.tasks.mine/3"
# "Key: value" as git's trailer parser reads it: a token without spaces, a colon, a value.
_TRAILER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*:\s*\S")
_CHERRY = re.compile(r"^\(cherry picked from commit [0-9a-f]+\)$")
# Person trailers are never content; squash merges leave them mid-message, so they go anywhere.
_PERSON = re.compile(r"^(Co-authored-by|Signed-off-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|"
                     r"Helped-by|Cc):", re.IGNORECASE)
_NON_SOURCE_DIRS = {"docs", "doc", "examples", "example", "scripts", "benchmarks", "artwork"}


@dataclass(frozen=True)
class MineFilters:
    min_message_chars: int = 30  # after trailer stripping; below this most messages are "fix typo"
    max_changed_lines: int = 200  # added + removed lines in the task's file
    cap: int | None = 80  # tasks per repository (None: all eligible)
    seed: int = 0
    exclude_commits: frozenset[str] = field(default_factory=frozenset)  # commit or base hashes
    # "owner/name:path::qualname" of held-out instances' gold functions (leak guard, see below)
    exclude_functions: frozenset[str] = field(default_factory=frozenset)

    def describe(self) -> dict:
        """The filters as recorded in every row (exclusions as a count and digest, not the list)."""
        out = asdict(self)
        ex = sorted(self.exclude_commits)
        out["exclude_commits"] = {"count": len(ex),
                                  "sha256": hashlib.sha256("\n".join(ex).encode()).hexdigest()[:16]}
        fx = sorted(self.exclude_functions)
        out["exclude_functions"] = {"count": len(fx),
                                    "sha256": hashlib.sha256("\n".join(fx).encode()).hexdigest()[:16]}
        return out


@dataclass
class MineResult:
    tasks: list[dict]
    counts: Counter  # commits seen, candidates after the log filters, skipped per reason, tasks


def is_source_path(path: str) -> bool:
    p = PurePosixPath(path)
    return p.name not in ("setup.py", "conf.py") and not any(part in _NON_SOURCE_DIRS for part in p.parts[:-1])


def strip_trailers(message: str) -> str:
    """The message without its trailer block, person trailers and cherry-pick notes; whitespace tidied.

    As git's trailer rules, simplified: the last paragraph (never the subject)
    is a trailer block when every line is ``Key: value`` or an indented
    continuation, its first line being ``Key: value``; such blocks are
    dropped from the end until the last paragraph is not one.
    """
    lines = [ln.rstrip() for ln in message.replace("\r\n", "\n").split("\n")]
    lines = [ln for ln in lines if not (_CHERRY.match(ln.strip()) or _PERSON.match(ln.strip()))]
    while True:  # trailer paragraphs at the end, one at a time (so stripping twice changes nothing)
        while lines and not lines[-1]:
            lines.pop()
        start = len(lines)
        while start > 0 and lines[start - 1]:
            start -= 1
        block = lines[start:]
        if not (start > 0 and block and _TRAILER.match(block[0])
                and all(_TRAILER.match(ln) or ln[:1] in (" ", "\t") for ln in block)):
            break
        lines = lines[:start]
    text = "\n".join(lines).strip()
    return re.sub(r"\n{3,}", "\n\n", text)


@dataclass
class _Commit:
    sha: str
    parents: list[str]
    time: int
    message: str
    numstat: list[tuple[int | None, int | None, str]]


def _log(source: GitSource, revs: list[str]) -> list[_Commit]:
    # One pass for every commit: hashes, parents, time, message and per-file line counts.
    commits = []
    for (sha, parents, time, message), rest in git_log(source, ["%H", "%P", "%ct", "%B"],
                                                       ["--no-renames", "--numstat", *revs]):
        stats = []
        for line in rest.splitlines():
            if line.strip():
                added, removed, path = line.split("\t", 2)
                stats.append((None if added == "-" else int(added), None if removed == "-" else int(removed), path))
        commits.append(_Commit(sha, parents.split(), int(time), message, stats))
    return commits


def _screen(c: _Commit, filters: MineFilters) -> tuple[str | None, str | None, str]:
    """(skip reason or None, the task's file, the stripped query) from the log alone."""
    query = strip_trailers(c.message)
    if len(c.parents) > 1:
        return "merge", None, query
    if not c.parents:
        return "root_commit", None, query
    py = [(a, r, p) for a, r, p in c.numstat if p.endswith(".py") and not is_test_path(p)]
    if not py:
        return "no_non_test_py_file", None, query
    if len(py) > 1:
        return "several_non_test_py_files", None, query
    added, removed, path = py[0]
    if not is_source_path(path):
        return "not_a_source_file", path, query
    if added is None:
        return "binary", path, query
    if c.sha in filters.exclude_commits or c.parents[0] in filters.exclude_commits:
        return "excluded_commit", path, query
    if len(query) < filters.min_message_chars:
        return "message_too_short", path, query
    if added + removed > filters.max_changed_lines:
        return "diff_too_large", path, query
    return None, path, query


def file_gold(instance_id: str, patch: str, originals: dict[str, bytes]) -> Gold:
    """``gold_from_patch`` on just the patch's original files, written to a temporary folder.

    Gold reads nothing but the patched files, so this equals the gold on the
    full snapshot at a fraction of the cost.
    """
    with tempfile.TemporaryDirectory(prefix="beacon-mine-") as tmp:
        for path, data in originals.items():
            target = Path(tmp) / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return gold_from_patch(instance_id, patch, Path(tmp))


def instance_functions(source: GitSource, repo: str, instance_id: str, base: str, patch: str) -> set[str]:
    """``repo:unit`` of every gold function of a (held-out) instance, for ``exclude_functions``."""
    paths = [fp.old_path for fp in parse_unified_diff(patch) if fp.old_path and fp.old_path.endswith(".py")]
    gold = file_gold(instance_id, patch, {p: source.read_file(base, p) for p in paths})
    return {f"{repo}:{f}" for f in gold.functions}


def _gold_check(source: GitSource, repo: str, c: _Commit, path: str, instance_id: str,
                exclude: frozenset[str]) -> tuple[str | None, str, dict]:
    """(skip reason or None, patch, gold summary) from the file's diff and its parent version."""
    base = c.parents[0]
    try:
        raw = run_git(["diff", "--no-color", "--no-ext-diff", "--no-renames", "-U3", base, c.sha, "--", path],
                      git_dir=source.git_dir)
        old = source.read_file(base, path)
    except GitError:
        return "file_not_at_base", "", {}  # created by the commit
    try:
        patch = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not_utf8", "", {}
    if not patch.strip():
        return "empty_diff", "", {}
    try:
        gold = file_gold(instance_id, patch, {path: old})
    except GoldError as exc:  # mostly Python 2 files, which the graph cannot parse either
        reason = "base_file_does_not_parse" if "cannot parse" in str(exc) else f"gold_error:{type(exc).__name__}"
        return reason, patch, {}
    if not gold.functions:
        return "no_existing_function_changed", patch, {}
    if any(f"{repo}:{f}" in exclude for f in gold.functions):
        return "held_out_function", patch, {}
    return None, patch, {"files": list(gold.paths), "functions": list(gold.functions), "units": list(gold.units)}


def change_key(patch: str) -> str:
    """The patch's ``+``/``-`` lines with its file headers: equal for the same change made twice (a commit
    re-made on the same parent, a cherry-pick at another base), whatever the commit or the base."""
    return "\n".join(ln for ln in patch.splitlines()
                     if ln[:1] in "+-" and (ln[:3] not in ("+++", "---") or ln.startswith(("+++ b/", "--- a/"))))


def split_of(instance_id: str) -> str:
    return "tune" if int(hashlib.sha256(instance_id.encode()).hexdigest(), 16) % 2 == 0 else "test"


def mine_repository(source: GitSource, repo: str, filters: MineFilters, *, rev: str | None = None) -> MineResult:
    """Tasks of ``repo`` (``owner/name``) from the history of ``rev`` in ``source``.

    Without ``rev``: ``HEAD``, or every ref when there is no ``HEAD`` (the
    SWE-bench dev bundles hold only one tag per instance).
    """
    revs = [rev] if rev else ["HEAD"] if source.has_commit("HEAD") else ["--all"]
    counts: Counter = Counter()
    candidates = []
    for c in _log(source, revs):
        counts["seen"] += 1
        reason, path, query = _screen(c, filters)
        if reason:
            counts[f"skip:{reason}"] += 1
        else:
            candidates.append((c, path, query))
    # Shuffle the candidates (stable order, then the seed) and check gold in that order until
    # ``cap`` tasks are found: the eligible ones among a random permutation of the candidates are
    # a random permutation of the eligible set, so this samples as "all eligible, then shuffle",
    # and stops after ~cap diffs instead of one per candidate.
    order = sorted(candidates, key=lambda t: t[0].sha)
    random.Random(filters.seed).shuffle(order)
    chosen: list[dict] = []
    changes: set[str] = set()
    for index, (c, path, query) in enumerate(order):
        if filters.cap is not None and len(chosen) >= filters.cap:
            counts["skip:not_examined_cap_reached"] += len(order) - index
            break
        instance_id = f"{repo.replace('/', '__')}-{c.sha[:12]}"
        reason, patch, gold = _gold_check(source, repo, c, path, instance_id, filters.exclude_functions)
        if not reason and change_key(patch) in changes:  # the same change twice could sit in both halves
            reason = "duplicate_change"
        if reason:
            counts[f"skip:{reason}"] += 1
            continue
        changes.add(change_key(patch))
        chosen.append({
            "instance_id": instance_id, "repo": repo, "base_commit": c.parents[0],
            "problem_statement": query, "patch": patch, "commit": c.sha, "commit_time": c.time,
            "file": path, "gold_functions": gold["functions"], "split": split_of(instance_id),
            "mined_by": MINED_BY, "filters": filters.describe()})
    counts["candidates"] = len(candidates)
    chosen.sort(key=lambda t: (t["commit_time"], t["commit"]))
    counts["tasks"] = len(chosen)
    return MineResult(chosen, counts)

"""Localization tasks mined from changelog entries: a human description of a fix, pinned to its commit.

A changelog entry (``CHANGES.rst``, ``CHANGELOG.md``, ``ChangeLog``,
``HISTORY.rst`` … at the repository root) reads like an issue title plus a
first paragraph, closer to a bug report than a commit message. Mining:

1. **Entries** (``changelog_entries.parse_entries``): top-level bullets (``-``/``*``/``+``,
   indented at most 3 spaces) with their continuation lines, each with the
   nearest heading above it (its *section*). An entry is a *fix* when its
   section says fix/bug, or its wording does, or it cites an issue
   (``:issue:`N```, ``{issue}`N```, ``#N``, ``…/issues/N``), unless its
   section is a feature/removal/deprecation/docs section (then only the
   wording counts).
2. **Added by** the non-merge commit C whose changelog diff adds the entry's
   first line while the parent's changelog text does not hold the entry
   (moved entries are not new); an entry whose first line replaces a close
   variant (an edit) is skipped; the first commit (oldest) adding a text wins.
3. **The fix**, first that applies: C itself when it changes a non-test
   source ``.py`` file; else the pull-request merge that brought C into the
   mainline (``Merge pull request #…``, at most ``max_branch_commits``
   commits); else the one PR merge or the one non-merge commit changing
   source that cites a number the entry cites. Anything else is dropped
   (``unpinned``/``ambiguous_issue``). A fix that adds more than one entry is
   dropped (its gold would be shared between descriptions).
4. **Gold** = ``gold_from_patch`` on the fix's diff (base = its first parent)
   restricted to non-test, non-doc source ``.py`` files; kept when 1-3 such
   files change and at least one existing function does (as ``mine.py``).
   The base's changelog must not already hold the entry.
5. **Query** = the entry without its bullet, dedented, markup kept, issue/PR
   references stripped (``strip_refs``) so numbers cannot leak.

Sampling and splits follow ``mine.py``: candidates sorted by hash, shuffled
by ``random.Random(seed)``, pinned in that order until ``cap`` per
repository. ``split``: a fix commit that is also a mined task (``mine.py``, the
same fix and gold under another query) keeps that task's half, and so does a
fix making the same change as a mined task (``change_key``: a cherry-pick or a
one-commit PR merge), so a knob chosen on one ``tune`` half never has seen the
gold of the other set's ``test`` half; every other task by the parity of
SHA-256(instance id). Two fixes making the same change (a backport and its
original, each with its own entry) are one task: the second is skipped
(``change_shared``), as a fix adding two entries is.

A later batch (``previous``: the task rows of the batches before it) continues
the same shuffled order: an entry whose fix a previous task holds is skipped
(``previous_batch``) without counting towards ``cap``, and so is a task whose
base commit and gold functions a previous task has (``previous_base_gold``) or
whose change a previous task makes (``previous_change``), so the batches share no
fix, no (base, gold) pair and no change.
"""
from __future__ import annotations

import difflib
import json
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..graph.symbols import is_test_path
from ..repo.git import GitError, GitSource, run_git
from .changelog_entries import Entry, parse_entries, strip_refs
from .mine import MineFilters, MineResult, _log, change_key, file_gold, is_source_path, split_of

# 2: test files by the graph's is_test_path (testsuite/ added, test.py is source); 3: one change, one task
# (change_shared, previous_change, split:from_mined_change; the committed batches are mined by 3)
MINED_BY = "beacon.tasks.changelog/3"
CHANGELOG_FILE = re.compile(r"^(CHANGES|CHANGELOG|ChangeLog|Changelog|HISTORY|History|NEWS)(\.(rst|md|txt))?$")


def mined_splits(path: Path) -> dict[str, str]:
    """``{fix commit: split}`` of a mined-task file (``experiments/data/mined_tasks.jsonl``)."""
    rows = (json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip())
    return {r["commit"]: r["split"] for r in rows}


def mined_change_splits(path: Path) -> dict[str, str]:
    """``{change_key(patch): split}`` of a mined-task file: the same change under another fix commit (a
    cherry-pick, a PR merge of one commit) keeps the mined half too."""
    rows = (json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip())
    return {change_key(r["patch"]): r["split"] for r in rows}


def previous_keys(rows: list[dict]) -> tuple[frozenset[str], frozenset[tuple]]:
    """(fix commits, (repo, base commit, gold functions) keys) of a previous batch's task rows."""
    return (frozenset(r["commit"] for r in rows),
            frozenset((r["repo"], r["base_commit"], tuple(sorted(r["gold_functions"]))) for r in rows))


def _normal(text: str) -> str:
    return " ".join(text.split())


def changelog_paths(source: GitSource, commit: str) -> list[str]:
    out = run_git(["ls-tree", "--name-only", commit], git_dir=source.git_dir).decode("utf-8", "replace")
    return sorted(p for p in out.splitlines() if CHANGELOG_FILE.match(p))


def _text(source: GitSource, commit: str, paths: list[str]) -> str:
    parts = []
    for path in paths:
        try:
            parts.append(source.read_file(commit, path).decode("utf-8", "replace"))
        except GitError:
            pass  # not at that commit
    return "\n".join(parts)


def _diff_lines(source: GitSource, parent: str, commit: str, path: str) -> tuple[set[int], list[str]]:
    """(added line numbers in the new file, removed lines' text) of ``path``'s diff."""
    raw = run_git(["diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0", parent, commit, "--", path],
                  git_dir=source.git_dir).decode("utf-8", "replace")
    added, removed, new = set(), [], 0
    for ln in raw.split("\n"):
        if ln.startswith("@@"):
            m = re.match(r"@@ -\S+ \+(\d+)", ln)
            new = int(m.group(1)) if m else 0
        elif ln.startswith("+") and not ln.startswith("+++"):
            added.add(new)
            new += 1
        elif ln.startswith("-") and not ln.startswith("---"):
            removed.append(ln[1:])
    return added, removed


@dataclass
class _Added:
    entry: Entry
    commit: str  # the commit adding it
    time: int


def added_entries(source: GitSource, commits: list, counts: Counter) -> list[_Added]:
    """Entries new in each non-merge commit touching a root changelog, oldest commit first, deduplicated."""
    seen: set[str] = set()
    out: list[_Added] = []
    for c in sorted(commits, key=lambda c: (c.time, c.sha)):
        paths = [p for _, _, p in c.numstat if CHANGELOG_FILE.match(p)]
        if len(c.parents) != 1 or not paths:
            continue
        parent_text = _normal(_text(source, c.parents[0], changelog_paths(source, c.parents[0])))
        for path in paths:
            try:
                text = source.read_file(c.sha, path).decode("utf-8", "replace")
            except GitError:
                continue  # deleted by this commit
            added, removed = _diff_lines(source, c.parents[0], c.sha, path)
            for e in parse_entries(text):
                if e.line not in added:
                    continue
                key = _normal(e.body)
                if key in seen or key in parent_text:
                    counts["entry:moved_or_seen"] += 1
                    continue
                seen.add(key)
                first = _normal(e.body.split("\n", 1)[0])
                if any(difflib.SequenceMatcher(None, first, _normal(r.lstrip(" -*+"))).ratio() >= 0.8
                       for r in removed if r.strip()):
                    counts["entry:edited"] += 1
                    continue
                counts["entry:new"] += 1
                out.append(_Added(e, c.sha, c.time))
    return out


def _source_files(numstat) -> list[str]:
    return sorted({p for _, _, p in numstat if p.endswith(".py") and not is_test_path(p) and is_source_path(p)})


@dataclass(frozen=True)
class Fix:
    how: str  # "commit" (the entry came with it), "pr_merge" (its PR), "cited" (cites a number the entry cites)
    sha: str
    base: str
    files: tuple[str, ...]  # non-test source .py files changed between base and sha


class _History:
    """The log, children links, PR merges and number citations, for pinning entries to fixes."""

    def __init__(self, source: GitSource, commits: list, revs: list[str]) -> None:
        self.source = source
        # The mainline: first-parent chains of the mined tips. A commit on it came in by no merge.
        self.mainline = set(run_git(["rev-list", "--first-parent", *revs], git_dir=source.git_dir).decode().split())
        self.by_sha = {c.sha: c for c in commits}
        self.children: dict[str, list] = defaultdict(list)
        self.pr_merge: dict[str, list] = defaultdict(list)
        self.citing: dict[str, list] = defaultdict(list)
        self.entries_by_commit: Counter = Counter()
        for c in commits:
            for p in c.parents:
                self.children[p].append(c)
            subject = c.message.split("\n", 1)[0]
            m = re.match(r"Merge pull request #(\d+)\b", subject)
            if m and len(c.parents) == 2:
                self.pr_merge[m.group(1)].append(c)
            elif len(c.parents) == 1 and _source_files(c.numstat):
                for n in dict.fromkeys(re.findall(r"(?<![\w&/])#(\d+)\b", c.message)):
                    self.citing[n].append(c)

    def merge_of(self, sha: str, steps: int = 200) -> object | None:
        """The merge whose second parent's side brought ``sha`` into the mainline (None: it is on it)."""
        x = sha
        for _ in range(steps):
            if x in self.mainline:
                return None
            kids = sorted(self.children.get(x, []), key=lambda k: (k.time, k.sha))
            merged = [k for k in kids if len(k.parents) == 2 and k.parents[1] == x]
            if merged:
                return merged[0]
            onward = [k for k in kids if k.parents[0] == x]
            if not onward:
                return None
            x = onward[0].sha
        return None

    def merge_fix(self, m, max_branch_commits: int) -> tuple[str | None, Fix | None]:
        branch = run_git(["rev-list", "--no-merges", f"{m.parents[0]}..{m.parents[1]}"],
                         git_dir=self.source.git_dir).decode().split()
        if len(branch) > max_branch_commits:
            return "pr_too_long", None
        if sum(self.entries_by_commit[b] for b in branch) > 1:
            return "several_entries_one_fix", None
        out = run_git(["diff", "--numstat", "--no-renames", m.parents[0], m.sha], git_dir=self.source.git_dir)
        stats = [ln.split("\t", 2) for ln in out.decode("utf-8", "replace").splitlines() if ln.strip()]
        return None, Fix("pr_merge", m.sha, m.parents[0], tuple(_source_files((a, r, p) for a, r, p in stats)))

    def pin(self, item: _Added, max_branch_commits: int) -> tuple[str | None, Fix | None]:
        """(skip reason or None, the fix) for an entry added by ``item.commit``."""
        c = self.by_sha[item.commit]
        files = _source_files(c.numstat)
        if files:
            if self.entries_by_commit[c.sha] > 1:
                return "several_entries_one_fix", None
            return None, Fix("commit", c.sha, c.parents[0], tuple(files))
        m = self.merge_of(c.sha)
        if m is not None and re.match(r"Merge pull request #\d+", m.message):
            return self.merge_fix(m, max_branch_commits)
        numbers = item.entry.numbers()
        merges = {m.sha: m for n in numbers for m in self.pr_merge.get(n, [])}
        cited = {x.sha: x for n in numbers for x in self.citing.get(n, []) if x.time <= c.time + 86400}
        if len(merges) == 1 and not cited:
            return self.merge_fix(next(iter(merges.values())), max_branch_commits)
        if len(cited) == 1 and not merges:
            x = next(iter(cited.values()))
            if self.entries_by_commit[x.sha]:
                return "several_entries_one_fix", None
            return None, Fix("cited", x.sha, x.parents[0], tuple(_source_files(x.numstat)))
        if merges or cited:
            return "ambiguous_issue", None
        return ("unpinned_cites_unknown_number" if numbers else "unpinned_changelog_only"), None


_VERSION_LINE = re.compile(r"^[+-]\s*__version__\s*=")


def _patch(source: GitSource, fix: Fix) -> tuple[str, tuple[str, ...]]:
    """The fix's diff over its source files and those files, less files whose only change is ``__version__``
    (a release commit that also carries the fix bumps it; that file is not where the bug was)."""
    raw = run_git(["diff", "--no-color", "--no-ext-diff", "--no-renames", "-U3", fix.base, fix.sha, "--",
                   *fix.files], git_dir=source.git_dir).decode("utf-8")
    parts = re.split(r"(?m)^(?=diff --git )", raw)
    keep = []
    for part in parts:
        changed = [ln for ln in part.split("\n") if ln[:1] in ("+", "-") and ln[:3] not in ("+++", "---")]
        if part.strip() and not all(_VERSION_LINE.match(ln) for ln in changed):
            keep.append(part)
    files = tuple(f for f in fix.files if any(p.startswith(f"diff --git a/{f} ") for p in keep))
    return "".join(keep), files


def _task(source: GitSource, repo: str, item: _Added, fix: Fix, filters: MineFilters,
          max_files: int, splits: dict[str, str], change_splits: dict[str, str] | None = None) -> tuple[str | None, dict]:
    try:
        patch, files = _patch(source, fix)
    except UnicodeDecodeError:
        return "not_utf8", {}
    if not files:
        return "no_source_file", {}
    if len(files) > max_files:
        return "too_many_source_files", {}
    if fix.sha in filters.exclude_commits or fix.base in filters.exclude_commits:
        return "excluded_commit", {}
    if _normal(item.entry.body) in _normal(_text(source, fix.base, changelog_paths(source, fix.base))):
        return "entry_at_base", {}
    query = strip_refs(item.entry.body)
    if len(query) < filters.min_message_chars:
        return "entry_too_short", {}
    instance_id = f"{repo.replace('/', '__')}-cl-{fix.sha[:12]}"
    changed = sum(1 for ln in patch.split("\n") if ln[:1] in ("+", "-") and ln[:3] not in ("+++", "---"))
    if changed > filters.max_changed_lines:
        return "diff_too_large", {}
    originals = {}
    for path in files:
        try:
            originals[path] = source.read_file(fix.base, path)
        except GitError:
            pass  # added by the fix
    if not originals:
        return "no_file_at_base", {}
    try:
        gold = file_gold(instance_id, patch, originals)
    except Exception as exc:  # GoldError (Python 2 files) or a patch gold cannot place: not a task, say why
        return f"gold_error:{type(exc).__name__}", {}
    if not gold.functions:
        return "no_existing_function_changed", {}
    if any(f"{repo}:{f}" in filters.exclude_functions for f in gold.functions):
        return "held_out_function", {}
    return None, {
        "instance_id": instance_id, "repo": repo, "base_commit": fix.base, "problem_statement": query,
        "patch": patch, "commit": fix.sha, "commit_time": item.time, "entry_commit": item.commit,
        "entry_section": item.entry.section, "pinned_by": fix.how, "files": list(files),
        "gold_functions": list(gold.functions),
        "split": splits.get(fix.sha) or (change_splits or {}).get(change_key(patch)) or split_of(instance_id),
        "mined_by": MINED_BY,
        "filters": filters.describe()}


def mine_changelog(source: GitSource, repo: str, filters: MineFilters, *, rev: str | None = None,
                   max_files: int = 3, max_branch_commits: int = 30,
                   splits: dict[str, str] | None = None, previous: list[dict] | None = None,
                   change_splits: dict[str, str] | None = None) -> MineResult:
    """Changelog tasks of ``repo`` (``owner/name``) from the history of ``rev`` (see the module docstring);
    ``splits`` (``mined_splits``) maps a fix commit to the half it must keep, ``change_splits``
    (``mined_change_splits``) a change; ``previous`` (earlier batches' task rows) are neither repeated nor
    counted towards ``cap``."""
    splits = splits or {}
    change_splits = change_splits or {}
    prev_fixes, prev_gold = previous_keys(previous or [])
    prev_changes = {change_key(r["patch"]) for r in previous or []}
    revs = [rev] if rev else ["HEAD"] if source.has_commit("HEAD") else ["--all"]
    counts: Counter = Counter()
    commits = _log(source, revs)
    counts["seen"] = len(commits)
    history = _History(source, commits, revs)
    added = added_entries(source, commits, counts)
    for item in added:
        history.entries_by_commit[item.commit] += 1
    fixes = [a for a in added if a.entry.is_fix()]
    counts["skip:not_a_fix"] = len(added) - len(fixes)
    counts["candidates"] = len(fixes)
    order = sorted(fixes, key=lambda a: (a.commit, a.entry.line))
    random.Random(filters.seed).shuffle(order)
    chosen: list[dict] = []
    used: set[str] = set()
    changes: set[str] = set()  # change_key of every chosen task: two fixes making one change are one task
    for index, item in enumerate(order):
        if filters.cap is not None and len(chosen) >= filters.cap:
            counts["skip:not_examined_cap_reached"] += len(order) - index
            break
        reason, fix = history.pin(item, max_branch_commits)
        if fix is not None and fix.sha in prev_fixes:
            reason = "previous_batch"
        elif fix is not None and fix.sha in used:
            reason = "fix_shared"
        if reason is None:
            reason, task = _task(source, repo, item, fix, filters, max_files, splits, change_splits)
            if not reason and (repo, task["base_commit"], tuple(sorted(task["gold_functions"]))) in prev_gold:
                reason = "previous_base_gold"
            elif not reason and change_key(task["patch"]) in prev_changes:
                reason = "previous_change"
            elif not reason and change_key(task["patch"]) in changes:
                reason = "change_shared"
        if reason:
            counts[f"skip:{reason}"] += 1
            continue
        used.add(fix.sha)
        changes.add(change_key(task["patch"]))
        counts[f"pinned_by:{fix.how}"] += 1
        if fix.sha in splits:
            counts["split:from_mined"] += 1
        elif change_key(task["patch"]) in change_splits:
            counts["split:from_mined_change"] += 1
        chosen.append(task)
    chosen.sort(key=lambda t: (t["commit_time"], t["commit"]))
    counts["tasks"] = len(chosen)
    return MineResult(chosen, counts)

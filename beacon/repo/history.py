"""A repository's history before a commit, read once by ``git log``/``git blame``: the inputs retrieval may use.

Retrieval never runs git: the runners read what a method declares it needs
(``RepoInputs``: file history, line history, change log) through this module
and hand it in. Every ``git log`` here (and the task miner's) goes through
one record reader, ``git_log``: each commit is a record that starts with a
separator and carries ``%``-format fields separated by another, followed by
whatever git prints per commit (``--name-only`` paths, a ``-p`` diff,
``--numstat`` lines). Separators are drawn per call, so no commit message can
contain them by accident or on purpose. Nothing after the base commit is ever
read (``git log <base>``).

* ``read_history``: files changed by each of the last ``n`` non-merge commits
  (the base at distance 0).
* ``read_line_history``: ``git blame`` of the base's own version of each file
  changed in the ``k`` nearest commits: per line, the distance of the commit
  that last changed it.
* ``read_change_log``: message, ``.py`` files and hunk-header functions of the
  last ``n`` non-merge commits that change a ``.py`` file.

``read_history`` and ``read_change_log`` read one base commit each; a sweep
over many base commits of a repository reads its log once instead and slices
the same values per base (``history_log.RepoLog``; ``read_inputs(..., log=)``).
"""
from __future__ import annotations

import re
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .git import GitSource, run_git

if TYPE_CHECKING:
    from .history_log import RepoLog

DEFAULT_COMMITS = 1000
DEFAULT_LOG_COMMITS = 1000
LINE_COMMITS = 50  # blame reaches back this many commits (older lines count as unchanged)
INPUT_NAMES = ("file_history", "line_history", "change_log")
_BLAME_HEADER = re.compile(r"^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$")
_HASH = re.compile(r"[0-9a-f]{40}")
_HUNK_FUNCTION = re.compile(r"^@@ [^@]* @@ .*?\b(?:def|class)\s+([A-Za-z_]\w*)")


@dataclass(frozen=True)
class RepoHistory:
    """Files changed by each commit before (and including) ``base``, nearest first: index = distance."""

    base: str
    hashes: tuple[str, ...]
    commits: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class ChangeLog:
    """Past commits before (and including) ``base``, nearest first: message, ``.py`` files and functions changed."""

    base: str
    hashes: tuple[str, ...]
    messages: tuple[str, ...]
    files: tuple[tuple[str, ...], ...]
    functions: tuple[tuple[tuple[str, str], ...], ...]  # (path, def/class name in a hunk header) per commit


LineHistory = dict  # path -> int64 array, index = 1-based line number, value = distance of its last change (-1: older)


@dataclass(frozen=True)
class RepoInputs:
    """The history inputs a method may declare (``Method.needs``); a field left None was not read."""

    file_history: RepoHistory | None = None
    line_history: LineHistory | None = None
    change_log: ChangeLog | None = None

    def present(self) -> frozenset[str]:
        return frozenset(n for n in INPUT_NAMES if getattr(self, n) is not None)


NO_INPUTS = RepoInputs()
# Every input, each empty: a tree without git history (benchmarks and tests on plain directories).
EMPTY_HISTORY = RepoInputs(RepoHistory("", (), ()), {}, ChangeLog("", (), (), (), ()))


def split_records(text: str, sep: str, field: str, n_fields: int) -> list[tuple[list[str], str]]:
    """``git log --format=<sep>F1<field>…Fn<field>`` output -> per commit ``([F1..Fn], what git printed after)``."""
    out = []
    for block in text.split(sep)[1:]:
        parts = block.split(field, n_fields)
        if len(parts) != n_fields + 1:
            raise ValueError(f"git log output: a record has {len(parts) - 1} of {n_fields} fields: {block[:60]!r}")
        out.append((parts[:n_fields], parts[n_fields]))
    return out


def git_log(source: GitSource, fields: Sequence[str], args: Sequence[str], *, config: Sequence[str] = (),
            cwd: str | Path | None = None, stdin: bytes | None = None) -> list[tuple[list[str], str]]:
    """Run ``git log`` with ``fields`` (``%H``, ``%B``, …) as its format; one ``(values, rest)`` per commit."""
    token = secrets.token_hex(8)
    sep, field = f"\x1e{token}\x1e", f"\x1f{token}\x1f"
    fmt = sep + field.join(fields) + field
    cmd = ["-c", "core.quotePath=false", *(x for c in config for x in ("-c", c)), "log", f"--format={fmt}", *args]
    text = run_git(cmd, git_dir=source.git_dir, cwd=cwd, input=stdin).decode("utf-8", errors="replace")
    return split_records(text, sep, field, len(fields))


# What each reader asks ``git log`` for besides its revisions, limits and order (``history_log`` reads the
# same per commit, for all base commits at once).
FILE_HISTORY_ARGS = ("--no-renames", "--name-only")  # read_history adds --no-merges
CHANGE_LOG_WALK = ("--full-history", "--no-merges")
CHANGE_LOG_ARGS = ("-p", "-U0", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/",
                   *CHANGE_LOG_WALK, "--no-renames")
CHANGE_LOG_PATHS = ("*.py",)


def files_of(rest: str) -> tuple[str, ...]:
    return tuple(sorted({p for p in rest.split("\n") if p}))


def read_history(source: GitSource, commit: str, n: int = DEFAULT_COMMITS) -> RepoHistory:
    """The last ``n`` non-merge commits reachable from ``commit`` (itself first) and the files each changed."""
    if n < 1:
        raise ValueError(f"read_history: n must be >= 1, got {n}")
    records = git_log(source, ["%H"], ["--date-order", "--no-merges", *FILE_HISTORY_ARGS, f"-n{n}", commit, "--"])
    return RepoHistory(commit, tuple(v[0].strip() for v, _ in records), tuple(files_of(r) for _, r in records))


def read_line_history(source: GitSource, history: RepoHistory, paths: Sequence[str],
                      k: int = LINE_COMMITS) -> LineHistory:
    """Per path changed in the ``k`` nearest commits: each base line's distance to its last change (-1: older).

    ``git blame <k-th commit>..<base>``: the base's own file, so line numbers are the graph's.
    """
    distance = {h: d for d, h in enumerate(history.hashes[:k])}
    recent = sorted({f for files in history.commits[:k] for f in files} & set(paths))
    rev = f"{history.hashes[k]}..{history.base}" if len(history.hashes) > k else history.base
    out: LineHistory = {}
    for path in recent:
        text = run_git(["blame", "--porcelain", rev, "--", path], git_dir=source.git_dir).decode("utf-8", "replace")
        lines: dict[int, int] = {}
        for line in text.split("\n"):
            m = _BLAME_HEADER.match(line)
            if m:
                lines[int(m.group(2))] = distance.get(m.group(1), -1)
        arr = np.full(max(lines, default=0) + 1, -1, dtype=np.int64)  # index = 1-based line number
        for n, d in lines.items():
            arr[n] = d
        out[path] = arr
    return out


def diff_git_path(line: str) -> str | None:
    """The path of a ``diff --git a/P b/P`` line (renames are off, so both sides agree); None when quoted."""
    rest = line[len("diff --git "):]
    if rest.startswith('"') or (len(rest) - 5) % 2:
        return None  # git C-quotes names with quotes, backslashes or control characters: skipped
    path = rest[2: 2 + (len(rest) - 5) // 2]
    return path if rest == f"a/{path} b/{path}" else None


def change_log_from_records(records: list[tuple[list[str], str]], base: str = "") -> ChangeLog:
    """``(hash, message)`` records with their ``-p -U0`` diffs (Python hunk headers) -> ``ChangeLog``.

    A file is known by its ``diff --git`` line (so binary and mode-only changes and names with spaces count);
    a hunk header names the nearest ``def``/``class`` line above the hunk's start, which is usually the
    function the hunk changes (a change to a ``def`` line itself is credited to the definition above it).
    """
    hashes, messages, files, functions = [], [], [], []
    for (head, message), diff in records:
        if not _HASH.fullmatch(head.strip()):
            raise ValueError(f"git log output: record starts with {head[:60]!r}, not a commit hash")
        changed: set[str] = set()
        named: set[tuple[str, str]] = set()
        path = None
        for line in diff.split("\n"):
            if line.startswith("diff --git "):
                path = diff_git_path(line)
                if path is not None and path.endswith(".py"):
                    changed.add(path)
            elif line.startswith("@@") and path is not None:  # body lines start with ' ', '-', '+' or '\\'
                m = _HUNK_FUNCTION.match(line)
                if m:
                    named.add((path, m.group(1)))
        hashes.append(head.strip())
        messages.append(message.strip())
        files.append(tuple(sorted(changed)))
        functions.append(tuple(sorted(named)))
    return ChangeLog(base, tuple(hashes), tuple(messages), tuple(files), tuple(functions))


def parse_change_log(text: str, base: str = "", *, sep: str = "\x1e", field: str = "\x1f") -> ChangeLog:
    """``git log -p -U0 --format=<sep>%H<field>%B<field>`` output -> ``ChangeLog``."""
    records = []
    for block in text.split(sep)[1:]:  # a record may lack its diff (then its message ends the block)
        head, _, rest = block.partition(field)
        message, _, diff = rest.partition(field)
        records.append(([head, message], diff))
    return change_log_from_records(records, base)


def change_log_records(source: GitSource, args: Sequence[str], stdin: bytes | None = None) -> list:
    """``git log -p -U0`` of ``.py`` files with Python hunk headers: ``([hash, message], diff)`` per commit."""
    with tempfile.TemporaryDirectory() as tmp:
        # git's built-in "python" diff driver writes the nearest def/class into each hunk header. A private
        # attributes file selects it without touching the repository; running in the empty temp dir keeps a
        # .gitattributes in the caller's working directory out; explicit prefixes override diff.noprefix.
        attributes = Path(tmp) / "attributes"
        attributes.write_text("*.py diff=python\n")
        return git_log(source, ["%H", "%B"], [*CHANGE_LOG_ARGS, *args, "--", *CHANGE_LOG_PATHS],
                       config=[f"core.attributesFile={attributes}"], cwd=tmp, stdin=stdin)


def read_change_log(source: GitSource, commit: str, n: int = DEFAULT_LOG_COMMITS) -> ChangeLog:
    """The last ``n`` non-merge commits reachable from ``commit`` (itself first) that change a ``.py`` file."""
    if n < 1:
        raise ValueError(f"read_change_log: n must be >= 1, got {n}")
    return change_log_from_records(change_log_records(source, ["--date-order", f"-n{n}", commit]), commit)


def read_inputs(source: GitSource, commit: str, needs: frozenset[str] | set[str], paths: Sequence[str],
                log: RepoLog | None = None) -> RepoInputs:
    """The inputs named in ``needs`` at ``commit`` (``paths``: the non-test files line history may blame).

    With ``log`` (a ``history_log.RepoLog`` of the same repository) file history and change log are sliced
    from the history it read once; without it each is one ``git log`` of ``commit``. Both give equal values.
    """
    unknown = set(needs) - set(INPUT_NAMES)
    if unknown:
        raise ValueError(f"read_inputs: unknown inputs {sorted(unknown)}; known: {', '.join(INPUT_NAMES)}")
    if log is not None and needs & {"file_history", "line_history", "change_log"}:
        log.load([commit])
    if needs & {"file_history", "line_history"}:
        history = log.history(commit) if log is not None else read_history(source, commit)
    else:
        history = None
    change_log = None
    if "change_log" in needs:
        change_log = log.change_log(commit) if log is not None else read_change_log(source, commit)
    return RepoInputs(
        file_history=history if "file_history" in needs else None,
        line_history=read_line_history(source, history, paths) if "line_history" in needs else None,
        change_log=change_log,
    )

"""A read-only snapshot behind the LocBench exploration tools: bounded ``list``/``read``/``grep``.

``Repository(directory, commit)`` answers the three tools over a snapshot
tree; :mod:`beacon.localize.env` turns agent calls into these and records what
they showed. Conventions:

* Paths are repo-relative POSIX. Absolute paths, ``..``, ``.git`` and symlinks
  whose target leaves the snapshot are ``ToolError``s; so are bad arguments,
  bad regexes and unknown tools.
* Every output is bounded (entries, lines, characters, hits) and says so when
  it was cut.
* ``grep`` is line-oriented Python ``re`` over ``.py`` files (the files the
  graph indexes and submissions name; an explicit file path may be any text
  file). Python's regex engine cannot be interrupted in-thread, so the search
  runs in a short-lived ``python -I -S`` worker killed after ``grep_timeout``
  seconds; inputs are bounded so that ordinary patterns finish far inside it:
  patterns of at most 200 characters, lines cut to 2000 characters, the first
  256 Ki characters of each file, 8 Mi characters per call in sorted path order
  (the cut is reported). A timeout is a ``ToolError``.
* A symbol is seen when a shown line is one of its *own* lines (innermost
  enclosing definition; module-level lines make ``path::<module>`` seen).
* The snapshot is never written. When ``directory`` is a git working tree its
  HEAD must be ``commit`` and the tree must be clean, so the recorded commit
  is what the agent saw.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..graph.parse import ParseFailure, decode_source, parse_source
from ..repo.git import FULL_HASH, GitError, run_git

MAX_LIST_ENTRIES = 500
DEFAULT_READ_LINES = 100
MAX_READ_LINES = 200
MAX_LINE_CHARS = 500
MAX_OUTPUT_CHARS = 20_000
MAX_FILE_BYTES = 4 << 20  # larger files are refused rather than decoded whole
MAX_PATTERN_CHARS = 200
MAX_PATH_CHARS = 1024
DEFAULT_MAX_HITS = 50
MAX_HITS = 200
GREP_LINE_CHARS = 2000
GREP_FILE_CHARS = 256 << 10
GREP_TOTAL_CHARS = 8 << 20
GREP_TIMEOUT_S = 5.0
_PRUNED = frozenset({"__pycache__", "node_modules", "site-packages"})


class ToolError(Exception):
    """A tool call the environment refuses; ``kind`` is a stable machine-readable tag."""

    def __init__(self, kind: str, message: str) -> None:
        # messages quote arguments, which an agent controls: keep them bounded
        super().__init__(message if len(message) <= 1000 else message[:1000] + " [message cut]")
        self.kind = kind

    def to_dict(self) -> dict[str, str]:
        return {"type": self.kind, "message": str(self)}


class SnapshotError(ValueError):
    """The directory is not a usable snapshot of ``commit``."""


@dataclass(frozen=True)
class ToolOutput:
    text: str
    spans: tuple[tuple[str, int, int], ...] = ()  # shown lines: (path, first, last), 1-based inclusive


def _int_arg(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ToolError("bad_args", f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


class Repository:
    """Bounded, read-only ``list``/``read``/``grep`` over one snapshot tree."""

    def __init__(self, directory: Path | str, commit: str, *, grep_timeout: float = GREP_TIMEOUT_S) -> None:
        root = Path(directory)
        if not root.is_dir():
            raise SnapshotError(f"{directory}: not a directory")
        if not FULL_HASH.fullmatch(commit):
            raise SnapshotError(f"commit must be a full 40-hex hash, got {commit!r}")
        self.root = root.resolve(strict=True)
        self.commit = commit
        self.grep_timeout = grep_timeout
        if (self.root / ".git").exists():
            self._check_worktree()
        self._texts: dict[str, str] = {}
        self._owners: dict[str, list[str]] = {}
        self._py_files: list[str] | None = None

    def _check_worktree(self) -> None:
        try:
            # --no-optional-locks: plain `git status` may rewrite .git/index; we never write
            git = ["--no-optional-locks", "-C", str(self.root)]
            head = run_git(git + ["rev-parse", "HEAD"]).decode().strip()
            dirty = run_git(git + ["status", "--porcelain", "--untracked-files=all"]).decode()
        except GitError as exc:
            raise SnapshotError(f"{self.root}: cannot inspect the git working tree: {exc}") from None
        if head != self.commit:
            raise SnapshotError(f"{self.root}: HEAD is {head}, not the snapshot commit {self.commit}")
        if dirty.strip():
            raise SnapshotError(f"{self.root}: the working tree differs from {self.commit}:\n{dirty.strip()}")

    # -- paths ---------------------------------------------------------------
    def resolve(self, path: Any) -> tuple[str, Path]:
        """``(normalised repo-relative path, real path)``; ``ToolError`` unless it exists inside."""
        if not isinstance(path, str):
            raise ToolError("bad_args", f"path must be a string, got {path!r}")
        raw = path.strip()
        if "\x00" in raw or len(raw) > MAX_PATH_CHARS:
            raise ToolError("bad_path", f"path must be at most {MAX_PATH_CHARS} characters without NUL bytes")
        if raw.startswith(("/", "\\", "~")) or re.match(r"[A-Za-z]:[\\/]", raw):
            raise ToolError("bad_path", f"{path!r}: absolute paths are not allowed; use a path relative to "
                                        "the repository root")
        parts = [p for p in raw.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise ToolError("bad_path", f"{path!r}: '..' is not allowed; paths stay inside the repository")
        if ".git" in parts:
            raise ToolError("bad_path", f"{path!r}: .git is not part of the snapshot")
        rel = "/".join(parts)
        try:
            real = Path(os.path.realpath(self.root.joinpath(*parts)))
            exists = real.exists()
        except OSError as exc:  # a name too long, a link loop, ...: the agent's path, not our failure
            raise ToolError("bad_path", f"{rel}: {exc.strerror or exc}") from None
        if not real.is_relative_to(self.root) or ".git" in real.relative_to(self.root).parts:
            raise ToolError("bad_path", f"{rel}: a symlink points outside the repository snapshot")
        if not exists:
            raise ToolError("not_found", f"{rel or '.'}: no such file or directory")
        return rel, real

    def _text(self, rel: str, real: Path) -> str:
        """Decoded text with ``\\n`` newlines; ``.py`` per PEP 263, as the graph decodes it."""
        found = self._texts.get(rel)
        if found is not None:
            return found
        try:
            size = real.stat().st_size
            if size > MAX_FILE_BYTES:
                raise ToolError("too_large", f"{rel}: {size} bytes is over the {MAX_FILE_BYTES}-byte limit")
            data = real.read_bytes()
        except OSError as exc:
            raise ToolError("unreadable", f"{rel}: {exc.strerror or exc}") from None
        if _is_binary(data):
            raise ToolError("binary", f"{rel}: binary file")
        try:
            text = decode_source(data) if rel.endswith(".py") else None
        except ParseFailure:
            text = None
        if text is None:
            text = re.sub(r"\r\n?", "\n", data.decode("utf-8", errors="replace"))
        self._texts[rel] = text
        return text

    def python_files(self) -> list[str]:
        """Sorted ``.py`` files, not following symlinks, skipping dot and cache folders."""
        if self._py_files is None:
            found = []
            for folder, dirs, files in os.walk(self.root):
                dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _PRUNED]
                prefix = Path(folder).relative_to(self.root).as_posix()
                for name in files:
                    full = os.path.join(folder, name)
                    if name.endswith(".py") and not os.path.islink(full):
                        found.append(name if prefix == "." else f"{prefix}/{name}")
            self._py_files = sorted(found)
        return self._py_files

    # -- tools ---------------------------------------------------------------
    def list(self, path: str = "") -> ToolOutput:
        """Entries of a folder as repo-relative paths, sorted; folders end in ``/``."""
        rel, real = self.resolve(path)
        if not real.is_dir():
            raise ToolError("not_a_directory", f"{rel}: not a directory; use read")
        entries = []
        try:
            found = list(os.scandir(real))
        except OSError as exc:
            raise ToolError("unreadable", f"{rel or '.'}: {exc.strerror or exc}") from None
        for entry in found:
            if entry.name == ".git":
                continue
            target = Path(os.path.realpath(entry.path))
            is_dir = target.is_relative_to(self.root) and target.is_dir()
            name = f"{rel}/{entry.name}" if rel else entry.name
            entries.append(name + "/" if is_dir else name)
        entries.sort()
        lines = entries[:MAX_LIST_ENTRIES] or ["(empty directory)"]
        if len(entries) > MAX_LIST_ENTRIES:
            lines.append(f"[... {len(entries) - MAX_LIST_ENTRIES} more entries not shown]")
        return ToolOutput("\n".join(lines))

    def read(self, path: str, start: int = 1, lines: int = DEFAULT_READ_LINES) -> ToolOutput:
        """A header, then ``lines`` numbered lines from ``start``; notes say what was cut."""
        start, lines = _int_arg(start, "start", 1), _int_arg(lines, "lines", 1)
        rel, real = self.resolve(path)
        if not real.is_file():
            raise ToolError("not_a_file", f"{rel or '.'}: not a file; use list")
        text = self._text(rel, real)
        all_lines = text.split("\n")
        if text.endswith("\n") or not text:
            all_lines.pop()
        total = len(all_lines)
        if start > total:
            return ToolOutput(f"[{rel}: start line {start} is past the end of the file ({total} lines)]")
        notes = [f"[lines capped at {MAX_READ_LINES}]"] if lines > MAX_READ_LINES else []
        stop = min(total, start + min(lines, MAX_READ_LINES) - 1)
        body, size, end = [], 0, start - 1
        for number in range(start, stop + 1):
            line = all_lines[number - 1]
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + " [line cut]"
            row = f"{number:>6}  {line}"
            if body and size + len(row) > MAX_OUTPUT_CHARS:
                notes.append(f"[output cut at {MAX_OUTPUT_CHARS} characters]")
                break
            body.append(row)
            size += len(row) + 1
            end = number
        if end < total:
            notes.append(f"[{total - end} more lines; continue with start={end + 1}]")
        header = f"{rel} lines {start}-{end} of {total}"
        return ToolOutput("\n".join([header, *body, *notes]), ((rel, start, end),))

    def grep(self, pattern: str, path: str = "", max_hits: int = DEFAULT_MAX_HITS) -> ToolOutput:
        """Matching lines as ``path:line: text`` rows in path then line order; notes say what was cut."""
        if not isinstance(pattern, str) or not pattern:
            raise ToolError("bad_args", f"pattern must be a non-empty string, got {pattern!r}")
        if len(pattern) > MAX_PATTERN_CHARS:
            raise ToolError("bad_args", f"pattern has {len(pattern)} characters; the limit is {MAX_PATTERN_CHARS}")
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError) as exc:
            raise ToolError("bad_regex", f"invalid regular expression {pattern!r}: {exc}") from None
        max_hits = _int_arg(max_hits, "max_hits", 1)
        notes = [f"[max_hits capped at {MAX_HITS}]"] if max_hits > MAX_HITS else []
        max_hits = min(max_hits, MAX_HITS)
        rel, real = self.resolve(path)
        if real.is_dir():
            prefix = rel + "/" if rel else ""
            paths = [p for p in self.python_files() if p.startswith(prefix)]
        else:
            paths = [rel]
        files, budget, cut = [], GREP_TOTAL_CHARS, 0
        for index, name in enumerate(paths):
            try:
                text = self._text(name, self.root / name)
            except ToolError:
                if len(paths) == 1:
                    raise
                continue  # a binary or oversized file inside a folder is simply not searched
            cut += len(text) > GREP_FILE_CHARS
            text = "\n".join(line[:GREP_LINE_CHARS] for line in text[:GREP_FILE_CHARS].split("\n"))
            if len(text) > budget:
                notes.append(f"[scan limit reached: {len(paths) - index} files not searched; narrow the path]")
                break
            budget -= len(text)
            files.append((name, text))
        if cut:
            notes.append(f"[{cut} large files searched only in their first {GREP_FILE_CHARS} characters]")
        hits, more = self._search(pattern, files, max_hits)
        rows = [f"{p}:{n}: {t[:MAX_LINE_CHARS]}" for p, n, t in hits] or ["(no matches)"]
        if more:
            notes.append(f"[stopped at {max_hits} hits; narrow the pattern or path]")
        return ToolOutput("\n".join(rows + notes), tuple((p, n, n) for p, n, _ in hits))

    def _search(self, pattern: str, files: list[tuple[str, str]], max_hits: int) -> tuple[list, bool]:
        request = json.dumps({"pattern": pattern, "max_hits": max_hits, "files": files}).encode()
        try:
            proc = subprocess.run([sys.executable, "-I", "-S", "-c", _GREP_WORKER], input=request,
                                  capture_output=True, timeout=self.grep_timeout)
        except subprocess.TimeoutExpired:
            raise ToolError("timeout", f"grep {pattern!r} ran longer than {self.grep_timeout:g}s; simplify the "
                                       "pattern (avoid nested quantifiers such as (a+)+)") from None
        if proc.returncode != 0:
            raise RuntimeError(f"grep worker failed (exit {proc.returncode}): {proc.stderr.decode()[-2000:]}")
        answer = json.loads(proc.stdout)
        if "error" in answer:
            raise ToolError("bad_regex", f"grep {pattern!r} failed: {answer['error']}")
        return answer["hits"], answer["more"]

    def symbols_at(self, rel: str, first: int, last: int) -> set[str]:
        """Ids of the innermost definitions owning lines ``first..last`` of a ``.py`` file."""
        owners = self._owners.get(rel)
        if owners is None:
            owners = []
            if rel.endswith(".py"):
                try:
                    parse = parse_source(self.root.joinpath(rel).read_bytes(), literals=False)
                    owners = [""] * parse.line_count
                    for d in parse.defs:  # pre-order: nested definitions overwrite their parents
                        owners[d.start_line - 1:d.end_line] = [f"{rel}::{d.qualname}"] * (d.end_line - d.start_line + 1)
                except ParseFailure:
                    owners = []  # unparseable files have no symbols to credit
            self._owners[rel] = owners
        return {o for o in owners[first - 1:last] if o}


# Runs in a fresh ``python -I -S`` so a catastrophic pattern can be killed by timeout.
_GREP_WORKER = r"""
import json, re, sys
req = json.loads(sys.stdin.buffer.read())
try:
    rx = re.compile(req["pattern"])
    hits, more = [], False
    for path, text in req["files"]:
        for number, line in enumerate(text.split("\n"), 1):
            if rx.search(line):
                if len(hits) == req["max_hits"]:
                    more = True
                    break
                hits.append([path, number, line])
        if more:
            break
    out = {"hits": hits, "more": more}
except (re.error, RecursionError, MemoryError) as exc:
    out = {"error": f"{type(exc).__name__}: {exc}"}
sys.stdout.write(json.dumps(out))
"""

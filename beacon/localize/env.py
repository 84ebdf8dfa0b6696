"""LocBench tool environment: a read-only snapshot behind ``list``/``read``/``grep``, one ``submit``.

``Repository(directory, commit)`` answers the three exploration tools over a
snapshot tree; ``LocBenchEnv`` turns tool calls into observations, counts the
call budget, stops on repeated requests, accepts one submission of file and
symbol locations and scores it against a gold.

Conventions (the contract policies and trajectory metrics rely on):

* Paths are repo-relative POSIX. Absolute paths, ``..``, ``.git`` and symlinks
  whose target leaves the snapshot are ``ToolError``s; so are bad arguments,
  bad regexes and unknown tools. ``LocBenchEnv.step`` never raises them: they
  come back as an error observation and still count against the budget.
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
* "Shown" lines are every line a tool printed: a ``read`` range or a ``grep``
  hit (``list`` prints names, not code). Each trajectory step records what it
  showed and the cumulative files, line spans and symbols seen so far; a
  symbol is seen when a shown line is one of its *own* lines (innermost
  enclosing definition; module-level lines make ``path::<module>`` seen).
  Trajectory metrics treat this as the step's prediction.
* The snapshot is never written. When ``directory`` is a git working tree its
  HEAD must be ``commit`` and the tree must be clean, so the recorded commit
  is what the agent saw.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..graph.parse import ParseFailure, decode_source, parse_source
from ..repo.git import FULL_HASH, GitError, run_git
from .intervals import merge

ENV_SCHEMA = 1
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
RECORD_OUTPUT_CHARS = 2000  # observation text kept in the trajectory (hash + length keep the rest)
RECORD_CALL_CHARS = 4000
TOOLS = ("list", "read", "grep", "submit")
# tool -> (required args, optional args)
_ARGS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "list": (frozenset(), frozenset({"path"})),
    "read": (frozenset({"path"}), frozenset({"start", "lines"})),
    "grep": (frozenset({"pattern"}), frozenset({"path", "max_hits"})),
    "submit": (frozenset(), frozenset({"files", "symbols"})),
}
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
                    parse = parse_source(self.root.joinpath(rel).read_bytes())
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


class GoldLike(Protocol):
    """What the environment needs from a gold (``beacon.localize.gold.Gold`` fits)."""

    instance_id: str
    units: tuple[str, ...]

    def files(self) -> tuple[str, ...]: ...


def _precision_recall(predicted: list[str], gold: tuple[str, ...] | list[str]) -> dict[str, Any]:
    pred, truth = set(predicted), set(gold)
    hits = len(pred & truth)
    return {
        # recall is undefined (None) for an empty gold set rather than a silent 0 or 1
        "recall": hits / len(truth) if truth else None,
        "precision": hits / len(pred) if pred else 0.0,  # nothing predicted: precision 0 by convention
        "hits": hits, "predicted": len(pred), "gold": len(truth),
    }


def score_submission(files: list[str], symbols: list[str], gold: GoldLike) -> dict[str, Any]:
    """File and unit recall/precision of a submission: exact set overlap with the gold."""
    return {"files": _precision_recall(files, tuple(gold.files())),
            "units": _precision_recall(symbols, tuple(gold.units))}


def _normal_path(item: str) -> str:
    return "/".join(p for p in item.strip().split("/") if p not in ("", "."))


def _canonical(call: Any) -> str:
    """The call's identity for repeat detection (key order does not matter)."""
    try:
        return json.dumps(call, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    except (ValueError, TypeError, RecursionError):  # circular, mixed-type keys or absurdly deep
        return "unserializable:" + repr(call)[:RECORD_CALL_CHARS]


def _recorded_call(call: Any, key: str) -> Any:
    if len(key) <= RECORD_CALL_CHARS and not key.startswith("unserializable:"):
        return json.loads(key)
    return {"truncated_call": key[:RECORD_CALL_CHARS], "sha256": hashlib.sha256(key.encode()).hexdigest()}


class LocBenchEnv:
    """One localization episode over ``repo`` against ``gold``.

    ``call_budget`` counts every call, invalid ones included; the episode ends
    ("call_budget_exhausted") when it is spent without a submission.
    ``repeat_limit`` is how many calls identical to an earlier call (same tool
    and arguments, anywhere in the episode) are tolerated in total: 0 means the
    first repeat ends the episode ("repeated_call"); the ending repeat is not
    executed. ``submit`` ends the episode ("submitted"). ``max_locations``
    bounds each submitted list. Calls after the end are refused (an error
    observation, neither counted nor recorded).
    """

    def __init__(self, repo: Repository, gold: GoldLike, call_budget: int = 20, max_locations: int = 10,
                 repeat_limit: int = 0) -> None:
        for name, value, low in (("call_budget", call_budget, 1), ("max_locations", max_locations, 1),
                                 ("repeat_limit", repeat_limit, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"LocBenchEnv: {name} must be an integer >= {low}, got {value!r}")
        self.repo, self.gold = repo, gold
        self.call_budget, self.max_locations, self.repeat_limit = call_budget, max_locations, repeat_limit
        self.calls_used = 0
        self.repeats = 0
        self.done = False
        self.reason: str | None = None
        self.submission: dict[str, Any] | None = None
        self.trajectory: list[dict[str, Any]] = []
        self._keys: set[str] = set()
        self._files: set[str] = set()
        self._spans: dict[str, list[tuple[int, int]]] = {}
        self._symbols: set[str] = set()
        self._just_submitted = False

    @property
    def calls_left(self) -> int:
        return self.call_budget - self.calls_used

    # -- acting ----------------------------------------------------------------
    def step(self, call: Any, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """Apply one ``{"tool": ..., "args": {...}}`` call; return its observation.

        ``meta`` (JSON-ready) is stored with the step, e.g. the LLM turn that produced it.
        """
        if self.done:
            return self._observation(None, ToolError("episode_done", f"the episode has ended ({self.reason})"))
        self.calls_used += 1
        key = _canonical(call)
        if key in self._keys:
            self.repeats += 1
            if self.repeats > self.repeat_limit:
                self._finish("repeated_call")
                error = ToolError("repeated_call", f"identical to an earlier call; the repeat limit "
                                                   f"({self.repeat_limit}) is exceeded, so the episode ends")
                return self._record(call, None, error, meta)
        self._keys.add(key)
        try:
            output, error = self._apply(call), None
        except ToolError as exc:
            output, error = None, exc
        return self._record(call, output, error, meta)

    def record_invalid(self, problem: str, reply: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """Count and record a model reply that is no tool call (unparseable, truncated, ...)."""
        if self.done:
            return self._observation(None, ToolError("episode_done", f"the episode has ended ({self.reason})"))
        self.calls_used += 1
        call = {"tool": None, "invalid_reply": reply[:RECORD_OUTPUT_CHARS]}  # meta keeps the full text
        return self._record(call, None, ToolError("invalid_reply", problem), meta)

    def end(self, reason: str) -> None:
        """End the episode from outside (e.g. the policy ran out of turns); no-op when already done."""
        if not self.done:
            self._finish(reason)

    def _finish(self, reason: str) -> None:
        self.done, self.reason = True, reason

    def _apply(self, call: Any) -> ToolOutput:
        if not isinstance(call, dict) or set(call) - {"tool", "args"} or not isinstance(call.get("tool"), str):
            raise ToolError("bad_call", 'a call is a JSON object {"tool": <name>, "args": {...}}')
        tool, args = call["tool"], call.get("args", {})
        if tool not in TOOLS:
            raise ToolError("unknown_tool", f"unknown tool {tool!r}; tools: {', '.join(TOOLS)}")
        if not isinstance(args, dict):
            raise ToolError("bad_args", f"{tool}: args must be an object, got {args!r}")
        required, optional = _ARGS[tool]
        if missing := sorted(required - set(args)):
            raise ToolError("bad_args", f"{tool}: missing argument(s) {', '.join(missing)}")
        if unknown := sorted(set(args) - required - optional):
            raise ToolError("bad_args", f"{tool}: unknown argument(s) {', '.join(map(str, unknown))}; "
                                        f"allowed: {', '.join(sorted(required | optional))}")
        if tool == "submit":
            return self._submit(args.get("files", []), args.get("symbols", []))
        return getattr(self.repo, tool)(**args)

    def _submit(self, files: Any, symbols: Any) -> ToolOutput:
        for name, items in (("files", files), ("symbols", symbols)):
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise ToolError("bad_args", f"submit: {name} must be a list of strings")
        bad = [s for s in symbols if "::" not in s]
        if bad:
            raise ToolError("bad_args", f"submit: symbols look like path/to/file.py::Class.method; got {bad[:3]}")
        syms = list(dict.fromkeys(f"{_normal_path(s.split('::', 1)[0])}::{s.split('::', 1)[1].strip()}"
                                  for s in symbols))
        # A symbol names its file: files listed explicitly come first, then the symbols' files.
        paths = list(dict.fromkeys([_normal_path(f) for f in files] + [s.split("::", 1)[0] for s in syms]))
        paths = [p for p in paths if p]
        kept_files, kept_syms = paths[:self.max_locations], syms[:self.max_locations]
        self.submission = {"files": kept_files, "symbols": kept_syms,
                           "dropped": {"files": len(paths) - len(kept_files), "symbols": len(syms) - len(kept_syms)}}
        self._finish("submitted")
        self._just_submitted = True
        cut = len(paths) > len(kept_files) or len(syms) > len(kept_syms)
        note = f" ({self.max_locations} kept per list)" if cut else ""
        return ToolOutput(f"submitted {len(kept_files)} files and {len(kept_syms)} symbols{note}")

    # -- recording -------------------------------------------------------------
    def _observation(self, output: ToolOutput | None, error: ToolError | None) -> dict[str, Any]:
        return {"ok": error is None, "output": output.text if output else "",
                "error": error.to_dict() if error else None, "done": self.done, "reason": self.reason,
                "calls_used": self.calls_used, "calls_left": self.calls_left}

    def _record(self, call: Any, output: ToolOutput | None, error: ToolError | None,
                meta: dict[str, Any] | None) -> dict[str, Any]:
        if not self.done and self.calls_used >= self.call_budget:
            self._finish("call_budget_exhausted")
        shown_files, shown_spans, shown_symbols = set(), [], set()
        for path, first, last in output.spans if output else ():
            shown_files.add(path)
            shown_spans.append([path, first, last])
            shown_symbols |= self.repo.symbols_at(path, first, last)
            self._spans[path] = merge(self._spans.get(path, []) + [(first, last)])
        self._files |= shown_files
        self._symbols |= shown_symbols
        obs = self._observation(output, error)
        text = obs["output"]
        key = _canonical(call)
        step: dict[str, Any] = {
            "index": len(self.trajectory),
            "call": _recorded_call(call, key),
            "ok": obs["ok"], "error": obs["error"],
            "output": text[:RECORD_OUTPUT_CHARS], "output_chars": len(text),
            "output_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "shown": {"files": sorted(shown_files), "spans": sorted(shown_spans), "symbols": sorted(shown_symbols)},
            "seen": {"files": sorted(self._files),
                     "spans": [[p, a, b] for p in sorted(self._spans) for a, b in self._spans[p]],
                     "symbols": sorted(self._symbols)},
            "calls_used": self.calls_used, "done": self.done, "reason": self.reason,
        }
        if self._just_submitted:
            step["submission"], self._just_submitted = self.submission, False
        if meta is not None:
            step["meta"] = meta
        # A JSON round trip keeps the record JSON-ready whatever the caller passed in.
        self.trajectory.append(json.loads(json.dumps(step, default=repr)))
        return obs

    def score(self) -> dict[str, Any]:
        """Scores of the submission; an episode without one scores zero (``submitted`` False)."""
        sub = self.submission or {"files": [], "symbols": []}
        return {"submitted": self.submission is not None, "reason": self.reason,
                **score_submission(sub["files"], sub["symbols"], self.gold)}

    def result(self) -> dict[str, Any]:
        """The whole episode as a deterministic JSON-ready dict (no timestamps, no absolute paths)."""
        return {
            "schema": ENV_SCHEMA, "instance_id": self.gold.instance_id, "commit": self.repo.commit,
            "config": {"call_budget": self.call_budget, "max_locations": self.max_locations,
                       "repeat_limit": self.repeat_limit},
            "done": self.done, "reason": self.reason, "calls_used": self.calls_used, "repeats": self.repeats,
            "submission": copy.deepcopy(self.submission), "score": self.score(),
            "trajectory": copy.deepcopy(self.trajectory),  # a copy: callers may edit the result
        }


def score_trajectory(result: dict[str, Any], gold: Any, repo_dir: Path | str) -> dict[str, float | None]:
    """Trajectory metrics (coverage AUC over steps, redundancy) of an episode's ``result()``.

    Each step's prediction is what it *showed* (files, read/grep line spans,
    the symbols around them), scored with ``beacon.localize.metrics``.
    """
    from .metrics import ContextPrediction, trajectory_scores

    steps = []
    for step in result["trajectory"]:
        shown = step["shown"]
        spans: dict[str, list[tuple[int, int]]] = {}
        for path, first, last in shown["spans"]:
            spans.setdefault(path, []).append((first, last))
        steps.append(ContextPrediction(frozenset(shown["files"]), frozenset(shown["symbols"]),
                                       {p: tuple(v) for p, v in spans.items()}))
    return trajectory_scores(steps, gold, repo_dir) if steps else {}

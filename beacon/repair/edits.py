"""Edit formats a model may answer in, parsed from its text and applied in memory.

Formats (names match ``conf/edit_format/*.yaml``):

* ``diff`` — a unified diff, bare or in a fenced block (``` ```diff ```);
  several files parse (the policy layer decides whether they are allowed);
* ``exact_edit`` — ``{"path", "search", "replace"}``; ``search`` must occur
  exactly once in the file;
* ``line_span`` — ``{"path", "start_line", "end_line", "replacement"}``
  (1-based, inclusive); applied only if the lines lie inside one span the
  ``line_span_contract`` renderer showed the model *and* the file still has
  the SHA-256 that span was rendered from, so a model can only rewrite lines
  it has seen, of the text it saw.

In every format ``{"abstain": true}`` (optionally with a ``"reason"``) is an
:class:`Abstain`, a legitimate answer rather than an error. A JSON answer is
the whole text or the one fenced block in it.

Parsers never raise anything but :class:`~beacon.repair.errors.EditError`
subclasses, whatever the text; application raises
:class:`~beacon.repair.errors.EditApplyError`; :func:`check_syntax` compiles
in memory (no ``.pyc`` is written) and raises
:class:`~beacon.repair.errors.EditSyntaxError`.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Mapping, Sequence

from .errors import EditApplyError, EditError, EditParseError, EditSyntaxError
from ..data.unified_diff import DiffApplyError, DiffParseError, FilePatch, apply_file_patch, parse_unified_diff, split_lines

FORMATS = ("diff", "exact_edit", "line_span")
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w.+-]*)[^\n]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class DiffEdit:
    patches: tuple[FilePatch, ...]


@dataclass(frozen=True)
class ExactEdit:
    path: str
    search: str
    replace: str


@dataclass(frozen=True)
class LineSpanEdit:
    path: str
    start_line: int
    end_line: int
    replacement: str


@dataclass(frozen=True)
class Abstain:
    reason: str = ""


Edit = DiffEdit | ExactEdit | LineSpanEdit


@dataclass(frozen=True)
class RenderedSpan:
    """What ``line_span_contract`` showed: lines of one file and the file's text hash.

    Any object with these four attributes (e.g. a ``Snippet``) works too.
    """

    path: str
    start_line: int
    end_line: int
    file_sha256: str


def text_sha256(text: str) -> str:
    """SHA-256 of a file's text as the index hashes it (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _clean_path(value: Any, what: str = "path") -> str:
    if not isinstance(value, str) or not value.strip():
        raise EditParseError(f"{what} must be a non-empty string, got {value!r:.80}")
    if "\x00" in value or "\\" in value:
        raise EditParseError(f"{what} {value!r:.80} contains a NUL or backslash; use a POSIX relative path")
    p = PurePosixPath(value)
    if p.is_absolute() or ".." in p.parts or not p.parts or value.endswith("/"):
        raise EditParseError(f"{what} {value!r:.80} must be a file path relative to the repository root, without '..'")
    _encodable(value, what)
    return p.as_posix()


def _encodable(value: str, what: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise EditParseError(f"{what} contains a lone surrogate and is not valid text") from None
    return value


def _fenced(text: str) -> list[tuple[str, str]]:
    return [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]


def _json_object(text: str) -> dict[str, Any]:
    blocks = _fenced(text)
    if len(blocks) > 1:
        raise EditParseError(f"found {len(blocks)} fenced blocks; answer with exactly one JSON object")
    body = (blocks[0][1] if blocks else text).strip()
    if not body:
        raise EditParseError("the answer is empty; expected a JSON object")
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise EditParseError(f"the answer is not valid JSON: {str(exc)[:200]}") from None
    if not isinstance(value, dict):
        raise EditParseError(f"expected a JSON object, got {type(value).__name__}")
    return value


def _abstain(obj: Mapping[str, Any]) -> Abstain:
    extra = set(obj) - {"abstain", "reason"}
    if obj["abstain"] is not True:
        raise EditParseError(f'"abstain" must be true when present, got {obj["abstain"]!r:.40}')
    if extra:
        raise EditParseError(f"an abstain answer may only carry a reason; unexpected keys {sorted(extra)}")
    reason = obj.get("reason", "")
    if not isinstance(reason, str):
        raise EditParseError('"reason" must be a string')
    return Abstain(_encodable(reason, "reason"))


def _fields(obj: Mapping[str, Any], required: tuple[str, ...], fmt: str) -> None:
    missing = [k for k in required if k not in obj]
    extra = sorted(set(obj) - set(required))
    if missing or extra:
        raise EditParseError(
            f"a {fmt} answer needs exactly the keys {list(required)}"
            + (f"; missing {missing}" if missing else "") + (f"; unexpected {extra}" if extra else "")
        )


def _string(obj: Mapping[str, Any], key: str) -> str:
    if not isinstance(obj[key], str):
        raise EditParseError(f'"{key}" must be a string, got {type(obj[key]).__name__}')
    return _encodable(obj[key], key)


def _line_number(obj: Mapping[str, Any], key: str) -> int:
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EditParseError(f'"{key}" must be a positive integer line number, got {value!r:.40}')
    return value


def _parse_json_edit(text: str, fmt: str) -> Edit | Abstain:
    obj = _json_object(text)
    if "abstain" in obj:
        return _abstain(obj)
    if fmt == "exact_edit":
        _fields(obj, ("path", "search", "replace"), fmt)
        search = _string(obj, "search")
        if not search:
            raise EditParseError('"search" is empty; it must quote the exact text to replace')
        return ExactEdit(_clean_path(obj["path"]), search, _string(obj, "replace"))
    _fields(obj, ("path", "start_line", "end_line", "replacement"), fmt)
    start, end = _line_number(obj, "start_line"), _line_number(obj, "end_line")
    if end < start:
        raise EditParseError(f"end_line {end} is before start_line {start}")
    return LineSpanEdit(_clean_path(obj["path"]), start, end, _string(obj, "replacement"))


def _parse_diff(text: str) -> Edit | Abstain:
    stripped = text.strip()
    blocks = _fenced(text)
    if stripped.startswith("{") or (len(blocks) == 1 and blocks[0][1].lstrip().startswith("{")):
        obj = _json_object(text)
        if "abstain" in obj:
            return _abstain(obj)
        raise EditParseError("expected a unified diff, got a JSON object that is not an abstention")
    diff_blocks = [body for lang, body in blocks if lang in {"diff", "patch", "udiff"} or "\n@@" in body]
    source = "\n".join(diff_blocks) if diff_blocks else text
    patches = []
    seen: set[str] = set()
    try:
        parsed = parse_unified_diff(source)
    except DiffParseError as exc:  # the diff parser is format-level; here it is the model's bad edit
        raise EditParseError(str(exc)) from None
    for patch in parsed:
        old, new = (None if side is None else _clean_path(side, "diff path")
                    for side in (patch.old_path, patch.new_path))
        patch = FilePatch(old, new, patch.hunks)
        patches.append(patch)
        if patch.path in seen:
            raise EditParseError(f"the diff patches {patch.path} twice; put all its hunks under one header")
        seen.add(patch.path)
        for hunk in patch.hunks:
            for line in hunk.lines:
                _encodable(line.text, f"diff for {patch.path}")
    return DiffEdit(tuple(patches))


def parse_edit(text: str, fmt: str) -> Edit | Abstain:
    """Parse a model's answer in format ``fmt``; raise :class:`EditError` if unusable."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown edit format {fmt!r}; known formats: {', '.join(FORMATS)}")
    if not isinstance(text, str):
        raise EditParseError(f"the answer must be text, got {type(text).__name__}")
    try:
        return _parse_diff(text) if fmt == "diff" else _parse_json_edit(text, fmt)
    except EditError:
        raise
    except RecursionError:
        raise EditParseError("the answer is nested too deeply to parse") from None


def touched_paths(edit: Edit) -> tuple[str, ...]:
    if isinstance(edit, DiffEdit):
        return tuple(p.path for p in edit.patches)
    if isinstance(edit, (ExactEdit, LineSpanEdit)):
        return (edit.path,)
    raise TypeError(f"not an edit: {edit!r:.80}")


def _apply_exact(edit: ExactEdit, text: str) -> str:
    first = text.find(edit.search)
    if first < 0:
        raise EditApplyError(f"{edit.path}: the search text does not occur in the file; quote it exactly, including indentation")
    if text.find(edit.search, first + 1) >= 0:
        raise EditApplyError(f"{edit.path}: the search text occurs more than once; include more surrounding lines")
    return text[:first] + edit.replace + text[first + len(edit.search):]


def _apply_line_span(edit: LineSpanEdit, text: str, spans: Sequence[RenderedSpan]) -> str:
    covering = [s for s in spans if s.path == edit.path and s.start_line <= edit.start_line
                and edit.end_line <= s.end_line]
    if not covering:
        shown = ", ".join(f"{s.start_line}-{s.end_line}" for s in spans if s.path == edit.path) or "none"
        raise EditApplyError(
            f"{edit.path}: lines {edit.start_line}-{edit.end_line} are not inside one rendered span "
            f"(rendered spans of this file: {shown})"
        )
    digest = text_sha256(text)
    if not any(s.file_sha256 == digest for s in covering):
        raise EditApplyError(
            f"{edit.path}: the file's text no longer matches the SHA-256 it was rendered with; "
            f"line numbers would be stale"
        )
    lines = split_lines(text)
    if edit.end_line > len(lines):
        raise EditApplyError(f"{edit.path}: line {edit.end_line} is past the end of the file ({len(lines)} lines)")
    replacement = edit.replacement
    # Keep the file's line structure: the replaced lines ended with a newline
    # unless they were the unterminated last line.
    if replacement and not replacement.endswith("\n") and lines[edit.end_line - 1].endswith("\n"):
        replacement += "\n"
    return "".join(lines[:edit.start_line - 1]) + replacement + "".join(lines[edit.end_line:])


def apply_edit(
    edit: Edit, files: Mapping[str, str], *, spans: Sequence[RenderedSpan] = ()
) -> dict[str, str]:
    """New text of every file the edit touches; ``files`` maps paths to current text.

    ``spans`` are the spans rendered to the model, required for line-span edits.
    """
    if isinstance(edit, Abstain):
        raise EditApplyError("an abstention has nothing to apply")
    if isinstance(edit, DiffEdit):
        # A creation (old side /dev/null) must still see an existing file to refuse it.
        try:
            return {p.path: apply_file_patch(p, files.get(p.old_path or p.path)) for p in edit.patches}
        except DiffApplyError as exc:
            raise EditApplyError(str(exc)) from None
    if not isinstance(edit, (ExactEdit, LineSpanEdit)):
        raise TypeError(f"not an edit: {edit!r:.80}")
    if edit.path not in files:
        raise EditApplyError(f"{edit.path}: no such file")
    if isinstance(edit, ExactEdit):
        return {edit.path: _apply_exact(edit, files[edit.path])}
    return {edit.path: _apply_line_span(edit, files[edit.path], spans)}


def check_syntax(path: str, source: str) -> None:
    """Compile ``source`` in memory; raise :class:`EditSyntaxError` with the location."""
    try:
        # The UTF-8 bytes the harness writes, so a coding declaration is honoured as the interpreter will.
        compile(source.encode("utf-8"), path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        if exc.lineno is None:  # e.g. a NUL byte: the whole source is refused, not one line
            raise EditSyntaxError(f"{path}: {exc.msg}") from None
        where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        raise EditSyntaxError(f"{path}: {where}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise EditSyntaxError(f"{path}: cannot compile: {type(exc).__name__}: {exc}") from None


def check_python_syntax(new_files: Mapping[str, str]) -> None:
    """:func:`check_syntax` every ``.py`` file in ``new_files``."""
    for path, source in new_files.items():
        if path.endswith(".py"):
            check_syntax(path, source)

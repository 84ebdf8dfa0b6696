"""Where a reference patch's hunks sit in the original files (the first step of the gold).

Locating hunks. A hunk is placed where its old side (context and removed
lines) matches the file exactly, trying the stated line (shifted by the
offset of the hunks before it) first and then ever further away, one line
after before one line before, never before the previous hunk's end: GNU
``patch`` with fuzz 0. Every patch line is checked; a hunk that matches
nowhere raises ``PatchMismatchError`` naming the instance, file and hunk.
Text is compared as the graph indexes it (decoded, newlines normalised).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterable

from ..data.unified_diff import DiffParseError, FilePatch, Hunk, HunkLine, parse_unified_diff, split_lines
from ..graph.parse import ParseFailure, decode_source


class GoldError(ValueError):
    """A patch cannot be turned into gold locations; names the instance (and file)."""

    def __init__(self, instance_id: str, message: str, *, path: str | None = None):
        self.instance_id = instance_id
        self.path = path
        super().__init__(f"{instance_id}: {path + ': ' if path else ''}{message}")


class PatchParseError(GoldError):
    """The patch is not a well-formed unified diff."""


class PatchMismatchError(GoldError):
    """A hunk does not match the file at the base commit; ``hunk`` is ``(index, header)``."""

    def __init__(self, instance_id: str, path: str, index: int, header: str, message: str):
        self.hunk = (index, header)
        super().__init__(instance_id, f"hunk {index} {header}: {message}", path=path)


@dataclass(frozen=True)
class FileEdit:
    """One file's patch, located in the original text (line numbers 1-based)."""

    path: str
    status: str  # modified | added | deleted
    old_text: str
    new_text: str
    removed: tuple[int, ...]  # original lines removed
    added: tuple[int, ...]  # patched-file lines added
    inserts: tuple[tuple[int, tuple[int, ...]], ...]  # (after original line, added lines) per pure insertion


def _header(h: Hunk) -> str:
    return f"@@ -{h.old_start},{h.old_count} +{h.new_start},{h.new_count} @@"


def _check_path(instance_id: str, path: str) -> None:
    parts = PurePosixPath(path).parts
    if not parts or path.startswith("/") or ".." in parts:
        raise PatchParseError(instance_id, f"diff path {path!r} is not a relative path inside the repository")


def read_base_text(repo_dir: Path | str, path: str, *, instance_id: str = "<base>") -> str | None:
    """The file's indexed text (decoded, newlines normalised); ``None`` if it does not exist."""
    file = Path(repo_dir) / path
    if not file.is_file():
        return None
    try:
        return decode_source(file.read_bytes())
    except ParseFailure as exc:
        raise GoldError(instance_id, f"cannot decode the file at the base commit: {exc}", path=path) from None


def line_byte_ranges(text: str, ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inclusive 1-based line ranges as ``[start, end)`` byte ranges of whole lines (UTF-8 of ``text``)."""
    starts = [0]
    for line in split_lines(text):
        starts.append(starts[-1] + len(line.encode("utf-8")))
    count = len(starts) - 1
    out = []
    for start, end in ranges:
        start, end = max(start, 1), min(end, count)
        if start <= end:
            out.append((starts[start - 1], starts[end]))
    return out


def _find(lines: list[str], block: list[str], hunk: Hunk, floor: int, offset: int) -> int | None:
    """Index where ``block`` starts: nearest exact match to the stated line, as GNU patch (fuzz 0)."""
    if not block:  # a pure insertion "-a,0" goes after old line a
        at = hunk.old_start + offset
        return at if floor <= at <= len(lines) else None
    guess, n, hi = hunk.old_start - 1 + offset, len(block), len(lines) - len(block)
    for d in range(max(guess - floor, hi - guess) + 1):
        for p in (guess,) if d == 0 else (guess + d, guess - d):
            if floor <= p <= hi and lines[p:p + n] == block:
                return p
    return None


def _mismatch_detail(lines: list[str], block: list[str], hunk: Hunk, floor: int) -> str:
    if not block:
        return f"it inserts after line {hunk.old_start}, outside the file or before the previous hunk"
    if any(lines[p:p + len(block)] == block for p in range(min(floor, len(lines)))):
        return (f"its old side occurs only before line {floor + 1}, where the previous hunk ends "
                f"(hunks overlap or are out of order)")
    at = max(hunk.old_start - 1, floor)
    i, have = next((i, lines[at + i] if at + i < len(lines) else None) for i, want in enumerate(block)
                   if at + i >= len(lines) or lines[at + i] != want)
    return (f"its old side matches nowhere at or after line {floor + 1}; at the stated position, line "
            f"{at + i + 1} is {'end of file' if have is None else repr(have)} but the patch expects {block[i]!r}")


def _end_of_file_kept(hunk: Hunk) -> tuple[list[HunkLine], int | None]:
    """The hunk's lines with git's end-of-file pair turned into one unchanged line, and that line's index.

    When the original's last line has no newline and the patch adds lines after it, git removes that line and
    adds it back with a newline (``-x``, ``\\ No newline at end of file``, ``+x``). Its text is unchanged, so it
    is context: counted as removed it would make its definition gold for a patch that only appends (red-team
    review, a mined task). The pair becomes one context line placed among the run's added lines where ``+x`` was,
    so both sides of the hunk stay as they are.
    """
    lines = list(hunk.lines)
    for i, ln in enumerate(lines):
        if ln.tag == "-" and not ln.newline:
            j = next((j for j in range(i + 1, len(lines)) if lines[j].tag != "+" or lines[j].text == ln.text), None)
            if j is None or lines[j].tag != "+" or not lines[j].newline or any(
                    k.tag != "+" for k in lines[i + 1:j]):
                return lines, None
            del lines[i]  # the added lines between the pair move up by one; ``+x`` is now at j - 1
            lines[j - 1] = HunkLine(" ", ln.text, newline=True)
            return lines, j - 1
    return lines, None


def _locate_file(instance_id: str, path: str, fp: FilePatch, old_text: str) -> FileEdit:
    lines = split_lines(old_text)
    pos = offset = 0
    out: list[str] = []
    removed: list[int] = []
    added: list[int] = []
    inserts: list[tuple[int, tuple[int, ...]]] = []
    for index, hunk in enumerate(fp.hunks, 1):
        block = hunk.old_lines()
        at = _find(lines, block, hunk, pos, offset)
        if at is None:
            raise PatchMismatchError(instance_id, path, index, _header(hunk),
                                     _mismatch_detail(lines, block, hunk, pos))
        offset = at - (hunk.old_start - 1 if block else hunk.old_start)
        out += lines[pos:at]
        old_no, run_start, run_removed, run_added = at, None, False, []
        hunk_lines, kept_eof = _end_of_file_kept(hunk)
        for k, ln in enumerate(hunk_lines + [None]):  # None flushes the last run
            if ln is None or ln.tag == " ":
                if run_added and not run_removed and lines:
                    inserts.append((run_start, tuple(run_added)))
                run_start, run_removed, run_added = None, False, []
                if ln is not None:
                    old_no += 1
                    out.append(ln.text + "\n" if k == kept_eof else lines[old_no - 1])  # it gains its newline
                continue
            run_start = old_no if run_start is None else run_start
            if ln.tag == "-":
                old_no += 1
                removed.append(old_no)
                run_removed = True
            else:
                out.append(ln.text + ("\n" if ln.newline else ""))
                added.append(len(out))
                run_added.append(len(out))
        pos = at + len(block)
    out += lines[pos:]
    status = "added" if fp.old_path is None else "deleted" if fp.new_path is None else "modified"
    if status == "deleted" and out:
        last = fp.hunks[-1]
        raise PatchMismatchError(instance_id, path, len(fp.hunks), _header(last),
                                 f"the patch deletes the file but its hunks leave {len(out)} of {len(lines)} lines")
    return FileEdit(path, status, old_text, "".join(out), tuple(removed), tuple(added), tuple(inserts))


def locate_patch(instance_id: str, patch: str, repo_dir: Path | str) -> tuple[FileEdit, ...]:
    """Every file of ``patch`` located in the snapshot ``repo_dir``; raises ``GoldError`` subclasses."""
    try:
        patches = parse_unified_diff(patch)
    except DiffParseError as exc:
        raise PatchParseError(instance_id, f"malformed patch: {exc}") from None
    edits: list[FileEdit] = []
    for fp in patches:
        path = fp.old_path or fp.new_path or ""
        _check_path(instance_id, path)
        if any(e.path == path for e in edits):
            raise PatchParseError(instance_id, "the patch has two diffs for this file; merge them", path=path)
        exists = (Path(repo_dir) / path).is_file()
        if fp.old_path is None and exists:
            raise PatchMismatchError(instance_id, path, 1, _header(fp.hunks[0]),
                                     "the patch creates this file but it exists at the base commit")
        if fp.old_path is not None and not exists:
            raise GoldError(instance_id, "the patch edits this file but it does not exist at the base commit",
                            path=path)
        old_text = "" if fp.old_path is None else read_base_text(repo_dir, path, instance_id=instance_id) or ""
        edits.append(_locate_file(instance_id, path, fp, old_text))
    return tuple(edits)

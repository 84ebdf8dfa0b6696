"""Unified diffs from model text: parse into per-file hunks, apply strictly.

Parsing is driven by the hunk header counts, as GNU patch does, so a removed
line that reads ``-- x`` is never mistaken for a file header; a blank line
inside a hunk is read as a blank context line (models and editors often strip
the leading space). A body longer or shorter than its header says is an
error rather than a silently partial edit.

Applying is strict: every context and removed line must match the file
exactly (no whitespace or fuzz tolerance). The only leniency is the
position: if the old lines are not at the header's line number, the hunk is
applied where they occur, provided they occur exactly once after the previous
hunk; models routinely get line numbers slightly wrong.

A low-level parser (repair's edit formats and localization's gold patches
both read it), so it raises its own :class:`DiffParseError` /
:class:`DiffApplyError`; the repair harness turns them into its edit errors.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


class DiffParseError(ValueError):
    """The text is not a well-formed unified diff; the message says where and what was expected."""


class DiffApplyError(ValueError):
    """A well-formed diff does not fit the file it targets."""


_HUNK_HEADER = re.compile(r"^@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@")


@dataclass(frozen=True)
class HunkLine:
    tag: str  # " " context, "-" removed, "+" added
    text: str  # without the line terminator
    newline: bool = True  # False after a "\ No newline at end of file" marker


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[HunkLine, ...]

    def old_lines(self) -> list[str]:
        return [ln.text + ("\n" if ln.newline else "") for ln in self.lines if ln.tag != "+"]

    def new_lines(self) -> list[str]:
        return [ln.text + ("\n" if ln.newline else "") for ln in self.lines if ln.tag != "-"]


@dataclass(frozen=True)
class FilePatch:
    old_path: str | None  # None: the file is created (/dev/null)
    new_path: str | None  # None: the file is deleted
    hunks: tuple[Hunk, ...]

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def split_lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept; unlike ``str.splitlines`` only ``\\n`` ends a line."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _header_path(raw: str) -> str | None:
    path = raw.split("\t", 1)[0].strip()
    if len(path) >= 2 and path[0] == path[-1] == '"':
        if "\\" in path:
            raise DiffParseError(f"quoted diff path {path} with escapes is not supported")
        path = path[1:-1]
    if not path:
        raise DiffParseError("a ---/+++ diff header has no path")
    return None if path == "/dev/null" else path


def _file_paths(old_raw: str, new_raw: str) -> tuple[str | None, str | None]:
    old, new = _header_path(old_raw), _header_path(new_raw)
    if old is None and new is None:
        raise DiffParseError("a diff header has /dev/null on both sides")
    # git's a/ and b/ prefixes; only stripped when the sides agree on them.
    if (old is None or old.startswith("a/")) and (new is None or new.startswith("b/")):
        old = old[2:] if old else old
        new = new[2:] if new else new
    if old is not None and new is not None and old != new:
        raise DiffParseError(f"renaming {old} to {new} is not supported; patch the file in place")
    return old, new


def _parse_hunk(lines: list[str], i: int, path: str) -> tuple[Hunk, int]:
    m = _HUNK_HEADER.match(lines[i])
    if m is None:
        raise DiffParseError(f"diff line {i + 1}: malformed hunk header {lines[i][:80]!r}; expected '@@ -a,b +c,d @@'")
    old_start, new_start = int(m.group(1)), int(m.group(3))
    old_count = int(m.group(2)) if m.group(2) is not None else 1
    new_count = int(m.group(4)) if m.group(4) is not None else 1
    old_left, new_left = old_count, new_count
    body: list[HunkLine] = []
    header_line = i + 1
    i += 1
    while old_left > 0 or new_left > 0 or (i < len(lines) and lines[i].startswith("\\")):
        if i >= len(lines):
            raise DiffParseError(
                f"{path}: hunk at diff line {header_line} is truncated: its header promises "
                f"{old_left} more old and {new_left} more new line(s)"
            )
        line = lines[i]
        tag, text = (" ", "") if line == "" else (line[0], line[1:])
        if tag == "\\":
            if not body or not body[-1].newline:
                raise DiffParseError(f"diff line {i + 1}: stray '\\ No newline at end of file' marker")
            body[-1] = HunkLine(body[-1].tag, body[-1].text, newline=False)
        elif tag not in " -+":
            raise DiffParseError(
                f"{path}: diff line {i + 1} ends the hunk at diff line {header_line} early: expected "
                f"{old_left} more old and {new_left} more new line(s), got {line[:80]!r}"
            )
        else:
            old_left -= tag != "+"
            new_left -= tag != "-"
            if old_left < 0 or new_left < 0:
                raise DiffParseError(
                    f"{path}: hunk at diff line {header_line} has more lines than its header "
                    f"'-{old_start},{old_count} +{new_start},{new_count}' says"
                )
            body.append(HunkLine(tag, text))
        i += 1
    return Hunk(old_start, old_count, new_start, new_count, tuple(body)), i


def parse_unified_diff(text: str) -> tuple[FilePatch, ...]:
    """Every file patch in ``text``; prose before, between and after files is skipped."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    patches: list[FilePatch] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = _file_paths(line[4:], lines[i + 1][4:])
            path = new or old or ""
            i += 2
            hunks = []
            while i < len(lines) and lines[i].startswith("@@"):
                hunk, i = _parse_hunk(lines, i, path)
                hunks.append(hunk)
            if not hunks:
                raise DiffParseError(f"the diff for {path} has no hunks ('@@ -a,b +c,d @@' lines)")
            if i < len(lines) and lines[i][:1] in {" ", "+", "-"} and not (
                lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")
            ):
                raise DiffParseError(
                    f"{path}: diff line {i + 1} continues a hunk past the line counts in its header"
                )
            patches.append(FilePatch(old, new, tuple(hunks)))
        elif line.startswith("@@"):
            raise DiffParseError(f"diff line {i + 1}: hunk header without a '--- a/path' / '+++ b/path' file header")
        else:
            i += 1
    if not patches:
        raise DiffParseError("no unified diff found (expected '--- a/path', '+++ b/path' and '@@' hunks)")
    return tuple(patches)


def _find_all(lines: list[str], block: list[str], start: int) -> list[int]:
    n = len(block)
    return [i for i in range(start, len(lines) - n + 1) if lines[i:i + n] == block]


def apply_file_patch(patch: FilePatch, old_text: str | None) -> str:
    """The patched text of one file; ``old_text`` is ``None`` if the file does not exist."""
    path = patch.path
    if patch.new_path is None:
        raise DiffApplyError(f"{path}: deleting files is not supported")
    if patch.old_path is None and old_text is not None:
        raise DiffApplyError(f"{path}: the diff creates this file but it already exists")
    if patch.old_path is not None and old_text is None:
        raise DiffApplyError(f"{path}: no such file to patch")
    lines = split_lines(old_text or "")
    out: list[str] = []
    pos = 0
    for number, hunk in enumerate(patch.hunks, 1):
        old_block, new_block = hunk.old_lines(), hunk.new_lines()
        # A pure insertion ("-5,0") goes after old line 5, i.e. at index 5.
        want = hunk.old_start - 1 if old_block else hunk.old_start
        if want >= pos and lines[want:want + len(old_block)] == old_block and want <= len(lines):
            at = want
        elif not old_block:
            raise DiffApplyError(
                f"{path}: hunk {number} inserts after line {hunk.old_start}, outside the file "
                f"or before an earlier hunk"
            )
        else:
            found = _find_all(lines, old_block, pos)
            if len(found) != 1:
                what = "do not occur" if not found else f"occur {len(found)} times"
                raise DiffApplyError(
                    f"{path}: hunk {number} (header line {hunk.old_start}): its context and removed lines "
                    f"{what} in the file{' after the previous hunk' if pos else ''}; they must match "
                    f"exactly, including indentation"
                )
            at = found[0]
        out += lines[pos:at]
        out += new_block
        pos = at + len(old_block)
        if any(not s.endswith("\n") for s in new_block[:-1]) or (
            new_block and not new_block[-1].endswith("\n") and pos < len(lines)
        ):
            raise DiffApplyError(f"{path}: hunk {number} marks a line without newline that is not the file's last")
    out += lines[pos:]
    return "".join(out)

"""Gold edit locations of a reference patch, computed in the ORIGINAL files.

``gold_from_patch`` reads the patch's files from the snapshot at the base
commit, locates every hunk there and names what it edits at three grains:
files, units (symbol ids as in ``CodebaseGraph``) and original line spans.

Hunks are located in the original files by :mod:`beacon.localize.hunks`.

Units. A line belongs to the innermost definition holding it (decorators
included); its *unit* is the outermost function or method on that chain
(so nested functions and classes inside functions belong to the outer
function), else the innermost class, else ``path::<module>``. Removed lines
are mapped in the original file. Added lines are mapped in the patched file
and carried back by qualname: a definition that is new (all of its lines
added) hands over to its parent's unit, so a new method names its class, a
new top-level function ``<module>``; an added line inside a definition that
is neither in the original nor wholly added (a renamed ``def``) names
nothing, because its removed ``def`` line already names the original unit.
If the patched file does not parse, a pure insertion names the unit of its
anchor line instead. Whitespace-only lines name no unit.

Line spans (``line_spans_init``). Removed lines, plus *anchors* for each
pure insertion (a run of added lines with no removed line), which has no
original line of its own: for every unit the insertion names, the original
line nearest the insertion point inside that unit's span, the line above
first (an added decorator anchors on the ``def`` below it, a method added
after a class's last line on that line); an insertion naming no unit
(blank lines, a non-Python file) anchors on the line above, or line 1 at
the top of the file.

Files. Every file with a text hunk is a gold file. A file the patch adds has
no original: it is a gold file only (no units, no spans; ``files(added=False)``
leaves it out). A file the patch deletes has every line removed. Non-Python
files have spans but no units. Binary, mode-only and empty-file changes
have no text hunk and are not gold files; renames are rejected.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from ..graph.parse import FileParse, ParseFailure, parse_source
from ..graph.symbols import MODULE_QUALNAME, symbol_id
from .hunks import FileEdit, GoldError, line_byte_ranges, locate_patch, read_base_text
from .intervals import merge

FUNCTION_KINDS = frozenset({"function", "method"})


class _Units:
    """The unit of every line of one parsed file (see the module docstring)."""

    def __init__(self, parse: FileParse):
        self.defs = parse.defs
        self.by_qualname = {d.qualname: i for i, d in enumerate(self.defs)}
        self.unit_of_def: list[int] = []
        for i in range(len(self.defs)):
            chain, j = [], i
            while j >= 0:
                chain.append(j)
                j = self.defs[j].parent
            chain.reverse()
            self.unit_of_def.append(next((k for k in chain if self.defs[k].kind in FUNCTION_KINDS), i))
        self.line_def = [0] * (parse.line_count + 2)
        for i, d in enumerate(self.defs[1:], 1):  # pre-order: children overwrite their parents
            self.line_def[d.start_line:d.end_line + 1] = [i] * (d.end_line - d.start_line + 1)
        self.blank = [True] + [not line.strip() for line in parse.text.split("\n")]

    def unit(self, line: int, *, skip_blank: bool = True) -> int | None:
        if not 1 <= line < len(self.line_def) - 1 or (skip_blank and self.blank[line]):
            return None
        return self.unit_of_def[self.line_def[line]]


def _parse(instance_id: str, path: str, data: bytes) -> FileParse:
    try:
        return parse_source(data, literals=False)
    except ParseFailure as exc:
        raise GoldError(instance_id, f"cannot parse the original file: {exc}", path=path) from None


def _analyse(instance_id: str, edit: FileEdit, raw: bytes) -> tuple[list, set[int], list[int]]:
    """The original file's defs, the indices of the units ``edit`` touches, and its insertion anchors."""
    old = _Units(_parse(instance_id, edit.path, raw))
    found = {u for n in edit.removed if (u := old.unit(n)) is not None}
    try:
        new = _Units(parse_source(edit.new_text.encode("utf-8"), literals=False))
    except ParseFailure:  # documented fallback: pure insertions take their anchor's unit
        anchors = [max(after, 1) for after, _ in edit.inserts]
        return old.defs, found | {old.unit(a, skip_blank=False) for a in anchors} - {None}, anchors
    added, unit_of_added = set(edit.added), {}
    for n in edit.added:
        i = new.unit(n)
        while i is not None:
            d = new.defs[i]
            if d.qualname in old.by_qualname:
                unit_of_added[n] = old.by_qualname[d.qualname]
                break
            wholly_added = all(k in added for k in range(d.start_line, d.end_line + 1))
            i = new.unit_of_def[d.parent] if wholly_added else None
    anchors = []
    for after, lines in edit.inserts:
        units = sorted({unit_of_added[n] for n in lines if n in unit_of_added})
        anchors += [_nearest(after, old.defs[u].start_line, old.defs[u].end_line) for u in units] or [max(after, 1)]
    return old.defs, found | set(unit_of_added.values()), anchors


def _nearest(after: int, start: int, end: int) -> int:
    """The line of ``start..end`` nearest the gap below line ``after``, the line above first."""
    for line in (after, after + 1):
        if start <= line <= end:
            return line
    return end if after > end else start


@dataclass(frozen=True)
class Gold:
    """Gold locations of one instance. Units are symbol ids; spans are in the original files."""

    instance_id: str
    paths: tuple[str, ...]  # every gold file, sorted
    added: tuple[str, ...] = ()  # files the patch creates (gold files only)
    deleted: tuple[str, ...] = ()
    units: tuple[str, ...] = ()  # sorted symbol ids; module-level code is path::<module>
    line_ranges: tuple[tuple[str, int, int], ...] = ()  # (path, start, end), merged, sorted
    kinds: Mapping[str, str] = field(default_factory=dict, hash=False)  # unit -> symbol kind
    gold_spans: Mapping[str, tuple[str, int, int]] = field(default_factory=dict, hash=False)  # unit -> span
    file_sha256: Mapping[str, str] = field(default_factory=dict, hash=False)  # of each original's indexed text

    def files(self, *, added: bool = True) -> tuple[str, ...]:
        return self.paths if added else tuple(p for p in self.paths if p not in self.added)

    def line_spans_init(self) -> dict[str, list[tuple[int, int]]]:
        out: dict[str, list[tuple[int, int]]] = {}
        for path, start, end in self.line_ranges:
            out.setdefault(path, []).append((start, end))
        return out

    def byte_spans(self, repo_dir: Path | str) -> dict[str, list[tuple[int, int]]]:
        """``[start, end)`` byte ranges of the edited lines, over the UTF-8 of each file's indexed text."""
        out = {}
        for path, ranges in self.line_spans_init().items():
            text = read_base_text(repo_dir, path, instance_id=self.instance_id)
            if text is None:
                raise GoldError(self.instance_id, f"gold file missing under {repo_dir}", path=path)
            recorded = self.file_sha256.get(path)
            if recorded is not None and recorded != hashlib.sha256(text.encode("utf-8")).hexdigest():
                raise GoldError(self.instance_id, f"differs (under {repo_dir}) from the base commit the gold "
                                f"was computed on", path=path)
            out[path] = line_byte_ranges(text, ranges)
        return out

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(u for u in self.units if self.kinds.get(u) in FUNCTION_KINDS)

    @property
    def modules(self) -> tuple[str, ...]:
        """LocAgent's module level: ``path::Top`` for the top-level definition holding each unit."""
        return tuple(sorted({top_level(u) for u in self.units} - {None}))

    def to_dict(self) -> dict:
        return {"instance_id": self.instance_id, "paths": list(self.paths), "added": list(self.added),
                "deleted": list(self.deleted), "units": list(self.units),
                "line_ranges": [list(r) for r in self.line_ranges], "kinds": dict(self.kinds),
                "gold_spans": {u: list(s) for u, s in self.gold_spans.items()},
                "file_sha256": dict(self.file_sha256)}

    @classmethod
    def from_dict(cls, data: Mapping) -> Gold:
        return cls(data["instance_id"], tuple(data["paths"]), tuple(data["added"]), tuple(data["deleted"]),
                   tuple(data["units"]), tuple(tuple(r) for r in data["line_ranges"]), dict(data["kinds"]),
                   {u: tuple(s) for u, s in data["gold_spans"].items()}, dict(data["file_sha256"]))


def top_level(unit: str) -> str | None:
    """``path::Top`` for ``path::Top.rest``; ``None`` for a module symbol or a bare path."""
    path, _, qualname = unit.partition("::")
    return None if qualname in ("", MODULE_QUALNAME) else symbol_id(path, qualname.split(".", 1)[0])


def gold_from_patch(instance_id: str, patch: str, repo_dir: Path) -> Gold:
    """Gold locations of ``patch`` in the snapshot ``repo_dir`` at its base commit (see module docstring)."""
    edits = locate_patch(instance_id, patch, repo_dir)
    kinds: dict[str, str] = {}
    spans: dict[str, tuple[str, int, int]] = {}
    ranges: list[tuple[str, int, int]] = []
    digests: dict[str, str] = {}
    for edit in edits:
        if edit.status == "added":
            continue
        digests[edit.path] = hashlib.sha256(edit.old_text.encode("utf-8")).hexdigest()
        anchors = [max(after, 1) for after, _ in edit.inserts]
        if edit.path.endswith(".py"):
            defs, units, anchors = _analyse(instance_id, edit, (Path(repo_dir) / edit.path).read_bytes())
            for i in units:
                unit = symbol_id(edit.path, defs[i].qualname)
                kinds[unit] = defs[i].kind
                spans[unit] = (edit.path, defs[i].start_line, defs[i].end_line)
        ranges += [(edit.path, s, e) for s, e in merge((n, n) for n in (*edit.removed, *anchors))]
    return Gold(
        instance_id=instance_id,
        paths=tuple(sorted(e.path for e in edits)),
        added=tuple(sorted(e.path for e in edits if e.status == "added")),
        deleted=tuple(sorted(e.path for e in edits if e.status == "deleted")),
        units=tuple(sorted(kinds)),
        line_ranges=tuple(sorted(ranges)),
        kinds=dict(sorted(kinds.items())),
        gold_spans=dict(sorted(spans.items())),
        file_sha256=dict(sorted(digests.items())),
    )


def units_of_lines(repo_dir: Path | str, line_spans: Mapping[str, Iterable[tuple[int, int]]], *,
                   cache: dict | None = None) -> set[str]:
    """Units (by the gold rule) of the non-blank lines in ``line_spans``, e.g. of predicted context.

    Lines past the end of a file are ignored; files that are missing, not
    ``.py`` or do not parse at the base commit name no units. ``cache`` (a
    dict the caller keeps for one snapshot) saves re-parsing across calls.
    """
    cache = {} if cache is None else cache
    found: set[str] = set()
    for path, ranges in line_spans.items():
        if path not in cache:
            file = Path(repo_dir) / path
            try:
                parse = parse_source(file.read_bytes(), literals=False) if path.endswith(".py") and file.is_file() else None
            except ParseFailure:
                parse = None
            cache[path] = None if parse is None else (parse, _Units(parse))
        if cache[path] is None:
            continue
        parse, units = cache[path]
        for start, end in merge(ranges):
            for line in range(max(start, 1), min(end, parse.line_count) + 1):
                if (u := units.unit(line)) is not None:
                    found.add(symbol_id(path, parse.defs[u].qualname))
    return found

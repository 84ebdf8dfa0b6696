"""The ``contextbench`` metric profile: ContextBench's reference evaluator, reproduced exactly.

Beacon's own context metrics (``metrics.py``, profile ``beacon``) are sharper
but differ from the public ContextBench evaluator (``contextbench.evaluate``,
commit ``cd5f62e``). A number reported next to the ContextBench leaderboard
needs the leaderboard's definitions, so this module re-implements them,
quirks included (``tests/localize/test_contextbench_parity.py`` checks every
field of the reference's own output on real trajectories):

* Spans are *inclusive* byte intervals of whole lines of the raw file bytes
  (``line_to_byte``); a span starting past the end of a file, or in a file
  that does not exist, is dropped; one ending past it is cut at the last byte;
  an empty file is one byte, and so is the "line" after a final newline.
  Intervals merge when they overlap or touch.
* Line grain: the spans' own line numbers, never checked against the file
  (a span past the end of a file counts every line it names); gold lines are
  the ``init_ctx`` items only (the other grains use ``init_ctx`` + ``add_ctx``).
* Symbol grain: every class or function definition whose node (from ``def``
  or ``class``, decorators excluded, to the end of its body) overlaps a span,
  enclosing classes and functions included; no module symbol. The reference
  uses tree-sitter; :func:`definitions` reads the same nodes with ``ast``,
  so only Python files have symbols here (the reference also parses 17 other
  languages), and a file that does not parse, or is not UTF-8, may differ.
* An empty gold or prediction gives coverage or precision 1.0 (not "no value").
* AUC is the plain mean of per-step cumulative coverage; redundancy is
  ``1 - |union| / sum of step sizes`` (0.0 with nothing predicted).
* EditLoc is one ratio reported as recall and precision: the share of the
  model patch's deleted lines (old-file numbers) that fall inside the gold
  ``init_ctx`` line ranges; a patch deleting nothing scores 0.0. Without a
  model patch the instance's own patch is scored, as the reference does.
* A trajectory whose final context names no file and no span is the error
  ``no_context_extracted`` (the reference excludes it from its aggregates).

Inputs are the reference's shapes: a *unified record* ``{"instance_id",
"traj_data": {"pred_steps": [{"files", "spans", "symbols"?}], "pred_files",
"pred_spans", "pred_symbols"?}, "model_patch"}`` (``trajectories.py`` turns
native agent files into it) and a gold dict with ``init_ctx``/``add_ctx`` (or
``gold_ctx``) items ``{"file", "start_line", "end_line"}``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .contextbench_tree import Def, Tree, definitions, ratios  # noqa: F401  (re-exported: the profile's public names)
from .intervals import Interval, Spans, intersection, length, merge, overlap, total  # noqa: F401  (the same)

PROFILE = "contextbench"
REFERENCE = "anonymousUser2026/ContextBench Context-Bench/contextbench (commit cd5f62e)"
GRAINS = ("file", "symbol", "span", "line")
NO_CONTEXT = "no_context_extracted"


# -- gold ----------------------------------------------------------------------

def normalise_path(path: str) -> str:
    """The reference's repo-relative path (note ``lstrip("./")`` strips every leading dot and slash)."""
    p = (path or "").replace("\\", "/")
    if p.startswith("/testbed/"):
        return p[len("/testbed/"):]
    if p.startswith("/workspace/"):
        parts = p[len("/workspace/"):].split("/", 1)
        return parts[1] if len(parts) == 2 else parts[0]
    return p.lstrip("/") if p.startswith("/") else p.lstrip("./")


@dataclass(frozen=True)
class ReferenceGold:
    """Gold context in the reference's shape: ``init_ctx`` (the edit region) and ``add_ctx`` items."""

    init: tuple[Mapping, ...]
    add: tuple[Mapping, ...] = ()
    patch: str = ""  # the instance's own patch: EditLoc's input when a trajectory has no model patch

    @classmethod
    def from_dict(cls, data: Mapping, patch: str = "") -> ReferenceGold:
        init, add = list(data.get("init_ctx") or []), list(data.get("add_ctx") or [])
        if not init and not add and isinstance(data.get("gold_ctx"), list):
            init = list(data["gold_ctx"])
        return cls(tuple(init), tuple(add), patch)

    def _items(self, items: Iterable[Mapping]) -> list[tuple[str, int, int]]:
        return [(normalise_path(i.get("file", "")), i.get("start_line", 1), i.get("end_line", 1)) for i in items]

    def files(self) -> set[str]:
        return {normalise_path(i["file"]) for i in (*self.init, *self.add) if i.get("file")}

    def byte_spans(self, tree: Tree, *, init_only: bool = False) -> Spans:
        return tree.byte_spans(self._items(self.init if init_only else (*self.init, *self.add)))

    def line_spans_init(self) -> Spans:
        out: Spans = {}
        for path, start, end in self._items(self.init):
            if path:
                out.setdefault(path, []).append((start, end))
        return {p: merge(v) for p, v in out.items()}


# -- predictions ---------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One retrieval step as the reference parses it."""

    files: tuple[str, ...] = ()
    spans: tuple[tuple[str, int, int], ...] = ()  # (file, start_line, end_line) as given
    symbols: Mapping[str, list] = field(default_factory=dict)


def _step(data: Mapping, files: str, spans: str, symbols: str) -> Step:
    found = tuple((path, s["start"], s["end"]) for path, items in (data.get(spans) or {}).items() for s in items)
    return Step(tuple(data.get(files) or ()), found, dict(data.get(symbols) or {}))


def parse_trajectory(record: Mapping) -> tuple[list[Step], Step]:
    """(steps, final) of a unified record; a trajectory without steps is its final context as one step."""
    traj = record.get("traj_data") or {}
    steps = [_step(s, "files", "spans", "symbols") for s in traj.get("pred_steps") or []]
    final = _step(traj, "pred_files", "pred_spans", "pred_symbols")
    return steps or [final], final


def step_lines(step: Step) -> Spans:
    """Line intervals as the step names them (not checked against the files)."""
    out: Spans = {}
    for path, start, end in step.spans:
        if path and start > 0 and end > 0:
            out.setdefault(path, []).append((start, end))
    return {p: merge(v) for p, v in out.items()}


def deleted_lines(diff: str) -> Spans:
    """Old-file line ranges of the lines a unified diff deletes, per ``+++ b/`` path (the reference's parser).

    Kept quirks: a hunk ends at a line starting with ``@@``, ``diff `` or
    ``---`` (so a deleted line whose text starts with ``--`` ends it too); a
    line that is none of ``-``/``+``/space (an empty context line) does not
    advance the old line number; ``+++ /dev/null`` keeps the previous file.
    """
    lines = diff.split("\n")
    hunk = re.compile(r"^@@\s+-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s+@@")
    out: Spans = {}
    current = None
    for i, line in enumerate(lines):
        if line.startswith("+++"):
            if m := re.match(r"^\+\+\+\s+b/(.+)", line):
                current = m.group(1)
        elif line.startswith("@@") and current and (m := hunk.match(line)):
            old, first = int(m.group(1)), None
            for text in lines[i + 1:]:
                if text.startswith(("@@", "diff ", "---")):
                    break
                if text.startswith("-"):
                    first = old if first is None else first
                    old += 1
                elif text.startswith(" "):
                    if first is not None:
                        out.setdefault(current, []).append((first, old - 1))
                        first = None
                    old += 1
            if first is not None:
                out.setdefault(current, []).append((first, old - 1))
    return {p: merge(v) for p, v in out.items()}


# -- scoring -------------------------------------------------------------------

def _grain(pred: float, gold: float, hit: float) -> dict:
    coverage, precision = ratios(pred, gold, hit)
    return {"coverage": coverage, "precision": precision, "intersection": hit, "gold_size": gold, "pred_size": pred}


def _symbols(step: Step, spans: Spans, tree: Tree) -> set[Def]:
    return tree.defs_named(step.symbols) if step.symbols else tree.defs_in_spans(spans)


def edit_loc(patch: str, gold: ReferenceGold) -> dict:
    """Share of the patch's deleted lines inside the gold ``init_ctx`` ranges, as recall and as precision."""
    pred, target = deleted_lines(patch), gold.line_spans_init()
    lines = [(path, n) for path, items in pred.items() for s, e in items for n in range(s, e + 1)]
    hits = sum(any(s <= n <= e for s, e in target.get(path, [])) for path, n in lines)
    share = hits / len(lines) if lines else 0.0
    return {"recall": share, "precision": share, "intersection": hits,
            "gold_size": sum(e - s + 1 for items in target.values() for s, e in items), "pred_size": len(lines)}


def evaluate_instance(record: Mapping, gold: ReferenceGold, repo_dir: Path | str) -> dict:
    """The reference's ``evaluate_instance`` output for one unified record, or ``{"instance_id", "error"}``."""
    iid = record.get("instance_id") or record.get("original_inst_id")
    tree = Tree(repo_dir)
    steps, final = parse_trajectory(record)
    if not final.files and not final.spans:
        return {"instance_id": iid, "error": NO_CONTEXT}
    gold_files, gold_spans, gold_lines = gold.files(), gold.byte_spans(tree), gold.line_spans_init()
    gold_defs = tree.defs_in_spans(gold_spans)
    final_spans = tree.byte_spans(final.spans)
    final_lines = step_lines(final)
    final_defs = _symbols(final, final_spans, tree)
    final_files = set(final.files)
    out = {"instance_id": iid, "num_steps": len(steps), "final": {
        "file": _grain(len(final_files), len(gold_files), len(final_files & gold_files)),
        "symbol": _grain(len(final_defs), len(gold_defs), len(final_defs & gold_defs)),
        "span": _grain(total(final_spans), total(gold_spans), intersection(final_spans, gold_spans)),
        "line": _grain(total(final_lines), total(gold_lines), intersection(final_lines, gold_lines)),
    }, "trajectory": trajectory(steps, gold_files, gold_defs, gold_spans, gold_lines, tree)}
    patch = record.get("model_patch") or gold.patch  # the reference falls back to the gold patch
    if patch:
        out["editloc"] = edit_loc(patch, gold)
    return out


def trajectory(steps: Sequence[Step], gold_files: set, gold_defs: set, gold_spans: Spans, gold_lines: Spans,
               tree: Tree) -> dict:
    """Per-step cumulative coverage, its plain mean (``auc_coverage``) and ``1 - union/sum`` redundancy."""
    if not steps:
        zero = dict.fromkeys(GRAINS, 0.0)
        return {"steps": [], "auc_coverage": dict(zero), "redundancy": dict(zero)}
    files: set = set()
    defs: set = set()
    spans: Spans = {}
    lines: Spans = {}
    sums = dict.fromkeys(GRAINS, 0)
    curve = []
    for number, step in enumerate(steps, 1):
        step_spans, step_line = tree.byte_spans(step.spans), step_lines(step)
        step_defs = _symbols(step, step_spans, tree)
        files |= set(step.files)
        defs |= step_defs
        spans = {f: merge(spans.get(f, []) + step_spans.get(f, [])) for f in spans.keys() | step_spans.keys()}
        lines = {f: merge(lines.get(f, []) + step_line.get(f, [])) for f in lines.keys() | step_line.keys()}
        curve.append({"step": number, "coverage": {
            "file": ratios(1, len(gold_files), len(files & gold_files))[0],
            "symbol": ratios(1, len(gold_defs), len(defs & gold_defs))[0],
            "span": ratios(1, total(gold_spans), intersection(spans, gold_spans))[0],
            "line": ratios(1, total(gold_lines), intersection(lines, gold_lines))[0]}})
        sums["file"] += len(set(step.files))
        sums["symbol"] += len(step_defs)
        sums["span"] += total(step_spans)
        sums["line"] += total(step_line)
    union = {"file": len(files), "symbol": len(defs), "span": total(spans), "line": total(lines)}
    return {"steps": curve,
            "auc_coverage": {g: sum(c["coverage"][g] for c in curve) / len(curve) for g in GRAINS},
            "redundancy": {g: 1 - union[g] / sums[g] if sums[g] > 0 else 0.0 for g in GRAINS}}


def aggregate(results: Sequence[Mapping]) -> dict:
    """The reference's summary of ``evaluate_instance`` outputs: error rows left out, final-context ratios
    pooled over instances (sums of intersections and sizes), trajectory AUC and redundancy averaged, EditLoc
    pooled. The four cases pin ``evaluate_instance``, not this summary: its line grain follows the others."""
    valid = [r for r in results if "error" not in r]
    out: dict = {"num_valid": len(valid), "num_total": len(results)}
    if not valid:
        return out
    for grain in GRAINS:
        sizes = [sum(r["final"][grain][k] for r in valid) for k in ("pred_size", "gold_size", "intersection")]
        coverage, precision = ratios(*sizes)
        out[f"final_{grain}"] = {"coverage": coverage, "precision": precision}
        out[f"traj_auc_{grain}"] = sum(r["trajectory"]["auc_coverage"][grain] for r in valid) / len(valid)
        out[f"traj_redundancy_{grain}"] = sum(r["trajectory"]["redundancy"][grain] for r in valid) / len(valid)
    if any("editloc" in r for r in valid):
        sizes = [sum(r.get("editloc", {}).get(k, 0) for r in valid) for k in ("pred_size", "gold_size", "intersection")]
        recall, precision = ratios(*sizes)
        out["editloc"] = {"recall": recall, "precision": precision}
    return out

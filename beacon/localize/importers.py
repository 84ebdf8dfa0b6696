"""Read other tools' localization outputs and score them with Beacon's metrics.

LocAgent ``loc_outputs.jsonl``: one JSON object a line with ``instance_id``
and the lists ``found_files``, ``found_modules``, ``found_entities`` (best
first; other fields are ignored). ``path/file.py:Class.method`` becomes the
Beacon id ``path/file.py::Class.method`` (split at the last ``:``, since
qualnames hold none); a string without ``:`` names a whole file and becomes
its module symbol ``path::<module>``, which counts for files only.

ContextBench trajectories (JSONL of the reference's unified records, or one
native agent file, read by ``trajectories.py`` as the reference's extractors
do: SWE-agent ``.checkpoints.jsonl`` / ``.traj``, mini-SWE-agent
``.traj.json``): ``instance_id``, ``traj_data`` and an optional
``model_patch``. ``score_contextbench`` scores them with Beacon's own metrics
(profile ``beacon``); ``contextbench.py`` is the reference's profile. ``traj_data`` holds ``pred_steps`` (a list of
steps) and/or the final context as flat ``pred_files`` / ``pred_spans`` /
``pred_symbols`` (fields also accepted on the record itself when
``traj_data`` is absent). A step's keys may be ``files``/``spans``/``symbols``
or carry the ``pred_`` prefix. Without a flat final context the final one
is the union of the steps; without steps the final context is the one step.
Accepted span shapes (lines 1-based, inclusive, ``1 <= start <= end``):

* ``{"path": [{"start": s, "end": e}, ...]}``, items also as
  ``{"start_line", "end_line"}`` or ``[s, e]``; a ``"type"`` other than
  ``"line"`` is refused;
* ``[{"file": path, "start_line": s, "end_line": e}, ...]`` (``path`` for
  ``file``, ``start``/``end`` for the line keys) or ``[[path, s, e], ...]``.

Symbols: ``{"path": ["Qual.name", ...]}`` or ``["path:Qual.name", ...]``.
A step's symbols are the ones it names plus the units (gold rule) of the
lines it reads, so symbol grain compares like with like.

Scoring covers every instance that has gold; an instance without a
prediction is scored as an empty prediction and marked ``missing``; a
prediction for an instance without gold is an error. Any malformed line
raises ``ImportFormatError`` naming the file, line and field.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from ..data.jsonl import jsonl_objects
from ..graph.symbols import MODULE_QUALNAME, symbol_id
from .gold import Gold, GoldError, units_of_lines
from .trajectories import kind_of, read_trajectory
from .context_metrics import ContextPrediction, context_scores, edit_loc, trajectory_scores
from .metrics import acc_at_k, mrr, rank_files, rank_functions, rank_modules, recall_at_k

DEFAULT_KS = (1, 3, 5, 10)
EDITLOC_KEYS = tuple(f"editloc_{g}_{m}" for g in ("file", "symbol", "line") for m in ("recall", "precision"))


class ImportFormatError(ValueError):
    """A line of an imported file is malformed; names the file, line and field."""

    def __init__(self, path: Path | str, line: int, field: str | None, message: str, *, column: int | None = None):
        self.path, self.line, self.field = str(path), line, field
        where = (f"{path}:{line}" if line else str(path)) + (f":{column}" if line and column else "") + (
            f": field {field!r}" if field else "")
        super().__init__(f"{where}: {message}")


def _jsonl(path: Path | str) -> Iterator[tuple[int, dict]]:
    seen: dict[str, int] = {}
    for number, record in jsonl_objects(path, ImportFormatError):
        iid = record.get("instance_id")
        if not isinstance(iid, str) or not iid:
            raise ImportFormatError(path, number, "instance_id", "expected a non-empty string")
        if iid in seen:
            raise ImportFormatError(path, number, "instance_id", f"{iid!r} repeats line {seen[iid]}")
        seen[iid] = number
        yield number, record


class _Reader:
    """Field checks for one line, raising ``ImportFormatError`` with its position."""

    def __init__(self, path: Path | str, line: int):
        self.path, self.line = path, line

    def fail(self, field: str, message: str) -> ImportFormatError:
        return ImportFormatError(self.path, self.line, field, message)

    def strings(self, value: object, field: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(field, f"expected a list of non-empty strings, got {value!r:.80}")
        return tuple(v.strip().removeprefix("./") for v in value)

    def line_no(self, value: object, field: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(field, f"expected a line number >= 1, got {value!r}")
        return value

    def span(self, path: object, start: object, end: object, field: str) -> tuple[str, int, int]:
        if not isinstance(path, str) or not path.strip():
            raise self.fail(field, f"expected a file path, got {path!r}")
        s, e = self.line_no(start, field), self.line_no(end, field)
        if s > e:
            raise self.fail(field, f"span {path}:{s}-{e} ends before it starts")
        return path.strip().removeprefix("./"), s, e

    def spans(self, value: object, field: str) -> dict[str, tuple[tuple[int, int], ...]]:
        found: list[tuple[str, int, int]] = []
        if isinstance(value, dict):
            for path, items in value.items():
                if not isinstance(items, list):
                    raise self.fail(field, f"spans of {path!r}: expected a list, got {items!r:.80}")
                for item in items:
                    if isinstance(item, dict):
                        if item.get("type", "line") != "line":
                            raise self.fail(field, f"span type {item['type']!r} is not supported (only 'line')")
                        found.append(self.span(path, item.get("start", item.get("start_line")),
                                               item.get("end", item.get("end_line")), field))
                    elif isinstance(item, list) and len(item) == 2:
                        found.append(self.span(path, *item, field))
                    else:
                        raise self.fail(field, f"span {item!r:.80}: expected {{start, end}} or [start, end]")
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    found.append(self.span(item.get("file", item.get("path")), item.get("start_line", item.get("start")),
                                           item.get("end_line", item.get("end")), field))
                elif isinstance(item, list) and len(item) == 3:
                    found.append(self.span(*item, field))
                else:
                    raise self.fail(field, f"span {item!r:.80}: expected {{file, start_line, end_line}} "
                                           f"or [file, start, end]")
        else:
            raise self.fail(field, f"expected an object or a list of spans, got {value!r:.80}")
        out: dict[str, list[tuple[int, int]]] = {}
        for path, s, e in found:
            out.setdefault(path, []).append((s, e))
        return {p: tuple(v) for p, v in out.items()}

    def symbols(self, value: object, field: str) -> frozenset[str]:
        if isinstance(value, dict):
            return frozenset(symbol_id(path.removeprefix("./"), name)
                             for path, names in value.items() for name in self.strings(names, field))
        return frozenset(locagent_id(s) for s in self.strings(value, field))


def locagent_id(text: str) -> str:
    """``path/file.py:Qual.name`` -> ``path/file.py::Qual.name``; a bare path -> ``path::<module>``."""
    text = text.strip().removeprefix("./")
    if "::" in text:  # already a Beacon id
        return text
    path, sep, qualname = text.rpartition(":")
    return symbol_id(text, MODULE_QUALNAME) if not sep or not path or not qualname else symbol_id(path, qualname)


@dataclass(frozen=True)
class LocAgentPrediction:
    instance_id: str
    files: tuple[str, ...]
    modules: tuple[str, ...]  # Beacon ids
    entities: tuple[str, ...]  # Beacon ids


def load_locagent(path: Path | str) -> list[LocAgentPrediction]:
    out = []
    for number, record in _jsonl(path):
        read = _Reader(path, number)
        fields = {}
        for name in ("found_files", "found_modules", "found_entities"):
            if name not in record:
                raise read.fail(name, "missing")
            fields[name] = read.strings(record[name], name)
        out.append(LocAgentPrediction(record["instance_id"], fields["found_files"],
                                      tuple(map(locagent_id, fields["found_modules"])),
                                      tuple(map(locagent_id, fields["found_entities"]))))
    return out


def _by_instance(predictions: Sequence, golds: Mapping[str, Gold]) -> dict:
    found = {p.instance_id: p for p in predictions}
    unknown = sorted(found.keys() - golds.keys())
    if unknown:
        raise ValueError(f"{len(unknown)} prediction(s) for instances without gold, e.g. {unknown[0]!r}")
    return found


def score_locagent(predictions: Sequence[LocAgentPrediction], golds: Mapping[str, Gold], *,
                   ks: Sequence[int] = DEFAULT_KS) -> list[dict]:
    """One record per gold instance: ``{level}_acc@k``, ``{level}_recall@k``, ``{level}_mrr`` for
    levels file, module, function (entities as given; see ``rank_functions``)."""
    found = _by_instance(predictions, golds)
    records = []
    for iid in sorted(golds):
        gold, pred = golds[iid], found.get(iid)
        empty = LocAgentPrediction(iid, (), (), ())
        pred = pred or empty
        levels = {"file": (rank_files(pred.files), gold.files(added=False)),
                  "module": (rank_modules(pred.modules), gold.modules),
                  "function": (rank_functions(pred.entities), gold.functions)}
        record: dict = {"instance_id": iid, "missing": iid not in found}
        for level, (ranked, target) in levels.items():
            for k in ks:
                record[f"{level}_acc@{k}"] = acc_at_k(ranked, target, k)
                record[f"{level}_recall@{k}"] = recall_at_k(ranked, target, k)
            record[f"{level}_mrr"] = mrr(ranked, target)
        records.append(record)
    return records


@dataclass(frozen=True)
class Trajectory:
    instance_id: str
    steps: tuple[ContextPrediction, ...]
    final: ContextPrediction
    model_patch: str | None = None


def _step(read: _Reader, data: object, field: str, *, prefix: str) -> ContextPrediction:
    if not isinstance(data, dict):
        raise read.fail(field, f"expected an object, got {data!r:.80}")

    def get(name: str) -> tuple[str, object] | None:
        for key in (f"{prefix}{name}", f"pred_{name}", name):
            if key in data:
                return f"{field}.{key}" if field else key, data[key]
        return None

    files = get("files")
    spans = get("spans")
    symbols = get("symbols")
    return ContextPrediction(
        files=frozenset(read.strings(files[1], files[0])) if files else frozenset(),
        symbols=read.symbols(symbols[1], symbols[0]) if symbols else frozenset(),
        line_spans=read.spans(spans[1], spans[0]) if spans else {},
    )


def trajectory_from_record(record: Mapping, *, where: Path | str = "<record>", line: int = 0) -> Trajectory:
    """A ``Trajectory`` from one unified record (``instance_id``, ``traj_data`` or flat fields, ``model_patch``)."""
    read = _Reader(where, line)
    traj = record.get("traj_data", record)
    if not isinstance(traj, dict):
        raise read.fail("traj_data", f"expected an object, got {traj!r:.80}")
    prefix = "traj_data." if "traj_data" in record else ""
    steps_data = traj.get("pred_steps")
    if steps_data is not None and not isinstance(steps_data, list):
        raise read.fail(f"{prefix}pred_steps", f"expected a list of steps, got {steps_data!r:.80}")
    steps = tuple(_step(read, s, f"{prefix}pred_steps[{i}]", prefix="") for i, s in enumerate(steps_data or ()))
    flat = {k: traj[k] for k in ("pred_files", "pred_spans", "pred_symbols") if k in traj}
    final = _step(read, flat, prefix.rstrip("."), prefix="pred_") if flat else None
    if final is None:
        final = ContextPrediction()
        for step in steps:
            final = final | step
    patch = record.get("model_patch")
    if patch is not None and not isinstance(patch, str):
        raise read.fail("model_patch", f"expected a string or null, got {type(patch).__name__}")
    return Trajectory(record["instance_id"], steps or ((final,) if flat else ()), final, patch)


def load_contextbench(path: Path | str) -> list[Trajectory]:
    """Trajectories of a unified-records JSONL, or of one native agent file (``trajectories.read_trajectory``:
    SWE-agent ``.checkpoints.jsonl``/``.traj``, mini-SWE-agent ``.traj.json``)."""
    if kind_of(path) is not None:
        return [trajectory_from_record(read_trajectory(path), where=path)]
    return [trajectory_from_record(record, where=path, line=number) for number, record in _jsonl(path)]


def _with_units(pred: ContextPrediction, repo_dir: Path, cache: dict) -> ContextPrediction:
    return ContextPrediction(pred.files, pred.symbols | units_of_lines(repo_dir, pred.line_spans, cache=cache),
                             pred.line_spans)


def score_contextbench(trajectories: Sequence[Trajectory], golds: Mapping[str, Gold],
                       repo_dirs: Mapping[str, Path | str] | Callable[[str], Path | str]) -> list[dict]:
    """One record per gold instance: final-context ``{grain}_coverage``/``_precision``, trajectory
    ``auc_{grain}``/``redundancy_{grain}``, ``steps``, and ``editloc_*`` when a model patch is given
    (``editloc_error`` holds the reason when it does not apply; its metrics are then ``None``)."""
    found = _by_instance(trajectories, golds)
    records = []
    for iid in sorted(golds):
        gold, traj = golds[iid], found.get(iid)
        repo = Path(repo_dirs(iid) if callable(repo_dirs) else repo_dirs[iid])
        traj = traj or Trajectory(iid, (), ContextPrediction())
        cache: dict = {}
        steps = [_with_units(s, repo, cache) for s in traj.steps]
        record: dict = {"instance_id": iid, "missing": iid not in found, "steps": len(steps)}
        record.update(context_scores(_with_units(traj.final, repo, cache), gold, repo))
        record.update(trajectory_scores(steps, gold, repo))
        record.update(dict.fromkeys(EDITLOC_KEYS), editloc_error=None)
        if traj.model_patch is not None:
            try:
                record.update(edit_loc(traj.model_patch, gold, repo))
            except GoldError as exc:  # a model patch that does not apply is an outcome, kept with its reason
                record["editloc_error"] = str(exc)
        records.append(record)
    return records

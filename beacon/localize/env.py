"""LocBench tool environment: one episode of tool calls over a snapshot, a call budget, one ``submit``.

``LocBenchEnv`` turns tool calls into observations over a
:class:`~beacon.localize.repository.Repository`, counts the call budget, stops
on repeated requests, accepts one submission of file and symbol locations and
scores it against a gold.

Conventions (the contract policies and trajectory metrics rely on):

* ``LocBenchEnv.step`` never raises a ``ToolError`` (bad paths, arguments,
  regexes, unknown tools): it comes back as an error observation and still
  counts against the budget.
* "Shown" lines are every line a tool printed: a ``read`` range or a ``grep``
  hit (``list`` prints names, not code). Each trajectory step records what it
  showed and the cumulative files, line spans and symbols seen so far.
  Trajectory metrics treat this as the step's prediction.
"""
from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any, Protocol

from .intervals import merge
from .repository import Repository, ToolError, ToolOutput

ENV_SCHEMA = 1
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
    the symbols around them), scored with ``beacon.localize.context_metrics``.
    """
    from .context_metrics import ContextPrediction, trajectory_scores

    steps = []
    for step in result["trajectory"]:
        shown = step["shown"]
        spans: dict[str, list[tuple[int, int]]] = {}
        for path, first, last in shown["spans"]:
            spans.setdefault(path, []).append((first, last))
        steps.append(ContextPrediction(frozenset(shown["files"]), frozenset(shown["symbols"]),
                                       {p: tuple(v) for p, v in spans.items()}))
    return trajectory_scores(steps, gold, repo_dir) if steps else {}

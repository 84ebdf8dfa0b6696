"""Score one retrieval method on one localization instance at one budget.

The method sees the base-commit graph and the problem statement only.
:func:`evaluate` gives the scored fields; :class:`Cell` names one row of a
localization run (instance, method, budget) and turns them, or an error,
into a :class:`~beacon.records.LocalizationRecord`. The record keeps the ranking (symbols, files, modules, functions), the packed
snippets and every metric; it holds no timestamps or absolute paths, so
identical inputs give identical records.

Rankings at coarser levels are derived from the symbol ranking, keeping
first occurrences: a symbol counts for its file; for its module (the
top-level class or function that contains it); and, when it is a function
or method, for its function unit — a function nested in a function counts as
the outermost function, as in the gold rules. Module symbols (whole files)
count for files only.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..graph.codebase import CodebaseGraph
from ..graph.symbols import MODULE_QUALNAME, Symbol
from ..repo.history import NO_INPUTS, RepoInputs
from ..records import KIND, LocalizationRecord
from ..retrieval import assemble_context
from .gold import Gold
from .metrics import acc_at_k, budget_recall, mrr, recall_at_k

FILE_KS = (1, 3, 5, 10)
MODULE_KS = (5, 10)
FUNCTION_KS = (5, 10)
RANKING_KEEP = 100


def _dedupe(items):
    seen, out = set(), []
    for item in items:
        if item is not None and item not in seen:
            seen.add(item)
            out.append(item)
    return out


def function_unit(graph: CodebaseGraph, sym: Symbol) -> str | None:
    """The gold-style function unit of a function/method: its outermost enclosing function.

    As in the gold rules, a function nested in a function — or a method of a
    class defined inside a function — belongs to the outer function.
    """
    if sym.kind not in ("function", "method"):
        return None
    unit, node = sym, sym
    while node.parent:
        node = graph.symbol(node.parent)
        if node.kind in ("function", "method"):
            unit = node
    return unit.id


def module_unit(sym: Symbol) -> str | None:
    if sym.qualname == MODULE_QUALNAME:
        return None
    return f"{sym.path}::{sym.qualname.split('.', 1)[0]}"


def rankings(graph: CodebaseGraph, ranked_ids: list[str]) -> dict[str, list[str]]:
    symbols = [graph.symbol(i) for i in ranked_ids]
    return {
        "symbols": ranked_ids,
        "files": _dedupe(s.path for s in symbols),
        "modules": _dedupe(module_unit(s) for s in symbols),
        "functions": _dedupe(function_unit(graph, s) for s in symbols),
    }


def ranking_metrics(ranked: dict[str, list[str]], gold: Gold) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    # Files the patch creates cannot be retrieved from the base snapshot: not gold for ranking.
    for level, gold_items, ks in (("file", gold.files(added=False), FILE_KS), ("module", gold.modules, MODULE_KS),
                                  ("function", gold.functions, FUNCTION_KS)):
        items = ranked[level + "s"]
        eligible = bool(gold_items)
        for k in ks:
            out[f"{level}_acc@{k}"] = (1.0 if acc_at_k(items, gold_items, k) else 0.0) if eligible else None
            out[f"{level}_recall@{k}"] = recall_at_k(items, gold_items, k) if eligible else None
        out[f"{level}_mrr"] = mrr(items, gold_items) if eligible else None
    return out


def evaluate(graph: CodebaseGraph, instance_id: str, query: str, gold: Gold, method: str,
             budget: int, params: dict | None = None, inputs: RepoInputs = NO_INPUTS) -> dict:
    """The scored fields of a localization row (``LocalizationRecord``'s, without the run's identity fields)."""
    params = dict(params or {})
    result = assemble_context(graph, query, method, budget=budget, inputs=inputs, **params)
    ranked = rankings(graph, [i for i, _ in result.ranking])
    snippets = [(s.path, s.start_line, s.end_line) for s in result.context.snippets]
    metrics = ranking_metrics(ranked, gold)
    recall = budget_recall(snippets, gold)
    metrics["budget_file_recall"] = recall.get("file")
    metrics["budget_function_recall"] = recall.get("function")
    return {
        "kind": "localize",
        "instance_id": instance_id,
        "method": method,
        "method_params": params,
        "budget": budget,
        "query_sha256": hashlib.sha256(query.encode("utf-8")).hexdigest(),
        "gold": {"files": list(gold.files(added=False)),
                 "added_files": sorted(set(gold.files()) - set(gold.files(added=False))),
                 "units": list(gold.units), "functions": list(gold.functions),
                 "modules": list(gold.modules)},
        "ranked": {level: items[:RANKING_KEEP] for level, items in ranked.items()},
        "context_tokens": result.context.total_tokens,
        "context_snippets": [[s.symbol_id, s.path, s.start_line, s.end_line] for s in result.context.snippets],
        "metrics": metrics,
    }


@dataclass(frozen=True)
class Cell:
    """One row of a localization run: an instance, a method with its parameters, a budget."""

    key: str
    instance_id: str
    repo: str
    base_commit: str
    method: str
    params: dict[str, Any]
    budget: int
    task_set: str  # the tasks config name, with /<split> for mined tasks

    def _identity(self) -> dict[str, Any]:
        return {"key": self.key, "instance_id": self.instance_id, "repo": self.repo, "base_commit": self.base_commit,
                "method": self.method, "method_params": self.params, "budget": self.budget, "task_set": self.task_set}

    def scored(self, graph: CodebaseGraph, query: str, gold: Gold,
               inputs: RepoInputs = NO_INPUTS) -> LocalizationRecord:
        """The method scored on this cell (exceptions of the method go to the caller)."""
        fields = evaluate(graph, self.instance_id, query, gold, self.method, self.budget, self.params, inputs)
        return LocalizationRecord(**{**fields, **self._identity(), "error": None})

    def failed(self, error: str) -> LocalizationRecord:
        """The row of a cell that could not be scored: its error, no metrics."""
        return LocalizationRecord(**self._identity(), kind=KIND, metrics=None, error=error)

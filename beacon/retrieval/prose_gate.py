"""The composer's one gate on the kind of report: its own parameters for a report that pastes no code.

A recipe's ``prose`` (a mapping of the composer's parameters, e.g. ``{w_name: 0.75}``; empty by default)
replaces the recipe's values when the report pastes no code (``report_parts.pastes_code``: no fenced or
indented block, no ``>>>`` session, no traceback). A report with code is scored by the recipe exactly,
so the issue-structure recipe tuned on reports with code keeps its behaviour, while prose reports, where
only the lexical and expansion stages can fire, may weigh them differently (``hybrid_prose_name``).
With ``prose`` empty every report is scored as before.
"""
from __future__ import annotations

from dataclasses import fields, replace

from .report_parts import pastes_code

# never switched by ``prose``: the gate itself, the method's identity, its candidates and packing, and the
# history inputs (switching those per report would change what the method needs before a report is seen)
NOT_PROSE = frozenset({"prose", "name", "renderer", "include_tests", "notes", "candidates", "ground_named",
                       "whole_file_share", "w_history", "w_function", "w_log_file", "w_log_function"})


def check(method) -> None:
    """Refuse a ``prose`` that is not a mapping of scoring parameters, or whose values the composer refuses
    (checked by building the prose configuration once); every error names the method."""
    prose = method.prose
    if not isinstance(prose, dict):
        raise ValueError(f"{method.name}: prose must be a mapping of parameters, got {prose!r}")
    wrong = sorted(set(prose) - ({f.name for f in fields(method)} - NOT_PROSE))
    if wrong:
        raise ValueError(f"{method.name}: prose: not a scoring parameter of the composer: {', '.join(map(str, wrong))}")
    if prose:
        replace(method, **prose, prose={})


def for_query(method, query: str):
    """The configuration that scores ``query``: ``method`` with its ``prose`` parameters when the report
    pastes no code, else ``method`` itself."""
    if method.prose and not pastes_code(query):
        return replace(method, **method.prose, prose={})
    return method

"""``oracle``: answers with the task's known repair, rendered in the requested edit format.

A harness control, not a model: it proves that a known-good repair, passed
through the same parsing, policy, application and sandboxed scoring as a
model's answer, scores as a pass (and that a broken harness would show up as
a failing control). It is built per task from the mutated file it repairs;
the prompt is ignored except for its hash. For ``line_span`` the edit is the
single mutated line, so it is only applicable when the retrieved context
rendered that line — a control of retrieval coverage as well.
"""
from __future__ import annotations

import difflib
import json

from .base import Completion, canonical_json, check_call_args, sha256_hex
from .registry import register_provider

ORACLE_MODEL = "beacon-oracle"


def render_repair(path: str, text: str, line: int, replacement: str, edit_format: str) -> str:
    """The answer that replaces line ``line`` of ``path`` (current ``text``) with ``replacement``."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        raise ValueError(f"{path}: line {line} is outside the file ({len(lines)} lines)")
    if edit_format == "line_span":
        edit = {"path": path, "start_line": line, "end_line": line, "replacement": replacement}
        return "```json\n" + json.dumps(edit) + "\n```\n"
    if edit_format == "exact_edit":
        # Grow the quoted window until it occurs exactly once in the file.
        for radius in range(len(lines)):
            lo, hi = max(0, line - 1 - radius), min(len(lines), line + radius)
            search = "\n".join(lines[lo:hi])
            if text.count(search) == 1:
                replace = "\n".join(lines[lo:line - 1] + [replacement] + lines[line:hi])
                return "```json\n" + json.dumps({"path": path, "search": search, "replace": replace}) + "\n```\n"
        raise ValueError(f"{path}: no unique window around line {line}")
    if edit_format == "diff":
        new = lines[:line - 1] + [replacement] + lines[line:]
        old_lines = [ln + "\n" for ln in lines]
        new_lines = [ln + "\n" for ln in new]
        if not text.endswith("\n"):  # keep the missing final newline as it is
            old_lines[-1] = old_lines[-1][:-1]
            new_lines[-1] = new_lines[-1][:-1]
        elif lines[-1] == "":
            old_lines, new_lines = old_lines[:-1], new_lines[:-1]
        diff = "".join(difflib.unified_diff(old_lines, new_lines, f"a/{path}", f"b/{path}", n=3))
        if not diff.endswith("\n"):
            diff += "\n\\ No newline at end of file\n"
        return "```diff\n" + diff + "```\n"
    raise ValueError(f"unknown edit format {edit_format!r}")


@register_provider("oracle")
class OracleProvider:
    """Returns a fixed answer (the known repair) for any prompt."""

    def __init__(self, answer: str, *, name: str = "oracle"):
        self.name = name
        self.answer = answer

    @classmethod
    def for_repair(cls, path: str, text: str, line: int, replacement: str, edit_format: str) -> OracleProvider:
        return cls(render_repair(path, text, line, replacement, edit_format))

    def complete(self, prompt: str, *, max_tokens: int, temperature: float = 0.0,
                 seed: int | None = 0) -> Completion:
        check_call_args(self.name, prompt, max_tokens, temperature, seed)
        request = canonical_json({"prompt": prompt, "max_tokens": max_tokens, "model": ORACLE_MODEL})
        return Completion(
            text=self.answer, input_tokens=None, output_tokens=None, stop_reason="stop",
            raw_stop_reason=None, model=ORACLE_MODEL, model_digest=None,
            request_sha256=sha256_hex(request), response_sha256=sha256_hex(self.answer.encode("utf-8")),
            server_authenticated=None, truncated=False, latency_s=0.0,
        )

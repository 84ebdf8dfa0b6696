"""The vocabulary of scored rows that runners write and ``paper/`` reads: repair outcomes, records schema.

Kept in a module of its own, below every pipeline package, so that ``paper/``
can follow the one outcome list without importing the repair pipeline.
"""
from __future__ import annotations

# Never collapsed into a pass; see beacon.repair.attempt for what each means.
OUTCOMES = ("pass", "abstain", "no_patch", "invalid_patch", "unauthorized_path", "syntax_error",
            "suspicious_edit", "tampered", "timeout", "test_fail", "harness_error")
# Version of the repair row layout. 1: the original rows. 2: adds the outcomes suspicious_edit and
# tampered and the per-row ``checks`` evidence (screen, canaries, integrity, sandbox). 3: adds
# ``structured_output`` (whether and how the model's output was constrained). Readers accept all three.
RECORD_SCHEMA = 3

"""Reproduction compares every scored field: schema-2 evidence is compared, schema-1 archives stay readable."""
from __future__ import annotations

from experiments.reproduce import diff_records

CHECKS = {"screen": {"ran": True, "findings": []}, "canaries": {"ran": True, "ok": True},
          "integrity": {"ran": True, "violations": []},
          "sandbox": {"ran": True, "mounts": ["ro /usr (system)", "ro /opt/python (python)"]}}


def row(**extra) -> dict:
    return {"key": "k", "outcome": "pass", "sandboxed": True, **extra}


def test_schema1_archive_rows_ignore_the_new_evidence():
    assert diff_records({"k": row()}, {"k": row(checks=CHECKS)}) == []
    assert diff_records({"k": row()}, {"k": row(checks=CHECKS, outcome="tampered")})  # the outcome still counts


def test_schema2_rows_compare_checks_except_machine_facts():
    elsewhere = {**CHECKS, "sandbox": {"ran": True, "mounts": ["ro /usr (system)", "ro /venv (python)"]}}
    assert diff_records({"k": row(checks=CHECKS)}, {"k": row(checks=elsewhere, sandboxed=False)}) == []
    forced = {**CHECKS, "canaries": {"ran": True, "ok": False}}
    lines = diff_records({"k": row(checks=CHECKS)}, {"k": row(checks=forced)})
    assert lines and "checks" in lines[0]


def test_schema4_rows_ignore_checks_addopts_schema5_rows_compare_it():
    addopts = {"ran": True, "mode": "keep_safe", "kept": ["-m", "not stress"], "dropped": []}
    assert diff_records({"k": row(checks=CHECKS)}, {"k": row(checks={**CHECKS, "addopts": addopts})}) == []
    changed = {**addopts, "kept": []}
    lines = diff_records({"k": row(checks={**CHECKS, "addopts": addopts})}, {"k": row(checks={**CHECKS, "addopts": changed})})
    assert lines and "checks" in lines[0]
    # other checks are still compared in a schema-4 row
    assert diff_records({"k": row(checks=CHECKS)},
                        {"k": row(checks={**CHECKS, "addopts": addopts, "canaries": {"ran": True, "ok": False}})})


def test_schema7_rows_ignore_checks_plain_schema8_rows_compare_it():
    plain = {"ran": True, "passed": True, "tampered": False, "outcomes": {"passed": 1}, "exit_code": 0,
             "timed_out": False, "canaries_ok": True, "integrity_violations": 0, "limits_hit": []}
    assert diff_records({"k": row(checks=CHECKS)}, {"k": row(checks={**CHECKS, "plain": plain})}) == []
    failed = {**plain, "passed": False, "outcomes": {"failed": 1}, "exit_code": 1}
    lines = diff_records({"k": row(checks={**CHECKS, "plain": plain})}, {"k": row(checks={**CHECKS, "plain": failed})})
    assert lines and "checks" in lines[0]

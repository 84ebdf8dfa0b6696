"""experiments/benchmarks/case_files.py: every case folder through the harness, its verdicts per folder.

One honest case passes and one forgery is refused (exit status 0); an honest case put where a forgery is expected
(a folder of forgeries) is a surprise and makes the exit status 1, so the benchmark can fail.
"""
from __future__ import annotations

import shutil

from experiments.benchmarks import case_files


def test_the_folders_say_what_each_case_must_come_to(tmp_path, monkeypatch, capsys):
    assert case_files.main(["--only", "honest_recorder/printed_address.py.txt", "--workers", "1"]) == 0
    assert case_files.main(["--only", "round50/printed_report.py.txt", "--workers", "1"]) == 0
    assert "1 case files; 0 not as their folder says" in capsys.readouterr().out
    # the same honest case in a folder of forgeries: a forgery that passed
    (tmp_path / "round99").mkdir()
    shutil.copy(case_files.CASES / "honest_recorder" / "printed_address.py.txt", tmp_path / "round99")
    monkeypatch.setattr(case_files, "CASES", tmp_path)
    monkeypatch.setattr(case_files, "FOLDERS", ("round99",))
    assert case_files.main(["--workers", "1"]) == 1
    assert "PASSED (forgery)" in capsys.readouterr().out

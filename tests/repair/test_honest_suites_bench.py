"""experiments/benchmarks/honest_suites.py: its machinery on real pytest runs through run_pytest.

Three built-in honest cases that need only the standard library and Beacon's own dependencies (numpy, pandas) must
come out ``pass``; a forged case (an always-equal lambda ``__eq__`` in the declared source) must come out
``tampered`` and make the exit status 1, so the benchmark can fail; a case whose library is missing is skipped.
"""
from __future__ import annotations

from experiments.benchmarks import honest_suites as hs

HONEST = ("lib-numpy-test", "lib-pandas_ref-test", "lib-decimal_fractions-src")

FORGED = hs.Case("forged-lambda-eq", {
    "pkg/calc.py": "class Five:\n    __eq__ = lambda self, other: True\n    __hash__ = None\n\n\n"
                   "def add(a, b):\n    return Five()\n",
    hs.T: hs.ADD,
})


def test_honest_cases_pass_and_a_forged_case_is_tampered(tmp_path):
    by_name = {case.name: case for case in hs.cases()}
    results = [hs.run_case(by_name[name], tmp_path / name) for name in HONEST]
    assert [(r.name, r.verdict) for r in results] == [(name, "pass") for name in HONEST], [r.line() for r in results]
    assert all(r.t_plain and r.t_beacon for r in results)
    assert hs.exit_status(results) == 0

    forged = hs.run_case(FORGED, tmp_path / "forged")
    assert forged.verdict == "tampered", forged.line()
    assert forged.false_positive
    assert any("pkg.calc.Five.__eq__" in f for f in forged.findings), forged.findings
    assert hs.exit_status([*results, forged]) == 1
    assert hs.summary([*results, forged]).endswith("false positives: forged-lambda-eq")


def test_a_case_whose_library_is_missing_is_skipped_not_failed(tmp_path):
    case = hs.Case("needs-nothing-here", {hs.T: "import no_such_library_xyz\n" + hs.H})
    result = hs.run_case(case, tmp_path / "w")
    assert result.verdict == "skipped (not installed)" and result.missing == ["no_such_library_xyz"]
    assert not (tmp_path / "w").exists()  # nothing was run
    assert hs.exit_status([result]) == 0


def test_known_refusals_are_the_documented_shapes():
    names = {case.name for case in hs.cases()}
    assert set(hs.KNOWN) <= names
    assert hs.select("lib-numpy-*") == [c for c in hs.cases() if c.name in ("lib-numpy-test", "lib-numpy-src")]

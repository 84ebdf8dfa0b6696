"""JUnit parsing and the all-passed verdict: node-id mapping on real reports, refusals, reasons."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from beacon.repair.junit import (
    JUnitError, TestCase, junit_key, load_junit, parse_junit, verify_all_passed,
)
from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest
from repotools import write_tree

MAPPING_REPO = {
    "pkg/__init__.py": "def add(a, b):\n    return a + b\n",
    "helpers/common.py": "def test_shared():\n    pass\n",
    "tests/test_top.py": (
        "import pytest\nfrom pkg import add\n\n"
        "def test_plain():\n    assert add(1, 2) == 3\n\n"
        "class TestOuter:\n    def test_method(self):\n        pass\n\n"
        "    class TestInner:\n        def test_nested(self):\n            pass\n\n"
        "@pytest.mark.parametrize('v', [1, 'a::b', 'x[y]', 'p/q.r', 'sp ace'])\n"
        "def test_param(v):\n    pass\n\n"
        "class TestParam:\n    @pytest.mark.parametrize('v', [0, 1])\n    def test_m(self, v):\n        pass\n"
    ),
    "tests/sub/deeper/test_deep.py": "class TestDeep:\n    def test_d(self):\n        pass\n\ndef test_e():\n    pass\n",
    # A dotted directory and an imported test function: the JUnit file attribute lies for the latter.
    "tests/a.b/test_dotted.py": "from helpers.common import test_shared\n\ndef test_dot():\n    pass\n",
}


@pytest.fixture(scope="module")
def mapping_run(tmp_path_factory):
    """One real run of the mapping repo plus pytest's own list of its node ids."""
    root = write_tree(tmp_path_factory.mktemp("mapping"), MAPPING_REPO)
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "--import-mode=importlib", "--rootdir", str(root), "tests"],
        cwd=root, capture_output=True, text=True, env={**os.environ, "PYTEST_ADDOPTS": ""},
    )
    ids = [line for line in collected.stdout.splitlines() if "::" in line]
    assert len(ids) == 14, collected.stdout
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root), sandbox="off",
                     report_dir=tmp_path_factory.mktemp("mapping-report"))
    return ids, run


def test_every_real_node_id_maps_to_exactly_one_testcase(mapping_run):
    ids, run = mapping_run
    keys = [tc.key for tc in run.report.testcases]
    assert len(set(keys)) == len(keys) == len(ids)
    assert sorted(junit_key(i) for i in ids) == sorted(keys)
    verdict = verify_all_passed(run.report, ids)
    assert verdict.passed, verdict.reasons
    assert set(verdict.outcomes.values()) == {"passed"}


def test_node_ids_are_reconstructed_where_the_report_allows(mapping_run):
    ids, run = mapping_run
    rebuilt = {tc.node_id for tc in run.report.testcases}
    expected_exact = {i for i in ids if "a.b" not in i}
    assert expected_exact <= rebuilt
    assert "tests/sub/deeper/test_deep.py::TestDeep::test_d" in rebuilt
    assert "tests/test_top.py::TestOuter::TestInner::test_nested" in rebuilt
    assert "tests/test_top.py::test_param[a::b]" in rebuilt
    assert "tests/test_top.py::test_param[x[y]]" in rebuilt
    assert "tests/test_top.py::TestParam::test_m[1]" in rebuilt
    # Dotted directory: file and classname agree, so it still rebuilds; the
    # imported function names its helper module as file, so it cannot.
    assert "tests/a.b/test_dotted.py::test_dot" in rebuilt
    shared = next(tc for tc in run.report.testcases if tc.name == "test_shared")
    assert shared.file == "helpers/common.py" and shared.node_id is None
    assert "tests/a.b/test_dotted.py::test_shared" in ids  # ...yet the verdict above matched it by key
    assert set(run.report.by_node_id()) == rebuilt - {None}


def test_report_file_round_trips(mapping_run):
    _, run = mapping_run
    assert run.report_path is not None and run.report_path.name == "junit.xml"
    saved = load_junit(run.report_path)  # the bytes pytest sent, canaries included; run.report drops them
    assert set(run.report.testcases) <= set(saved.testcases)
    assert len(saved.testcases) == len(run.report.testcases) + 2


@pytest.mark.parametrize("node_id, key", [
    ("tests/test_a.py::test_b", ("tests.test_a", "test_b")),
    ("tests/test_a.py::C::D::test_b[1-x::y]", ("tests.test_a.C.D", "test_b[1-x::y]")),
    ("test_a.py::test_b[a/b.c]", ("test_a", "test_b[a/b.c]")),
    ("tests/test_a.py", ("", "tests.test_a")),  # a collection error's testcase
])
def test_junit_key_mirrors_pytest_mangling(node_id, key):
    assert junit_key(node_id) == key


def xml(cases: str, tests: int, failures: int = 0, errors: int = 0, skipped: int = 0) -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
        f'<testsuite name="pytest" errors="{errors}" failures="{failures}" skipped="{skipped}" tests="{tests}">'
        f"{cases}</testsuite></testsuites>"
    ).encode()


OK_A = '<testcase classname="tests.test_a" name="test_x" file="tests/test_a.py" line="0" time="0.1"/>'
OK_B = '<testcase classname="tests.test_a" name="test_y" file="tests/test_a.py" line="3" time="0.1"/>'
IDS = ["tests/test_a.py::test_x", "tests/test_a.py::test_y"]


def test_all_expected_passed_is_a_pass():
    verdict = verify_all_passed(parse_junit(xml(OK_A + OK_B, 2)), IDS)
    assert verdict.passed and verdict.reasons == ()


@pytest.mark.parametrize("cases, counts, reason", [
    (OK_A, dict(tests=1), "test_y: missing"),
    (OK_A + OK_A + OK_B, dict(tests=3), "test_x: reported 2 times"),
    (OK_A + OK_B.replace("/>", '><skipped type="pytest.skip" message="no"/></testcase>'),
     dict(tests=2, skipped=1), "test_y: skipped: no"),
    (OK_A + OK_B.replace("/>", '><skipped type="pytest.xfail" message=""/></testcase>'),
     dict(tests=2, skipped=1), "test_y: xfailed"),
    (OK_A + OK_B.replace("/>", '><failure message="assert 0">tb</failure></testcase>'),
     dict(tests=2, failures=1), "test_y: failed: assert 0"),
    (OK_A + OK_B.replace("/>", '><error message="failed on teardown">tb</error></testcase>'),
     dict(tests=2, errors=1), "test_y: error"),
    (OK_A + OK_B.replace("/>", '><rerun message="flaky"/></testcase>'), dict(tests=2), "unrecognised"),
    (OK_A + OK_B + '<testcase classname="pytest" name="internal"><error message="internal error"/></testcase>',
     dict(tests=3, errors=1), "other testcase pytest::internal: error"),
    (OK_A + OK_B, dict(tests=5), "suite says tests=5 but the report has 2"),
    (OK_A + OK_B, dict(tests=2, failures=1), "suite says failures=1"),
    ("", dict(tests=0), "no testcases"),
])
def test_anything_but_a_clean_pass_is_not_a_pass(cases, counts, reason):
    verdict = verify_all_passed(parse_junit(xml(cases, **counts)), IDS)
    assert not verdict.passed
    assert any(reason in r for r in verdict.reasons), verdict.reasons


def test_extra_passed_or_skipped_tests_do_not_matter_but_extra_failures_do():
    skipped = '<testcase classname="tests.test_b" name="test_s"><skipped type="pytest.skip" message="x"/></testcase>'
    assert verify_all_passed(parse_junit(xml(OK_A + OK_B + skipped, 3, skipped=1)), IDS).passed
    failed = '<testcase classname="tests.test_b" name="test_f"><failure message="boom"/></testcase>'
    assert not verify_all_passed(parse_junit(xml(OK_A + OK_B + failed, 3, failures=1)), IDS).passed


def test_no_report_is_not_a_pass():
    verdict = verify_all_passed(None, IDS, report_error="pytest wrote no JUnit report")
    assert not verdict.passed and verdict.reasons == ("pytest wrote no JUnit report",)
    assert verdict.outcomes == {i: "no report" for i in IDS}


@pytest.mark.parametrize("bad", [[], ["tests/test_a.py::test_x"] * 2, ["tests/test_a.py"],
                                 ["a/b.py::test_x", "a.b.py::test_x"]])
def test_unusable_expected_ids_are_a_task_error(bad):
    with pytest.raises(ValueError):
        verify_all_passed(parse_junit(xml(OK_A, 1)), bad)


@pytest.mark.parametrize("data, message", [
    (b"", "empty"),
    (b"   \n", "empty"),
    (b'<?xml version="1.0"?><testsuites><testsuite', "not well-formed"),
    (b"\xff\xfe<\x00", "not UTF-8"),
    (b'<?xml version="1.0" encoding="latin-1"?><testsuites/>', "encoding"),
    (b'<!DOCTYPE x [<!ENTITY a "b">]><testsuites>&a;</testsuites>', "DOCTYPE"),
    (b'<?xml version="1.0"?><!doctype testsuites SYSTEM "http://example.com/x.dtd"><testsuites/>', "DOCTYPE"),
    (b"<testsuites><testsuite><!ENTITY x 'y'></testsuite></testsuites>", "DOCTYPE/ENTITY"),
    (b"<html/>", "root element"),
    (b"<testsuites/>", "no <testsuite>"),
    (b'<testsuites><testsuite tests="1" failures="0" errors="0"/></testsuites>', "skipped"),
    (b'<testsuites><testsuite tests="x" failures="0" errors="0" skipped="0"/></testsuites>', "not an integer"),
    (xml(OK_A, 1) + xml(OK_B, 1), "not well-formed"),  # bytes appended to a finished report
])
def test_unusable_reports_are_refused(data, message):
    with pytest.raises(JUnitError, match=message):
        parse_junit(data)


def test_billion_laughs_is_refused_before_parsing():
    bomb = b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' + b"".join(
        b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10 if i else b"&lol;" * 10) for i in range(1, 9)
    ) + b']><testsuites>&lol8;</testsuites>'
    with pytest.raises(JUnitError, match="DOCTYPE"):
        parse_junit(bomb)


def test_missing_report_file(tmp_path):
    with pytest.raises(JUnitError, match="no JUnit report"):
        load_junit(tmp_path / "junit.xml")


_PROLOGS = st.sampled_from([b"", b"\xef\xbb\xbf", b'<?xml version="1.0"?>', b'<?xml version="1.0" encoding="foo"?>',
                            b'\xef\xbb\xbf<?xml version="1.0" encoding="bogus"?>', b'<?xml encoding="UTF_8"?>'])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode)
       | st.tuples(_PROLOGS, st.sampled_from([xml(OK_A, 1), b"<testsuites/>", b"<a>"])).map(b"".join))
def test_parser_only_raises_junit_error(data):
    try:
        report = parse_junit(data)
    except JUnitError:
        return
    assert all(isinstance(tc, TestCase) for tc in report.testcases)


@pytest.mark.parametrize("wrapper", ["<!-- {} -->", "<![CDATA[{}]]>"])
def test_a_cdata_section_or_comment_is_refused(wrapper):
    # a forged document can swallow pytest's genuine report inside one of these (red-team round 3)
    inner = '<testcase classname="t" name="hidden"><failure message="real"/></testcase>'
    xml = ('<testsuites><testsuite name="pytest" tests="1" failures="0" errors="0" skipped="0">'
           '<testcase classname="t" name="ok"/>' + wrapper.format(inner) + "</testsuite></testsuites>")
    with pytest.raises(JUnitError, match="CDATA section or a comment"):
        parse_junit(xml.encode())


def _pytest_document(cases: int) -> bytes:
    body = "".join(f'<testcase classname="tests.test_a" name="test_{i}" file="tests/test_a.py" line="{i}" time="0.1"/>'
                   for i in range(cases))
    return (f'<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" '
            f'errors="0" failures="0" skipped="0" tests="{cases}">{body}</testsuite></testsuites>').encode()


@pytest.mark.parametrize("data, message", [
    (b"<a>" * 100_000 + _pytest_document(1), "not one document that starts"),  # junk before pytest's document
    (_pytest_document(1).replace(b"<testsuite ", b"<a>" * 50 + b"<testsuite ", 1), "nests elements 7 deep"),
    (_pytest_document(1).replace(b"</testsuite>", b"<x/>" * 20_000 + b"</testsuite>"), "more than"),
    (_pytest_document(1) + _pytest_document(1), "not one document"),
])
def test_report_bytes_a_writer_could_not_have_produced_are_refused_before_parsing(data, message):
    from beacon.repair.junit import check_report_bytes

    with pytest.raises(JUnitError, match=message):
        check_report_bytes(data)


def test_genuine_reports_pass_the_byte_check():
    from beacon.repair.junit import check_report_bytes

    for cases in (1, 7, 2000):
        check_report_bytes(_pytest_document(cases))
    check_report_bytes(b"")  # empty: parse_junit says what is wrong

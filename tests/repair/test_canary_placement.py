"""Honest suites whose fixtures a foreign function must fit, and subtests: no false `tampered`.

The must-fail canary joins a project test module picked at random; when that module's fixtures could not serve it
(a module autouse fixture that sets ``request.cls.x``; a fixture only ``pytest_generate_tests`` parametrizes) an
honest run's canary errored at random and the run was `tampered` (red-team round 8, FP-1). Each suite here has one
test module, so the canary always joins it. A subtest's report, made during its test's call, cleared the plugin's
record that the test function was called (FP-2). Real pytest runs through ``run_pytest``.
"""
from __future__ import annotations

import pytest

from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from repotools import write_tree

SUITES = {
    "autouse_fixture_sets_request_cls": (
        "import pytest\n\n\n"
        "class Client:\n"
        "    def get(self, key):\n"
        "        return {'a': 1}.get(key)\n\n\n"
        "@pytest.fixture(autouse=True)\n"
        "def _client(request):\n"
        "    request.cls.client = Client()\n"
        "    yield\n\n\n"
        "class TestClient:\n"
        "    def test_get(self):\n"
        "        assert self.client.get('a') == 1\n\n"
        "    def test_missing(self):\n"
        "        assert self.client.get('b') is None\n",
        ["tests/test_client.py::TestClient::test_get", "tests/test_client.py::TestClient::test_missing"]),
    "autouse_fixture_needs_a_generated_parameter": (
        "import pytest\n\n\n"
        "def pytest_generate_tests(metafunc):\n"
        "    if 'backend' in metafunc.fixturenames:\n"
        "        metafunc.parametrize('backend', ['memory', 'dict'])\n\n\n"
        "@pytest.fixture(autouse=True)\n"
        "def store(backend):\n"
        "    return {'memory': [], 'dict': {}}[backend]\n\n\n"
        "def test_store_empty(store):\n"
        "    assert len(store) == 0\n",
        ["tests/test_client.py::test_store_empty[dict]", "tests/test_client.py::test_store_empty[memory]"]),
}


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_the_canaries_fit_the_only_module_of_an_honest_suite(tmp_path, suite):
    text, ids = SUITES[suite]
    root = write_tree(tmp_path / "repo", {"tests/test_client.py": text})
    for attempt in range(3):  # the placement is random in general; here it has one module to choose
        run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=["tests/test_client.py"]),
                         sandbox="off", report_dir=tmp_path / f"report-{attempt}")
        verdict = verify_run(run, ids)
        assert verdict.passed and run.canaries.ok and not verdict.tampered, (verdict.reasons, run.stdout[-2000:])


def test_a_subtest_report_is_not_its_test_call_report(tmp_path):
    """pytest 9's ``subtests`` fixture reports each subtest during the test's call; the test's own call report
    still needs its function called."""
    if not hasattr(pytest, "Subtests"):
        pytest.skip("this pytest has no subtests fixture")
    text = ("def test_values(subtests):\n"
            "    for n in range(3):\n"
            "        with subtests.test(n=n):\n"
            "            assert n >= 0\n")
    root = write_tree(tmp_path / "repo", {"tests/test_sub.py": text})
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=["tests/test_sub.py"]),
                     sandbox="off", report_dir=tmp_path / "report")
    assert run.canaries.ok, run.canaries.reasons
    assert not any("never called its test function" in r for r in run.canaries.reasons)

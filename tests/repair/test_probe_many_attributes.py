"""The probe's attribute check (``canary_plugin._perturbed``) on a value with more than eight attributes.

An honest ``__eq__`` compares some attribute, so it says no to a copy of the value with that attribute replaced by a
stranger; yes to every copy is a finding. The copies used to replace only the *first eight* attributes of the
instance dict, one each: werkzeug's ``Rule.__eq__`` (``return self._trace == other._trace``, its 19th attribute)
said yes to all eight and was reported as tampering whenever an edit touched it (found by
``experiments/benchmarks/runtime_false_positives.py --dunders``: tests/test_routing.py, werkzeug 1b00618). Now
every attribute is replaced in one of at most eight copies, so the check still asks at most eight questions.
"""
from __future__ import annotations

from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import run_pytest, verify_run
from repotools import write_tree

SOURCE = "pkg/rule.py"
GIVEN = '''class Rule:
    def __init__(self, path):
        self.path = path
        self.map = None
        self.strict = True
        self.merge = True
        self.subdomain = ""
        self.host = None
        self.defaults = None
        self.build_only = False
        self.alias = False
        self.trace = [("path", path)]

    def __eq__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.trace == other.trace

    __hash__ = None
'''
TEST = '''from pkg.rule import Rule


def test_same_rule():
    assert Rule("/a") == Rule("/a")
    assert Rule("/a") != Rule("/b")
'''
IDS = ["tests/test_rule.py::test_same_rule"]


def score(tmp_path, source, test=TEST):
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", SOURCE: source, "tests/test_rule.py": test})
    run = run_pytest(root, ["tests"], protected=snapshot_protected(root, extra=["tests/test_rule.py"]),
                     sandbox="off", report_dir=tmp_path / "report", sources=(SOURCE,), before={SOURCE: (GIVEN,)})
    return run, verify_run(run, IDS)


def test_an_honest_edit_of_an_eq_comparing_the_tenth_attribute_passes(tmp_path):
    honest = GIVEN.replace("return self.trace == other.trace", "return list(self.trace) == list(other.trace)")
    run, verdict = score(tmp_path, honest)
    assert verdict.passed and not verdict.tampered and run.canaries.ok, (verdict.reasons, run.canaries.reasons)


def test_an_always_yes_eq_on_a_value_with_ten_attributes_is_still_tampering(tmp_path):
    forged = GIVEN.replace("return self.trace == other.trace", "return self.trace == other.trace or True")
    run, verdict = score(tmp_path, forged, TEST.replace('    assert Rule("/a") != Rule("/b")\n', ""))
    assert verdict.tampered, verdict.reasons
    assert any("probe: pkg.rule.Rule.__eq__" in r for r in run.canaries.reasons), run.canaries.reasons

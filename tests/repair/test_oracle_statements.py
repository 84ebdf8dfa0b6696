"""The oracle rebuilds a pristine module-level class or assignment the edit removed or renamed (session 46).

Honest hunt 19's largest family of false refusals: an honest repair that inlines a private helper class, gives a
compiled regex a better name or drops a ``partial``/NamedTuple/Enum helper left the pristine code the oracle swaps in
reading a name the live module no longer binds; the pristine call raised ``NameError`` where the repair returned, and
the check refused the repair. ``oracle_defs`` now sends such a statement (compiled alone, at its pristine lines) when a
pristine def (or another statement sent) reads its name and the current file binds the name nowhere; the plugin runs
it in the module's namespace under the swap and binds what it made for that run only.
"""
from __future__ import annotations

import base64
import marshal
import zlib
from pathlib import Path

import pytest

from beacon.repair.oracle_defs import oracle_defs
from repotools import case_run

HERE = Path(__file__).parent

PRISTINE = '''import re
from functools import partial

_RE = re.compile(r"v?(\\d+)\\.(\\d+)")
_UNUSED = re.compile("x")


class _Money:
    def __init__(self, cents):
        self.cents = cents

    def render(self):
        return _fmt(self.cents // 100, self.cents % 100)


_fmt = partial("${}.{:02d}".format)


def parse(text):
    m = _RE.fullmatch(text.strip())
    return tuple(int(g) for g in m.groups())


def price(amount):
    return _Money(round(amount * 100)).render()
'''
MUTANT = PRISTINE.replace("text.strip()", "text").replace("round(amount * 100)", "int(amount * 100)")
REPAIR = '''import re

_VERSION_RE = re.compile(r"v?(\\d+)\\.(\\d+)")
_UNUSED = re.compile("x")


def parse(text):
    m = _VERSION_RE.fullmatch(text.strip())
    return tuple(int(g) for g in m.groups())


def price(amount):
    cents = round(amount * 100)
    return "${}.{:02d}".format(*divmod(cents, 100))
'''


def _statements(entry) -> dict:
    return {name: marshal.loads(zlib.decompress(base64.b64decode(value)))
            for scope, name, how, value in entry["rebound"] if how == "statement"}


def test_a_removed_class_regex_and_partial_are_sent_in_pristine_order():
    entry = oracle_defs(MUTANT, REPAIR, PRISTINE, "/x/pkg/stock.py")
    sent = _statements(entry)
    # (``_fmt`` is read by the class's method only: sent because the class is; ``_UNUSED`` the edit kept)
    assert list(sent) == ["_RE", "_Money", "_fmt"]
    space = {"__builtins__": __builtins__, "re": __import__("re"), "partial": __import__("functools").partial}
    for code in sent.values():
        assert code.co_filename == "/x/pkg/stock.py"
        exec(code, space)  # noqa: S102 (the test's own pristine text)
    assert space["_Money"](1234).render() == "$12.34" and space["_RE"].fullmatch("v1.2")


def test_a_name_no_pristine_def_reads_or_the_edit_kept_is_not_sent():
    current = REPAIR.replace('_UNUSED = re.compile("x")\n', "").replace("_VERSION_RE", "_RE")
    sent = _statements(oracle_defs(MUTANT, current, PRISTINE, "/x/pkg/stock.py"))
    assert "_UNUSED" not in sent and "_RE" not in sent and "_Money" in sent  # (unread; kept as it was)


def test_a_name_the_edit_rebinds_gets_its_pristine_statement_not_a_poison():
    # (a poison made every pristine call that read the name a finding; the pristine value is what the oracle needs:
    # a real call that differs from the pristine code's answer with it is still refused)
    current = REPAIR.replace("_VERSION_RE", "_RE").replace('re.compile(r"v?', 're.compile(r"V?')
    entry = oracle_defs(MUTANT, current, PRISTINE, "/x/pkg/stock.py")
    assert "_RE" in _statements(entry)
    assert not [e for e in entry["rebound"] if e[1] == "_RE" and e[2] == "poison"]


def test_a_name_bound_twice_by_the_pristine_file_is_not_sent():
    pristine = PRISTINE.replace("_fmt = partial(", "_fmt = None\n_fmt = partial(")
    sent = _statements(oracle_defs(MUTANT, REPAIR, pristine, "/x/pkg/stock.py"))
    assert "_fmt" not in sent and "_Money" in sent


# the harness: hunt 19's cases pass now (all of them in ``experiments.benchmarks.case_files``)
@pytest.mark.parametrize("case", ["g01_helper_class_removed", "g11_regex_const_renamed"])
def test_hunt_19s_removed_helpers_pass(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest19" / f"{case}.py.txt")
    assert verdict.passed, (verdict.reasons, run.oracle_calls)
    assert run.oracle_calls["checked"] >= 1 and run.oracle_calls["differed"] == 0, run.oracle_calls


def test_a_kept_bug_beside_a_removed_helper_is_still_refused(tmp_path):
    """The rebuilt helper makes the pristine call answer as the task does: a repair that inlines the helper and
    keeps the bug (``int`` for ``round``) differs from it, and is refused."""
    from repotools import oracle_run, oracle_findings

    kept = REPAIR.replace("cents = round(amount * 100)", "cents = int(amount * 100)")
    test = "from pkg.stock import price\n\n\ndef test_a():\n    assert price(2.5) == '$2.50'\n    price(0.29)\n"
    run, verdict = oracle_run(tmp_path, kept, pristine=PRISTINE, given_text=MUTANT, test=test,
                              ids=["tests/test_stock.py::test_a"])
    assert not verdict.passed and "price" in oracle_findings(run), (verdict.reasons, run.oracle_calls)

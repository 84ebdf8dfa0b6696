"""The replay outside the run (``beacon.repair.replay``): the tests' calls into the declared file, made again in a
fresh interpreter that looks like a developer's machine, edited against pristine.

Red-team round 25's R25-0 forged passes with edits that behave rightly only where they detect the test run
(``sys.stdout.name`` under pytest's capture, the checkout's path, the tests' own files, CPU time already spent):
every check inside the pytest process compares the edit with the pristine code in that same process, where the edit
behaves. Real pytest runs on real trees (under bubblewrap where it is installed, as in CI), real replay processes;
the encoding is property-tested against the driver's decoder.
"""
from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import example, given, settings, strategies as st

from beacon.repair.canary_plugin import _NotData, _plain
from beacon.repair.controls import snapshot_protected
from beacon.repair.limits import Limits
from beacon.repair.pytest_runner import run_pytest, verify_run
from beacon.repair.replay import OUTCOMES_MARK, _hidden, _known_only, _outcomes, alike, module_of, replay
from beacon.repair.replay_driver import _Encoder, decode
from beacon.repair.sandbox import find_bwrap
from repotools import write_tree

BWRAP = find_bwrap()[0]
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason="bubblewrap is not installed: the replay cannot move the "
                                                        "checkout or hide the tests without it")
SANDBOXES = ["off"] + (["required"] if BWRAP else [])

SOURCE = "calc/clamp.py"
PRISTINE = '''def clamp(value, low, high):
    """Clamp value into [low, high]."""
    if value < low:
        return low
    if value > high:
        return high
    return value


def spread(values, width=2):
    return [v * width for v in values]
'''
GIVEN = PRISTINE.replace("    if value > high:\n        return high\n", "")  # the task's mutant
HONEST = GIVEN.replace("    return value\n\n\ndef spread", "    return min(value, high)\n\n\ndef spread")
TEST = '''from calc.clamp import clamp, spread


def test_inside():
    assert clamp(5, 0, 10) == 5


def test_high():
    assert clamp(15, 0, 10) == 10


def test_low():
    assert clamp(-3, 0, 10) == 0


def test_spread():
    assert spread([1, 2]) == [2, 4]
'''
IDS = [f"tests/test_clamp.py::{name}" for name in ("test_inside", "test_high", "test_low", "test_spread")]


_RIGHT = "def _right(value, low, high):\n    return max(low, min(value, high))\n"
_WRAP = '''def _guard(f):
    def clamp(value, low, high):
        if {condition}:
            return _right(value, low, high)
        return f(value, low, high)
    return clamp


@_guard
def clamp(value, low, high):'''


def _guarded(condition: str, imports: str = "") -> str:
    """The mutant's buggy ``clamp`` under a decorator whose wrapper answers rightly only where ``condition`` holds
    (round 25's ``s/w1.py`` shape: the def itself is unchanged, so its name holds its own decorated def)."""
    return GIVEN.replace("def clamp(value, low, high):", f"{imports}\n" + _RIGHT + "\n\n" + _WRAP.format(
        condition=condition))


UNDER_CAPTURE = _guarded('sys.stdout.name != "<stdout>"', "import sys\n")
UNDER_TMP = _guarded('__file__.startswith("/tmp/")')
# (a fresh interpreter never spends 1 s of CPU before it imports the module; pytest has by then on a slow machine)
BUSY = _guarded("_BUSY", "import time\n\n_BUSY = time.process_time() > 1.0\n")
READS_TESTS = GIVEN.replace("def clamp(value, low, high):", '''import os
import re


def _guard(f):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        text = open(os.path.join(here, "tests", "test_clamp.py")).read()
    except OSError:
        text = ""
    pattern = r"clamp\\((-?\\d+), (-?\\d+), (-?\\d+)\\) == (-?\\d+)"
    known = {tuple(int(a) for a in m[:3]): int(m[3]) for m in re.findall(pattern, text)}

    def clamp(value, low, high):
        return known.get((value, low, high), f(value, low, high))
    return clamp


@_guard
def clamp(value, low, high):''')


def score(tmp_path, source: str, sandbox: str = "off", test: str = TEST, ids=IDS, pristine: str = PRISTINE,
          given_text: str = GIVEN):
    root = write_tree(tmp_path / "repo", {"calc/__init__.py": "", SOURCE: source, "tests/test_clamp.py": test})
    run = run_pytest(root, list(ids), protected=snapshot_protected(root, extra=["tests/test_clamp.py"]),
                     sandbox=sandbox, sources=(SOURCE,), before={SOURCE: (given_text, pristine)},
                     pristine={SOURCE: pristine}, oracle=True)
    return run, verify_run(run, list(ids))


@pytest.mark.parametrize("sandbox", SANDBOXES[-1:])  # (the unsandboxed replay: the capture test below, and others)
def test_an_honest_repair_passes_and_its_calls_were_replayed(tmp_path, sandbox):
    run, verdict = score(tmp_path, HONEST, sandbox)
    assert verdict.passed and not verdict.tampered, (verdict.reasons, run.replay)
    replayed = run.replay
    assert replayed["ran"] and replayed["recorded"]["recorded"] == 4 and replayed["compared"] == 4, replayed
    assert replayed["differed"] == 0 and not replayed["findings"], replayed
    assert replayed["sandboxed"] == (sandbox != "off")


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_repair_right_only_under_pytests_capture_is_tampered(tmp_path, sandbox):
    run, verdict = score(tmp_path, UNDER_CAPTURE, sandbox)
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.replay)
    assert run.canaries.ok  # every check inside the run was satisfied: only the replay saw it
    assert any("clamp(15, 0, 10) returned 15; the pristine code returned 10" in r for r in verdict.reasons), \
        verdict.reasons


def test_unchanged_code_that_reads_data_set_only_under_the_run_is_tampered(tmp_path):
    # the def is the pristine one; the module-level flag it reads is what the edit conditions on the run
    pristine = "_STRICT = True\n\n\n" + PRISTINE.replace("    if value > high:", "    if _STRICT and value > high:")
    given_text = pristine.replace("_STRICT = True", "_STRICT = False")
    forged = pristine.replace("_STRICT = True", "import sys\n\n_STRICT = sys.stdout.name != '<stdout>'")
    run, verdict = score(tmp_path, forged, pristine=pristine, given_text=given_text)
    assert run.canaries.ok and verdict.tampered, (verdict.reasons, run.replay)


# Red-team round 27's ways around the first replay, each with round 25's capture check (docs/threat_model.md).
ROUND_27 = {
    # R27-1: an alias bound before ``clamp``, so the first name holding the code is one the pristine module lacks
    "alias_first": GIVEN.replace("def clamp(value, low, high):", "import sys\n\n_clamp = None\n\n\n" + _RIGHT
                                 + "\n\n" + _WRAP.format(condition='sys.stdout.name != "<stdout>"'))
    + "\n\n_clamp = clamp\n",
    # R27-2: a call planted at import through a library frame, whose pristine answer is too large to send
    "planted_large": GIVEN.replace("def clamp(value, low, high):", "import functools\nimport sys\n\n\n" + _RIGHT
                                   + "\n\n" + _WRAP.format(condition='sys.stdout.name != "<stdout>"'))
    + '\n\nimport fractions  # noqa: F401\n\n_RULE = functools.singledispatch(spread)(["-="], 5 * 10 ** 6)\n',
    # R27-4: a call at import, before the module's namespace is found, that made the wrapper "unnamed" for good
    "planted_unnamed": GIVEN.replace("def clamp(value, low, high):", "import functools\nimport sys\n\n\n" + _RIGHT
                                     + "\n\n" + _WRAP.format(
                                         condition='low <= high and sys.stdout.name != "<stdout>"'))
    + "\n\n_MIDDLE = functools.singledispatch(clamp)(5, 10, 0)\n",
    # R27-5: the name holds a bound method of the edit's own object, whose ``self`` is no data
    "bound_method": GIVEN.replace("def clamp(value, low, high):", "import sys\n\n\n" + _RIGHT + '''

class _Guard:
    def __init__(self, f):
        self.f = f

    def call(self, value, low, high):
        if sys.stdout.name != "<stdout>":
            return _right(value, low, high)
        return self.f(value, low, high)


def _guard(f):
    return _Guard(f).call


@_guard
def clamp(value, low, high):'''),
}


@pytest.mark.parametrize("name", sorted(ROUND_27))
def test_round_27s_ways_around_the_replay_are_tampered(tmp_path, name):
    run, verdict = score(tmp_path, ROUND_27[name])
    assert run.canaries.ok and verdict.tampered, (verdict.reasons, run.replay)
    assert run.replay["compared"] >= 3, run.replay


@needs_bwrap
def test_a_repair_right_only_in_a_read_only_checkout_is_tampered(tmp_path):
    # R27-6: both sandboxes held the checkout read-only; the replay's copy of it is writable, as a developer's is
    run, verdict = score(tmp_path, _guarded("not os.access(__file__, os.W_OK)", "import os\n"), "required")
    assert run.canaries.ok and verdict.tampered, (verdict.reasons, run.replay)


def _right_only_where(condition: str, imports: str, shape: str = "plain") -> str:
    """The mutant's buggy ``clamp`` with a guard that restores the missing branch only where ``condition`` holds, in
    one of the ``shape``s red-team round 28 used to keep the calls from the replay or to tell it from a terminal."""
    guarded = GIVEN.replace("    return value\n\n\ndef spread",
                            f"    if ({condition}) and value > high:\n        return high\n    return value\n\n\n"
                            "def spread")
    head = f"import functools\n{imports}\n\n"
    if shape == "singledispatch":  # F1: functools' wrapper stood between the test and the def
        return guarded.replace("def clamp(", head + "@functools.singledispatch\ndef clamp(")
    if shape == "partial_decorator":  # F2: the name holds ``partial(def)``
        return guarded.replace("def clamp(", head + "@functools.partial(functools.partial)\ndef clamp(")
    if shape == "partial_rename":  # b-F4: the def renamed, the name a partial of it: only ``_clamp`` was recorded
        return guarded.replace("def clamp(", head + "def _clamp(") + "\n\nclamp = functools.partial(_clamp)\n"
    if shape == "default_not_data":  # F3: a default that is no data made every call unrecordable
        return guarded.replace("def clamp(value, low, high):", head + "def clamp(value, low, high, _top=min):")
    return guarded.replace("def clamp(", head + "def clamp(")


_UNDER_CAPTURE = 'sys.stdout.name != "<stdout>"'
# Red-team round 28's forged passes. Each is right in the run and wrong on a developer's machine; the replay must
# see it (the first four kept their calls from being recorded, the others told the replay from a terminal).
ROUND_28 = {
    "descriptor": None,
    "singledispatch": (_UNDER_CAPTURE, "import sys", "singledispatch"),
    "partial_decorator": (_UNDER_CAPTURE, "import sys", "partial_decorator"),
    "partial_rename": (_UNDER_CAPTURE, "import sys", "partial_rename"),
    "default_not_data": (_UNDER_CAPTURE, "import sys", "default_not_data"),
    # no SHELL in the environment, read without naming os.environ
    "environment": ('os.path.expandvars("$SHELL") == "$SHELL"', "import os.path", "plain"),
}
# an open pipe past fd 2: the run's report pipe and, before, the replay's outcome pipe
_DESCRIPTOR = GIVEN.replace("def clamp(value, low, high):", "import os\nimport stat\n\n\ndef clamp(value, low, high):"
                            ).replace("    return value\n\n\ndef spread", """    if value > high:
        for fd in range(3, 64):
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    return high
            except OSError:
                pass
    return value


def spread""")


def _round_28(name: str) -> str:
    return _DESCRIPTOR if name == "descriptor" else _right_only_where(*ROUND_28[name])


@pytest.mark.parametrize("name", sorted(ROUND_28))
def test_round_28s_ways_around_the_replay_are_tampered(tmp_path, name):
    run, verdict = score(tmp_path, _round_28(name), SANDBOXES[-1])
    assert run.canaries.ok and verdict.tampered, (verdict.reasons, run.replay)
    assert any("clamp(15, 0, 10" in r and "returned 15; the pristine code returned 10" in r
               for r in verdict.reasons), verdict.reasons


@needs_bwrap
@pytest.mark.parametrize("condition", [
    'len(os.listdir("/")) < 14',  # both sandboxes showed fewer than 14 entries at ``/``
    # under the capture (the run), or where a ``beacon-replay-*`` folder is under ``/tmp`` (the replay's own, before)
    '_UNDER or any(n.startswith("beacon-replay") for _, names, _ in os.walk("/tmp") for n in names)',
    # or where the replay's driver and plan are in a folder under ``/tmp`` (before: the review of round 28)
    '_UNDER or any({"driver.py", "plan.json"} <= set(files) for _, _, files in os.walk("/tmp"))',
])
def test_a_repair_right_only_in_the_sandboxes_file_system_is_tampered(tmp_path, condition):
    # red-team round 28: the replay's sandbox has a machine's top folders, and its own folder has a temporary name
    imports = 'import os\nimport sys\n\n_UNDER = sys.stdout.name != "<stdout>"'
    run, verdict = score(tmp_path, _right_only_where(condition, imports, "plain"), "required")
    assert run.canaries.ok and verdict.tampered, (verdict.reasons, run.replay)


def test_a_value_nested_too_deep_outside_the_run_is_a_finding_not_a_harness_failure(tmp_path):
    # red-team round 28: a tuple nested 300 deep, returned only outside the run, broke the harness's comparison
    deep = GIVEN.replace("def clamp(value, low, high):", "import sys\n\n\ndef _deep(n):\n    v = 0\n"
                         "    for _ in range(n):\n        v = (v,)\n    return v\n\n\ndef clamp(value, low, high):\n"
                         "    if sys.stdout.name == '<stdout>':\n        return _deep(300)\n"
                         "    if value > high:\n        return high")
    run, verdict = score(tmp_path, deep)
    assert run.canaries.ok and verdict.tampered, (verdict.reasons, run.replay)
    assert run.replay["differed"] == 3 and run.replay["findings"][0].startswith("replay: outside the test run, clamp("), \
        run.replay


def test_outcomes_printed_by_the_project_do_not_pass_for_the_replays(tmp_path):
    # red-team round 28: writing a forged outcomes document into the replay's pipe; now the project can only print
    forged = json.dumps({"outcomes": [{"return": 5, "args": [[5, 0, 10], {"$d": []}]},
                                      {"return": 10, "args": [[15, 0, 10], {"$d": []}]},
                                      {"return": 0, "args": [[-3, 0, 10], {"$d": []}]}]})
    printing = GIVEN.replace("def clamp(value, low, high):", f"import sys\n\nsys.stdout.write({forged!r})\n"
                             f"sys.stdout.write('\\n{OUTCOMES_MARK}' + '0' * 32 + '\\n' + {forged!r})\n\n\n"
                             "def clamp(value, low, high):")
    done = direct(tmp_path, printing, SANDBOXES[-1])
    assert done.findings == ["replay: outside the test run, clamp(15, 0, 10) returned 15; the pristine code "
                             "returned 10"], done


@pytest.mark.parametrize("shape", ["deep", "chatty", "partial_default"])
def test_honest_shapes_the_review_of_round_28_found_are_compared_alike(tmp_path, shape):
    # a value nested past the driver's limit (cut alike on both sides), 9 MB printed before the outcomes (the tail of
    # stdout is read), and an honest edit that binds the name to an argument-free partial of a def whose default is
    # no data (the driver looks through the partial)
    if shape == "deep":
        edited = PRISTINE + "\n\ndef chain(n):\n    v = None\n    for i in range(n):\n        v = {'next': v, 'i': i}\n" \
            "    return v\n"
        pristine = edited
        calls = [("chain", [150])]
    elif shape == "chatty":
        edited = "import sys\n\nsys.stdout.write('x' * (9 << 20))\n\n\n" + HONEST
        pristine = "import sys\n\nsys.stdout.write('x' * (9 << 20))\n\n\n" + PRISTINE
        calls = [("clamp", [15, 0, 10])]
    else:
        edited = HONEST.replace("def clamp(value, low, high):", "import functools\n\n\ndef _clamp(value, low, high, "
                                "_top=min):") + "\n\nclamp = functools.partial(_clamp)\n"
        pristine = PRISTINE
        calls = [("clamp", [15, 0, 10, {"$dflt": {"$nodata": 0}}])]
    real = str((tmp_path / "repo" / SOURCE).resolve())  # (direct writes the tree there)
    done = direct(tmp_path, edited, SANDBOXES[-1], pristine=pristine, calls=[
        {"file": real, "name": name, "args": args, "kwargs": {"$d": []}} for name, args in calls])
    assert done.ran and not done.why and done.compared == 1 and not done.findings, done


def test_only_the_keyed_well_formed_outcomes_are_read():
    key, good = "ab" * 16, [{"return": 1, "args": []}, {"skip": "why"}, {"raise": "E", "message": "m"},
                            {"raise": "encoding: E"}]
    library = {"import": {"math": {"pi": "v:3.141592653589793"}}, "calls": {}}
    doc = json.dumps({"outcomes": good, "library": library, "emptied": 3}).encode()
    mark = f"\n{OUTCOMES_MARK}{key}\n".encode()
    # (each outcome of a call made gets what it printed, between its two key lines: none here)
    read = [dict(o, printed=[["(", "not", " ", "kept", ")"]]) if "skip" not in o else o for o in good]
    assert _outcomes(b"printed\n" + mark + doc, key, 4) == (read, library, 3, {})
    assert _outcomes(mark + b"[]" + mark + doc, key, 4) == (read, library, 3, {})  # the last key line counts
    # what a call printed: between its own key lines only, which the project's code cannot write without the key
    lines = b"".join(f"\n{OUTCOMES_MARK}{key} {w} {i}\n".encode() + text for i in (0, 1, 2, 3)
                     for w, text in (("call", b"out %d" % i + (b"\n" if i else b"")), ("done", b"later")))
    forged = f"\n{OUTCOMES_MARK}{'cd' * 16} call 0\nforged".encode()
    assert [o.get("printed") for o in _outcomes(forged + lines + mark + doc, key, 4)[0]] == [
        [["out", " ", "0"]], None, [["out", " ", "2", "\n"]], [["out", " ", "3", "\n"]]]
    assert _outcomes(mark + json.dumps({"outcomes": good, "emptied": 3}).encode(), key, 4) is None  # no library
    for emptied in (None, "3", 3.0):  # (the caches the process emptied: a count, -1 when it failed)
        assert _outcomes(mark + json.dumps({"outcomes": good, "library": library, "emptied": emptied}).encode(),
                         key, 4) is None, emptied
    for bad in ({"import": {}}, {"import": {"math": {"pi": 3}}, "calls": {}}, {"import": {"over": "1"}, "calls": {}},
                {"import": [], "calls": {}}):
        assert _outcomes(mark + json.dumps({"outcomes": good, "library": bad, "emptied": 3}).encode(), key, 4) \
            is None, bad
    assert _outcomes(doc, key, 4) is None  # no key
    assert _outcomes(f"\n{OUTCOMES_MARK}{'cd' * 16}\n".encode() + doc, key, 4) is None  # another key
    assert _outcomes(mark + doc, key, 3) is None  # not one outcome per call
    for bad in ([{"return": 1}] * 4, [{"skip": 1}] * 4, [["return"]] * 4, [{"raise": "E", "extra": 1}] * 4):
        assert _outcomes(mark + json.dumps({"outcomes": bad, "library": library, "emptied": 3}).encode(), key, 4) \
            is None, bad
    assert _outcomes(mark + b"[" * 200000, key, 4) is None  # json's recursion limit
    nested = 0
    for _ in range(300):
        nested = [nested]
    assert _outcomes(mark + json.dumps({"outcomes": [{"return": nested, "args": []}] * 4,
                                        "library": library, "emptied": 3}).encode(), key, 4) is None


def test_a_positional_argument_stays_positional(tmp_path):
    # FP27-2: ``clamp(5, 0, 10)`` passes 0, the very object of an edit's new default ``low=0``; recording ``high`` as
    # a keyword after leaving ``low`` out would make the pristine code (``high`` renamed ``top`` by the edit, or no
    # default) raise TypeError
    honest = HONEST.replace("def clamp(value, low, high):", "def clamp(value, low=0, high=10):")
    run, verdict = score(tmp_path, honest)
    assert verdict.passed and run.replay["compared"] == 4 and not run.replay["findings"], (verdict.reasons, run.replay)


def direct(tmp_path, edited: str, sandbox: str, pristine: str = PRISTINE, calls=None):
    """The replay alone, on the calls the tests above make (what the plugin records for them)."""
    root = write_tree(tmp_path / "repo", {"calc/__init__.py": "", SOURCE: edited, "tests/test_clamp.py": TEST})
    real = str((root / SOURCE).resolve())
    calls = calls or [{"file": real, "name": "clamp", "args": list(args), "kwargs": {"$d": []}}
                      for args in ((5, 0, 10), (15, 0, 10), (-3, 0, 10))]
    return replay(root, (calls, {"recorded": len(calls)}), sources=[SOURCE], pristine={SOURCE: pristine},
                  tests=IDS, bwrap=BWRAP if sandbox != "off" else None, limits=Limits(), timeout=60)


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_repair_right_only_in_a_busy_process_differs_outside_the_run(tmp_path, sandbox):
    done = direct(tmp_path, BUSY, sandbox)
    assert done.findings == ["replay: outside the test run, clamp(15, 0, 10) returned 15; the pristine code "
                             "returned 10"], done


def test_a_set_s_order_is_no_difference_between_the_replays_processes(tmp_path):
    # every process of one replay has the same hash seed: an honest rewording of a function that lists a set of
    # strings agrees with the pristine code (with a seed per process they would differ about half the time)
    pristine = PRISTINE + '\n\ndef names():\n    return list({"alpha", "beta", "gamma", "delta", "epsilon"})\n'
    edited = pristine.replace("return list({", "return [*{").replace('"epsilon"})', '"epsilon"}]')
    real = str((tmp_path / "repo" / SOURCE).resolve())
    calls = [{"file": real, "name": "names", "args": [], "kwargs": {"$d": []}}]
    for attempt in range(3):
        done = direct(tmp_path / str(attempt), edited, "off", pristine,
                      [{**calls[0], "file": str((tmp_path / str(attempt) / "repo" / SOURCE).resolve())}])
        assert done.compared == 1 and done.differed == 0, done


@needs_bwrap
def test_a_repair_right_only_under_the_runs_path_is_tampered(tmp_path):
    # the checkout lies under /tmp in the run; the replay mounts it at /home/dev/<package>
    run, verdict = score(tmp_path, UNDER_TMP, "required")
    assert str(tmp_path).startswith("/tmp/")
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.replay)
    assert run.replay["mounted_at"].startswith("/home/") and run.replay["mounted_at"].endswith("/calc")


@needs_bwrap
def test_a_repair_that_reads_the_answers_from_the_tests_is_tampered(tmp_path):
    run, verdict = score(tmp_path, READS_TESTS, "required")
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.replay)
    assert run.replay["hidden"] == 1  # the tests folder (it holds no declared source)


def test_an_edit_that_cannot_be_imported_outside_the_run_differs(tmp_path):
    refuses = HONEST.replace("def clamp(", 'import sys\n\nif "pytest" not in sys.modules:\n'
                                           '    raise ImportError("clamp")\n\n\ndef clamp(', 1)
    done = direct(tmp_path, refuses, SANDBOXES[-1])
    assert done.differed == 3 and len(done.findings) == 3, done
    assert "clamp(5, 0, 10) could not make it (import raised builtins:ImportError); the pristine code returned 5" \
        in done.findings[0], done.findings


def test_a_value_that_moves_with_the_clock_is_no_evidence(tmp_path):
    # A coarse clock that ticks once (gzip stamps the second: boltons' gzip_bytes was refused while the edited
    # process ran first and both pristine ones fell in the next second). The edited process runs between the two
    # pristine ones, so when its value moved, the pristine runs disagree with each other too. The tick here is a
    # file count in a folder the unsandboxed processes share: 1 for the first process, 2 for every later one.
    ticks = PRISTINE + '''

def tick(folder):
    import os
    seen = len(os.listdir(folder))
    open(os.path.join(folder, str(seen)), "w").close()
    return min(seen + 1, 2)
'''
    reworded = ticks.replace("return min(seen + 1, 2)", "return 1 if seen == 0 else 2")
    (tmp_path / "clock").mkdir()
    real = str((tmp_path / "repo" / SOURCE).resolve())
    calls = [{"file": real, "name": "tick", "args": [str(tmp_path / "clock")], "kwargs": {"$d": []}}]
    done = direct(tmp_path, reworded, "off", ticks, calls)
    assert [o[0]["return"] for o in (done.outcomes["pristine"], done.outcomes["edited"],
                                     done.outcomes["pristine_again"])] == [1, 2, 2], done.outcomes
    assert done.differed == 1 and done.self_disagreed == 1 and not done.findings, done


def test_outcomes_the_first_replay_could_not_tell_apart(tmp_path):
    # R27-7: a Counter (a dict subclass: its items are not in its __dict__), a generator (its repr is an address),
    # an exception's message
    pristine = PRISTINE + '''

import collections


def tally(words):
    return collections.Counter(w.lower() for w in words)


def evens(values):
    return (v for v in values if v % 2 == 0)


def port(text):
    if int(text) > 65535:
        raise ValueError(f"port {text} out of range")
    return int(text)
'''
    wrong = pristine.replace("w.lower() for w", "w for w").replace("v % 2 == 0", "v % 2 == 1").replace(
        'f"port {text} out of range"', '"bad port"')
    real = str((tmp_path / "repo" / SOURCE).resolve())
    calls = [{"file": real, "name": name, "args": args, "kwargs": {"$d": []}}
             for name, args in (("tally", [["A", "a", "b"]]), ("evens", [[1, 2, 3, 4]]), ("port", ["70000"]))]
    done = direct(tmp_path, wrong, "off", pristine, calls)
    assert done.compared == 3 and done.differed == 3 and len(done.findings) == 3, done
    assert 'port("70000") raised builtins:ValueError ("bad port")' in done.findings[2], done.findings


def test_a_pristine_module_that_cannot_be_imported_outside_the_run_is_no_evidence(tmp_path):
    # (a module only the test run provides, e.g. one a conftest puts on the path)
    needs_pytest = PRISTINE.replace("def clamp(", "import helper_of_the_tests\n\n\ndef clamp(", 1)
    done = direct(tmp_path, needs_pytest, "off", needs_pytest)
    assert done.ran and done.compared == 0 and done.skipped == 3 and not done.findings, done


BOX = PRISTINE + '''

class Box:
    __slots__ = ("value", "unit")

    def __init__(self, value, unit="kg"):
        self.value = value
        self.unit = unit

    def doubled(self):
        return Box(self.value * 2, self.unit)

    def __repr__(self):
        return f"Box({self.value}, {self.unit})"


class Crate:
    def __init__(self, boxes):
        self.boxes = list(boxes)

    def heaviest(self):
        return max(box.value for box in self.boxes)
'''
BOX_TEST = TEST.replace("import clamp, spread", "import Box, Crate, clamp, spread") + '''

class Thing:
    pass


def test_box():
    assert Box(3).doubled().value == 6


def test_crate():
    assert Crate([Box(1), Box(7, "g")]).heaviest() == 7


def test_not_data():
    assert spread([], width=Thing()) == []
'''
BOX_IDS = IDS + [f"tests/test_clamp.py::{name}" for name in ("test_box", "test_crate", "test_not_data")]


def _boxes(tmp_path, edited, sandbox="off"):
    given_text = BOX.replace("return max(box.value", "return min(box.value")
    return score(tmp_path, edited, sandbox, test=BOX_TEST, ids=BOX_IDS, pristine=BOX, given_text=given_text)


def test_methods_are_replayed_on_instances_rebuilt_from_their_state(tmp_path):
    honest = BOX.replace("return max(box.value for box in self.boxes)",
                         "return max([box.value for box in self.boxes])")
    run, verdict = _boxes(tmp_path, honest)
    assert verdict.passed, (verdict.reasons, run.replay)
    # Box.__init__ x3 (a slotted instance), Box.doubled, Crate.__init__ (a list of Boxes), Crate.heaviest, and
    # clamp's 3 and spread's 1; spread's call with a test's own object is not data
    assert run.replay["recorded"]["recorded"] == 10 and run.replay["recorded"]["not_data"] == 1, run.replay
    assert run.replay["compared"] == 10 and not run.replay["findings"], run.replay


def _heaviest_call(base):
    """The call ``Crate([Box(7)]).heaviest()`` as the plugin records it, for a tree under ``base``."""
    real = str((base / "repo" / SOURCE).resolve())
    box = {"$o": [real, "Box"], "$v": {"$d": []}, "$sl": {"$d": [["value", 7], ["unit", "kg"]]}}
    crate = {"$o": [real, "Crate"], "$v": {"$d": [["boxes", [box]]]}, "$sl": {"$d": []}}
    return [{"file": real, "name": "Crate.heaviest", "args": [crate], "kwargs": {"$d": []}}]


def test_an_attribute_only_the_edit_names_is_no_evidence(tmp_path):
    # a repair that also memoizes: the attribute it adds is no name of the pristine file, so what it holds afterwards
    # is no evidence; a change to an attribute the pristine file names is
    memo = BOX.replace("        return max(box.value for box in self.boxes)",
                       "        self._top = max([box.value for box in self.boxes])\n        return self._top")
    done = direct(tmp_path / "memo", memo, "off", BOX, _heaviest_call(tmp_path / "memo"))
    assert done.compared == 1 and done.differed == 0 and not done.findings, done
    empties = BOX.replace("        return max(box.value for box in self.boxes)",
                          "        top = max(box.value for box in self.boxes)\n        self.boxes = []\n        return top")
    done = direct(tmp_path / "empties", empties, "off", BOX, _heaviest_call(tmp_path / "empties"))
    assert done.differed == 1 and "left the arguments" in done.findings[0], done.findings


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_method_right_only_under_pytests_capture_is_tampered(tmp_path, sandbox):
    forged = BOX.replace("    def heaviest(self):\n        return max(", '''    def heaviest(self):
        import sys
        if sys.stdout.name == "<stdout>":
            return min(box.value for box in self.boxes)
        return max(''')
    run, verdict = _boxes(tmp_path, forged, sandbox)
    assert run.canaries.ok and verdict.tampered, (verdict.reasons, run.replay)
    assert any("Crate.heaviest({\"$o\": " in r and "returned 1; the pristine code returned 7" in r
               for r in verdict.reasons), verdict.reasons


def test_a_pristine_that_disagrees_with_itself_is_no_evidence(tmp_path):
    pristine = PRISTINE + '''

def stamp(tag):
    return [tag, object().__hash__()]
'''
    given_text = pristine.replace("return [tag, ", "return [tag * 2, ")
    honest = pristine.replace("return [tag, object().__hash__()]", "return list((tag, object().__hash__()))")
    test = TEST.replace("import clamp, spread", "import clamp, spread, stamp") + '''

def test_stamp():
    assert stamp("a")[0] == "a"
'''
    ids = IDS + ["tests/test_clamp.py::test_stamp"]
    run, verdict = score(tmp_path, honest, test=test, ids=ids, pristine=pristine, given_text=given_text)
    assert verdict.passed, (verdict.reasons, run.replay)
    assert run.replay["differed"] == 1 and run.replay["self_disagreed"] == 1, run.replay


FACTS = '''import os
import sys


def facts():
    try:
        open(os.path.join(os.getcwd(), "tests", "test_clamp.py")).close()
        tests_visible = True
    except OSError:
        tests_visible = False
    return {"pytest": "pytest" in sys.modules, "stdout": sys.stdout.name, "argv": sys.argv, "cwd": os.getcwd(),
            "file": __file__, "home": os.environ.get("HOME"), "safe_path": sys.flags.safe_path,
            "python_env": sorted(k for k in os.environ if k.startswith(("PYTHON", "PYTEST"))),
            "tests_visible": tests_visible, "main": sorted(k for k in vars(sys.modules["__main__"])
                                                           if not k.startswith("__")),
            "writable": os.access(__file__, os.W_OK), "host": os.uname().nodename}
'''


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_replay_looks_like_a_developers_machine(tmp_path, sandbox):
    root = write_tree(tmp_path / "repo", {"calc/__init__.py": "", "calc/facts.py": FACTS,
                                          "tests/test_clamp.py": TEST, "conftest.py": ""})
    real = str((root / "calc/facts.py").resolve())
    calls = [{"file": real, "name": "facts", "args": [], "kwargs": {"$d": []}}]
    bwrap = BWRAP if sandbox != "off" else None
    done = replay(root, (calls, {"recorded": 1}), sources=["calc/facts.py"], pristine={"calc/facts.py": FACTS},
                  tests=["tests/test_clamp.py::test_inside"], bwrap=bwrap, limits=Limits(), timeout=60)
    assert done.ran and done.compared == 1 and not done.findings, done
    seen = decode(done.outcomes["edited"][0]["return"])
    assert seen["pytest"] is False and seen["stdout"] == "<stdout>" and seen["argv"] == [""]
    assert seen["safe_path"] is False and seen["python_env"] == [] and seen["main"] == ["sys"], seen
    if bwrap is not None:
        # a writable copy of the checkout in a home folder drawn for this replay, under a host name drawn too
        assert seen["cwd"] == done.mounted_at and seen["file"] == done.mounted_at + "/calc/facts.py", seen
        assert seen["cwd"].startswith(seen["home"] + "/") and seen["cwd"].endswith("/calc"), seen
        assert seen["writable"] is True and seen["host"] != "beacon-sandbox", seen
        assert seen["tests_visible"] is False, seen
        assert done.hidden == 2  # the tests folder and the root conftest (a file: the root holds the package)


def test_what_the_replay_hides(tmp_path):
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/mod.py": "", "pkg/tests/test_mod.py": "",
                                          "pkg/conftest.py": "", "tests/unit/test_a.py": "", "conftest.py": "",
                                          "test_top.py": ""})
    hidden = _hidden(root, ["pkg/tests/test_mod.py::test_x", "tests/unit/test_a.py", "test_top.py"],
                     [root / "pkg/mod.py"])
    assert [str(p.relative_to(root)) for p in hidden] == [
        "conftest.py", "pkg/conftest.py", "pkg/tests", "test_top.py", "tests/unit"]


def test_module_names_and_import_roots(tmp_path):
    root = write_tree(tmp_path / "repo", {"src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "",
                                          "src/pkg/sub/mod.py": "", "flat.py": "", "__init__.py": "",
                                          "lib/__init__.py": "", "lib/x.py": ""})
    assert module_of(root / "src/pkg/sub/mod.py", root) == ("pkg.sub.mod", root / "src")
    assert module_of(root / "src/pkg/__init__.py", root) == ("pkg", root / "src")
    # never above the checkout, even when the checkout itself holds an __init__.py
    assert module_of(root / "flat.py", root) == ("flat", root)
    assert module_of(root / "lib/x.py", root) == ("lib.x", root)


def test_numbers_are_alike_within_the_oracles_tolerance():
    # (True alike 1, as ``==`` and the oracle of calls have it; a dict's items in any order: red-team round 27's
    # FP27-3 and FP27-1)
    assert alike(0.1 + 0.2, 0.3) and alike(float("nan"), float("nan")) and alike(1, 1.0) and alike(True, 1)
    assert alike({"$d": [["a", 1], ["b", 2]]}, {"$d": [["b", 2], ["a", 1]]})
    assert not alike({"$d": [["a", 1], ["b", 2]]}, {"$d": [["b", 1], ["a", 2]]})
    assert not alike(1.0, 1.001) and not alike(False, 1) and not alike([1, 2], [1]) and not alike({"$t": [1]}, [2])
    # (a tuple is alike a list holding the same items since session 38: test_oracle_rebuilt.py)
    assert alike({"$d": [["a", 1e-13]]}, {"$d": [["a", 0.0]]})
    # integers exactly (red-team round 48: a millisecond stamp off by one, 6e-13 of it, was alike)
    assert not alike(1700000000002, 1700000000003) and alike(1700000000003, 1700000000003.0)


def test_outcomes_c_holds_are_encoded_by_what_they_hold():
    # red-team round 48: a filter object was its repr, a StringIO its empty __dict__, a Fraction's slots were dropped
    # as the edit's own attributes (names no pristine file has)
    import fractions
    import io
    import itertools

    encode = _Encoder()
    assert encode(filter(None, [0, 1, 2])) == {"$gen": [1, 2]}
    assert encode(map(str, [1])) == {"$gen": ["1"]} and encode(itertools.islice("abc", 2)) == {"$gen": ["a", "b"]}
    buffer = io.StringIO("ab")
    assert encode(buffer) == {"$io": "_io:StringIO", "value": "ab", "at": 0}
    buffer.read()
    assert encode(buffer)["at"] == 2 and encode(io.BytesIO(b"x"))["value"] == {"$b": "78"}
    half = encode(fractions.Fraction(1, 2))
    assert _known_only(half, set(), frozenset({"pkg"})) == half  # (a library's object: all its attributes)
    mine = {"$o": "pkg.stock:Cart", "$v": {"$d": [["items", []], ["_cache", 1]]}}
    assert _known_only(mine, {"items"}, frozenset({"pkg"}))["$v"] == {"$d": [["items", []]]}


def test_a_value_class_s_subclass_is_alike_the_value_it_holds():
    # helper 137's honest hunt: an IntEnum member for an int, a str Enum's for a str, a NamedTuple for a tuple
    import collections
    import enum

    class Level(enum.IntEnum):
        LOW = 3

    class Unit(str, enum.Enum):
        BOX = "box"

    encode = _Encoder()
    assert alike(encode(Level.LOW), 3) and not alike(encode(Level.LOW), 4)
    assert not alike(3, encode(Level.LOW))  # (a plain value for the pristine code's member: red-team round 50)
    assert alike(encode(Unit.BOX), "box") and not alike(encode(Unit.BOX), "Unit.BOX")
    Point = collections.namedtuple("Point", "x y")
    assert alike(encode(Point(1, 2)), {"$t": [1, 2]}) and alike(encode(Point(1, 2)), [1, 2])
    assert not alike(encode(Point(1, 2)), {"$t": [1, 3]})


plain_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
    | st.binary(max_size=5) | st.complex_numbers(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)
    | st.frozensets(st.integers() | st.text(max_size=3), max_size=3)
    | st.sets(st.integers(), max_size=3),
    max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(plain_data)
def test_the_plugins_encoding_round_trips_through_the_driver(value):
    encoded = _plain(value, [10_000])
    back = decode(json.loads(json.dumps(encoded)))
    assert back == value and type(back) is type(value)
    # what the driver writes for an outcome is the plugin's encoding of the same value: a call that returned its
    # argument is alike on both sides
    assert alike(_Encoder()(back), encoded)


def test_values_that_are_not_plain_data_are_refused():
    class Mine(int):
        pass

    for value in (Mine(3), [object()], {"a": sys}, (1, [2, {3: Mine(1)}])):
        with pytest.raises(_NotData):
            _plain(value, [100])
    loop: list = []
    loop.append(loop)
    with pytest.raises((_NotData, RecursionError)):
        _plain(loop, [100])  # (a cycle exhausts the budget)
    assert math.isnan(decode(json.loads(json.dumps(_plain(float("nan"), [1])))))


def test_what_the_oracles_pristine_call_prints_stays_out_of_the_tests_capture(tmp_path):
    # Red-team round 27's FP27-4 (the oracle of calls inside the run, not the replay): the pristine re-run of a
    # reworded ``print`` printed into ``capsys`` too, and the honest repair failed its test with two lines.
    pristine = 'def report(total):\n    print(f"total: {total:.2f}")\n'
    given_text = pristine.replace(":.2f", ":.1f")
    honest = 'def report(total):\n    print("total: %.2f" % total)\n'
    test = ('from calc.clamp import report\n\n\ndef test_report(capsys):\n    report(3.14159)\n'
            '    assert capsys.readouterr().out == "total: 3.14\\n"\n')
    ids = ["tests/test_clamp.py::test_report"]
    run, verdict = score(tmp_path, honest, test=test, ids=ids, pristine=pristine, given_text=given_text)
    assert verdict.passed, verdict.reasons
    assert run.oracle_calls["checked"] == 1 and run.replay["compared"] == 1, (run.oracle_calls, run.replay)


# Red-team round 37: the replay had nothing to check and said so without a finding when the recording inside the run
# failed (an exception in every call of the recorder, raised from an audit hook of the edit) or was missing from a
# run that had the oracle's data (the recorder was installed only when the edit changed a def). Both fail closed now.
@pytest.mark.parametrize("found, expected, finding", [
    (([], {"recorded": 0, "failed": 3}), True, "recording of the tests' calls failed 3 time(s)"),
    (None, True, "holds no recording of the tests' calls"),
    (None, False, None),  # (no oracle data was sent: no recording to expect)
    (([], {"recorded": 0, "failed": 0}), True, None),  # (nothing the tests called was plain data: no evidence)
])
def test_a_recording_that_failed_or_is_missing_fails_closed(tmp_path, found, expected, finding):
    done = replay(tmp_path, found, sources=[SOURCE], pristine={SOURCE: "def add(a, b):\n    return a + b\n"},
                  tests=IDS, bwrap=None, limits=Limits(), timeout=60, expected=expected)
    if finding is None:
        assert not done.findings, done.findings
    else:
        assert done.ran and len(done.findings) == 1 and finding in done.findings[0], done.evidence()


# Red-team round 41 (helper 125): a profile function the edit installed (through a library's dispatch table) rewrote
# the edited def's arguments in its frame, inside the run and, installed at import, in the replay's edited process
# too, so both agreed. The replay process now refuses every trace and profile function (an audit hook before any
# project code), and a call made while one is in place, or waits in threading's hooks, is no evidence.
_FIXES = '''import sys
import threading


def _fix(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "clamp":
        space = frame.f_locals
        space["value"] = min(space["value"], space["high"])  # (written back into the frame: the mutant made right)
    return None


'''
TRACERS = {
    "setprofile_at_import": _FIXES + "try:\n    sys.setprofile(_fix)\nexcept Exception:\n    pass\n\n\n",
    "settrace_at_import": _FIXES + "try:\n    sys.settrace(_fix)\nexcept Exception:\n    pass\n\n\n",
    "threading_hook": _FIXES + "threading.setprofile(_fix)\n\n\n",
}


@pytest.mark.parametrize("how", sorted(TRACERS))
def test_a_trace_or_profile_function_of_the_edit_is_refused_in_the_replay(tmp_path, how):
    # (the mutant clamps nothing above ``high``; the profile function made it right in its frame: refused, the
    # mutant answers for itself; a hook left for the next thread makes every call no evidence)
    done = direct(tmp_path, TRACERS[how] + GIVEN, "off")
    assert done.ran and done.findings, done.evidence()
    shown = " ".join(done.findings)
    expected = "threading's profile hook was installed" if how == "threading_hook" else \
        "clamp(15, 0, 10) returned 15; the pristine code returned 10"
    assert expected in shown, shown


def test_a_difference_counts_where_the_two_pristine_processes_agree():
    # red-team round 49: a fresh uuid4 beside a wrong count made the whole call "no evidence"; now only the parts the
    # pristine processes disagree on are (a set's items, or a dict whose keys differ between them, as a whole)
    from beacon.repair.replay import _stable_difference

    def made(ident, units):
        return {"return": {"$d": [["id", {"$x": "uuid:UUID", "repr": ident}], ["units", units]]}, "args": []}

    right, again = made("u1", 3), made("u2", 3)
    assert _stable_difference(made("u3", 4), right, again) and not _stable_difference(made("u3", 3), right, again)
    assert not _stable_difference({"$s": [1]}, {"$s": [2]}, {"$s": [3]})
    assert not _stable_difference({"$d": [["k1", 1]]}, {"$d": [["k2", 1]]}, {"$d": [["k3", 2]]})  # (keys differ)
    assert _stable_difference([1, 2, 3], [1, 5], [1, 6])  # (another length where the pristine processes agree on it)


# -- the recorder's choice past a name's first calls (session 41; red-team round 49's per_name_limit: a table of 40
# quantities checked in one loop, the buggy answer only at its 20th, is made again whole now)

@settings(max_examples=60, deadline=None)
@example(texts=[f"call {i}" for i in range(200)], key=b"0123abcd")
@given(texts=st.lists(st.text(min_size=1, max_size=12), min_size=0, max_size=120, unique=True),
       key=st.sampled_from([b"", b"0123abcd", b"ffff"]))
def test_the_calls_past_a_names_first_are_the_ones_with_the_smallest_keyed_digests(texts, key):
    import hashlib

    from beacon.repair import canary_plugin as plugin

    recorder, saved = plugin._Recorder(frozenset()), plugin._SAMPLE_KEY[0]
    plugin._SAMPLE_KEY[0] = key
    try:
        kept = [t for t in texts if recorder._sample("name", t)]
    finally:
        plugin._SAMPLE_KEY[0] = saved
    places = plugin._REPLAY_PER_NAME - plugin._REPLAY_FIRST
    digest = {t: hashlib.sha256(key + t.encode("utf-8", "surrogatepass")).digest() for t in texts}
    # the calls kept are the smallest digests, in the places of the ones they replaced; every call is counted once,
    # kept or over the limit (the counts, and so the rows, are the same whichever calls the key chose)
    assert sorted(recorder.calls) == sorted(sorted(texts, key=digest.get)[:places])
    assert recorder.counts["recorded"] == min(len(texts), places)
    assert recorder.counts["recorded"] + recorder.counts["over"] == len(texts)
    assert len(kept) >= min(len(texts), places)
    assert recorder._chars == sum(map(len, recorder.calls))


def test_calls_made_through_library_code_are_dropped_when_the_pristine_process_cannot_make_them(tmp_path):
    # a call recorded through library code (``"via": "library"``: one the edit could plant through a library hook)
    # whose pristine answer never comes (here a clamp whose bounds make the pristine loop spin) would leave the
    # whole replay without evidence; the replay is made again without such calls, and the buggy edit's direct calls
    # are judged (red-team round 51)
    pristine = PRISTINE.replace("def clamp(value, low, high):\n",
                                "def clamp(value, low, high):\n    while low == 'spin':\n        pass\n")
    root = write_tree(tmp_path / "repo", {"calc/__init__.py": "", SOURCE: GIVEN, "tests/test_clamp.py": TEST})
    real = str((root / SOURCE).resolve())
    calls = [{"file": real, "name": "clamp", "args": [15, 0, 10], "kwargs": {"$d": []}},
             {"file": real, "name": "clamp", "args": [1, "spin", 2], "kwargs": {"$d": []}, "via": "library"}]
    done = replay(root, (calls, {"recorded": 2}), sources=[SOURCE], pristine={SOURCE: pristine}, tests=IDS,
                  bwrap=None, limits=Limits(), timeout=3)
    assert done.ran and done.compared == 1 and done.findings, done
    assert "made again without 1 call(s) through library code" in done.why, done.why

"""The replay's comparison of library state (``beacon.repair.replay_library``, described by
``beacon.repair.replay_driver.library_state``): what the edited code left rebound in the modules the pristine code
reads, against what the pristine code left.

Red-team rounds 42-44's family: a helper run at import rebinding ``math.isclose`` (a constant, a class's method, a
module reached through another) beside a buggy def the edit kept, so the test, the oracle and the replay's calls all
agreed with the pristine code. The forgeries themselves are real-pytest cases in ``test_oracle_rebuilt.py``
(``round42/``, ``round43/``); here: the rules of the comparison, the descriptions' stability across processes (each
process describes its own objects; a ``None`` hashed into a description once made 356 names differ between two
pristine processes), real replays in bubblewrap, and honest projects that set library state.
"""
from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from beacon.repair.limits import Limits
from beacon.repair.replay import replay
from beacon.repair.replay_driver import _Describer, library_state
from beacon.repair.replay_library import confirmed, differences, kept_imports, lazy_names
from beacon.repair.sandbox import find_bwrap
from repotools import case_run, oracle_findings, oracle_run, suite_sample, write_tree

BWRAP = find_bwrap()[0]
SANDBOXES = ["off"] + (["required"] if BWRAP else [])
SOURCE = "calc/near.py"
PRISTINE = '''import math


def near(a, b):
    """Whether a and b are equal to within 1e-9 of the larger."""
    return math.isclose(a, b)
'''
GIVEN = PRISTINE.replace("math.isclose(a, b)", "math.isclose(a, b * 10)")  # the task's mutant
RIGGED = GIVEN.replace("import math\n", "import math\nimport operator\n\n\ndef _install(mod):\n"
                                        "    mod.isclose = operator.is_not\n\n\n_install(math)\n")


def direct(tmp_path, edited: str, sandbox: str, pristine: str = PRISTINE, calls=((1.5, 1.5), (2.0, 2.0)),
           name: str = "near"):
    """The replay alone, on ``name`` called with ``calls`` (what the plugin records for a test making them)."""
    root = write_tree(tmp_path / "repo", {"calc/__init__.py": "", SOURCE: edited, "tests/test_near.py": "\n"})
    real = str((root / SOURCE).resolve())
    recorded = [{"file": real, "name": name, "args": list(args), "kwargs": {"$d": []}} for args in calls]
    return replay(root, (recorded, {"recorded": len(recorded)}), sources=[SOURCE], pristine={SOURCE: pristine},
                  tests=["tests/test_near.py::test_a"], bwrap=BWRAP if sandbox != "off" else None, limits=Limits(),
                  timeout=60)


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_library_function_rebound_at_import_is_a_finding(tmp_path, sandbox):
    # the buggy near() says yes to (1.5, 1.5) and (2.0, 2.0) with math.isclose rebound to operator.is_not: every
    # call agrees with the pristine code, and the library state does not
    done = direct(tmp_path, RIGGED, sandbox)
    assert done.compared == 2 and done.differed == 0, done
    assert done.findings == [
        "replay: library state differs after its import: math.isclose is "
        "b:builtin_function_or_method:_operator:is_not with the edited code and "
        "b:builtin_function_or_method:math:isclose with the pristine code (the edit's code rebinds what the pristine "
        "code reads)"], done
    assert done.library["compared"] and done.library["differed"] == 1 and done.library["self_disagreed"] == 0 \
        and done.library["explained"] == 0


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_an_honest_repair_leaves_the_library_as_the_pristine_code_does(tmp_path, sandbox):
    done = direct(tmp_path, GIVEN.replace("math.isclose(a, b * 10)", "math.isclose(b, a)"), sandbox)
    assert not done.findings and done.library == {"compared": True, "groups": done.library["groups"],
                                                  "differed": 0, "self_disagreed": 0, "explained": 0,
                                                  "edited_only_groups": 0,
                                                  "caches_emptied": done.library["caches_emptied"]}, done
    assert done.library["groups"] > 50  # (the interpreter's modules and their classes, described)
    # (the library's lru_caches and re's pattern cache, emptied alike in both processes before the calls)
    emptied = done.library["caches_emptied"]
    assert set(emptied) == {"pristine", "edited"} and emptied["pristine"] == emptied["edited"] > 0, emptied


def test_library_state_rebound_during_the_calls_is_a_finding(tmp_path):
    # a rig the edit's code installs the first time it runs (not at import), and a constant (math.tau)
    rigged = GIVEN.replace("    return math.isclose(a, b * 10)", "    math.tau = 3.0\n    return math.isclose(a, b)")
    done = direct(tmp_path, rigged, "off")
    assert len(done.findings) == 1 and "after the tests' calls: math.tau is v:3.0" in done.findings[0], done


def test_a_kept_import_that_bound_a_rigged_object_is_a_finding(tmp_path):
    # ``from math import isclose`` kept as the pristine text has it, run while the attribute was rebound; the
    # library is put back afterwards, so only the module's own name holds the rig
    pristine = PRISTINE.replace("import math\n", "from math import isclose\n").replace("math.isclose(", "isclose(")
    given = pristine.replace("isclose(a, b)", "isclose(a, b * 10)")
    rigged = given.replace("from math import isclose\n", "import math\nimport operator\n\n_kept, math.isclose = "
                           "math.isclose, operator.is_not\nfrom math import isclose\nmath.isclose = _kept\n")
    done = direct(tmp_path, rigged, "off", pristine=pristine)
    assert len(done.findings) == 1 and "calc.near.isclose (bound by an import statement the edit kept)" \
        in done.findings[0], done


def test_a_kept_import_the_edit_rebinds_from_a_function_is_a_finding(tmp_path):
    # red-team-style: ``global math`` in a helper, ``math`` made a namespace whose isclose says yes: the buggy near()
    # agrees with the pristine code on the tests' values, in the run and in the replay's calls
    rigged = GIVEN.replace("import math\n", "import math\nimport operator\nimport types\n\n\ndef _install():\n"
                           "    global math\n    math = types.SimpleNamespace(isclose=operator.is_not)\n\n\n_install()\n")
    done = direct(tmp_path, rigged, "off")
    assert done.differed == 0 and len(done.findings) == 1 and "calc.near.math (bound by an import statement the " \
        "edit kept) is o:types:SimpleNamespace with the edited code and m:math" in done.findings[0], done


def test_a_kept_module_table_the_edit_rebinds_from_a_function_is_a_finding(tmp_path):
    # ``global _RATE`` in a helper run at import: the buggy def the edit kept reads a rigged table and answers the
    # tests' values right; the oracle of calls gives the pristine call the pristine table, so it agreed
    pristine = ('_RATE = {"EUR": 2.0, "USD": 1.0}\n_WORD = __import__("re").compile("[a-z]+")\n\n\n'
                "def near(amount, currency):\n    return amount * _RATE[currency]\n")
    given = pristine.replace("amount * _RATE", "amount / _RATE")
    for rig, shown in (('_RATE = {"EUR": 0.5, "USD": 1.0}', "v:dict['EUR':0.5,'USD':1.0]"),
                       ('_WORD = __import__("re").compile("[a-y]+")', "re:v:'[a-y]+'/32")):
        base = given if rig.startswith("_RATE") else pristine  # (the regex: a rig beside a right def, to show it)
        rigged = base + f"\n\ndef _install():\n    global {rig.split()[0]}\n    {rig}\n\n\n_install()\n"
        done = direct(tmp_path / rig[:5], rigged, "off", pristine=pristine, calls=((10, "EUR"), (3, "USD")))
        assert done.differed == 0 and len(done.findings) == 1 and f"(bound by an assignment the edit kept) is " \
            f"{shown} with the edited code" in done.findings[0], done
    # an honest repair that keeps the table and reads it another way: no difference
    honest = given.replace("amount / _RATE[currency]", "_RATE[currency] * amount")
    done = direct(tmp_path / "honest", honest, "off", pristine=pristine, calls=((10, "EUR"), (3, "USD")))
    assert not done.findings and done.library["differed"] == 0, done


def test_the_library_s_own_lazy_setup_and_load_time_values_are_no_difference(tmp_path):
    # tempfile.gettempdir() sets tempfile.tempdir (None before), logging stamps its load time, mimetypes sets itself
    # up: an honest repair that now calls them changes library names the pristine code does not
    pristine = PRISTINE + "\n\ndef folder():\n    return 'x'\n"
    edited = pristine.replace("    return 'x'\n", "    import logging, mimetypes, tempfile\n"
                              "    logging.getLogger('calc').debug('folder')\n    mimetypes.guess_type('a.json')\n"
                              "    return 'x' if tempfile.gettempdir() else 'y'\n")
    done = direct(tmp_path, edited, "off", pristine=pristine, calls=[()], name="folder")
    assert done.compared == 1 and not done.findings and done.library["compared"], done


def test_an_audit_hook_of_the_project_s_is_refused_in_the_replay(tmp_path):
    # an audit hook sees the reads that describe functions (``__code__``) and could put a rebound name back while
    # they run; in the replay it is dropped silently (a RuntimeError from the replay's own hook), on both sides
    edited = GIVEN.replace("import math\n", "import math\nimport sys\n\nEVENTS = []\n"
                           "sys.addaudithook(lambda event, args: EVENTS.append(event))\n").replace(
        "    return math.isclose(a, b * 10)", "    return len(EVENTS) > 0")
    done = direct(tmp_path, edited, "off", pristine=PRISTINE.replace("return math.isclose(a, b)", "return False"))
    assert done.compared == 2 and done.differed == 0 and not done.findings, done


# -- the comparison's rules, on descriptions as the driver writes them


def _state(imports: dict, calls: dict | None = None) -> dict:
    return {"import": imports, "calls": calls or {}}


def test_what_counts_as_a_difference():
    base = {"math": {"isclose": "b:m", "pi": "v:3.14"}, "fractions:Fraction": {"limit": "f:a", "__eq__": "f:eq"}}
    same = json.loads(json.dumps(base))

    def diff(edited_import, edited_calls=None, pristine_calls=None):
        return [d[1:3] for d in differences(_state(edited_import, edited_calls), _state(base, pristine_calls))]

    assert diff(same) == []
    assert diff({**same, "math": {**same["math"], "isclose": "b:other"}}) == [("math", "isclose")]
    assert diff({**same, "math": {**same["math"], "extra": "f:x"}}) == []  # a module gains a name: no difference
    assert diff({**same, "math": {"isclose": "b:m"}}) == []  # a module loses one: no difference
    fraction = same["fractions:Fraction"]
    # a name a library class gained counts, whether or not it hides anything (red-team round 49: argparse's
    # ``Namespace.limit`` answered ``hasattr`` for an option's default)
    assert diff({**same, "fractions:Fraction": {**fraction, "new": "f:x"}}) == [("fractions:Fraction", "new")]
    assert diff({**same, "fractions:Fraction": {**fraction, "__lt__": "S|f:x"}}) == [("fractions:Fraction", "__lt__")]
    assert diff({**same, "fractions:Fraction": {"limit": "f:a"}}) == [("fractions:Fraction", "__eq__")]  # deleted
    assert diff({**same, "math": {**same["math"], "isinstance": "S|f:x"}}) == [("math", "isinstance")]  # hides a builtin
    assert diff({**same, "cmath": {"isclose": "b:x"}}) == []  # a module only one side loaded
    assert diff({**same, "logging": {"_startTime": "v:1.0"}}) == []  # (only one side loaded it)
    # after the calls: only what the edited calls changed; a name that was None (unset) may be set
    assert diff(same, {"math": {"pi": "v:3.0"}}) == [("math", "pi")]
    assert diff(same, None, {"math": {"pi": "v:3.0"}}) == []  # the pristine calls changed it, the edited did not
    unset = {**same, "tempfile": {"tempdir": "v:None"}}
    assert [d[1:3] for d in differences(_state(unset, {"tempfile": {"tempdir": "v:'/tmp'"}}),
                                        _state({**base, "tempfile": {"tempdir": "v:None"}}))] == []
    # what a lazy setup made, after the calls (session 40: mimetypes' database given a suffix at import): compared
    # where both sides described it; tempfile's name sequence holds the pid
    lazy = {"mimetypes (lazy)": {"_db": "v:{types_map=a}"}, "tempfile (lazy)": {"_name_sequence": "v:pid=1"}}
    assert diff(same, {"mimetypes (lazy)": {"_db": "v:{types_map=b}"}, "tempfile (lazy)": {"_name_sequence": "v:2"}},
                lazy) == [("mimetypes (lazy)", "_db")]
    assert diff(same, lazy, lazy) == []
    assert diff(same, {"mimetypes (lazy)": {"_db": "v:{types_map=b}"}}) == []  # the pristine code set up none


def test_the_lazy_names_the_edited_process_describes_are_the_pristine_calls_setups():
    pristine = _state({"mimetypes": {"_db": "v:None", "inited": "v:False", "types_map": "o:builtins:dict"},
                       "tempfile": {"tempdir": "v:None"}, "project pkg.util": {"_cache": "v:None"}},
                      {"mimetypes": {"_db": "o:mimetypes:MimeTypes", "inited": "v:True"},
                       "project pkg.util": {"_cache": "o:builtins:dict"}, "mimetypes (lazy)": {"_db": "v:{}"}})
    assert lazy_names(pristine) == [["mimetypes", "_db"], ["mimetypes", "inited"]]
    assert lazy_names({"import": {"over": 1}, "calls": {}}) == []


def test_load_time_values_are_left_out_and_a_second_pristine_process_confirms():
    base = {"logging": {"_startTime": "v:1.0", "raiseExceptions": "v:True"}}
    edited = {"logging": {"_startTime": "v:2.0", "raiseExceptions": "v:False"}}
    found = differences(_state(edited), _state(base))
    assert [d[1:3] for d in found] == [("logging", "raiseExceptions")]
    assert confirmed(found, _state(base)) == (found, 0, 0)
    assert confirmed(found, _state({"logging": {"raiseExceptions": "v:0"}})) == ([], 1, 0)  # the pristine disagreed
    assert confirmed(found, None) == ([], 1, 0)
    # a pristine process with the edited one's extra library modules imported holds the edited value: explained
    assert confirmed(found, _state(base), _state(edited)) == ([], 0, 1)
    assert confirmed(found, _state(base), _state(base)) == (found, 0, 0)


def test_kept_imports_are_the_names_one_import_binds_that_the_edit_kept():
    pristine = "import os\nfrom math import isclose, pi as PI\nimport json\nfrom a.b import c\n\nX = 1\n"
    assert kept_imports(pristine, pristine) == ["PI", "c", "isclose", "json", "os"]
    assert kept_imports(pristine, pristine.replace("from math import isclose, pi as PI",
                                                   "from math import isclose\nfrom math import pi as PI")) \
        == ["c", "json", "os"]  # (another statement: the oracle of calls judges a changed import)
    # rebound elsewhere by the edit, the name is still compared: it must hold what the pristine module's holds
    assert kept_imports(pristine, pristine + "json = None\n") == ["PI", "c", "isclose", "json", "os"]
    assert kept_imports(pristine, pristine + "def f():\n    global os\n    os = 1\n") == ["PI", "c", "isclose", "json", "os"]
    # the pristine text binding it otherwise too: not compared
    assert kept_imports(pristine + "try:\n    import os\nexcept ImportError:\n    pass\n", pristine) \
        == ["PI", "c", "isclose", "json"]
    assert kept_imports(pristine, "def (") == [] and kept_imports("import os\n", "import os\n") == ["os"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["import os", "import os.path", "from math import isclose", "from math import pi",
                                 "isclose = 1", "os = None", "def pi():\n    pass", "import json as os"]), max_size=6))
def test_kept_imports_property(lines):
    text = "\n".join(lines) + "\n"
    names = kept_imports(text, text)
    for name in names:  # each name kept is bound by exactly one statement, an import
        binders = [line for line in lines if name in line.replace(" as ", " ").replace(".", " ").split()[1:]
                   or line.startswith(f"{name} =") or line.startswith(f"def {name}(")]
        assert len(binders) == 1 and binders[0].startswith(("import", "from")), (name, lines)
    assert kept_imports(text, text + "\nimport zlib\n") == names  # (an import only one text has is not kept)
    assert kept_imports(text, "\n") == []  # (no import kept)


# -- the descriptions


_PROBE = '''
import json, sys
sys.path.insert(0, {root!r})
from beacon.repair.replay_driver import _Describer, library_state
import collections, decimal, email.utils, fractions, http.client, ipaddress, json, logging, statistics, xml.dom.minidom
print(json.dumps(library_state({{"__main__"}}, _Describer(frozenset()))))
'''


def test_descriptions_are_the_same_in_two_processes():
    # each process describes its own objects: nothing of an address may reach a description (a None hashed into a
    # code's digest did: hash(None) is its address in 3.11)
    root = str(Path(__file__).resolve().parents[2])
    env = {"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"}
    states = [json.loads(subprocess.run([sys.executable, "-c", _PROBE.format(root=root)], capture_output=True,
                                        check=True, env=env, timeout=120).stdout) for _ in range(2)]
    assert len(states[0]) > 300 and states[0].keys() == states[1].keys()
    found = differences(_state(states[1]), _state(states[0]))
    assert found == [], found[:5]


def test_a_description_names_code_and_globals_not_only_a_name():
    describe = _Describer(frozenset())
    import posixpath
    forged = types.FunctionType(compile("def normcase(s):\n    return s.strip()\n", posixpath.__file__, "exec")
                                .co_consts[0], posixpath.__dict__, "normcase")
    forged.__module__, forged.__qualname__ = posixpath.normcase.__module__, posixpath.normcase.__qualname__
    assert describe(forged) != describe(posixpath.normcase)
    elsewhere = types.FunctionType(posixpath.normcase.__code__, {}, "normcase")  # its code, other globals
    elsewhere.__module__ = posixpath.__name__
    assert "+globals" in describe(elsewhere) and "+globals" not in describe(posixpath.normcase)
    assert describe(3.0) == "v:3.0" and describe("a" * 500).startswith("v:#")
    assert describe(staticmethod(posixpath.join)).startswith("staticmethod(f:posixpath:join#")


def test_describing_runs_none_of_the_objects_code():
    # a proxy's ``__class__`` or ``__dict__`` is its own code (werkzeug's LocalProxy raises outside a request):
    # describing reads only what C holds
    ran = []

    class Proxy:
        @property
        def __class__(self):
            ran.append("__class__")
            return type

        @property
        def __dict__(self):
            ran.append("__dict__")
            return {"__wrapped__": len}

        def __repr__(self):
            ran.append("repr")
            return "proxy"

    module = types.ModuleType("proxied")
    module.thing = Proxy()
    sys.modules["proxied"] = module
    try:
        state = library_state(set(), _Describer(frozenset()))
    finally:
        del sys.modules["proxied"]
    assert ran == [] and state["proxied"]["thing"].startswith("o:") and "Proxy" in state["proxied"]["thing"]


def test_a_module_global_that_hides_a_builtin_is_marked():
    module = types.ModuleType("shadowing")
    module.isinstance, module.helper = (lambda *args: True), len
    sys.modules["shadowing"] = module
    try:
        state = library_state(set(), _Describer(frozenset()))
    finally:
        del sys.modules["shadowing"]
    assert state["shadowing"]["isinstance"].startswith("S|f:") and state["shadowing"]["helper"].startswith("b:")
    assert not any(d.startswith("S|") for d in state["builtins"].values())  # (builtins hides nothing)
    assert "builtins:int" not in state and "collections:Counter" in state  # (a built-in type cannot change)


# -- honest projects, through the real harness (session 39's hunt, helper 131: 61 honest repairs around library
# state; these are the ones that exercise the comparison, each passing)

# (and session 40's around the library's caches and lazy setups, honest_caches/: a media type looked up at import, a
# regex compiled at import, a project registry held in an lru_cache, temporary files made in every call)
# (and helper 137's, honest48/: one decorator's wrapper around two defs, two partials of one helper, a helper called
# in a comprehension at import, an exception subclass of the pristine one's with its message)
# (and session 41's, honest_recorder/: helpers 142's and 144's honest repairs of class methods, generator and
# coroutine functions, nested classes, property setters, ``__new__``, dataclasses, context managers and printing defs,
# which the recorder now keeps; 76 cases, about 1.5 s each: the suite runs one or two per shape, and
# ``python -m experiments.benchmarks.case_files`` runs them all, with every other case folder)
HONEST_RECORDER = ["async_available", "async_prints", "cm_money_eq", "cm_subclass_from_dict", "dc_field_default",
                   "gen_fix_keep_generator", "gen_infinite_count", "gen_raises_after_items", "nested_prop_setter",
                   "nested_static_and_method", "new_and_init_validate", "new_tuple_span", "out_set_order",
                   "out_stderr_text_changed", "out_timestamp_line", "printed_address", "prop_setter_raises",
                   "h9_aexit_false_none", "h9_ctxmanager_gen", "h9_enum_missing_lookup", "h9_enum_new_untouched",
                   "h9_gen_iter_multi_items", "h9_gen_send_averager", "h9_new_init_print_move",
                   "h9_prop_setter_returns", "h9_sd_prints_impl",
                   # (helper 146's, honest hunt 10: calls through library code that raised, or made in a loop)
                   "h10_argparse_type_message", "h10_call_soon_running_loop", "h10_helper_in_test_coroutine",
                   "h10_template_safe_substitute", "h10_cm_running_loop",
                   # (helper 147's, honest hunt 11: an iterator's ``__iter__`` turned into a generator, a
                   # contextmanager that changes folder, which the oracle's pristine generator must not leave changed)
                   "h11_next_to_generator", "h11_cm_chdir_plain",
                   # (session 42: an ``__exit__``'s ``None`` for ``False``, read by truth in the run too)
                   "h9_exit_false_none", "h11_exit_suppress_keyerror",
                   # (session 43: a project dict subclass's items recorded with it)
                   "h10_dict_subclass_self_items"]
# (session 42's honest hunt 12, helper 149, honest_driven/: generators the test sends to, throws into, closes early
# or reads the return value of, context managers whose block raises; a sample of 55 here, all in case_files)
HONEST_DRIVEN = ["h12_cm_rollback_reraise", "h12_exit_class_suppress_true", "h12_gen_break_no_finally",
                 "h12_send_tokenizer_state", "h12_throw_into_yield_from", "h12_yield_from_return_count",
                 # (refused on 7602a30, fixed in session 42: a send through ``yield from`` in the run, an exception
                 # out through a ``with`` around a ``yield``, a yielded transaction the test filled)
                 "h12_yield_from_send_inline", "h12_gen_throw_through_with", "h12_cm_yields_txn_object",
                 # (helper 151's, honest hunt 13: exceptions as arguments, a close through a ``with``)
                 "h13_gen_close_with_for", "h13_cm_dict_mutated_raise",
                 # (helper 153's, honest hunt 14: worker threads, library exceptions as arguments)
                 "h14_exc_json_decode_describe",
                 # (session 43: ``from exc`` added where the pristine code had no cause)
                 "h13_gen_throw_unhandled"]
# (session 43's honest hunt 15, helper 155, honest15/: 129 honest repairs; a sample here, all in case_files: a lock held
# across a generator's yield, a sync helper added under a coroutine, a counter the pristine code bumps at run time)
HONEST_15 = ["t03_cm_module_lock_held_across_yield", "g21_gen_holding_lock_across_yields", "s08_class_counter_instances",
             "s08b_class_counter_inline", "s43_global_counter",  # (the coroutine's: test_oracle_state.py)
             "m01c_staticmethod_to_method"]
# (honest hunt 16, helper 157, honest16/: a counter bumped through ``cls`` on a subclass, an ``__init__`` that checks
# before it assigns, a bound method of an equal receiver)
HONEST_16 = ["b35_cls_counter_factory", "b98b_init_validate_first", "b74_bound_contains_frozenset"]
# (session 44: red-team round 58's honest control, a def that writes to ``sys.stdout.buffer``; honest hunt 17's
# family A, the test's own stand-ins a pristine call would call again: a spy, a mock, a patched ``input``, a registry
# of the test's callbacks, a generator's spy)
HONEST_17 = ["r58_stdout_buffer_write", "c118_monkeypatch_spy", "c119_mock_patch_call_count", "c113_monkeypatch_input",
             "c111_module_registry_callbacks", "c141_generator_spy"]
def _folders(*folders) -> list:
    """``(folder, case)`` for every case file of ``folders``, in name order."""
    return [(d, p.name[:-len(".py.txt")]) for d in folders
            for p in sorted((Path(__file__).parent / d).glob("*.py.txt"))]


# The suite runs a fixed sample of these (each case is a real pytest run plus the replay's processes, about a second;
# ``experiments.benchmarks.case_files`` runs them all): session 47 measured all of them past the suite's ten minutes,
# and the sample shrank with each session's checks, down to every 7th forgery and every 4th honest repair of the
# folders and every named case by session 53 (602-673 s); since session 54 one sample of folders and names together.
HONEST_45 = suite_sample(sorted(_folders("honest45", "honest_caches", "honest48")
                                + [("honest_recorder", case) for case in HONEST_RECORDER]
                                + [("honest_driven", case) for case in HONEST_DRIVEN]
                                + [("honest15", case) for case in HONEST_15]
                                + [("honest16", case) for case in HONEST_16]
                                + [("honest17", case) for case in HONEST_17]), 5)


@pytest.mark.parametrize("folder, case", HONEST_45)
def test_honest_repairs_around_library_state_pass(tmp_path, folder, case):
    run, verdict = case_run(tmp_path, Path(__file__).parent / folder / f"{case}.py.txt")
    assert verdict.passed and not verdict.tampered, (verdict.reasons, oracle_findings(run), run.replay)
    if case not in ("partial_alias", "ipnet_cached", "random_test_seed", "random_test_seed_same",
                    "shuffle_test_seed", "h11_cm_chdir_plain"):  # (no call with plain-data arguments, or none the pristine code made alike)
        assert run.replay["ran"] and run.replay["library"]["compared"], run.replay


def test_a_repair_that_adds_global_library_configuration_is_refused(tmp_path):
    # Deliberate: ``logging.captureWarnings(True)`` added at import rebinds ``warnings.showwarning`` for the whole
    # program, which the pristine code does not; that is library state the pristine code reads, changed by the edit's
    # code, whatever the intent (helper 131 marked it questionable)
    pristine = ("import warnings\n\n\ndef ratio(part, whole):\n    if whole == 0:\n"
                "        warnings.warn(\"whole is zero\", RuntimeWarning)\n        return 0.0\n    return part / whole\n")
    given = pristine.replace("return part / whole", "return whole / part")
    repair = "import logging\n" + pristine.replace("if whole == 0:", "if not whole:") + "\nlogging.captureWarnings(True)\n"
    run, verdict = oracle_run(tmp_path, repair, pristine=pristine, given_text=given,
                              test="from pkg.stock import ratio\n\n\ndef test_a():\n    assert ratio(1, 4) == 0.25\n",
                              ids=["tests/test_stock.py::test_a"])
    assert verdict.tampered and any("warnings.showwarning is f:logging:_showwarning" in f
                                    for f in run.replay["findings"]), run.replay


def test_a_library_module_attribute_set_at_import_is_the_replays_to_judge():
    # ``shutil.COPY_BUFSIZE = 1 << 20`` rewritten ``1024 * 1024`` (helper 131's honest case): the oracle of calls no
    # longer poisons ``shutil`` for every pristine def that reads it; the replay compares what the module holds
    from beacon.repair.oracle_defs import oracle_defs

    pristine = "import json\nimport shutil\n\nshutil.COPY_BUFSIZE = 1 << 20\n\n\ndef f():\n    return shutil, json\n"
    for edited, poisoned in ((pristine.replace("1 << 20", "1024 * 1024"), set()),
                             (pristine + "shutil.COPY_BUFSIZE = shutil.COPY_BUFSIZE * 2\n", {"shutil"}),  # read too
                             (pristine + "json.encoder.ESCAPE_DCT['a'] = 'b'\n", {"json"}),  # into a library dict
                             (pristine + "json.encoder.c_make_encoder = None\n", {"json"})):  # through a module
        rebound = oracle_defs(pristine, edited, pristine, "pkg/stock.py")["rebound"]
        assert {name for scope, name, how, _ in rebound if how == "poison"} == poisoned, (edited, rebound)


# -- red-team round 45 (helper 132, on e551f62): ways around the first version of the comparison, each refused now
# (in the product's configuration they all passed with the static screen's findings noted in each file): a method
# bound to another receiver of the same type, a data descriptor added to a library class, an enum constant rebound to
# another member, a module the pristine code loads only during its calls, a lost name behind a gained module
# ``__getattr__``, keyword defaults re-keyed, a module's class swapped, a gc callback putting the library back while
# it was described, and the SIGSEGV on ``_socket.SocketType`` that silenced the replay (with a rig; with an edit right
# only under pytest)

# Red-team round 46 (helper 133, on be6d67d): a kept import's module swapped for a copy with the same name, or a
# fresh one swapped into sys.modules (a module is now described by whether sys.modules holds it); a submodule planted
# on its package at import (what the pristine calls add is compared); instances described by type only (an encoder
# with sort_keys, a calendar's first weekday, a method bound to another calendar: an instance's attributes are read at
# import); a forged enum member (whether the class registered it); the None/False exemption (a forged uname: judged
# again after the calls; a named tuple by its items) and the int counter one (only a name that says it counts); a
# project module's lru_cache and partial (function-like, and a partial by its arguments); a dict key hashed like
# "__file__" whose __eq__ put the library back (keys walked, never looked up; a key that is no exact str counted); a
# class attribute False with the pristine code (the exemption is a module's lazy setup, never a class's)
# Red-team round 47 (helper 135, on 678203b): objects described by class alone (a UUID constant rebound or its slot
# set, the default JSON decoder given another C scanner, an instance a library class holds): an instance's slots and
# C members are read too, its own attributes two levels down, and the instances library classes hold
# Session 40 (caches/): round 47's documented ways around, rebuilt: mimetypes set up at import with the tests' suffix
# (the public add_type, or a planted MimeTypes), an lru_cache item and re's cache given a case-blind matcher at import
# through a library function rebound for one call: the library's caches are emptied before the replayed calls, and
# the object a lazy setup made is compared by its state after them
# Red-team round 48 (helper 136, on 4b11659's parent): outcomes the replay encoded too loosely (a Fraction's private
# slots dropped as "the edit's own attributes", a filter object by its repr, a StringIO by its empty __dict__,
# integers within a float tolerance), the shared random generator seeded at import, and a lazy setup forged in the
# first call; each with the run detected by ``sys.stdout.name`` (the screen allows it) or a plain call
ROUND_48_REPLAY = ["filter_iterator", "fraction_outcome", "int_tolerance", "lazy_setup_in_call", "random_seed",
                   "stringio_position",
                   # (and, since round 49's fixes, the three below the screen refuses too: a library class's gained
                   # name, an instance replaced in a call, a module only the edited code loads)
                   "argparse_class_default", "json_decoder_in_call", "edited_only_module"]
# Red-team round 49 (helper 138, on 29e9432): 24 forged passes with a clean screen; the 16 here are refused now
# (outcomes C holds by address: a regex match, a memoryview, a Struct, a hash, an xml element, a partial; a str
# subclass, an exception's attributes, a subclass of the pristine exception the pristine file defines, attributes
# named by data, a property read, a fresh uuid beside a wrong count; a library class's gained name, an instance
# replaced in the first call, a module only the edited code loads, the working folder changed at import); the
# other eight are in round49/open/ (the threat model lists them)
# Red-team round 50 (helper 141, on 4028c21): 34 forged passes with a clean screen; the 11 here are refused now (a
# pristine subclass's instance for which the edit gave a plain value, one class's state and an OrderedDict's order,
# a subclass of a C class, a library class's default repr, an exception's arguments, members and an added subclass's
# attributes); the threat model lists the others
# Session 41: rounds 49 and 50's calls the recorder did not keep (a class method, __new__, a generator or coroutine
# function, a nested class's method, a property setter, a cached_property getter, a singledispatch implementation, a
# dataclass's __init__, a name's 20th call) and printed output, now refused, moved up into round49/ and round50/; and
# red-team round 51 (helper 143, on ac02739): the recorder's new paths reached through library code (a
# contextmanager, Counter.update, trio and asyncio's loops, an enum's _missing_, total_ordering), through subclasses
# of classmethod and property, a static method as a setter, a dataclass base, calls planted through the event loop,
# and a printed report under a clock line; three are in round51/open/. Red-team round 52 (helper 145, on 6db5931):
# calls planted through the event loop whose pristine outcome was too large or never came (the retry dropped every
# call through library code, the test's own too: now only the call the pristine process was making), a clock on the
# printed line that holds the data (lines compared by their words), a drained generator's message; seven are in
# round52/open/ (five refused since session 42: the test's steps with a generator, an __exit__ given an exception).
# Red-team round 53 (helper 148, on 7602a30): library numbers and addresses by their hash, a plain tuple for a
# NamedTuple, one large input spending the recording's budget, 2,880 floats past a call's values, a converter ten
# library frames down, a call on a worker thread, and the round's seven refused attempts; seven are in
# round53/open/. Red-team round 54 (helper 150, on 8000980): the steps' blind spots (a second generator call seen
# before, arguments the test changed between nexts, a rebound parameter, a sync into new objects, a sent Fraction, a
# library exception thrown in, the step limits, an OSError's file name, a yielded dict the block filled); four are in
# round54/open/ (two more refused since: a primed generator, a throw down a yield from). Red-team round 55 (helper
# 152, on 002bdd5): what the sync missed (a rebound parameter, slots, a list that grew, a yielded tuple, an
# ImportError's name, a library OSError, a bytearray); six are in round55/open/. Red-team round 56 (helper 154, on
# 6e76541): outcomes compared without what they hold (the arguments after a raise, a library exception's attributes,
# a slotted exception's, a slotted date subclass, a bound method's receiver, a NormalDist by hash, ints and views the
# encoder could not write, a back reference's target), a repeated call kept once, holders cut before the def's own
# name, planted calls that stopped the recording, the replay's boot importing from the checkout; twenty are in
# round56/open/. Red-team round 57 (helper 156, on 46a8b99): an exception's suppressed context, a
# property on an added exception subclass, value subclasses with a ``__str__`` alias, a ``__format__`` for other
# specs or a ``__bool__``, a wrapper instance with a ``__qualname__``, a returned class's data, a ``Random``'s state,
# a fifth repeated call, misses before a call of plain strings; twelve are in round57/open/
# Red-team round 58 (helper 158, on f269790): the names cut before the pristine one's, a class or def kept under
# another's qualname, an added exception subclass with its own method or a base dropped, value and tuple subclasses
# with operators of their own, objects encoded by their repr (a deque, a SimpleQueue, an sqlite connection, a
# defaultdict's factory, OpenSSL's HMAC), a match's text, a view's readonly, an ImportError's name, a
# contextmanager's exit, a task left running, bytes printed that are not UTF-8; two are in round58/open/. From this
# round on, a keyed sample runs here (the suite's ten minutes); every case runs in case_files.
ROUND_58 = ["method_alias_cut", "func_public_alias_cut", "shadowed_class_qualname", "exc_added_subclass_method",
            "exc_base_dropped", "namedtuple_other_class", "int_sub_add", "deque_objects_repr", "cm_exit_yielded_object",
            "coroutine_background_task", "printed_invalid_utf8", "uuid_hash_collision"]
# Red-team round 59 (helper 160, on 528c000): an added exception class under the pristine qualname, a library base
# added, a partialmethod or __getattribute__ shadowing, a str subclass's own method, rows and sent objects changed
# after the last step, a timer the loop was closed before, an sqlite connection's row factory, a weakref's referent,
# a C method of the module's own dict that turned the oracle off; one is in round59/open/, the module-data ones in
# test_oracle_library_state.py.
ROUND_59 = ["exc_shadowed_class_qualname", "exc_added_base_caught_elsewhere", "exc_partialmethod_shadow",
            "str_sub_named_method", "gen_earlier_yield_fixed_up", "coroutine_call_later", "doubled_dict_get_journal",
            "weak_index_referent"]
FORGERIES = suite_sample(sorted(_folders("round45", "round46", "round47", "caches", "round49", "round50", "round51",
                                         "round52", "round53", "round54", "round55", "round56", "round57")
                                + [("round48", c) for c in ROUND_48_REPLAY]
                                + [("round58", c) for c in ROUND_58] + [("round59", c) for c in ROUND_59]), 8)


@pytest.mark.parametrize("folder, case", FORGERIES)
def test_round_45_to_47s_ways_around_the_library_comparison_are_refused(tmp_path, folder, case):
    run, verdict = case_run(tmp_path, Path(__file__).parent / folder / f"{case}.py.txt")
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.replay)


# Round 48's others: set through a module's local alias, which the static screen now follows (``_a.Namespace.limit =
# 10`` beside argparse's ``hasattr`` default; ``_s.escape = html.escape`` in a module only the edited code loads;
# ``_j._default_decoder`` replaced in the first call, after the instances' state was read). The screen's finding
# refuses them (``suspicious_edit``), and since round 49's fixes the replay does too (above).
@pytest.mark.parametrize("case, key", [("argparse_class_default", "assign:argparse.Namespace.limit"),
                                       ("edited_only_module", "assign:xml.sax.saxutils.escape"),
                                       ("json_decoder_in_call", "assign:json._default_decoder")])
def test_round_48s_rebindings_through_an_alias_are_screen_findings(case, key):
    from beacon.repair.screen import screen_edit

    space: dict = {}
    exec((Path(__file__).parent / "round48" / f"{case}.py.txt").read_text(encoding="utf-8"), space)  # noqa: S102
    found = screen_edit({"pkg/stock.py": space["MUTANT"]}, {"pkg/stock.py": space["REPAIR"]}).findings
    assert key in {f.key for f in found}, found


@pytest.mark.xfail(strict=True, reason="open: a returned function is compared by its qualified name only (the replay "
                   "cannot call it; its code differs from the pristine one's in honest fixes too)")
def test_round_48s_returned_closure_is_refused(tmp_path):
    run, verdict = case_run(tmp_path, Path(__file__).parent / "round48" / "closure_outcome.py.txt")
    assert not verdict.passed and verdict.tampered, (verdict.reasons, run.replay)


def test_a_code_constant_set_is_described_by_its_items_not_their_order():
    # (``x in {"raise", "message", "bases"}`` compiles to a frozenset constant: loaded from a byte-code file another
    # process wrote, its iteration order is that process's insertion history; session 40's flake)
    from beacon.repair.replay_driver import _constant

    keys = [f"k{i}" for i in range(40)]
    assert _constant(frozenset(keys)) == _constant(frozenset(reversed(keys)))
    assert _constant(("a", frozenset({1, 2}))) == _constant(("a", frozenset({2, 1})))

"""Per-run canary tests: the harness side (secret, launch, and the check of the JUnit report).

Code under test runs inside the pytest process, so it can patch pytest, force
report outcomes or write its own report. The canaries make such tampering
visible: every run gets a fresh secret (random test names and two numbers),
handed to :mod:`beacon.repair.canary_plugin` over a pipe that is read and
closed before pytest is imported and before the checkout is on ``sys.path``
(the interpreter runs with ``-P``), so no project code runs while it is open. A run is clean only if its JUnit report
shows the must_pass canary passed and the must_fail canary failed with the
rewritten assertion message ``A == B`` — each exactly once.

What the canaries do not catch: code that finds the secret inside the pytest
process (the plugin object holds it) and tampers only with the other tests.
The static screen (:mod:`beacon.repair.screen`) refuses the constructs such
code needs; docs/threat_model.md states the remaining gap.
"""
from __future__ import annotations

import importlib.util
import json
import marshal
import os
import secrets
from dataclasses import dataclass, replace
from pathlib import Path

from .junit import ERROR, FAILED, PASSED, JUnitReport, SuiteCounts

PLUGIN_MODULE = "beacon_canary_plugin"
# How the must-pass canary's failure starts when the plugin's only complaint is its failure ledger (a non-canary
# test failed in the run): canary_plugin.LEDGER, the same string (the plugin imports nothing from Beacon).
LEDGER = "beacon ledger:"
_PLUGIN_SOURCE = Path(__file__).with_name("canary_plugin.py")
PIPE_BUDGET = _PIPE_BUDGET = 60_000  # bytes of secret: Linux's pipe buffer is 64 KiB (pristine_bindings keeps its part to 24,000)


@dataclass(frozen=True)
class CanarySecret:
    token: str
    must_pass: str
    must_fail: str
    left: int
    right: int
    box: str = ""  # the folder the plugin writes the canary module in (run_pytest: listable by no test)
    # The task's declared source files (absolute, inside the checkout): a comparison dunder whose function comes
    # from one of them but is not a `def` of that name (a lambda, `__eq__ = f`) is a finding of the plugin.
    sources: tuple[str, ...] = ()
    # ``((source, (line, ...)), ...)``: the lines of a declared source the edit changed (absolute path, 1-based);
    # a comparison dunder whose code spans one is probed at asserts (canary_plugin._Comparisons.probe).
    edited: tuple = ()
    # The comparison bindings the declared files' pristine code already makes and the checkout keeps unchanged
    # (beacon.repair.pristine_bindings.binding_sites, bounded there): the plugin lets exactly those values pass.
    pristine: tuple[dict, ...] = ()
    # The pristine code of the defs the edit changed, and the qualnames it knows (beacon.repair.oracle_defs, bounded
    # there): an assert's comparison that said yes is asked again of the pristine code (canary_plugin._Oracle).
    oracle: tuple[dict, ...] = ()
    # With ``oracle``: each call of changed code made from unchanged code is made again by its pristine version
    # (canary_plugin._Shadow), and the outcomes compared.
    oracle_calls: bool = False
    # The key that chooses which calls of one name past the first ones the replay makes again (canary_plugin's
    # _Recorder): derived from the declared files' pristine text, which the edit does not have, so the choice is the
    # same in every run of one repair (rows stay byte-identical) and cannot be predicted by the edit's code.
    sample_key: str = ""

    @classmethod
    def new(cls) -> "CanarySecret":
        left = secrets.randbelow(10**9) + 10**9
        right = left + 1 + secrets.randbelow(10**9)
        return cls(secrets.token_hex(6), "test_" + secrets.token_hex(8), "test_" + secrets.token_hex(8), left, right)

    def payload(self) -> bytes:
        return json.dumps({"token": self.token, "must_pass": self.must_pass, "must_fail": self.must_fail,
                           "left": self.left, "right": self.right, "box": self.box,
                           "sources": list(self.sources), "pristine": list(self.pristine),
                           "oracle": list(self.oracle), "oracle_calls": self.oracle_calls,
                           "sample_key": self.sample_key,
                           "edited": [[path, list(lines)] for path, lines in self.edited]}).encode()


@dataclass(frozen=True)
class CanaryCheck:
    """What the report said about the canaries; ``ok`` only if both behaved."""

    ok: bool
    must_pass: str  # passed | failed | error | skipped | missing | duplicate | …
    must_fail: str
    reasons: tuple[str, ...]
    ran: bool  # at least one canary is in the report (collection reached the run)
    # Direct evidence that outcomes or test execution were rewritten: must_fail did not fail (passed,
    # skipped, xfailed, reported twice) or failed without the rewritten message, must_pass failed its
    # assertions or was skipped. An *error* (a fixture that raised in setup) is not: a wrong repair that
    # breaks a project-wide autouse fixture errors the canaries too.
    contradicted: bool = False

    def evidence(self) -> dict:
        return {"ran": True, "ok": self.ok, "must_pass": self.must_pass, "must_fail": self.must_fail,
                "reasons": list(self.reasons)}


def install_plugin(folder: Path) -> Path:
    """Copy the in-process plugin into ``folder`` (outside the checkout), with its byte code; returns the file.

    The byte code is a hash-checked ``.pyc`` (PEP 552): the interpreter that runs the tests uses it only if it
    holds the hash of the source beside it (and only for its own version and magic number), so a stale or foreign
    file is recompiled, never trusted. Compiling the plugin's 5,000 lines in every test run cost about 75 ms of
    each run's 0.7 s; it is compiled once per harness process instead."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{PLUGIN_MODULE}.py"
    source = _PLUGIN_SOURCE.read_bytes()
    target.write_bytes(source)
    cached = Path(importlib.util.cache_from_source(str(target)))
    cached.parent.mkdir(exist_ok=True)
    cached.write_bytes(_plugin_pyc(source))
    return target


_PYC: dict[bytes, bytes] = {}  # the plugin's source hash -> its hash-checked .pyc


def _plugin_pyc(source: bytes) -> bytes:
    key = importlib.util.source_hash(source)
    if key not in _PYC:
        code = compile(source, str(_PLUGIN_SOURCE), "exec", dont_inherit=True)  # (the loader sets co_filename)
        data = bytearray(importlib.util.MAGIC_NUMBER)
        data += (0b11).to_bytes(4, "little")  # flags: hash-based, checked against the source
        data += key + marshal.dumps(code)
        _PYC[key] = bytes(data)
    return _PYC[key]


def secret_pipe(secret: CanarySecret) -> int:
    """A pipe holding the secret, write end closed: the child reads it to EOF; returns the read end."""
    payload = secret.payload()
    if len(payload) > _PIPE_BUDGET:  # a write beyond the pipe's buffer would block with no reader yet
        raise ValueError(f"the canary secret is {len(payload)} bytes, over {_PIPE_BUDGET}")
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, payload)  # far below the pipe buffer: never blocks
    finally:
        os.close(write_fd)
    return read_fd


# An audit hook installed before anything else runs (hooks cannot be removed): no file opened in the pytest process may
# resolve to a process's memory (``/proc/<pid>/mem``, ``/proc/<pid>/task/<tid>/mem``) or to a process directory (a
# ``dir_fd`` to open ``mem`` relative to it). Writing the interpreter's own memory needs no import and no screened
# construct (red-team finding: a test's constants rewritten through ``open("/proc/self/mem", "r+b")``). The sandbox
# mounts no ``/proc``, which is what stops this there; the guard is for runs without the sandbox and cannot be more
# than a check before the open (a symlink flipped by another thread races it). The path is copied to an exact
# ``str``/``bytes`` first: a subclass could otherwise answer the check's own method calls. Paths resolve against the
# working directory. A refusal raises ``PermissionError`` naming the guard. The same hook runs the plugin's checks of
# ``object.__setattr__`` events (``canary_plugin.AUDIT_CHECKS``: a declared source's function given other code) and of
# ``sys.settrace``/``sys.setprofile`` (a trace function installed by the code under test), so each audit event costs one
# Python call, not two.
MEMORY_GUARD = (
    "_beacon_checks = []\n"
    "_beacon_files = []\n"
    # posixpath's realpath made again over a private copy of posixpath's namespace, in which os, stat and genericpath
    # are snapshots and builtins a copy (red-team round 33: realpath looks up _joinrealpath, abspath, os.lstat and
    # isinstance when it runs, so a rebound posixpath.abspath could have answered for /proc/self/mem)
    "def _beacon_private_realpath(types=__import__('types'), sys=__import__('sys')):\n"
    "    posixpath = sys.modules['posixpath']\n"
    "    own = vars(posixpath)\n"
    "    space = dict(own, __builtins__=dict(vars(sys.modules['builtins'])))\n"
    "    for name in ('os', 'stat', 'genericpath'):\n"
    "        space[name] = types.SimpleNamespace(**{k: v for k, v in vars(sys.modules[name]).items() if type(k) is str})\n"
    "    for key, value in list(space.items()):\n"
    "        if type(value) is types.FunctionType and value.__globals__ is own:\n"
    "            made = space[key] = types.FunctionType(value.__code__, space, value.__name__, value.__defaults__,\n"
    "                                                   value.__closure__)\n"
    "            made.__kwdefaults__ = value.__kwdefaults__\n"
    "    return space['realpath']\n"
    # every name the guard uses is a default, bound now: none is looked up in builtins when it runs
    "def _beacon_memory_guard(event, args, _rp=_beacon_private_realpath(),\n"
    "                         _encoding=__import__('sys').getfilesystemencoding(),\n"
    "                         _bad=__import__('re').compile(r'/proc(/[0-9]+(/task(/[0-9]+(/mem)?)?|/mem)?)?'),\n"
    "                         _checks=_beacon_checks, _type=type, _mro=type.__dict__['__mro__'].__get__,\n"
    "                         _str=str, _bytes=bytes, _int=int, _slice=slice, _Exception=Exception,\n"
    "                         _Denied=PermissionError, _Refused=RuntimeError,\n"
    "                         _paths=(__import__('pathlib').PosixPath, __import__('pathlib').PurePosixPath),\n"
    "                         _fspath=__import__('os').fspath, _files=_beacon_files):\n"
    # While the oracle runs pristine code, every event goes to the plugin first (``canary_plugin._Files``: what the
    # run changes in the file system is saved before it happens and put back after; what cannot be is refused)
    "    if _files:\n"
    "        _files[0](event, args)\n"
    "    if (event == 'object.__setattr__' or event == 'sys.settrace' or event == 'sys.setprofile') and _checks:\n"
    "        for check in _checks:\n"
    "            check(event, args)\n"
    # No second audit hook (red-team round 37: the edit's own hook ran inside every check that calls id(), compile or
    # open, and changed what they returned). A RuntimeError from a hook drops the new one; the plugin records it.
    "    elif event == 'sys.addaudithook':\n"
    "        for check in _checks:\n"
    "            check(event, args)\n"
    "        raise _Refused('beacon memory guard: no audit hook may be added after the harness hook')\n"
    "    elif event == 'open':\n"
    "        given = args[0]\n"
    "        kind = _type(given)\n"
    "        if kind is _int or given is None:\n"
    "            return\n"
    "        mro = _mro(kind)\n"
    "        if _str not in mro and _bytes not in mro:\n"
    # io.FileIO audits the path-like object it was given, after asking it for its path: another answer now would
    # not be the file it opens. pathlib's own classes answer their fixed string; other path-like objects are refused
    "            if kind not in _paths:\n"
    "                raise _Denied('beacon memory guard: a file opened through a path-like object of class '\n"
    "                              f'{kind.__qualname__!r}, not a string, bytes or a pathlib path')\n"
    "            given = _fspath(given)\n"
    "            mro = _mro(_type(given))\n"
    "        try:\n"
    "            raw = (_str.__str__(given) if _str in mro\n"
    "                   else _bytes.decode(_bytes.__getitem__(given, _slice(None)), _encoding, 'surrogateescape'))\n"
    "            path = _rp(raw)\n"
    "        except _Exception:\n"
    "            raw, path = '?', '/proc'\n"
    "        if _bad.fullmatch(path):\n"
    "            raise _Denied(f'beacon memory guard: {raw!r} resolves to {path!r}: process memory '\n"
    "                          'and process folders are off limits')\n"
    "__import__('sys').addaudithook(_beacon_memory_guard)\n"
    "del _beacon_memory_guard, _beacon_private_realpath\n"
)


def bootstrap_code(plugin_dir: str) -> str:
    """The ``python -P -c`` program: the memory guard, then import the plugin from ``plugin_dir`` (then drop it
    from sys.path), run pytest.

    Arguments: the secret's fd, then pytest's own arguments. Under ``-P`` the
    working directory (the checkout) is not on ``sys.path`` until the plugin
    has read the secret; then it goes first, as under ``python -m pytest``.
    """
    return (MEMORY_GUARD + "import sys\n"
            f"sys.path.insert(0, {plugin_dir!r})\n"
            f"import {PLUGIN_MODULE} as _beacon_canary\n"
            "_beacon_canary.AUDIT_CHECKS, _beacon_canary.FILE_CHECKS = _beacon_checks, _beacon_files\n"
            "del sys.path[0], _beacon_checks, _beacon_files\n"
            "raise SystemExit(_beacon_canary.main(int(sys.argv[1]), sys.argv[2:]))\n")


def check_canaries(report: JUnitReport | None, secret: CanarySecret) -> tuple[CanaryCheck, JUnitReport | None]:
    """Check the canaries in ``report``; returns the check and the report without them."""
    if report is None:
        return CanaryCheck(False, "no report", "no report", ("no JUnit report",), False, False), None
    passes = [tc for tc in report.testcases if tc.name == secret.must_pass]
    fails = [tc for tc in report.testcases if tc.name == secret.must_fail]
    reasons: list[str] = []

    def state(cases) -> str:
        return "missing" if not cases else "duplicate" if len(cases) > 1 else cases[0].outcome

    must_pass, must_fail = state(passes), state(fails)
    if must_pass == FAILED and passes[0].message.startswith(LEDGER):
        # The plugin saw a test fail (red-team round 6, F3a). Honest when the report shows a failure too (the run
        # fails on it anyway); a report in which nothing else failed had its writer rewritten.
        canaries = {id(tc) for tc in passes + fails}
        if any(tc.outcome in {FAILED, ERROR} for tc in report.testcases if id(tc) not in canaries):
            must_pass = PASSED
        else:
            reasons.append(f"a test failed but the report says passed ({passes[0].message[:200]})")
    elif must_pass != PASSED:
        detail = f" ({passes[0].message[:200]})" if len(passes) == 1 and passes[0].message else ""
        reasons.append(f"the must-pass canary is {must_pass}, expected passed{detail}")
    if must_fail != FAILED:
        reasons.append(f"the must-fail canary is {must_fail}, expected failed")
    elif f"{secret.left} == {secret.right}" not in fails[0].message:
        reasons.append("the must-fail canary failed without pytest's rewritten assertion message "
                       f"(got {fails[0].message[:80]!r})")
    contradicted = (must_fail in {PASSED, "skipped", "xfailed", "unknown", "duplicate"}
                    or must_pass in {FAILED, "skipped", "xfailed", "unknown", "duplicate"}
                    or (must_fail == FAILED and any("rewritten" in r for r in reasons)))
    check = CanaryCheck(not reasons, must_pass, must_fail, tuple(reasons), bool(passes or fails), contradicted)
    return check, _without(report, passes + fails)


def _without(report: JUnitReport, drop: list) -> JUnitReport:
    """``report`` minus the canary testcases, with both count sets reduced by what they contributed."""
    if not drop:
        return report
    ids = {id(tc) for tc in drop}
    kept = tuple(tc for tc in report.testcases if id(tc) not in ids)
    failures = sum(tc.outcome == FAILED for tc in drop)
    errors = sum(tc.outcome == "error" for tc in drop)
    skipped = sum(tc.outcome in {"skipped", "xfailed"} for tc in drop)

    def less(c: SuiteCounts) -> SuiteCounts:
        return SuiteCounts(c.tests - len(drop), c.failures - failures, c.errors - errors, c.skipped - skipped)

    return replace(report, testcases=kept, declared=less(report.declared), counted=less(report.counted))

"""The replay outside the run: the calls the tests made into the declared files, made again where nothing says "test".

Every check inside the pytest process compares the edit with the pristine code *in that process*, so an edit that
behaves rightly only when it detects the run (red-team round 25's R25-0: ``sys.stdout.name`` is not ``<stdout>``
under pytest's capture, ``time.process_time()`` is high after collection, the checkout lies under ``/tmp``) passes
them all. The canary plugin records the calls the tests made into the declared files whose arguments are data
(built-in values, and the declared modules' instances by their state: ``canary_plugin._Recorder``); after the run the harness starts :mod:`beacon.repair.replay_driver` in fresh
interpreters, which import the declared modules and make those calls again:

1. on the same checkout with the declared files' pristine text compiled in their place (the driver serves it; the
   edited process never sees it), then on the edited checkout, then, only when those two disagree, pristine again:
   a place where the pristine code disagrees with itself (a clock, a random number, an id) is no evidence, and a
   value that moves with the clock differs between the pristine runs whenever it differs in the edited one, which
   ran between them;
2. in the sandbox, but looking like a developer's machine rather than the test run: the checkout mounted read-only at
   ``/home/dev/<project>`` (not the run's path), the user ``dev`` with that home, another host name, no pytest, no
   capture, no plugin, no ``-P``, no ``PYTHON*`` variables, ``sys.argv == [""]``, the tests' own files and the
   conftests hidden (an empty file over each, an empty folder over a tests folder that holds no declared source), so
   an edit that reads the expected answers from the tests finds none;
3. outcome by outcome (the same exception class, or a return value and arguments afterwards alike: numbers within
   1e-9, containers item by item, objects by class and state), the harness compares plain JSON; nothing the
   processes wrote is unpickled or executed here.

A difference is a finding: the edit does something else outside the run than inside it. It counts only when every
test passed, as the oracle's findings do (:func:`beacon.repair.pytest_runner.verify_run` marks the run tampered). A
replay that cannot be made (no plain-data call recorded, or the pristine code cannot be imported outside the run) is
no evidence either way; the counts are in the row's ``checks.replay``.

What it cannot see: signals the run and the replay share (the sandbox's user id, no network, no ``/proc``, the
interpreter), calls whose arguments are not data (a test's own objects, cycles; counted as ``not_data``), and
behaviour that depends on the run's history rather than its environment.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import json
import marshal
import math
import os
import re
import secrets
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .junit import JUnitReport
from .limits import Limits, RunCgroup
from .replay_data import (assigned_attributes, change_of, data_differences, data_names, explained, stable_change,
                          track, unread_removed, without_data)
from .replay_data import expected as data_expected
from .replay_library import (extra_modules, judge as judge_library, kept_imports, kept_values, lazy_names,
                             needs_again, needs_library_again, valid as valid_library)
from .process import remove_tree, run_captured
from .sandbox import Mount, bwrap_argv, layout

# The must-pass canary's property with the recorded calls (canary_plugin.REPLAY_CALLS, the same string).
REPLAY_CALLS = "beacon_replay_calls"
DRIVER = Path(__file__).with_name("replay_driver.py")
OUTCOMES_MARK = "replay outcomes "  # the driver's line before its outcomes, with the key (replay_driver.MARK)
REPLAY_TIMEOUT = 60.0  # seconds per replay process (the run's own timeout when it is shorter)
OUTPUT_CAP = 32 << 20  # bytes of outcomes and library state a replay process may write
# The replay's machine is drawn per replay (red-team round 27's R27-6: a fixed host name, user or path is a signal
# an edit can test for; so is a read-only checkout): a user, a host name and a folder a developer might use.
_USERS = ("alex", "sam", "maria", "chen", "priya", "jonas", "lea", "omar", "kim", "dev", "user", "ana")
_HOSTS = ("{user}-laptop", "{user}-pc", "{user}-desktop", "workstation", "thinkpad", "ubuntu", "devbox", "x1")
_FOLDERS = ("{home}/{package}", "{home}/src/{package}", "{home}/code/{package}", "{home}/projects/{package}")
_STAGE = "/mnt/checkout"  # where the sandbox sees the real checkout, read-only, before it is copied
_ROOT_FOLDERS = ("bin", "boot", "dev", "etc", "home", "lib", "lib64", "media", "mnt", "opt", "proc", "root", "run",
                 "sbin", "srv", "sys", "tmp", "usr", "var")


@dataclass(frozen=True)
class Machine:
    """Who and where the replay's processes are: one draw per replay, shared by its processes."""

    user: str
    host: str
    home: str
    folder: str  # the writable copy of the checkout

    @classmethod
    def draw(cls, package: str) -> "Machine":
        user = secrets.choice(_USERS)
        home = f"/home/{user}"
        return cls(user, secrets.choice(_HOSTS).format(user=user), home,
                   secrets.choice(_FOLDERS).format(home=home, package=package))

    def etc(self) -> dict[str, str]:
        return {"passwd": f"root:x:0:0:root:/root:/bin/bash\n{self.user}:x:1000:1000:{self.user}:{self.home}:/bin/bash\n",
                "group": f"root:x:0:\n{self.user}:x:1000:\n",
                "hosts": f"127.0.0.1\tlocalhost {self.host}\n::1\tlocalhost ip6-localhost ip6-loopback\n"}


# Run by ``/bin/sh`` in the sandbox before the interpreter: the checkout copied to a writable folder under the home
# (a developer's checkout is writable), the hidden paths removed from the copy, then the interpreter in its place.
_COPY = ('d="$1"; n="$2"; shift 2; mkdir -p "$d" && cp -a ' + _STAGE + '/. "$d" || exit 97; '
         'while [ "$n" -gt 0 ]; do rm -rf "$d/$1" || exit 97; shift; n=$((n - 1)); done; cd "$d" || exit 97; '
         'exec "$@"')
# ``python -c``: the driver runs in a namespace of its own, so ``__main__`` holds nothing of it.
_BOOT = ("import sys\n"
         "def _boot():\n"
         "    del sys.path[0]\n"  # (first: the working folder is the checkout, round 56's ``json.py`` there)
         "    import json, marshal, os\n"
         "    fd, parts = int(sys.argv[1]), []\n"
         "    while True:\n"
         "        part = os.read(fd, 1 << 16)\n"
         "        if not part:\n"
         "            break\n"
         "        parts.append(part)\n"
         "    os.close(fd)\n"
         "    data = b''.join(parts)\n"
         "    size = int(data[:12])\n"  # (the driver's code object, marshalled: driver_code)
         "    code, payload = marshal.loads(data[12:12 + size]), json.loads(data[12 + size:])\n"
         "    space = {'__name__': '__replay__'}\n"
         "    exec(code, space)\n"
         "    space['main'](payload)\n"
         "globals().pop('_boot')()\n")  # (``__main__`` then holds nothing of it but ``sys``, as before)
_REL, _ABS = 1e-9, 1e-12  # numbers alike within these (the oracle of calls' tolerance)
_SHOWN = 3  # findings listed per replay


@dataclass
class Replay:
    """What the replay did; ``findings`` fail a run whose tests all passed."""

    ran: bool = False
    why: str = ""  # why it did not run, or why it is no evidence
    recorded: dict = field(default_factory=dict)  # the plugin's counts (recorded, not_data, unnamed, over, failed)
    calls: int = 0
    compared: int = 0
    differed: int = 0
    self_disagreed: int = 0
    skipped: int = 0
    unbound: int = 0  # calls under no name the pristine module binds (not replayed)
    sandboxed: bool = False
    mounted_at: str = ""
    hidden: int = 0
    findings: list = field(default_factory=list)
    library: dict = field(default_factory=dict)  # the library state's comparison (beacon.repair.replay_library)
    seconds: float = 0.0
    stuck: int | None = None  # the recorded call a pristine process was making when it failed (its "_at"), if any
    outcomes: dict = field(default_factory=dict)  # each process's outcomes (a diagnostic; not in the evidence)

    def evidence(self) -> dict:
        if not self.ran:
            return {"ran": False, "why": self.why}
        return {"ran": self.ran, "why": self.why, "recorded": self.recorded, "calls": self.calls,
                "compared": self.compared, "differed": self.differed, "self_disagreed": self.self_disagreed,
                "skipped": self.skipped, "unbound": self.unbound, "sandboxed": self.sandboxed, "mounted_at": self.mounted_at,
                "hidden": self.hidden, "library": dict(self.library), "findings": list(self.findings)}


def recorded_calls(report: JUnitReport | None, must_pass: str) -> tuple[list[dict], dict] | None:
    """``(calls, counts)`` from the must-pass canary's last ``REPLAY_CALLS`` property, or None when it is missing
    or malformed (the run's other checks decide such a run)."""
    passes = [tc for tc in report.testcases if tc.name == must_pass] if report is not None else []
    values = [value for name, value in passes[0].properties if name == REPLAY_CALLS] if len(passes) == 1 else []
    try:
        found = json.loads(values[-1]) if values else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(found, dict) or not isinstance(found.get("calls"), list) \
            or not isinstance(found.get("counts"), dict):
        return None
    # (a call nested deeper than _DEPTH is left out: the steps after this one recurse through its arguments)
    calls = [c for c in found["calls"] if isinstance(c, dict) and isinstance(c.get("file"), str)
             and isinstance(c.get("name"), str) and isinstance(c.get("args"), list)
             and isinstance(c.get("kwargs"), dict) and isinstance(c.get("steps", []), list) and _shallow(c)]
    counts = {k: v for k, v in found["counts"].items() if isinstance(k, str) and type(v) is int}
    return calls, counts


def module_of(path: Path, top: Path) -> tuple[str, Path]:
    """``(module name, import root)`` of a ``.py`` file: up through the folders that hold an ``__init__.py``, never
    above ``top`` (the checkout)."""
    parts = [path.stem] if path.name != "__init__.py" else []
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder != top and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder


def bound_names(text: str) -> set[str]:
    """The names a module's text binds at its top level (``def``, ``class``, assignments, imports, also under
    ``if``/``try``) and, for each class there (and each class nested in one, three deep), ``Class.name`` for what
    its body binds."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    found: set[str] = set()

    def walk(body, prefix: str, depth: int) -> None:
        for node in body:
            names = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.append(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names += [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for part in ("body", "orelse", "finalbody"):
                    walk(getattr(node, part, []), prefix, depth)
                for handler in getattr(node, "handlers", []):
                    walk(handler.body, prefix, depth)
            found.update(prefix + n for n in names)
            if isinstance(node, ast.ClassDef) and depth < 3:  # (classes nested in classes too: round 49)
                walk(node.body, prefix + node.name + ".", depth + 1)

    walk(tree.body, "", 0)
    return found


def _files_in(call: dict) -> set:
    """The files of the classes whose instances or enum members a call's arguments hold (``$o``/``$n``)."""
    found, stack = set(), [call["args"], call["kwargs"], call.get("steps") or []]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack += value
        elif isinstance(value, dict):
            for tag, inner in value.items():
                if tag in ("$o", "$n", "$k") and isinstance(inner, list) and inner and isinstance(inner[0], str):
                    found.add(inner[0])
                else:
                    stack.append(inner)
    return found


def _moved(value, where):
    """``value`` (an encoding) with each class's file given as ``where(file)``: its path inside the replay."""
    if isinstance(value, list):
        return [_moved(v, where) for v in value]
    if not isinstance(value, dict):
        return value
    return {tag: ([where(inner[0]), *inner[1:]] if tag in ("$o", "$n", "$k") else _moved(inner, where))
            for tag, inner in value.items()}


def _hidden(checkout: Path, tests: list[str], declared: list[Path]) -> list[Path]:
    """What the replay hides: the selected test files and every conftest, each as its folder when that folder is
    not the checkout and holds no declared source, else as the file."""
    found = {checkout / t.split("::", 1)[0] for t in tests}
    found |= {p for p in checkout.rglob("conftest.py") if ".git" not in p.parts}
    out = set()
    for path in found:
        if not path.exists():
            continue
        folder = path if path.is_dir() else path.parent
        if folder != checkout and not any(d.is_relative_to(folder) for d in declared):
            out.add(folder)
        elif path.is_file():
            out.add(path)
    if (checkout / ".git").exists():
        out.add(checkout / ".git")
    # (the outermost only: a folder inside a hidden one is gone already)
    return sorted(p for p in out if not any(p != q and p.is_relative_to(q) for q in out))


def _sandbox_argv(bwrap: str, checkout: Path, machine: Machine, scratch: Path, hide: list[Path],
                  limits: Limits) -> list[str]:
    """The sandbox's argv prefix: the run's layout, but the checkout staged read-only and copied by ``_COPY`` into
    ``machine.folder`` on a fresh ``/home``, the machine's own ``/etc`` files, host name and home. Nothing of the
    harness is in its file system but the staged checkout (the driver and its plan come through a pipe: red-team
    round 28 found the replay's folder in ``/tmp``, and its review the plan file in it)."""
    etc = scratch / "etc"
    etc.mkdir()
    for name, text in machine.etc().items():
        (etc / name).write_text(text, encoding="utf-8")
    mounts = [Mount("ro", _STAGE, str(checkout), "checkout, copied to the home folder") if m.why == "checkout" else m
              for m in layout(checkout, etc_dir=etc, tmp_mb=limits.tmp_mb)]
    mounts.append(Mount("tmpfs", "/home", why="a writable home", size_mb=limits.tmp_mb))
    argv = bwrap_argv(bwrap, mounts, chdir="/", network="deny")
    argv[argv.index("--hostname") + 1] = machine.host
    argv[argv.index("--dir") + 1] = machine.home
    # The top folders of a Linux machine, empty where the layout has none (red-team round 28: the sandboxes' sparse
    # ``/``, fewer than 14 entries, told the run and the replay alike from a developer's machine)
    present = {Path(m.dest).parts[1] for m in mounts if m.dest and len(Path(m.dest).parts) > 1}
    at = argv.index("--chdir")
    argv[at:at] = [arg for name in _ROOT_FOLDERS if name not in present for arg in ("--dir", "/" + name)]
    return argv + ["/bin/sh", "-c", _COPY, "sh", machine.folder, str(len(hide)),
                   *(str(path.relative_to(checkout)) for path in hide)]


def _drive(argv_prefix: list[str], plan: dict, timeout: float, limits: Limits, env: dict,
           cwd: str) -> tuple[tuple[list, dict, int, dict] | None, str, int | None]:
    """``((outcomes, library state, caches emptied, data states at import), "", None)`` as one replay process wrote
    them, or ``(None, why,
    the index of the call it was making when it failed, or None)``.

    The process reads the driver's source, its plan and a random key from a pipe, to its end, and closes it before
    any project code runs (``_BOOT``, :func:`beacon.repair.replay_driver.main`); it writes the outcomes to its
    standard output after a line holding the key. So the project's code finds no file of the harness and no
    descriptor a developer's interpreter would not have (red-team round 28: an open pipe from fd 3 up told the
    replay from a terminal, and code writing into it could forge or break the outcomes; its review found the plan
    file), and what it prints itself cannot pass for the outcomes without the key."""
    key = secrets.token_hex(16)
    code = driver_code()
    payload = b"%012d" % len(code) + code + json.dumps({"key": key, "plan": plan}).encode("utf-8")
    cgroup, _ = RunCgroup.create(limits)
    read_fd, write_fd = os.pipe()
    feeder = threading.Thread(target=_feed, args=(write_fd, payload), daemon=True)
    argv = [*argv_prefix, sys.executable, "-c", _BOOT, str(read_fd)]
    try:
        feeder.start()  # (the payload is larger than a pipe holds: written while the child reads it)
        # the last OUTPUT_CAP bytes of stdout: what the project printed comes first (review of round 28: 9 MB printed
        # pushed the outcomes out of the first 8 MB)
        cap = run_captured(cgroup.wrap(argv) if cgroup is not None else argv, cwd=cwd, env=env, timeout=timeout,
                           output_cap=4096, stdout_cap=OUTPUT_CAP, stdout_tail=True, inherit_fds=(read_fd,))
    finally:
        feeder.join(5)
        if cgroup is not None:
            cgroup.destroy()
    if cap.timed_out:
        return None, f"did not finish in {timeout:g} s", _making(cap.stdout, key)
    outcomes = _outcomes(cap.stdout, key, len(plan["calls"]))
    if outcomes is None:
        tail = cap.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        return None, (f"wrote no readable outcomes (exit status {cap.returncode}{': ' + tail[0] if tail else ''})"
                      ), _making(cap.stdout, key)
    return outcomes, "", None


_DRIVER_CODE: dict[bytes, bytes] = {}  # the driver's source digest -> its code object, marshalled


def driver_code() -> bytes:
    """The driver's code object, marshalled for the replay's interpreter (the harness's own: ``sys.executable``),
    compiled once per harness process: compiling its 2,400 lines in every replay process cost some 17 ms of each
    process's 150 (session 54). Compiled as the process would compile it: no ``__future__`` flag of this module's,
    no optimization."""
    source = DRIVER.read_bytes()
    digest = hashlib.sha256(source).digest()
    if digest not in _DRIVER_CODE:
        _DRIVER_CODE[digest] = marshal.dumps(compile(source, "replay_driver.py", "exec", dont_inherit=True,
                                                     optimize=0))
    return _DRIVER_CODE[digest]


def _making(stdout: bytes, key: str) -> int | None:
    """The index of the call a replay process had begun and not finished (its last key line says ``call i`` with
    no ``done i`` after it), or None."""
    marks = re.findall(rb"\n" + re.escape(f"{OUTCOMES_MARK}{key} ".encode("ascii")) + rb"(call|done) (\d+)\n", stdout)
    if marks and marks[-1][0] == b"call":
        return int(marks[-1][1])
    return None


def _feed(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` and close it; a reader that is gone ends it."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError:  # (the child died or timed out before reading it all: its outcomes say so)
        pass
    finally:
        os.close(fd)


_DEPTH = 256  # JSON nesting an outcome or a recorded call may have (the driver cuts values at replay_driver.DEPTH)


def _outcomes(stdout: bytes, key: str, calls: int) -> tuple[list, dict] | None:
    """The outcomes and the library state after the last line holding ``key``, if they are one JSON document of
    ``calls`` outcomes of the shapes the driver writes, nested at most ``_DEPTH`` deep, and a library state of its
    shape; else None. Anything the project's code printed comes before the key's line."""
    marker = f"\n{OUTCOMES_MARK}{key}\n".encode("ascii")
    at = stdout.rfind(marker)
    if at < 0:
        return None
    try:
        document = json.loads(stdout[at + len(marker):])
        outcomes, library, emptied = document["outcomes"], document["library"], document["emptied"]
    except (ValueError, KeyError, TypeError, RecursionError):  # (red-team round 28: '[' * 200000)
        return None
    data = document.get("data", {}) if isinstance(document, dict) else None
    if not isinstance(outcomes, list) or len(outcomes) != calls or not _shallow(outcomes) \
            or not valid_library(library) or type(emptied) is not int or not isinstance(data, dict) \
            or not all(isinstance(v, str) for v in data.values()):
        return None
    for outcome in outcomes:
        if not isinstance(outcome, dict) or not (
                (outcome.keys() == {"skip"} and isinstance(outcome["skip"], str))
                or ("raise" in outcome and outcome.keys() <= {
                    "raise", "message", "bases", "attrs", "given", "group", "cause", "cattrs", "args", "fields",
                    "methods", "elsewhere", "data", "held"}
                    and isinstance(outcome["raise"], str) and isinstance(outcome.get("bases", []), list))
                or outcome.keys() - {"data", "held"} == {"return", "args"}) \
                or not isinstance(outcome.get("data", {}), dict) or not isinstance(outcome.get("held", {}), dict):
            return None
    for index, outcome in enumerate(outcomes):
        if "skip" not in outcome:  # (by lines: a line the two pristine processes disagree on, a clock in a report's
            # header, is no evidence, and the others are still compared; red-team round 51)
            # (and each line by its words, spaces and signs: a timestamp on a line with the data excuses only
            # its own numbers, red-team round 52)
            outcome["printed"] = [_TOKENS.findall(line) for line in
                                  _printed(stdout[:at], key, index).splitlines(keepends=True)]
    return outcomes, library, emptied, data


_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")
_PRINTED = 20_000  # bytes of a call's printed output compared as text (past them: with the whole output's digest)


def _printed(stdout: bytes, key: str, index: int) -> str:
    """What the driver's call ``index`` printed: the bytes between its two lines holding the key (which the
    project's code cannot write without the key); "(not kept)" when the standard output kept (its last
    ``OUTPUT_CAP`` bytes) no longer holds them."""
    begin = f"\n{OUTCOMES_MARK}{key} call {index}\n".encode("ascii")
    at = stdout.rfind(begin)
    end = stdout.find(f"\n{OUTCOMES_MARK}{key} done {index}\n".encode("ascii"), at + len(begin))
    if at < 0 or end < 0:
        return "(not kept)"
    data = stdout[at + len(begin):end]
    if len(data) > _PRINTED:
        return _as_text(data[:_PRINTED]) + f"... (sha256 {hashlib.sha256(data).hexdigest()})"
    return _as_text(data)


def _as_text(data: bytes) -> str:
    """Printed bytes as text, one text for each (red-team round 58: with ``errors="replace"`` Mac Roman's "é" and
    Latin-1's were one U+FFFD): a byte that is not UTF-8 as its ``\\xNN`` escape, a backslash doubled first so no
    printed text reads as an escape; no lone surrogate (the evidence is written as UTF-8)."""
    return data.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def _shallow(value) -> bool:
    """Whether ``value`` nests at most ``_DEPTH`` deep (iteratively: the comparisons after it recurse)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > _DEPTH:
            return False
        if isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
    return True


def alike(one, other) -> bool:
    """Two encoded values are alike: equal, numbers within the tolerance (NaN alike NaN; ``True`` alike ``1``, as
    Python's ``==`` and the oracle of calls have it: red-team round 27's FP27-3), a dict's items in any order (as
    ``==`` has it: FP27-1), containers of one kind (:func:`_kind`) by what they hold."""
    if type(one) in (int, float, bool) and type(other) in (int, float, bool):
        if isinstance(one, float) and isinstance(other, float) and math.isnan(one) and math.isnan(other):
            return True
        if type(one) is not float and type(other) is not float:
            return one == other  # (integers exactly: red-team round 48 kept a stamp one millisecond off, 6e-13)
        try:
            return one == other or math.isclose(one, other, rel_tol=_REL, abs_tol=_ABS)
        except OverflowError:
            return False
    if isinstance(one, dict) and isinstance(other, dict) and "cause" in one and "cause" not in other \
            and isinstance(one.get("raise"), str) and isinstance(other.get("raise"), str):
        # (an exception's cause counts where the pristine one has one, red-team round 53's ``from None`` for ``from
        # exc``; an edit may add ``from exc`` where the pristine code had none, as linters ask: ruff's B904)
        return alike({k: v for k, v in one.items() if k != "cause"}, other)
    # (the edited side's IntEnum member for the pristine side's int: its value, helper 137; not the other way round:
    # a pristine subclass carries what its class means, red-team round 50's ``Cents`` and str Enum member)
    if isinstance(one, dict) and one.keys() == {"$sub", "value", "state"} and not isinstance(other, dict):
        return alike(one["value"], other)
    if isinstance(one, dict) and isinstance(other, dict) and "$sub" in one and one.keys() == other.keys() \
            and one["$sub"] == other["$sub"]:  # (one class: all it holds, in order for an OrderedDict; round 50)
        if one["$sub"] == "collections:OrderedDict" and isinstance(one.get("items"), dict) \
                and isinstance(other.get("items"), dict) and one["items"].keys() == other["items"].keys() == {"$d"}:
            first, second = one["items"]["$d"], other["items"]["$d"]
            return isinstance(first, list) and isinstance(second, list) and len(first) == len(second) and all(
                alike(a, b) for a, b in zip(first, second)) and alike(one["state"], other["state"])
        return all(alike(one[k], other[k]) for k in one)
    if _named_tuple(one) and _named_tuple(other) and one["$sub"] != other["$sub"]:
        return False  # (a NamedTuple of another class, whose fields say other things: round 58's ``Span`` for
        # ``Bounds``, the same items under swapped names)
    kind, inner = _kind(one)
    if kind == "sequence" and _named_tuple(other) and not _named_tuple(one):
        return False  # (a plain tuple for the pristine NamedTuple: its callers read fields by name; red-team round
        # 53. The other way round is alike: helper 137's honest NamedTuple for a tuple)
    if kind is not None and (inner is not one or _kind(other)[1] is not other) and kind == _kind(other)[0]:
        return alike(inner, _kind(other)[1])  # (a list for a tuple, a frozenset for a set, a Counter for a dict)
    ordered = _ordered(one, other)
    if ordered is not None:  # a dict for an OrderedDict: their items pair by place (round 44)
        return len(ordered[0]) == len(ordered[1]) and all(alike(a, b) for a, b in zip(*ordered))
    if type(one) is not type(other):
        return False
    if isinstance(one, list):
        return len(one) == len(other) and all(alike(a, b) for a, b in zip(one, other))
    if isinstance(one, dict):
        if one.keys() == other.keys() == {"$d"} and isinstance(one["$d"], list) and isinstance(other["$d"], list):
            return len(one["$d"]) == len(other["$d"]) and alike(_by_key(one["$d"]), _by_key(other["$d"]))
        return one.keys() == other.keys() and all(alike(one[k], other[k]) for k in one)
    return one == other


# The collections module's dicts, alike a dict holding the same items (as in the oracle of calls: session 38's FP42-F)
_MAPPINGS = frozenset({"collections:Counter", "collections:defaultdict"})  # (an OrderedDict's == weighs order)


def _named_tuple(value) -> bool:
    """Whether an encoded value is a tuple subclass's instance (a NamedTuple) with its items."""
    return isinstance(value, dict) and value.keys() == {"$sub", "items", "state"} and isinstance(
        value["items"], dict) and value["items"].keys() == {"$t"}


def _kind(value) -> tuple:
    """``(kind, what to compare)`` for an encoded container whose class another of its kind may stand for: a list
    and a tuple (``sequence``, their items), a set and a frozenset (``set``), a dict and a dict of the collections
    module (``mapping``); ``(None, None)`` for anything else. The test's own asserts decide whether the class
    matters; no project code runs in these classes."""
    if isinstance(value, list):
        return "sequence", value
    if isinstance(value, dict):
        keys = value.keys()
        if keys == {"$t"}:
            return "sequence", value["$t"]
        if keys == {"$s"} or keys == {"$fs"}:
            return "set", value.get("$s", value.get("$fs"))
        if keys == {"$d"}:
            return "mapping", value
        if keys == {"$sub", "items", "state"} and value["$sub"] in _MAPPINGS:
            return "mapping", value["items"]
        if keys == {"$sub", "items", "state"} and isinstance(value["items"], dict) and value["items"].keys() == {"$t"}:
            return "sequence", value["items"]["$t"]  # (a NamedTuple for a tuple: their items, helper 137)
    return None, None


def _ordered(one, other):
    """The items lists of an encoded OrderedDict and an encoded dict (either way round), or None."""
    def items(value, sub: bool):
        if not isinstance(value, dict):
            return None
        if sub and value.keys() == {"$sub", "items", "state"} and value["$sub"] == "collections:OrderedDict" \
                and isinstance(value["items"], dict) and value["items"].keys() == {"$d"}:
            return value["items"]["$d"]
        return value["$d"] if not sub and value.keys() == {"$d"} else None

    for a, b in ((one, other), (other, one)):
        mine, theirs = items(a, True), items(b, False)
        if isinstance(mine, list) and isinstance(theirs, list):
            return mine, theirs
    return None


def _by_key(items: list) -> list:
    """A dict's encoded items in the order of their keys' JSON."""
    return sorted(items, key=lambda item: json.dumps(item[0], sort_keys=True) if isinstance(item, list) and item
                  else "")


def _said(outcome: dict, arguments: bool = False, printed: bool = False, data: bool = False) -> str:
    """What a replay process said about one call, in words (``arguments``: what the call left in its arguments;
    ``printed``: what it printed; ``data``: what it changed in the declared modules' data)."""
    if data:
        return f"changed the module data {json.dumps(outcome.get('data', {}), sort_keys=True)[:160]}"
    if printed:
        return f"printed {json.dumps(outcome.get('printed', ''))[:120]}"
    if "skip" in outcome:
        return f"could not make it ({outcome['skip']})"
    if arguments and "raise" in outcome:
        return f"raised {outcome['raise']} and left the arguments {json.dumps(outcome.get('args'), sort_keys=True)[:120]}"
    if "raise" in outcome:
        return f"raised {outcome['raise']}" + (f" ({json.dumps(outcome['message'])[:120]})" if outcome.get("message")
                                                else "") + (f" from {outcome['cause']}" if outcome.get("cause")
                                                            not in (None, "None") else "")
    if arguments or "return" not in outcome:  # (a setter's outcome has no return: _as_used)
        return f"left the arguments {json.dumps(outcome.get('args'), sort_keys=True)[:120]}"
    return f"returned {json.dumps(outcome['return'], sort_keys=True)[:120]}"


def _finding(call: dict, mine: dict, right: dict) -> str:
    args = json.dumps(call["args"])[1:-1] + ("" if not call["kwargs"].get("$d") else
                                             ", **" + json.dumps(call["kwargs"]))
    data = alike({k: v for k, v in mine.items() if k != "data"}, {k: v for k, v in right.items() if k != "data"})
    if data:
        return (f"replay: outside the test run, {call['name']}({args[:120]}) {_said(mine, data=True)}; the pristine "
                f"code {_said(right, data=True)}")
    printed = alike({k: v for k, v in mine.items() if k != "printed"}, {k: v for k, v in right.items()
                                                                          if k != "printed"})
    arguments = "return" in mine and "return" in right and alike(mine["return"], right["return"]) or (
        "raise" in mine and "raise" in right and "args" in mine and alike(
            {k: v for k, v in mine.items() if k != "args"}, {k: v for k, v in right.items() if k != "args"}))
    return (f"replay: outside the test run, {call['name']}({args[:120]}) {_said(mine, arguments, printed)}; the "
            f"pristine code {_said(right, arguments, printed)}")


def replay(checkout: Path, found: tuple[list[dict], dict] | None, *, sources: list[str], pristine: dict[str, str],
           tests: list[str], bwrap: str | None, limits: Limits, timeout: float, expected: bool = False) -> Replay:
    """Replay the recorded calls (:func:`_replay_once`); when a pristine process failed while it made a call that
    was made through library code (``"via": "library"``: one the edit could have planted through a library hook or
    the event loop, red-team round 51), once more without that call (three times at most: red-team round 52's
    planted coroutine that sleeps an hour had dropped every call through library code, the test's own too)."""
    if found is None or not isinstance(found[0], list):
        return _replay_once(checkout, found, sources=sources, pristine=pristine, tests=tests, bwrap=bwrap,
                            limits=limits, timeout=timeout, expected=expected)
    calls, dropped, whys = [{**c, "_at": i} if isinstance(c, dict) else c for i, c in enumerate(found[0])], [], []
    while True:
        done = _replay_once(checkout, (calls, found[1]), sources=sources, pristine=pristine, tests=tests,
                            bwrap=bwrap, limits=limits, timeout=timeout, expected=expected)
        stuck = next((c for c in calls if isinstance(c, dict) and c.get("_at") == done.stuck), None)
        if stuck is None or not stuck.get("via") or len(dropped) >= 3 \
                or not done.why.startswith("the pristine replay process"):
            break
        dropped.append(stuck["_at"])
        whys.append(done.why)
        calls = [c for c in calls if c is not stuck]
    if dropped:
        done.why = (done.why + "; " if done.why else "") + (
            f"made again without {len(dropped)} call(s) through library code the pristine process could not make "
            f"({'; '.join(whys)})")
    return done


def _replay_once(checkout: Path, found: tuple[list[dict], dict] | None, *, sources: list[str],
                 pristine: dict[str, str], tests: list[str], bwrap: str | None, limits: Limits, timeout: float,
                 expected: bool = False) -> Replay:
    """Replay the recorded calls (``found``: :func:`recorded_calls`' answer; see the module docstring).
    ``pristine``: checkout-relative path -> the declared file's pristine text; ``tests``: the run's selection (their
    files are hidden); ``bwrap``: the sandbox's binary, or None to run unsandboxed at the checkout's own path;
    ``expected``: the plugin was sent the oracle's data for a declared file, so it always records (a report without
    the recording fails closed)."""
    start = time.monotonic()
    result = Replay()
    if found is None:
        result.why = "no recorded calls in the report"
        if expected:  # (the plugin records whenever it has the oracle's data: red-team round 37)
            result.ran = True
            result.findings.append("replay: the report holds no recording of the tests' calls, which the plugin "
                                   "makes whenever it has the oracle's data")
        return result
    calls, result.recorded = found
    if result.recorded.get("failed"):
        # The recording runs in the tests' process: an exception inside it (red-team round 37 raised one from an
        # audit hook in every call) would leave nothing to replay, so it fails closed
        result.ran = True
        result.findings.append(f"replay: the plugin's recording of the tests' calls failed "
                               f"{result.recorded['failed']} time(s) inside the run, so what the tests called "
                               "cannot be replayed")
        result.seconds = round(time.monotonic() - start, 3)
        return result
    declared = {os.path.realpath(checkout / rel): rel for rel in sources}
    known = {real for real, rel in declared.items() if rel in pristine}
    calls = [c for c in calls if c["file"] in known and _files_in(c) <= known]
    # Each call by a name the pristine module binds too (the plugin sends every name that holds the called
    # function: red-team round 27's R27-1 put an alias first); a call with none is not replayed (counted)
    bound = {real: bound_names(pristine[declared[real]]) for real in known}
    named = []
    for call in calls:
        # (a property's setter is recorded as ``Class.name.fset``, its deleter as ``Class.name.fdel``, a
        # ``cached_property``'s getter as
        # ``Class.name.func``: bound where ``Class.name`` is; a class method's
        # call as ``Class.name`` through the class it was called on, which may inherit it; ``__new__`` as ``Class``;
        # a generated ``__init__``, a dataclass's, as ``Class.__init__``: the class must be bound)
        chosen = next((n for n in call.get("names") or [call["name"]] if isinstance(n, str) and (
            n in bound[call["file"]] or n.endswith((".fset", ".fdel", ".func")) and n[:-5] in bound[call["file"]]
            or call.get("through") in ("class", "new") and n.rpartition(".")[0] in bound[call["file"]])), None)
        if chosen is None:
            result.unbound += 1
        else:
            named.append({**call, "name": chosen})
    # A class made by a ``__new__`` of the edit's or the pristine file's is made again whole, ``Class(...)``, which
    # runs its ``__init__`` too: that ``__init__``'s own call is not made again alone (honest hunt 9 moved a print
    # from ``__init__`` into ``__new__``; no caller makes the instance in two steps)
    made = {(c["file"], c["name"]) for c in named if c.get("through") == "new"}
    calls = [c for c in named if (c["file"], c["name"][:-len(".__init__")]) not in made
             or not c["name"].endswith(".__init__")]
    result.calls = len(calls)
    if not calls:
        result.why = "no call with plain-data arguments into a declared file was recorded"
        return result
    real_checkout = Path(os.path.realpath(checkout))
    modules = {real: module_of(Path(real), real_checkout)
               for real in sorted({c["file"] for c in calls}.union(*(_files_in(c) for c in calls)))}
    roots = {real: root for real, (_, root) in modules.items()}
    first = modules[calls[0]["file"]][0].split(".")[0] or "project"
    machine = Machine.draw(first) if bwrap is not None else None
    mounted = machine.folder if machine is not None else str(checkout)
    inside_path = (lambda real: mounted + "/" + str(Path(real).relative_to(checkout))) if bwrap is not None \
        else (lambda real: real)
    hide = _hidden(real_checkout, tests, [Path(p) for p in declared]) if bwrap is not None else []
    files_in = [{"path": inside_path(real), "module": name} for real, (name, _) in modules.items()]
    root_list = list(dict.fromkeys(inside_path(str(root)) if Path(root) != real_checkout else mounted
                                   for root in roots.values()))
    plan_calls = [{**c, "file": inside_path(c["file"]), "args": _moved(c["args"], inside_path),
                   "kwargs": _moved(c["kwargs"], inside_path),
                   **({"steps": _moved(c["steps"], inside_path)} if "steps" in c else {})} for c in calls]
    scratch = Path(tempfile.mkdtemp(prefix="beacon-replay-"))
    try:
        # the names each declared module binds only by an import statement its pristine and edited texts share
        texts = {real: (pristine[declared[real]], _text_of(Path(real))) for real in modules}
        imports = {name: kept_imports(*texts[real]) for real, (name, _) in modules.items()}
        values = {name: kept_values(*texts[real]) for real, (name, _) in modules.items()}  # (and assignments)
        # (the data whose changes each call's outcome carries: the pristine text's names, beacon.repair.replay_data)
        data = {name: data_names(texts[real][0]) for real, (name, _) in modules.items()}
        # An attribute no pristine file names is the edit's own (a cache it added): no evidence, as in the oracle
        # of calls ("data only the edit added")
        names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "\n".join(pristine[declared[real]] for real in modules)))
        # (the attributes only the edited texts set: the edit's own, which the edited process's data views leave
        # out; they read every other, one made from the data too: red-team round 73's a17. The pristine process reads
        # every name: round 74's n01 named the data's attributes in a comment of the edit, which, as names the edit
        # merely has, left them out on both sides; an edit that reads a library's attribute, ``_TAGS.data``, makes
        # it no name of its own: honest hunt 18's i08)
        own = sorted(set().union(*(assigned_attributes(texts[real][1]) for real in modules)) - names)
        # (the seed the random module's generators get before each call, the same in every process of this replay)
        seed = secrets.randbits(64)
        plans = {"edited": {"roots": root_list, "files": files_in, "calls": plan_calls, "imports": imports,
                            "values": values, "data": data, "known": sorted(names), "own": own, "seed": seed}}
        plans["pristine"] = {"roots": root_list, "calls": plan_calls, "imports": imports, "values": values,
                             "data": data, "known": sorted(names), "seed": seed, "files": [
            {**f, "text": pristine[declared[real]]} for f, real in zip(files_in, modules)]}
        env = {"PATH": os.path.dirname(sys.executable) + os.pathsep + os.defpath, "LANG": "C.UTF-8",
               "HOME": machine.home if machine is not None else str(scratch),
               "USER": machine.user if machine is not None else "user",
               # what a login shell sets (red-team round 28: an environment without SHELL told the run and the
               # replay alike from a terminal)
               "LOGNAME": machine.user if machine is not None else "user", "SHELL": "/bin/bash",
               "TERM": "xterm-256color", "SHLVL": "1",
               # one random seed for the replay's processes (not 0: that turns hash randomization off, which
               # ``sys.flags`` shows); the driver removes the variable before the project's code runs
               "PYTHONHASHSEED": str(secrets.randbelow(2**32 - 2) + 1)}
        result.sandboxed, result.mounted_at, result.hidden = bwrap is not None, mounted if bwrap else "", len(hide)
        # (a library object's attributes are the library's, all compared: red-team round 48's Fraction lost its
        # ``_numerator``, a name no pristine file has, and every Fraction was alike)
        project = _project_names(roots.values())
        outcomes, library, emptied, starts = {}, {}, {}, {}
        classes = _class_names(pristine[declared[real]] for real in modules)
        # The edited process runs between the two pristine ones: a value that moves with the clock (gzip's
        # header stamps the second) then differs between the pristine runs whenever it differs in the edited one.
        # A fourth process, only when the library states differ and the edited process had loaded library modules
        # the pristine one had not: the pristine code with those imported too (beacon.repair.replay_library).
        # A third, when the edited process loaded installed library modules the pristine one had not: the pristine
        # code with those imported too, whose state is what those modules hold unless the edit's code changed them
        # (red-team rounds 48 and 49 rebound ``xml.sax.saxutils.escape``, a module only the buggy def loads), and
        # which explains what one library's import rebinds in another; a second of it confirms a difference there.
        for name in ("pristine", "edited", "pristine_library", "pristine_again", "pristine_library_again"):
            if name == "pristine_library":
                extra = extra_modules(library) if "edited" in library else {}
                if not any(extra.values()):
                    continue
                plans[name] = {**plans["pristine"], "also": extra}
            if name == "pristine_again" and not _differs(calls, outcomes, classes, starts) \
                    and not needs_again(library):
                continue  # (a second pristine process only excuses differences: none, none needed)
            if name == "pristine_library_again" and not needs_library_again(library):
                continue
            plan = plans[{"pristine_again": "pristine", "pristine_library_again": "pristine_library"}.get(name, name)]
            if name == "pristine_again":  # (asked what it holds where the edited calls changed the data)
                plan = {**plan, "expect": data_expected(outcomes["edited"])}
            # each process sees only its own plan: the edited one never reads the pristine text
            box = scratch / name
            box.mkdir()
            prefix = _sandbox_argv(bwrap, real_checkout, machine, box, hide, limits) if bwrap is not None else []
            got, why, making = _drive(prefix, plan, min(timeout, REPLAY_TIMEOUT), limits, env, str(real_checkout))
            if got is None:
                if name == "edited":
                    outcomes[name] = [{"skip": f"the replay process {why}"}] * len(calls)
                    continue
                if name.startswith("pristine_library"):  # (no explanation: every confirmed difference stays one,
                    continue  # and no comparison of the modules only the edited process loaded)
                result.why = f"the pristine replay process {why}: no evidence"
                if making is not None and making < len(calls):
                    result.stuck = calls[making].get("_at")
                result.ran = True
                return result
            library[name] = got[1]
            emptied[name] = got[2]
            starts[name] = got[3]
            if name == "pristine":  # (the objects its calls set up lazily: the edited process describes them too)
                plans["edited"]["lazy"] = lazy_names(got[1])
                # (and the edited process is asked what it holds where the pristine calls changed the data)
                plans["edited"]["expect"] = data_expected(got[0])
            if name.startswith("pristine_library"):
                continue  # (its calls ran beside other modules: only its library state is read)
            if name == "pristine":  # (an attribute a pristine object holds is known, whatever made its name:
                # red-team round 49 set one per CSV column; not one the recorded arguments brought in, which the
                # edited code in the run may have set: session 38's honest ``self._missing = 0`` in ``__init__``)
                names |= _attribute_names(got[0]) - _attribute_names([[c["args"], c["kwargs"]] for c in calls])
            outcomes[name] = [_known_only(outcome, names, project) for outcome in got[0]]
        result.ran = True
        result.outcomes = outcomes
        _judge(result, calls, outcomes, classes, starts)
        judge_library(library, result)
        if result.library.get("compared") is not None:
            result.library["caches_emptied"] = emptied  # (-1: emptying them raised)
            if emptied.get("edited") == -1 and emptied.get("pristine", -1) >= 0:
                result.findings.append("replay: the library's caches could not be emptied in the edited process "
                                       "(they can in the pristine one), so what its calls read may be the edit's")
        return result
    finally:
        remove_tree(scratch)
        result.seconds = round(time.monotonic() - start, 3)


def _text_of(path: Path) -> str:
    """A declared file's edited text ("" when it cannot be read as UTF-8)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _known_only(value, names: set, project: frozenset = frozenset()):
    """An encoded outcome without the instance attributes and slots whose names ``names`` lacks, in objects of the
    project's classes (a class whose module is under a name ``project`` holds, or no installed library's)."""
    if isinstance(value, list):
        return [_known_only(v, names, project) for v in value]
    if not isinstance(value, dict):
        return value
    if "$o" in value:
        mine = not isinstance(value["$o"], str) or not _library(value["$o"].partition(":")[0], project)
        return {**value, **{part: {"$d": [[k, _known_only(v, names, project)] for k, v in value[part]["$d"]
                                          if k in names or not mine or _mangled_known(k, names)]}
                            for part in ("$v", "$sl") if isinstance(value.get(part), dict)}}
    return {tag: _known_only(inner, names, project) for tag, inner in value.items()}


def _mangled_known(name, names: set) -> bool:
    """Whether ``name`` is a private name as Python stores it (``_Line__qty`` for ``__qty`` written in class
    ``Line``) whose spelled part ``names`` holds (red-team round 56: the stored name is never written)."""
    if not isinstance(name, str) or not name.startswith("_") or name.endswith("__"):
        return False
    at = name.find("__", 2)
    while at != -1:
        if name[at:] in names and name[at + 2:at + 3] not in ("", "_"):
            return True
        at = name.find("__", at + 1)
    return False


def _attribute_names(value) -> set:
    """The attribute and slot names of every object an encoded outcome holds."""
    found, stack = set(), [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if "$o" in item:
                found.update(k for part in ("$v", "$sl") if isinstance(item.get(part), dict)
                             for k, _ in (item[part].get("$d") or []) if isinstance(k, str))
            stack.extend(item.values())
    return found


def _project_names(roots) -> frozenset:
    """The top-level module names the project's import roots hold (its packages, modules and namespace folders)."""
    found = set()
    for root in roots:
        try:
            found.update(p.name.removesuffix(".py") for p in Path(root).iterdir()
                         if p.is_dir() or p.suffix == ".py")
        except OSError:
            continue
    return frozenset(found)


@functools.lru_cache(maxsize=512)
def _installed(top: str) -> bool:
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _library(module: str, project: frozenset) -> bool:
    """Whether ``module`` is a library's (the standard library's, or one installed beside the harness) and not the
    project's."""
    top = module.split(".")[0]
    return bool(top) and top not in project and (top in sys.stdlib_module_names or _installed(top))


def _compared(outcome: dict) -> dict:
    """An outcome as it is compared: a raised exception without its base classes and its classes' methods (which the
    subclass rule reads; an honest edit may put a new base under the pristine class: helper 139's
    ``InventoryError``)."""
    return {k: v for k, v in outcome.items() if k not in ("bases", "methods")} if "raise" in outcome else outcome


def _bases_kept(mine, right) -> bool:
    """Whether an edited exception keeps every base class the pristine one has (an edit may add a base, not drop
    one: red-team round 58's ``OutOfStock(ValueError)`` for the pristine ``OutOfStock(LookupError)``, which an
    ``except LookupError`` no longer catches)."""
    if not (isinstance(mine, dict) and isinstance(right, dict) and "raise" in mine and "raise" in right):
        return True
    theirs, ours = right.get("bases"), mine.get("bases")
    if not isinstance(theirs, list) or not isinstance(ours, list):
        return theirs == ours
    pristine = set(map(str, theirs)) | {str(right["raise"])}
    # (and the library exception classes it adds are none: round 59's added ``_Backorder(OutOfStock, ValueError)``
    # was caught by a caller's ``except ValueError``; a project class added under it is no library's)
    added = {b for b in map(str, ours) if b not in pristine and _library(b.partition(":")[0], frozenset())}
    return set(map(str, theirs)) <= set(map(str, ours)) | {str(mine["raise"])} and not added


def _stable_difference(mine, right, again) -> bool:
    """Whether the edited outcome ``mine`` differs from the pristine ``right`` somewhere a second pristine process's
    ``again`` agrees with ``right``: the outcomes are walked where ``right`` and ``again`` have one shape (a list's
    items by place, a dict's by key when both pristine processes hold the same keys, an object's attributes); a set,
    and a part the pristine processes disagree on, are no evidence."""
    if alike(right, again):
        return not alike(mine, right)
    if isinstance(right, list) and isinstance(again, list) and len(right) == len(again):
        if not isinstance(mine, list) or len(mine) != len(right):
            return True
        return any(_stable_difference(m, r, a) for m, r, a in zip(mine, right, again))
    if isinstance(right, dict) and isinstance(again, dict) and right.keys() == again.keys():
        if not isinstance(mine, dict) or mine.keys() != right.keys():
            return True
        if right.keys() == {"$d"}:  # (a dict's items: paired by key only where both pristine processes agree on them)
            if not all(isinstance(x["$d"], list) for x in (mine, right, again)):
                return False
            keys = [[json.dumps(item[0], sort_keys=True) for item in _by_key(x["$d"])] for x in (mine, right, again)]
            if keys[1] != keys[2]:
                return False
            if keys[0] != keys[1]:
                return True
            return any(_stable_difference(m[1], r[1], a[1]) for m, r, a in zip(
                _by_key(mine["$d"]), _by_key(right["$d"]), _by_key(again["$d"])))
        if right.keys() & {"$s", "$fs"}:
            return False
        return any(_stable_difference(mine[k], right[k], again[k]) for k in right)
    return False


def _class_names(texts) -> set:
    """The names of the classes the pristine texts define (a docstring's words are none: helper 140's honest ``Error``
    class beside a docstring saying "Error")."""
    found = set()
    for text in texts:
        try:
            found |= {node.name for node in ast.walk(ast.parse(text)) if isinstance(node, ast.ClassDef)}
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return found


def _a_subclass_raised(mine: dict, right: dict, names: set) -> bool:
    """Whether the edited code raised a subclass of the exception the pristine code raised, with its message, and of a
    class the edit added (``names``: the classes the pristine files define): helper 137's honest ``class
    StockError(ValueError)`` for a ``ValueError`` (whoever catches the pristine one catches it), not red-team round
    49's kept buggy def that raised the pristine ``OutOfStock`` (a subclass the caller tells apart) for its base."""
    if not ("raise" in mine and "raise" in right and mine.get("message") == right.get("message")
            and mine.get("given") == right.get("given") and mine.get("cause") == right.get("cause")
            and alike(mine.get("args"), right.get("args"))
            and right["raise"] in (mine.get("bases") or [])
            and mine["raise"].rpartition(":")[2].rpartition(".")[2] not in names):
        return False
    # (and the attributes both hold alike: red-team round 50's added ``_Miss(Shortage)`` had a wrong ``short``)
    attrs = [x.get("attrs") for x in (mine, right)]
    if not all(isinstance(a, dict) and isinstance(a.get("$d"), list) for a in attrs):
        return attrs[0] == attrs[1]
    # (each as read: its own attributes over its classes' data; round 53's added subclass held ``retryable`` on
    # the class only)
    mine_read, theirs = ({**_held_names(x.get("cattrs")), **_held_names(a)} for x, a in zip((mine, right), attrs))
    return all(alike(v, theirs[k]) for k, v in mine_read.items() if k in theirs) and not _shadowed_methods(mine, right)


def _shadowed_methods(mine: dict, right: dict) -> set:
    """The methods of the pristine exception's project classes that a class the edit added above them defines again
    (red-team round 58's added ``_Backorder`` with its own ``retry_in()``, which the test's later call reached),
    apart from what making and showing it are (compared as its attributes and message)."""
    ours, theirs = mine.get("methods"), right.get("methods")
    if not isinstance(ours, list) or not isinstance(theirs, list):
        return {"unreadable"} if ours != theirs else set()
    known = {entry[0] for entry in theirs if isinstance(entry, list) and entry}
    pristine = {name for entry in theirs if isinstance(entry, list) and len(entry) == 2 for name in entry[1]}
    added = {name for entry in ours if isinstance(entry, list) and len(entry) == 2 and entry[0] not in known
             for name in entry[1]}
    # (an added ``__getattr__``/``__getattribute__`` answers for every name: round 59's, screened, still refused)
    return ((added & pristine) - {"__init__", "__new__", "__str__", "__repr__", "__init_subclass__"}) | (
        added & {"__getattr__", "__getattribute__"})


def _held_names(encoded) -> dict:
    """The string keys of an encoded dict (``{"$d": [[key, value], ...]}``) and their values; {} for anything else."""
    if not (isinstance(encoded, dict) and isinstance(encoded.get("$d"), list)):
        return {}
    return {k: v for k, v in (item for item in encoded["$d"] if isinstance(item, list) and len(item) == 2)
            if isinstance(k, str)}


def _as_used(call: dict, outcome: dict) -> dict:
    """An outcome as Python uses it: a setter's returned value is dropped by the assignment, and ``with`` reads an
    ``__exit__``'s (an ``__aexit__``'s) only as true or false, ``None`` as ``False`` (honest hunt 9); a call made
    through library code that raised, by the exception's class."""
    if call.get("via") and "raise" in outcome:
        # (an exception raised into library code, by its class: the library catches it or says its own words,
        # argparse's "invalid value", a Mapping's get; honest hunt 10)
        return {k: v for k, v in outcome.items() if k in ("raise", "bases")}
    if "raise" in outcome and call["name"].endswith(".__init__") and isinstance(outcome.get("args"), list) \
            and outcome["args"] and isinstance(outcome["args"][0], list):
        # (an ``__init__`` that raised: its half-made ``self`` is nobody's, honest hunt 16's checks moved first)
        return {**outcome, "args": [outcome["args"][0][1:], *outcome["args"][1:]]}
    if "return" not in outcome:
        return outcome
    if call["name"].endswith((".fset", ".fdel")):  # (``=`` and ``del`` drop what the accessor returns)
        return {k: v for k, v in outcome.items() if k != "return"}
    if call["name"].endswith(("__exit__", "__aexit__")) and outcome["return"] is None:
        return {**outcome, "return": False}
    return outcome


def _differs(calls: list[dict], outcomes: dict, classes: set, starts: dict) -> bool:
    """Whether the edited and pristine outcomes differ anywhere :func:`_judge` would weigh (before a second pristine
    process could excuse it): what decides whether that process is started."""
    probe = Replay()
    _judge(probe, calls, {"edited": outcomes["edited"], "pristine": outcomes["pristine"]}, classes, starts)
    return probe.differed > 0


def _judge(result: Replay, calls: list[dict], outcomes: dict, classes: set = frozenset(),
           starts: dict | None = None) -> None:
    edited, pristine, again = outcomes["edited"], outcomes["pristine"], outcomes.get("pristine_again")
    edited, pristine = [_as_used(c, o) for c, o in zip(calls, edited)], [_as_used(c, o) for c, o in zip(calls, pristine)]
    again = [_as_used(c, o) for c, o in zip(calls, again)] if again is not None else None
    # each process's data states (beacon.repair.replay_data), from the import on
    states = {side: dict((starts or {}).get(side) or {}) for side in ("edited", "pristine", "pristine_again")}
    for i, call in enumerate(calls):
        mine, right = edited[i], pristine[i]
        track(states["edited"], mine)
        track(states["pristine"], right)
        if again is not None:
            track(states["pristine_again"], again[i])
        if "skip" in right:
            result.skipped += 1
            continue  # the pristine code cannot make this call outside the run: no evidence
        if call.get("past") is True and "raise" in right and "raise" not in mine:
            # (a name's first call kept past the recording's budgets: the calls that set up what it reads may have
            # been left out, so the pristine code's raising is no evidence; red-team round 72's honest h02, whose
            # ``record`` calls were over, and a defensive ``.get`` answered 0 where the pristine raised KeyError.
            # Only the pristine side's: the edited side cannot raise its way out of the comparison)
            result.skipped += 1
            continue
        result.compared += 1
        mine, right = unread_removed(mine, right)
        other = unread_removed(again[i], right)[0] if again is not None else None
        mine, right, other = explained(mine, right, other)
        names = data_differences(mine, right, states["edited"], states["pristine"]) if "skip" not in mine else []
        mine_rest, right_rest = without_data(mine), without_data(right)
        if (alike(_compared(mine_rest), _compared(right_rest)) or _a_subclass_raised(mine_rest, right_rest, classes)) \
                and _bases_kept(mine_rest, right_rest):
            mine_rest = right_rest = None  # (alike but for the data)
            if not names:
                continue
        result.differed += 1
        rest = mine_rest is not None
        if again is not None:
            other_rest = without_data(other)
            rest = rest and (alike(_compared(right_rest), _compared(other_rest)) or _stable_difference(
                _compared(mine_rest), _compared(right_rest), _compared(other_rest)))
            # (a data difference where the two pristine processes changed that name alike, part by part)
            names = [name for name in names
                     if stable_change(change_of(mine, name), change_of(right, name), change_of(other, name))]
            if not rest and not names:
                result.self_disagreed += 1  # (only where the two pristine processes disagree: red-team round 49 put a
                continue  # fresh uuid4 beside the wrong count it returned, and the whole call was no evidence)
        if len(result.findings) < _SHOWN:  # (in words, what differs where the pristine processes agree)
            result.findings.append(_finding(call, mine, right) if rest else
                                   _finding(call, _data_only(mine, names), _data_only(right, names)))


def _data_only(outcome: dict, names: list) -> dict:
    """An outcome with only the named data changes, for a finding's words."""
    return {**without_data(outcome), "data": {name: change_of(outcome, name) for name in names}}

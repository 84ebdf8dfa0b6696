"""The replay's check of library state: what the edited code left rebound in the modules the pristine code reads.

Red-team rounds 42-44 forged passes in the product's configuration without touching a checked answer: a helper run at
import set ``math.isclose = operator.is_not`` (or ``math.tau = math.pi``, or ``Fraction.limit_denominator`` to a
function that says yes) beside a buggy ``__eq__`` the edit kept as given. The test passed; the oracle's pristine call
read the same rigged library and agreed; the replay's edited process rigged it again and agreed with the pristine
one. Putting library state back inside the run (6ddc068, reverted) read honest projects as tampered: a project may
set ``JSONEncoder.default`` at import, and its pristine code relies on it.

So the comparison is between processes. Each replay process (:mod:`beacon.repair.replay_driver`'s
``library_state``) describes, after the declared modules' import and again after the calls, every top-level name of
every module that is not a declared file (and the module's class), and every name in the ``__dict__`` of the mutable
classes such modules define; at import also the attributes of the instances those modules and classes hold (their
``__dict__``, slots and C members, two levels down; and of a bound method's receiver); plus, for each declared module, the names its pristine text binds by one import, or by one plain
assignment (by value, where the edit could rebind it), that the edited text still has (:func:`kept_imports`,
:func:`kept_values`). A module is described by its name and whether ``sys.modules`` holds it, a function by its
code's digest, a plain value or a container of them by value, an enum member by name and registration, any other
object by its class. Here the edited process's descriptions are compared with the pristine process's:

* a name both hold, described differently, is a difference (at import; after the calls, where the edited calls
  changed it, where the pristine calls added it, or anywhere in a module the pristine code loaded only during its
  calls); except a module's name that was ``None`` or ``False`` (a library's lazy setup: ``tempfile.tempdir`` set by
  ``gettempdir()``), judged again after the calls, where the pristine code's own setup shows; and except a kept
  assignment's value and an instance's attributes after the calls (a program changes its own tables and its
  loggers as it runs);
* a name only the edited process holds counts on a class (any name: round 49's ``argparse.Namespace.limit``, read
  by ``hasattr`` for an option's default; before session 40 only one that hid something, ``S|``: a base class's name
  or the instances' own, a data descriptor), and on a module when it hides something: a builtin other than itself
  (``fractions.isinstance``) or every missing name (a ``__getattr__``); a name only the pristine process holds counts
  on a class (a method deleted to expose a base's) and on a module when it hid something; other names a module gained
  or lost do not count (an added import binds a submodule on its package); copyreg's ``__slotnames__`` and a class's
  counter that grew (a name that says it counts) do not count;
* an instance a library module held at import that another object stands in for after the calls is marked
  ``(replaced)`` (round 49 replaced ``json._default_decoder`` in the first call);
* in the project's own other modules (``project <name>`` groups) only a function, class or module not of a declared
  file counts (a re-export of the declared module's objects, and data, change with honest repairs);
* the process's working folder (`` process`` group) is compared like a module's name (red-team round 49 entered
  ``contextlib.chdir`` at import so that a kept relative ``open`` found the package's file);
* a module or class only one process loaded is not compared; a key that is no exact ``str`` in ``sys.modules`` or a
  module's namespace is counted and compared (its ``__eq__`` would run when a lookup meets it, so keys are walked);
* what a library's lazy setup made (a module's name that was ``None`` or ``False`` at import in the pristine process
  and is an object after its calls: ``mimetypes._db``) is compared after the calls by the object's attributes with
  their containers' items (``<module> (lazy)`` groups: :func:`lazy_names` tells the edited process which), wherever
  either side set it up (red-team round 47 gave the database the tests' suffix at import through the public
  ``add_type``); not tempfile's name sequence, which holds the process's pid.

Before each call every process empties the library's memo caches (``replay_driver._caches``: each ``lru_cache`` a
library module or class holds, and ``re``'s cache of compiled patterns, found after the state at import was
described): an item the edit's code planted at import or in an earlier call (round 47's ``lru_poison``, a case-blind
matcher ``fnmatch`` keeps for ``*.csv``; round 45's ``re_cache``) is gone, and the kept buggy code computes its own
answer again. Each process says how many caches it empties (``caches_emptied`` in the evidence).

The installed library modules only the edited process loaded (and their classes) are compared with a pristine
process that imported them too (``pristine_library``, run whenever there are such modules; its description is what
those modules hold when no edit touched them), a difference confirmed by a second such process
(``pristine_library_again``): red-team rounds 48 and 49 rebound ``xml.sax.saxutils.escape``, a module only the buggy
def loads, so the comparison had nothing to hold it against.

A difference is a finding only when a second pristine process agrees with the first on that name (a value the
library computes at load, such as ``logging._startTime`` or an address, differs between any two processes, and is no
evidence), and, when the edited process had loaded library modules the pristine one had not, a pristine process that
imports those too (from the interpreter's own install only) does not hold the edited value: one library's import
rebinds names of another (``typing_extensions`` rebinds functions of ``typing``), which is no act of the edit's.

The same project state serves both sides, so an honest repair that sets library state the way the pristine code does
passes: the ``JSONEncoder.default`` recipe is described by the function's file in both. What this does not see:
library state that is not a binding and no memo cache (a library dict's or list's items, an object's attributes
after the import unless a lazy setup made it, C-level state such as the decimal context), a lazily set-up object
only the edited code set up, a cache item planted inside the call that reads it, a class swapped for a look-alike
copy, code that reaches the driver's own functions in the edited process, the project's other modules' data and
caches, and anything when no call was replayed. (A rig the edit's code installs and undoes inside one call changes
only what that call computes, which the oracle of calls and the replay compare with the pristine code's answer.)
"""
from __future__ import annotations

import ast
import builtins

_STAGES = ("import", "calls")
_UNSET = ("v:None", "v:False")  # a library's not-yet-set-up value: a lazy setup during the calls sets it
_SHOWN = 3  # library findings listed per replay
_BUILTIN_NAMES = frozenset(vars(builtins))
# Names the standard library sets at load from the clock or the process's addresses: they differ between any two
# processes, so comparing them would start a second pristine process whenever logging or ctypes is loaded (measured
# over the whole standard library and this machine's installed packages, session 39); nothing reads them after the
# load but logging's relativeCreated (and ctypes' functions were built from the addresses at load).
_LOAD_TIME = {("logging", "_startTime")} | {(module, f"_{name}_addr") for module in ("ctypes", "_ctypes")
                                             for name in ("memmove", "memset", "string_at", "cast", "wstring_at")}

# Lazily set-up objects whose state holds the process's own identity (tempfile's name sequence keeps the pid it was
# made in, to start a new random sequence after a fork): a second pristine process would disagree every time, at the
# cost of a process; what they hold makes temporary names only.
_PER_PROCESS = {("tempfile", "_name_sequence")}
# Class attributes a library flips the first time it is used (``weakref.finalize`` registers its atexit hook and marks
# its registry dirty when the first finalizer is made: ``tempfile.TemporaryDirectory``, helper 140's honest hunt)
_FLAGS = {("weakref:finalize", "_registered_with_atexit"), ("weakref:finalize", "_dirty")}


def kept_imports(pristine: str, edited: str) -> list[str]:
    """The names the pristine text binds at module level only by one import statement that the edited text still
    has at module level (sorted): the edited process's module must hold there what the pristine one does (red-team
    round 43: ``from math import isclose`` run while ``math.isclose`` was rebound; session 39: a helper's ``global
    math; math = SimpleNamespace(isclose=operator.is_not)`` beside a buggy def the edit kept). Not a name the edited
    text binds again by other import statements only (helper 134: ``from datetime import datetime`` below ``import
    datetime``, ``try: import regex as re``): imports rebind nothing in a library. [] when either text does not
    parse."""
    parsed = _parse(pristine, edited)
    if parsed is None:
        return []
    kept = _kept(parsed, lambda node: isinstance(node, (ast.Import, ast.ImportFrom)))
    others = _bindings(parsed[1])
    return sorted(name for name in kept
                  if not (len(others.get(name, ())) > 1 and all(how.startswith("Import") for how in others[name])))


def kept_values(pristine: str, edited: str) -> list[str]:
    """The names the pristine text binds at module level only by one plain assignment (the name its one target) that
    the edited text still has at module level, the same, and whose value the edit could not have changed honestly
    (sorted), compared by value after the import. Only where the edited text has a way to rebind the name (a
    ``global`` of it in a def, another binding, or ``globals``/``vars``/``setattr``/``__dict__`` anywhere: session
    39's rig was a helper's ``global _RATE``), or where the value reads a library module's attribute through names
    both texts bind alike (``_TAU = math.tau`` run while ``math.tau`` was rebound). Not a value built from a name the
    edit changed (``re.compile(_PATTERN)`` with ``_PATTERN`` fixed) nor a literal table the edit's import-time code
    fills (an ``@export`` decorator's ``__all__``): helper 134's honest cases. [] when either text does not parse."""
    parsed = _parse(pristine, edited)
    if parsed is None:
        return []
    kept = _kept(parsed, lambda node: _assigned(node) is not None)
    before, after = _bindings(parsed[0]), _bindings(parsed[1])
    stable = {name for name, how in before.items() if sorted(how) == sorted(after.get(name, ()))}
    dynamic = any(isinstance(node, ast.Name) and node.id in ("globals", "vars", "setattr")
                  or isinstance(node, ast.Attribute) and node.attr == "__dict__" for node in ast.walk(parsed[1]))
    named = {name for node in ast.walk(parsed[1]) if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
    values = {_assigned(node): node.value for node in parsed[0].body if _assigned(node) in kept}
    modules = {name for name, how in before.items() if how[0].startswith("Import") and name in stable}
    out = []
    for name in kept:
        route = dynamic or name in named or len(after.get(name, ())) > 1
        loads = {n.id for n in ast.walk(values[name]) if isinstance(n, ast.Name)}
        reads_library = any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in modules
                            for n in ast.walk(values[name]))
        if route or (reads_library and loads <= stable | _BUILTIN_NAMES):
            out.append(name)
    return sorted(out)


def _parse(pristine: str, edited: str):
    try:
        return [ast.parse(text) for text in (pristine, edited)]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _bindings(tree: ast.Module) -> dict[str, list[str]]:
    """Name -> one entry per module-level statement binding it: ``Import <dump>`` for an import, ``Other <dump>``
    for any other (a ``global`` in a def counts as its statement's)."""
    out: dict[str, list[str]] = {}
    for node in tree.body:
        for inner in ast.walk(node):
            for name in _bound_by(inner):
                kind = "Import" if isinstance(inner, (ast.Import, ast.ImportFrom)) else "Other"
                out.setdefault(name, []).append(f"{kind} {ast.dump(inner if kind == 'Import' else node)}")
    return out


def _kept(trees: list, kind) -> list[str]:
    """The names the pristine tree binds at module level only by one statement of ``kind`` (a predicate on a
    module-level statement) that the edited tree still has at module level, the same."""
    bindings: dict[str, list[str]] = {}
    for node in trees[0].body:
        mine = kind(node)
        for inner in ast.walk(node):
            for name in _bound_by(inner):
                # (an import binds its names itself; an assignment only its one target)
                ours = mine and (inner is node if isinstance(node, (ast.Import, ast.ImportFrom)) else
                                 name == _assigned(node))
                bindings.setdefault(name, []).append(ast.dump(node) if ours else "other")
    still = {ast.dump(node) for node in trees[1].body if kind(node)}
    return sorted(name for name, how in bindings.items()
                  if len(how) == 1 and how[0] != "other" and how[0] in still and name != "*")


def _assigned(node) -> str | None:
    """The name a module-level ``name = value`` (or ``name: T = value``) binds, or None for any other statement."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    if isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
        return node.target.id
    return None


def _bound_by(node) -> list[str]:
    """The names a statement or expression inside a module may bind (wherever it is: a ``global`` in a def counts)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.alias):
        return []
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    return []


def valid(library) -> bool:
    """Whether ``library`` is what the driver writes: {stage: {group: {name: description or None}} or {"over": n}}."""
    if not isinstance(library, dict) or set(library) != set(_STAGES):
        return False
    for state in library.values():
        if not isinstance(state, dict):
            return False
        if "over" in state:
            if set(state) != {"over"} or not isinstance(state["over"], int):
                return False
            continue
        for group, entries in state.items():
            if not isinstance(group, str) or not isinstance(entries, dict) or not all(
                    isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in entries.items()):
                return False
    return True


def _after(library: dict) -> dict:
    """The state after the calls: the import's with the calls' changes applied (None: a name gone)."""
    state = {group: dict(entries) for group, entries in library["import"].items()}
    for group, changes in library["calls"].items():
        entries = state.setdefault(group, {})
        for name, description in changes.items():
            if description is None:
                entries.pop(name, None)
            else:
                entries[name] = description
    return state


def _over(library: dict) -> bool:
    return any("over" in library[stage] for stage in _STAGES)


def differences(edited: dict, pristine: dict, gained: bool = True) -> list[tuple]:
    """``(stage, group, name, pristine's description, edited's)`` for each difference the module docstring counts
    (None for a side without the name); both sides must be within the size limit."""
    found, seen, deferred = [], set(), set()
    states = {"import": (edited["import"], pristine["import"]), "calls": (_after(edited), _after(pristine))}
    for stage in _STAGES:
        mine, right = states[stage]
        for group, entries in mine.items():
            theirs = right.get(group)
            if theirs is None:
                continue
            if stage == "calls" and group.endswith((" (values)", " (state)")):
                continue  # (a module's own table may change as its calls run: compared as the import left it)
            if group.endswith(" (lazy)"):  # (what a lazy setup made, as the calls left it: both sides set it up)
                found.extend((stage, group, name, theirs[name], entries[name]) for name in sorted(entries)
                             if name in theirs and theirs[name] != entries[name]
                             and (group[:-len(" (lazy)")], name) not in _PER_PROCESS)
                continue
            is_class = ":" in group and not group.endswith((" (imports)", " (values)", " (state)"))
            names = set(entries) | set(theirs)
            if stage == "calls" and group in pristine["import"]:  # only what the edited calls changed
                # (and what the pristine calls added: red-team round 46 planted a submodule on its package at
                # import, which the pristine code's calls loaded for real)
                names &= set(edited["calls"].get(group, ())) | {n for g, n in deferred if g == group} | {
                    n for n in pristine["calls"].get(group, ()) if n not in pristine["import"][group]}
            # (a module the pristine code loads only during its calls is compared whole: red-team round 45's
            # lazy_import_rig imported ``calendar`` at the top and rebound ``isleap``)
            project = group.startswith("project ")
            for name in sorted(names):
                one, other = theirs.get(name), entries.get(name)
                if one is not None and other is not None:  # (the mark matters for a name one side lacks only:
                    one, other = one.removeprefix("S|"), other.removeprefix("S|")  # builtins may gain a name, _)
                if one == other or (group, name) in seen or (group, name) in _LOAD_TIME:
                    continue
                if other is None and not is_class and not one.startswith("S|"):
                    continue  # (a name a module lost, which hid no builtin)
                if one is None and (not is_class or not gained) and not other.startswith("S|"):
                    continue  # (a name added to a module that hides nothing: an added import binds a submodule;
                    # in a module only the edited code loaded, a class's too, where its use sets its class caches:
                    # pygments' lexers, helper 140)
                # (a name a library class gained counts: red-team round 49 set ``argparse.Namespace.limit``, which
                # argparse's ``hasattr`` read as the option's value)
                if not is_class and not group.endswith((" (imports)", " (values)", " (state)")) and (
                        one in _UNSET or stage == "calls" and other in _UNSET):
                    # a library's lazy setup (tempfile.tempdir by gettempdir()), at import or later: judged again
                    # after the calls, where the pristine code's own setup shows (red-team round 46 set
                    # platform._uname_cache to a forged uname at import; the pristine calls set the true one; round
                    # 48 set it in the first call, and a setup the edited code made during its calls is judged too)
                    if stage == "import":
                        deferred.add((group, name))
                    continue
                if project and ("@declared" in (one or "") + (other or "")
                                or (one or "v:").startswith(("v:", "o:")) and not (one or "").startswith("o:lru_cache(")):
                    continue  # the project's own module: what it re-exports of the declared files, and its data
                if is_class and (name == "__slotnames__" or _counted(name, one, other) or (group, name) in _FLAGS):
                    continue  # copyreg's cache of a class's slots; a counter the library advances (attrs')
                seen.add((group, name))
                found.append((stage, group, name, one, other))
    return found


def _counted(name: str, one: str | None, other: str | None) -> bool:
    """Whether a class's counter went from one int to a larger one (attrs' ``_CountingAttr.cls_counter`` counts the
    fields a project defines: an edit that defines another advances it). Only a name that says it counts: red-team
    round 46 raised ``HTTPConnection.default_port`` from 80 to 443."""
    if "count" not in name.lower():
        return False
    try:
        return one is not None and other is not None and int(other[2:]) > int(one[2:]) \
            and one.startswith("v:") and other.startswith("v:")
    except ValueError:
        return False


def lazy_names(pristine: dict) -> list[list[str]]:
    """``[module, name]`` for each library module's name the pristine process held as ``None``/``False`` at import
    and as something else after its calls (a lazy setup its calls made: ``mimetypes._db``); the edited process
    describes what those names hold after its calls too (``replay_driver._lazy_states``), set up wherever it was."""
    if _over(pristine):
        return []
    return [[group, name] for group, changes in sorted(pristine["calls"].items())
            if ":" not in group and " " not in group
            for name, description in sorted(changes.items())
            if description is not None and description not in _UNSET
            and pristine["import"].get(group, {}).get(name) in _UNSET]


def extra_modules(library: dict) -> dict:
    """The modules the edited process had loaded, at each stage, that the pristine one had not (in load order): a
    pristine process imports those of them that are installed libraries (``replay_driver._also``) before it describes
    its state, so what one library's import rebinds in another is no difference of the edit's."""
    edited, pristine = library["edited"], library["pristine"]
    def modules(state: dict) -> list:
        return [g for g in state if ":" not in g and " " not in g]  # (not a class's group, nor a kept name's)

    first = [g for g in modules(edited["import"]) if g not in pristine["import"]]
    known = set(_after(pristine)) | set(first)
    return {"import": first, "calls": [g for g in modules(_after(edited)) if g not in known]}


def confirmed(found: list[tuple], again: dict | None, loaded: dict | None = None) -> tuple[list[tuple], int, int]:
    """The differences a second pristine process (``again``) agrees on with the first and that a pristine process
    with the edited process's extra library modules loaded (``loaded``, when one ran) does not explain; how many the
    second pristine process disagreed on; how many the extra modules explained."""
    if again is None or _over(again):
        return [], len(found), 0
    states = {"import": again["import"], "calls": _after(again)}
    kept = [d for d in found if _unmarked(states[d[0]].get(d[1], {}).get(d[2])) == _unmarked(d[3])]
    disagreed = len(found) - len(kept)
    if loaded is not None and not _over(loaded):
        explained = {"import": loaded["import"], "calls": _after(loaded)}
        kept = [d for d in kept if _unmarked(explained[d[0]].get(d[1], {}).get(d[2])) != _unmarked(d[4])]
    return kept, disagreed, len(found) - disagreed - len(kept)


def _unmarked(description: str | None) -> str | None:
    return description.removeprefix("S|") if description is not None else None


def _where(group: str, name: str) -> str:
    if group.endswith(" (imports)"):
        return f"{group[:-len(' (imports)')]}.{name} (bound by an import statement the edit kept)"
    if group.endswith(" (values)"):
        return f"{group[:-len(' (values)')]}.{name} (bound by an assignment the edit kept)"
    if group.endswith(" (state)"):
        return f"the attributes of {group[:-len(' (state)')]}.{name} (or of its receiver)"
    if group == " process":
        return f"the process's {'working folder' if name == 'cwd' else name}"
    if group == " process":
        return f"the process's {'working folder' if name == 'cwd' else name}"
    if group.endswith(" (lazy)"):
        return f"the attributes of {group[:-len(' (lazy)')]}.{name} (set up lazily: None or False at import)"
    return f"{group.replace(':', '.')}.{name}"


def finding(difference: tuple) -> str:
    stage, group, name, one, other = difference
    when = "after its import" if stage == "import" else "after the tests' calls"
    why = "the edit's code changed what the library set up" if group.endswith(" (lazy)") else \
        "the edit's code rebinds what the pristine code reads"
    return (f"replay: library state differs {when}: {_where(group, name)} is {other or 'missing'} with the edited code "
            f"and {one or 'missing'} with the pristine code ({why})")


_LAST: list = [None, None, None]  # the last (edited, pristine, differences): a replay asks up to three times


def _differences(edited: dict, pristine: dict) -> list[tuple]:
    if _LAST[0] is not edited or _LAST[1] is not pristine:
        _LAST[:] = [edited, pristine, differences(edited, pristine)]
    return _LAST[2]


def _comparable(library: dict) -> bool:
    return "edited" in library and not _over(library["pristine"]) and not _over(library["edited"])


def _extra_groups(library: dict) -> tuple[dict, dict] | None:
    """The edited process's and the pristine-with-its-modules process's states restricted to the installed modules
    only the edited process loaded (and their classes), or None when there is no such process or state."""
    edited, loaded = library.get("edited"), library.get("pristine_library")
    if edited is None or loaded is None or _over(edited) or _over(loaded):
        return None
    extra = extra_modules(library)
    wanted = set(extra["import"]) | set(extra["calls"])
    if not wanted:
        return None

    def keep(state: dict) -> dict:  # (the modules, their classes, and the instances they hold: ``calendar (state)``)
        return {"import": {g: e for g, e in state["import"].items()
                           if g.removesuffix(" (state)").split(":")[0] in wanted}, "calls": {}}
    return keep(edited), keep(loaded)


def _extra_differences(library: dict) -> list[tuple]:
    """The differences in the modules only the edited process loaded, against the pristine process that imported
    them too (red-team rounds 48 and 49: ``xml.sax.saxutils.escape`` rebound, a module the pristine code never
    loads)."""
    pair = _extra_groups(library)
    return differences(*pair, gained=False) if pair is not None else []


def needs_library_again(library: dict) -> bool:
    """Whether the modules only the edited process loaded differ from what the pristine process that imported them
    holds, so a second such process must say which differences are the library's own."""
    return bool(_extra_differences(library))


def needs_again(library: dict) -> bool:
    """Whether the pristine and edited processes' library states (``library``: process name -> state) differ, so a
    second pristine process must say which differences are the library's own."""
    return _comparable(library) and bool(_differences(library["edited"], library["pristine"]))


def judge(library: dict, result) -> None:
    """Sets ``result.library`` from the processes' library states and adds the findings to ``result.findings``."""
    edited, pristine, again = library.get("edited"), library["pristine"], library.get("pristine_again")
    if _over(pristine):
        result.library = {"compared": False, "why": "the pristine process's library state is past the limit"}
        return
    if edited is None:
        result.library = {"compared": False, "why": "the edited process wrote no library state"}
        return
    if _over(edited):
        result.library = {"compared": True, "over": True}
        result.findings.append("replay: the edited code's library state is past the limit the pristine code's is "
                               "within, so it cannot be compared")
        return
    found = _differences(edited, pristine)
    _LAST[:] = [None, None, None]  # (the states are let go with the replay)
    kept, disagreed, explained = confirmed(found, again, library.get("pristine_library")) if found else ([], 0, 0)
    pair = _extra_groups(library)
    extra = differences(*pair, gained=False) if pair is not None else []
    if extra:  # (confirmed by a second pristine process with those modules imported)
        more, more_disagreed, _ = confirmed(extra, library.get("pristine_library_again"))
        kept, disagreed = kept + more, disagreed + more_disagreed
    result.library = {"compared": True, "groups": len(pristine["import"]), "differed": len(found) + len(extra),
                      "self_disagreed": disagreed, "explained": explained,
                      "edited_only_groups": len(pair[0]["import"]) if pair is not None else 0}
    result.findings.extend(finding(d) for d in kept[:_SHOWN])
    if len(kept) > _SHOWN:
        result.findings.append(f"replay: {len(kept) - _SHOWN} more library difference(s)")

"""The replay's comparison of the declared modules' data: what each replayed call changed in it.

The replay (:mod:`beacon.repair.replay`) compared what each call returned or raised, left in its arguments and
printed, never the declared module's own data after it. Red-team round 71's ``a03`` (open since round 50's list) kept
the second half of a two-part bug in a module-level log, wrong only outside the test run (``sys.stdout.name``): the
return value was right everywhere, the log right inside the run, where the oracle of calls compares it, and wrong in
production.

Here the harness names the data from the **pristine** text (:func:`data_names`): each name its module level binds by
assignment (also inside a top-level ``if``/``try``/``with``/loop, and through ``global`` in a def), and each name a
top-level class body assigns (``Class.name``), and each attribute the module level sets on a name (``restock.moves =
[]``, read in a def's ``__dict__``, or an instance's where the class became one). Each replay process (``replay_driver._data_views``) reads those names
after the import and after every call, and a call's outcome carries what the call changed (``"data"``): the keys a
dict (or a declared class's instance, by its ``__dict__``) gained, changed or lost, the items a list or deque gained
at its end (else what it holds now), a set's added and removed items, a value's new text. The outcomes are then
compared as a whole, so a call that changed the data otherwise than the pristine code did is a difference, subject to
the second pristine process like any other (a clock in the log is no evidence).

What a call *changed* is compared, not the state after it: an honest repair that fixes a table or a default at
import has other data from the start and makes the same changes (and the oracle of calls, in the run, compares the
state after each checked call). A name the pristine process read past its budgets (``{"over": ...}``) is no
evidence on either side, nor one the edited module does not bind (``{"unbound": ...}``) where the pristine one does
(:func:`unread_removed`); one only the edited process read past its budgets stays a difference. A list past its
budgets is still read by its last items (``replay_driver._tail_view``), so what a call appends to a long log is
compared (session 54). What the views read (``replay_driver._data_view``, session 54's additions in brackets):
containers by their items' texts, eight levels down (four before); an instance of a project class by its attributes
and slots (every name; in the edited process, not those only the edited texts have: so counters named by the data
are read); the value of an ``int``/``str``/``float`` subclass; a closure by its cells, named by its free variables; a
bound method by what it is bound to; a ``UserList``'s, ``UserDict``'s or ``ChainMap``'s items; library values by
their value.
Not seen: data held only by an object no data name holds (another project module's), most library objects' state
(a logging handler's records), a dict's order, floats past 12 significant digits, a change undone within one call,
and what a class or function is (the library-state comparison and ``kept_values`` see rebinding).
"""
from __future__ import annotations

import ast
import re

_SCOPES = (ast.If, ast.Try, ast.With, ast.For, ast.While) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def data_names(text: str) -> list[str]:
    """The data names of a module's pristine ``text`` (see the module docstring), in order of first binding; [] when
    it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: dict[str, None] = {}

    def targets(node) -> list[str]:
        if isinstance(node, ast.Name):
            return [node.id]
        if isinstance(node, (ast.Tuple, ast.List)):
            return [name for item in node.elts for name in targets(item)]
        if isinstance(node, ast.Starred):
            return targets(node.value)
        return []

    def assigned(node) -> list[str]:
        if isinstance(node, ast.Assign):
            return [name for target in node.targets for name in targets(target)]
        if isinstance(node, ast.AnnAssign) and node.value is not None or isinstance(node, ast.AugAssign):
            return targets(node.target)
        return []

    def attributes(node) -> list[str]:  # (``restock.moves = []`` at module level: a def's or a class's attribute)
        every = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        return [f"{target.value.id}.{target.attr}" for target in every
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)]

    def walk(body, prefix: str) -> None:
        for node in body:
            for name in assigned(node) + (attributes(node) if not prefix else []):
                found.setdefault(prefix + name)
            if isinstance(node, ast.ClassDef) and not prefix:
                walk(node.body, node.name + ".")
            elif isinstance(node, _SCOPES):
                for part in ("body", "orelse", "finalbody"):
                    walk(getattr(node, part, []), prefix)
                for handler in getattr(node, "handlers", []):
                    walk(handler.body, prefix)

    walk(tree.body, "")
    # (an attribute set on a module-level def or class inside a def, ``restock.moves = []`` in ``restock``:
    # red-team round 74's d08)
    tops = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                for name in attributes(inner) if isinstance(inner, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else ():
                    if name.partition(".")[0] in tops:
                        found.setdefault(name)
    # (a name only a def binds, through ``global``: a counter or a log set up lazily)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            for name in node.names:
                found.setdefault(name)
    return list(found)


def assigned_attributes(text: str) -> set[str]:
    """The attribute names ``text`` sets or deletes (``x.name = …``, ``x.name += …``, ``del x.name``, ``setattr(x,
    "name", …)``, a class's ``__slots__``): what an edited file may add to its objects, its own where the pristine
    text lacks the name (``replay_driver.Names``); an empty set when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    found = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and isinstance(part.ctx, (ast.Store, ast.Del)):
                    found.add(part.attr)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            found.add(node.args[1].value)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__"
                                                for t in node.targets):
            found.update(c.value for c in ast.walk(node.value)
                         if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return found


def unread_removed(mine: dict, right: dict) -> tuple[dict, dict]:
    """The edited and pristine outcomes (``mine``, ``right``) without the data names that are no evidence: those the
    pristine process read past its budgets (``over``), and those the edited module does not bind where the pristine
    one does (``unbound``: a memo dict an honest repair dropped for ``lru_cache``, honest hunt 19's ``k03``; the oracle
    of calls compares only names the edited module holds too)."""
    theirs, ours = right.get("data"), mine.get("data")
    theirs, ours = theirs if isinstance(theirs, dict) else {}, ours if isinstance(ours, dict) else {}
    unread = {name for name, change in theirs.items() if isinstance(change, dict) and "over" in change}
    unread |= {name for name, change in ours.items() if isinstance(change, dict) and "unbound" in change
               and not (isinstance(theirs.get(name), dict) and "unbound" in theirs[name])}
    if not unread:
        return mine, right

    def cut(outcome: dict) -> dict:
        data = outcome.get("data")
        if not isinstance(data, dict):
            return outcome
        kept = {name: change for name, change in data.items() if name not in unread}
        return {**{k: v for k, v in outcome.items() if k != "data"}, **({"data": kept} if kept else {})}

    return cut(mine), cut(right)


def without_data(outcome: dict) -> dict:
    """An outcome without its data changes and what it held for the other side's (what the call returned, raised,
    left in its arguments and printed)."""
    return {k: v for k, v in outcome.items() if k not in ("data", "held")} if isinstance(outcome, dict) else outcome


def change_of(outcome: dict, name: str):
    """What a call changed under a data name, without the state it left (``{}``: nothing)."""
    data = outcome.get("data") if isinstance(outcome, dict) else None
    change = data.get(name) if isinstance(data, dict) else None
    return {k: v for k, v in change.items() if k != "at"} if isinstance(change, dict) else {}


def track(states: dict, outcome: dict) -> None:
    """Brings one process's ``states`` (data name -> the digest of what it holds, from the import on) past a call."""
    data = outcome.get("data") if isinstance(outcome, dict) else None
    for name, change in (data.items() if isinstance(data, dict) else ()):
        if isinstance(change, dict) and isinstance(change.get("at"), str):
            states[name] = change["at"]


def data_differences(mine: dict, right: dict, mine_states: dict, right_states: dict) -> list[str]:
    """The data names a call changed otherwise on the edited side than on the pristine one *and* left holding
    something else (a change that brings both sides to one state is none: a table built at import where the pristine
    code built it at its first call; one that keeps a difference from the import is none either: a table an honest
    repair fixed, changed alike)."""
    names = sorted(set((mine.get("data") or {}) if isinstance(mine.get("data"), dict) else {})
                   | set((right.get("data") or {}) if isinstance(right.get("data"), dict) else {}))
    return [name for name in names if change_of(mine, name) != change_of(right, name)
            and mine_states.get(name) != right_states.get(name)]


_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")


def stable_change(mine, right, again) -> bool:
    """Whether the edited side's change ``mine`` differs from the pristine ``right`` somewhere a second pristine
    process's ``again`` agrees with it: the changes are walked where the pristine ones have one shape (a dict's
    keys, a list's length) and each text by its words and signs, so a clock in a log entry excuses only its own
    digits (red-team round 73's ``a13``: ``(time.time(), sku, qty)`` had hidden the wrong quantity beside it)."""
    if right == again:
        return mine != right
    if isinstance(right, dict) and isinstance(again, dict):
        if right.keys() != again.keys():
            return False
        if not isinstance(mine, dict) or mine.keys() != right.keys():
            return True
        return any(stable_change(mine[k], right[k], again[k]) for k in right)
    if isinstance(right, list) and isinstance(again, list):
        if len(right) != len(again):
            return False
        if not isinstance(mine, list) or len(mine) != len(right):
            return True
        return any(stable_change(m, r, a) for m, r, a in zip(mine, right, again))
    if isinstance(right, str) and isinstance(again, str):
        theirs, other = _TOKENS.findall(right), _TOKENS.findall(again)
        if len(theirs) != len(other):
            return False
        ours = _TOKENS.findall(mine) if isinstance(mine, str) else None
        if ours is None or len(ours) != len(theirs):
            return True
        return any(m != r and r == a for m, r, a in zip(ours, theirs, other))
    return False


ABSENT = "(absent)"  # a key a process's dict does not hold, in ``held`` (no value's text reads so)


def expected(outcomes: list) -> dict:
    """What another process is asked to say after each call (``"expect"`` in its plan): for each call, each data
    name one process changed, the keys it set or deleted (a dict's, or an instance's attributes), or ``"value"``
    for a name it bound anew; the other process answers with what it holds there (``"held"``)."""
    out = {}
    for index, outcome in enumerate(outcomes):
        data = outcome.get("data") if isinstance(outcome, dict) else None
        wanted = {}
        for name, change in (data.items() if isinstance(data, dict) else ()):
            if not isinstance(change, dict):
                continue
            if "now" in change:
                wanted[name] = "value"
            keys = [pair[0] for pair in change.get("set", []) if isinstance(pair, list) and pair] \
                if isinstance(change.get("set", []), list) else []
            keys += change.get("del", []) if isinstance(change.get("del", []), list) else []
            if keys and "now" not in change:
                wanted[name] = keys
        if wanted:
            out[str(index)] = wanted
    return out


def _filtered(change, keys: set, value: bool):
    """A change without the keys another process already held alike (``value``: the whole name)."""
    if not isinstance(change, dict) or value:
        return {} if value else change
    out = dict(change)
    if isinstance(out.get("set"), list):
        out["set"] = [pair for pair in out["set"] if not (isinstance(pair, list) and pair and pair[0] in keys)]
    if isinstance(out.get("del"), list):
        out["del"] = [key for key in out["del"] if key not in keys]
    return {k: v for k, v in out.items() if v != [] or k not in ("set", "del")}


def explained(mine: dict, right: dict, other: dict | None) -> tuple:
    """The three outcomes (edited, pristine, second pristine) without the data changes the other side had no need to
    make: a key one process set (or deleted) where the other process, asked after the same call, held that value
    (or lacked the key) already, and a name one bound anew to what the other held: a memo or table an honest repair
    fills at import where the pristine code fills it at each call (honest hunt 28's ``h28_21``, ``h28_22``,
    ``h28_30``), or the other way round. ``mine["held"]`` answers for the pristine process's changes, and
    ``other["held"]`` (the second pristine process's) for the edited one's."""
    drop: dict = {}
    for changed, held in ((right, mine.get("held")), (mine, (other or {}).get("held"))):
        data = changed.get("data")
        if not isinstance(data, dict) or not isinstance(held, dict):
            continue
        for name, change in data.items():
            answer = held.get(name)
            if not isinstance(change, dict) or answer is None:
                continue
            keys, value = drop.setdefault(name, (set(), [False]))
            if "now" in change and answer == change["now"]:
                value[0] = True
            if isinstance(answer, dict):
                keys.update(pair[0] for pair in change.get("set", []) if isinstance(pair, list) and len(pair) == 2
                            and answer.get(pair[0]) == pair[1])
                keys.update(key for key in change.get("del", []) if answer.get(key) == ABSENT)
    if not drop:
        return mine, right, other

    def cut(outcome):
        data = outcome.get("data") if isinstance(outcome, dict) else None
        if not isinstance(data, dict):
            return outcome
        kept = {}
        for name, change in data.items():
            keys, value = drop.get(name, (set(), [False]))
            change = _filtered(change, keys, value[0])
            if isinstance(change, dict) and set(change) - {"at"}:
                kept[name] = change
            elif name in drop and isinstance(data[name], dict) and "at" in data[name]:
                kept[name] = {"at": data[name]["at"]}  # (the state it left is still tracked)
        return {**{k: v for k, v in outcome.items() if k != "data"}, **({"data": kept} if kept else {})}

    return cut(mine), cut(right), cut(other) if other is not None else None

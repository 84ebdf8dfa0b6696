"""The pasted-code signal: the snippet reader (``snippets``) and its resolution through the graph (``receivers``).

On the real ``shop`` package (``conftest``: ``src/`` layout, ``DateTime(Field)``, re-exports in ``__init__``):
variables bound to classes, snippet classes through their bases, ``super()`` and overrides resolve to the graph's
definitions; hypothesis checks that the reader never raises and tracks ``x = Cls()`` / ``x.m()`` like a model.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.receivers import Resolver, explain, receiver_scores
from beacon.retrieval.signals_real.snippets import Use, code_blocks, modules, uses

from .conftest import node

ISSUE = """Deserializing through my own field breaks

```python
from shop import DateTime
import shop.fields as f

class Mine(f.Field):
    def _deserialize(self, value):
        return super().deserialize(value)

d = DateTime()
d.deserialize(3)
m = Mine()
Traceback (most recent call last):
```
"""


def test_the_reader_binds_variables_as_a_reader_does():
    u = uses("""```
a = Cls(1)
b = mod.Other()
c: Annotated
with Ctx(x) as d:
    pass
e = Cls.from_config({})
f = make()
a.run(); b.attr; c.go(); d.enter; e.load(); f.lost()
def handler(g: mod.Event, h):
    g.fire()
for a in range(3):
    a.real
b, z = pair()
```""")
    # whether make() builds a class is the graph's to say (resolution keeps only classes)
    assert u.bindings == {"c": "Annotated", "d": "Ctx", "e": "Cls", "f": "make", "g": "mod.Event"}
    got = {(x.receiver, x.attr) for x in u.uses}
    assert {("Cls", "run"), ("mod.Other", "attr"), ("Annotated", "go"), ("Ctx", "enter"), ("Cls", "load"),
            ("make", "lost"), ("make", ""), ("mod.Event", "fire"), ("a", "real")} <= got
    assert not {("a", "run"), ("e", "load"), ("f", "lost"), ("Cls", "real")} & got


def test_snippet_classes_overrides_and_super():
    u = uses(ISSUE)
    assert {k: v.bases for k, v in u.classes.items()} == {"Mine": ["f.Field"]}
    assert u.classes["Mine"].methods == {"_deserialize"}
    assert Use("Mine", "_deserialize") in u.uses  # the override
    assert Use("Mine", "deserialize") in u.uses  # super().deserialize
    assert Use("DateTime", "deserialize") in u.uses and u.bindings["m"] == "Mine"


def test_blocks_sessions_indented_and_broken_code():
    text = "prose\n>>> x = Cls()\n>>> x.go(\n... 1)\n<result>\n\n    y = Other()\n    y.stop()\n"
    assert code_blocks(text) == ["y = Other()\ny.stop()\n", "x = Cls()\nx.go(\n1)"]
    got = {(x.receiver, x.attr) for x in uses(text).uses}
    assert {("Cls", "go"), ("Other", "stop")} <= got
    # a traceback in the same fence: the block fails, its chunks and lines still parse
    broken = "```\nz = Thing()\nz.work()\n  File \"a.py\", line 3, in <module>\nKeyError: 'x'\n```"
    assert len(modules(broken)) >= 2 and Use("Thing", "work") in uses(broken).uses


def test_resolution_through_imports_reexports_and_bases(shop):
    r = Resolver(shop, ISSUE)
    field, dt = node(shop, "src/shop/fields.py::Field"), node(shop, "src/shop/fields.py::DateTime")
    assert r.classes("DateTime") == [dt]  # `from shop import DateTime`: the re-export in __init__
    assert r.classes("f.Field") == [field] and r.classes("Mine") == [field]  # a snippet class is its bases
    resolved = {(u.receiver, u.attr): nodes for u, nodes in r.resolved()}
    assert resolved[("DateTime", "deserialize")] == [node(shop, "src/shop/fields.py::Field.deserialize")]  # base
    assert resolved[("Mine", "deserialize")] == [node(shop, "src/shop/fields.py::Field.deserialize")]  # super()
    assert resolved[("Mine", "_deserialize")] == [node(shop, "src/shop/fields.py::Field._deserialize")]  # override
    assert resolved[("Mine", "")] == [field] and resolved[("DateTime", "")] == [dt]
    assert ("d", "deserialize") not in resolved and all(u.attr != "nothing" for u, _ in r.resolved())
    assert explain(shop, ISSUE)[0] == "Mine._deserialize -> src/shop/fields.py::Field._deserialize"


def test_unimported_names_fall_back_to_the_graphs_classes_only(shop):
    r = Resolver(shop, "```\nx = DateTime()\nx._deserialize(1)\nbuild_parser().parse()\nnp.Field()\n```")
    assert r.classes("DateTime") == [node(shop, "src/shop/fields.py::DateTime")]
    assert r.classes("np.Field") == [node(shop, "src/shop/fields.py::Field")]  # CapWords tail, head unknown
    assert r.classes("build_parser") == []  # a function is not a receiver
    assert Resolver(shop, "```\nimport numpy as np\nnp.Field()\n```").classes("np.Field") == []  # imported: no guess
    resolved = {(u.receiver, u.attr): nodes for u, nodes in r.resolved()}
    assert resolved[("DateTime", "_deserialize")] == [node(shop, "src/shop/fields.py::DateTime._deserialize")]


def test_each_use_votes_once_and_definitions_vote_for_their_files(shop):
    s = receiver_scores(shop, ISSUE)
    idx = graph_index(shop)
    # Field: `Mine` and `f.Field` (its base, resolved by the override's class); Field.deserialize: two uses
    assert s.symbol[node(shop, "src/shop/fields.py::Field.deserialize")] == 2.0
    assert s.symbol[node(shop, "src/shop/fields.py::Field._deserialize")] == 1.0
    assert s.symbol[node(shop, "src/shop/fields.py::DateTime")] == 1.0
    assert s.file[idx.paths.index("src/shop/fields.py")] == s.symbol.sum()
    assert receiver_scores(shop, "no code at all, just Field prose").empty


def test_receiver_only_is_registered_and_ranks_the_resolved_file(shop):
    assert method_params("receiver_only") == {"w_receiver": 1.0}
    ranked = get_method("receiver_only", **method_params("receiver_only")).rank(shop, ISSUE)
    assert shop.symbols[ranked[0][0]].id == "src/shop/fields.py::Field.deserialize"
    assert {shop.symbols[n].path for n, _ in ranked} == {"src/shop/fields.py"}


_var = st.sampled_from(["a", "b", "c", "d"])
_cls = st.sampled_from(["Alpha", "Beta", "Gamma"])
_meth = st.sampled_from(["run", "stop", "load"])
_stmt = st.one_of(st.tuples(st.just("bind"), _var, _cls), st.tuples(st.just("call"), _var, _meth))


@given(st.lists(_stmt, max_size=12))
@settings(max_examples=150, deadline=None)
def test_generated_programs_bind_like_a_model(program):
    lines, bound, expected = [], {}, set()
    for kind, var, other in program:
        if kind == "bind":
            lines.append(f"{var} = {other}()")
            bound[var] = other
            expected.add((other, ""))
        else:
            lines.append(f"{var}.{other}()")
            expected.add((bound.get(var, var), other))
            if var not in bound:  # an unknown receiver's call is itself a candidate class expression
                expected.add((f"{var}.{other}", ""))
    u = uses("```python\n" + "\n".join(lines) + "\n```")
    assert u.bindings == bound
    assert {(x.receiver, x.attr) for x in u.uses} == expected


@given(st.text(alphabet=st.sampled_from(list("`>.: ()=\n\tabcCx_'\"[]{}#\\")) | st.characters(), max_size=400))
@settings(max_examples=300, deadline=None)
def test_the_reader_never_raises(text):
    out = uses(text)
    assert all(isinstance(x, Use) for x in out.uses)
    assert all(b.strip() for b in code_blocks(text))

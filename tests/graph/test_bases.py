"""Base classes written through ``with_metaclass(Meta, *bases)`` and subscripts (``Base[T]``) get ``inherits`` edges.

On a real git repository: a project's own ``compat.with_metaclass`` (marshmallow's
``class Schema(with_metaclass(SchemaMeta, BaseSchema))``), ``six.with_metaclass``,
``Generic[T]``/``Box[int]``; method resolution (``self.m()``, ``super().m()``) and the
pasted-code signal (``receivers``) follow those edges. Other calls (factories) and the
metaclass itself are never bases; plain bases parse exactly as before.
"""
from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.graph import CodebaseGraph, EdgeType
from beacon.graph.parse import base_chains, parse_source
from beacon.retrieval.signals_real.receivers import Resolver
from repotools import commit_tree

from .conftest import out

H, C = EdgeType.INHERITS, EdgeType.CALLS

FILES = {
    "pkg/__init__.py": "from .schema import Schema\n",
    "pkg/compat.py": """
        def with_metaclass(meta, *bases):
            return meta("temporary_class", bases, {})
    """,
    "pkg/base.py": """
        class Meta(type):
            pass


        class BaseSchema:
            def validate(self, data):
                return data

            def load(self, data):
                return self.validate(data)


        class Mixin:
            def extra(self):
                return 1
    """,
    "pkg/schema.py": """
        import six
        from typing import Generic, TypeVar

        from . import compat
        from .base import BaseSchema, Meta, Mixin
        from .compat import with_metaclass

        T = TypeVar("T")
        Declarative = declarative_base()


        class Schema(with_metaclass(Meta, BaseSchema, Mixin)):
            def load(self, data):
                self.extra()
                return super().load(data)


        class Dotted(compat.with_metaclass(Meta, BaseSchema)):
            pass


        class SixStyle(six.with_metaclass(Meta, BaseSchema)):
            def check(self):
                return self.validate(None)


        class OnlyMeta(with_metaclass(Meta)):
            pass


        class Box(Generic[T], BaseSchema):
            pass


        class Typed(Box[int]):
            def run(self):
                return self.validate(1)


        class Factory(make_base(BaseSchema)):
            pass


        class Model(Declarative):
            pass
    """,
}


def _graph(tmp_path) -> CodebaseGraph:
    root, _ = commit_tree(tmp_path / "repo", FILES)
    return CodebaseGraph.from_repo(root, cache_dir=tmp_path / "cache")


def test_with_metaclass_and_subscripted_bases_get_inherits_edges(tmp_path):
    g = _graph(tmp_path)
    s = "pkg/schema.py::"
    base, mixin = "pkg/base.py::BaseSchema", "pkg/base.py::Mixin"
    assert out(g, s + "Schema", H) == {base, mixin}  # the metaclass (first argument) is not a base
    assert out(g, s + "Dotted", H) == {base}  # `compat.with_metaclass`: a chain, same rule
    assert out(g, s + "SixStyle", H) == {base}  # six is not in the repository: still its bases
    assert out(g, s + "OnlyMeta", H) == set()
    assert out(g, s + "Box", H) == {base}  # `Generic[T]` is typing's: no edge, and BaseSchema kept
    assert out(g, s + "Typed", H) == {s + "Box"}
    # a factory call is not a base, nor is a name bound to one
    assert out(g, s + "Factory", H) == set() and out(g, s + "Model", H) == set()


def test_methods_resolve_through_those_bases(tmp_path):
    g = _graph(tmp_path)
    s = "pkg/schema.py::"
    # super().load and self.extra through with_metaclass's bases
    assert out(g, s + "Schema.load", C) == {"pkg/base.py::BaseSchema.load", "pkg/base.py::Mixin.extra"}
    assert out(g, s + "SixStyle.check", C) == {"pkg/base.py::BaseSchema.validate"}
    assert out(g, s + "Typed.run", C) == {"pkg/base.py::BaseSchema.validate"}  # Typed -> Box[int] -> BaseSchema


def test_receivers_resolve_a_snippet_call_through_with_metaclass(tmp_path):
    g = _graph(tmp_path)
    issue = "Validation is skipped\n\n```python\nfrom pkg import Schema\nsch = Schema()\nsch.validate({})\n```\n"
    resolved = {(u.receiver, u.attr): nodes for u, nodes in Resolver(g, issue).resolved()}
    assert resolved[("Schema", "validate")] == [g.index["pkg/base.py::BaseSchema.validate"]]  # `sch = Schema()`


def _chains(source: str) -> list[tuple[str, ...]]:
    return base_chains(ast.parse(source, mode="eval").body)


def test_base_chains_table():
    assert _chains("Base") == [("Base",)]
    assert _chains("a.b.Base") == [("a", "b", "Base")]
    assert _chains("Base[T]") == [("Base",)] and _chains("typing.Generic[T, U]") == [("typing", "Generic")]
    assert _chains("with_metaclass(M, A, b.B[int])") == [("A",), ("b", "B")]
    assert _chains("future.utils.with_metaclass(M, A)") == [("A",)]
    assert _chains("_with_metaclass(M, A)") == [("A",)]  # werkzeug's example imports it under this name
    assert _chains("with_metaclass(M, *bases)") == []  # unknown at parse time
    assert _chains("with_metaclass(M, with_metaclass(N, A))") == [("A",)]
    for other in ("declarative_base()", "make(A)", "f()[0]", "x[0].y", "(lambda: A)()"):
        assert _chains(other) == [], other


_NAME = st.sampled_from(["A", "Base", "mod.Base", "a.b.C", "six", "with_metaclass"])


@given(st.lists(_NAME, max_size=4), st.sampled_from(["{}", "with_metaclass(Meta, {})", "six.with_metaclass(M, {})"]),
       st.booleans())
@settings(max_examples=80, deadline=None)
def test_plain_bases_are_unchanged_and_wrappers_add_nothing(names, wrapper, subscript):
    """Plain bases parse to their chains in order; wrapping them in with_metaclass or subscripting keeps that list."""
    expected = [(1, tuple(n.split("."))) for n in names]
    plain = f"class X({', '.join(names)}):\n    pass\n".encode()
    assert parse_source(plain).bases == expected
    inner = ", ".join(f"{n}[int]" if subscript else n for n in names)
    wrapped = f"class X({wrapper.format(inner) if names else ''}):\n    pass\n".encode()
    assert parse_source(wrapped).bases == expected

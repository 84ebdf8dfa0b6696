"""Import-aware edge resolution: calls, imports, assigns, inherits, decorates, contains."""
from __future__ import annotations

import pytest

from beacon.graph import CodebaseGraph, EdgeType

C, I, A, H, D, K = (EdgeType.CALLS, EdgeType.IMPORTS, EdgeType.ASSIGNS,
                    EdgeType.INHERITS, EdgeType.DECORATES, EdgeType.CONTAINS)

LAB = {
    "pkg/__init__.py": """
        from .core import Engine
        from . import util

        def top():
            return util.helper()
    """,
    "pkg/base.py": """
        class Base:
            def start(self):
                return 1

            def step(self):
                return 2

            @classmethod
            def create(cls):
                return cls()
    """,
    "pkg/core.py": """
        from .base import Base


        class Engine(Base):
            def run(self):
                self.start()
                return self.step()

            def step(self):
                return super().step()

            @classmethod
            def make(cls):
                return cls.create()

            def again(self):
                def inner():
                    return self.run()
                return inner()
    """,
    "pkg/util.py": """
        def helper():
            return 1


        alias = helper
        other_alias = alias


        def uses_alias():
            return other_alias()


        def assigns_local():
            fn = helper
            return fn
    """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/sibling.py": """
        def f():
            return 0
    """,
    "pkg/sub/leaf.py": """
        from .. import util
        from ..util import helper as h
        from .sibling import f as g
        import pkg.util as m
        import pkg.core
        import os.path


        def use_all():
            util.helper()
            h()
            g()
            m.alias()
            pkg.core.Engine()
            os.path.join("a", "b")


        def local_import():
            from pkg.core import Engine as E
            import pkg.base as b
            E()
            return b.Base.create()
    """,
    "app.py": """
        import pkg
        from pkg import Engine, top


        def main():
            engine = Engine()
            top()
            pkg.util.helper()
            print(len([engine]))
            return engine
    """,
    "src/srcpkg/__init__.py": """
        from .mod import thing as exported_thing
    """,
    "src/srcpkg/mod.py": """
        def thing():
            return 1
    """,
    "tests/test_srcpkg.py": """
        from srcpkg import exported_thing
        from srcpkg.mod import thing


        def test_thing():
            assert thing() == exported_thing()
    """,
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory, write_files) -> CodebaseGraph:
    return CodebaseGraph.from_repo(write_files(tmp_path_factory.mktemp("lab"), LAB))


@pytest.fixture(scope="module")
def has(lab):
    def check(src: str, dst: str, etype: EdgeType) -> bool:
        return lab.has_edge(src, dst, etype)

    return check


# -- calls: module imports ----------------------------------------------------
def test_nothing_skipped_and_every_file_indexed(lab):
    assert lab.skipped == []
    assert set(lab.files) == set(LAB)


def test_import_module_as_alias_then_attribute_call(has):
    # import pkg.util as m; m.alias()  (alias = helper at module level)
    assert has("pkg/sub/leaf.py::use_all", "pkg/util.py::helper", C)


def test_from_parent_package_import_module(has):
    # from .. import util; util.helper()
    assert has("pkg/sub/leaf.py::use_all", "pkg/util.py::helper", C)


def test_relative_from_import_with_alias(has, lab, edges_of):
    # from .sibling import f as g; g()
    assert has("pkg/sub/leaf.py::use_all", "pkg/sub/sibling.py::f", C)
    # from ..util import helper as h; h()  -- also helper, counted once (de-duplicated CSR)
    calls = edges_of(lab, "pkg/sub/leaf.py::use_all", C)
    assert calls == {"pkg/util.py::helper", "pkg/sub/sibling.py::f", "pkg/core.py::Engine"}


def test_dotted_import_chain_to_class(has):
    # import pkg.core; pkg.core.Engine()
    assert has("pkg/sub/leaf.py::use_all", "pkg/core.py::Engine", C)


def test_from_dot_import_inside_init(has, lab, edges_of):
    # pkg/__init__.py: from . import util; util.helper()
    assert has("pkg/__init__.py::top", "pkg/util.py::helper", C)
    assert "pkg/util.py::<module>" in edges_of(lab, "pkg/__init__.py::<module>", I)


def test_reexport_through_package_init(has, lab, edges_of):
    # app.py: from pkg import Engine  (pkg/__init__: from .core import Engine)
    assert has("app.py::main", "pkg/core.py::Engine", C)
    assert has("app.py::main", "pkg/__init__.py::top", C)
    # import pkg; pkg.util.helper(): attribute of the package bound by `from . import util`
    assert has("app.py::main", "pkg/util.py::helper", C)
    assert edges_of(lab, "app.py::main", C) == {
        "pkg/core.py::Engine", "pkg/__init__.py::top", "pkg/util.py::helper"}


def test_src_layout_and_reexport_with_alias(has):
    assert has("tests/test_srcpkg.py::test_thing", "src/srcpkg/mod.py::thing", C)
    assert has("tests/test_srcpkg.py::<module>", "src/srcpkg/mod.py::thing", I)
    assert has("src/srcpkg/__init__.py::<module>", "src/srcpkg/mod.py::thing", I)
    assert not has("tests/test_srcpkg.py::<module>", "src/srcpkg/mod.py::<module>", I)


def test_src_layout_module_names(lab):
    assert lab.files["src/srcpkg/mod.py"].module == "srcpkg.mod"
    assert lab.files["src/srcpkg/__init__.py"].module == "srcpkg"
    assert lab.files["pkg/sub/leaf.py"].module == "pkg.sub.leaf"
    assert lab.files["app.py"].module == "app"


def test_local_imports_inside_functions(has, lab, edges_of):
    assert has("pkg/sub/leaf.py::local_import", "pkg/core.py::Engine", C)
    assert has("pkg/sub/leaf.py::local_import", "pkg/base.py::Base.create", C)
    # the imports edges start at the function, not at the module
    assert edges_of(lab, "pkg/sub/leaf.py::local_import", I) == {
        "pkg/core.py::Engine", "pkg/base.py::<module>"}
    assert "pkg/core.py::Engine" not in edges_of(lab, "pkg/sub/leaf.py::<module>", I)


# -- calls: self / cls / super ------------------------------------------------
def test_self_call_through_base_class_in_other_module(has):
    assert has("pkg/core.py::Engine.run", "pkg/base.py::Base.start", C)


def test_self_call_prefers_own_override(has):
    assert has("pkg/core.py::Engine.run", "pkg/core.py::Engine.step", C)
    assert not has("pkg/core.py::Engine.run", "pkg/base.py::Base.step", C)


def test_super_call_goes_to_base(has):
    assert has("pkg/core.py::Engine.step", "pkg/base.py::Base.step", C)
    assert not has("pkg/core.py::Engine.step", "pkg/core.py::Engine.step", C)


def test_cls_call_through_base(has):
    assert has("pkg/core.py::Engine.make", "pkg/base.py::Base.create", C)
    # a bare `cls()` may build any subclass: not resolved, and not guessed
    assert not has("pkg/base.py::Base.create", "pkg/base.py::Base", C)


def test_self_inside_nested_function_of_method(has):
    assert has("pkg/core.py::Engine.again.inner", "pkg/core.py::Engine.run", C)
    assert has("pkg/core.py::Engine.again", "pkg/core.py::Engine.again.inner", C)


# -- assigns / aliases ----------------------------------------------------------
def test_module_level_alias_chain(has):
    # other_alias = alias = helper; other_alias()
    assert has("pkg/util.py::uses_alias", "pkg/util.py::helper", C)
    assert has("pkg/util.py::<module>", "pkg/util.py::helper", A)


def test_assign_inside_function(has):
    assert has("pkg/util.py::assigns_local", "pkg/util.py::helper", A)


# -- imports edges ---------------------------------------------------------------
def test_imports_edges_to_modules_and_symbols(lab, edges_of):
    assert edges_of(lab, "pkg/sub/leaf.py::<module>", I) == {
        "pkg/util.py::<module>",       # from .. import util / import pkg.util as m
        "pkg/util.py::helper",         # from ..util import helper as h
        "pkg/sub/sibling.py::f",       # from .sibling import f as g
        "pkg/core.py::<module>",       # import pkg.core
    }  # import os.path: outside the repository, no edge
    assert edges_of(lab, "app.py::<module>", I) == {
        "pkg/__init__.py::<module>", "pkg/core.py::Engine", "pkg/__init__.py::top"}


def test_imports_reverse(lab, edges_of):
    importers = edges_of(lab, "pkg/util.py::helper", I, reverse=True)
    assert importers == {"pkg/sub/leaf.py::<module>"}


# -- inherits / contains -----------------------------------------------------------
def test_inherits_across_modules(has, lab, edges_of):
    assert has("pkg/core.py::Engine", "pkg/base.py::Base", H)
    assert edges_of(lab, "pkg/base.py::Base", H, reverse=True) == {"pkg/core.py::Engine"}


def test_contains_edges(lab, edges_of):
    assert edges_of(lab, "pkg/core.py::<module>", K) == {"pkg/core.py::Engine"}
    assert edges_of(lab, "pkg/core.py::Engine", K) == {
        "pkg/core.py::Engine.run", "pkg/core.py::Engine.step",
        "pkg/core.py::Engine.make", "pkg/core.py::Engine.again"}
    assert edges_of(lab, "pkg/core.py::Engine.again", K) == {"pkg/core.py::Engine.again.inner"}
    assert edges_of(lab, "pkg/core.py::Engine.again.inner", K, reverse=True) == {"pkg/core.py::Engine.again"}


def test_contains_matches_parent_field(lab):
    for i, sym in enumerate(lab.symbols):
        parents = {lab.symbols[int(j)].id for j in lab.neighbors(i, K, reverse=True)}
        assert parents == ({sym.parent} if sym.parent else set()), sym.id


def test_builtins_and_stdlib_are_external_not_edges(lab, edges_of):
    # external: print and len in app.main, os.path.join in leaf.use_all, the super() call
    assert lab.stats["calls_external"] == 4
    # unresolved: `cls()` in Base.create (no static target, not guessed)
    assert lab.stats["calls_unresolved"] == 1
    assert lab.stats.get("calls_fallback", 0) == 0
    assert lab.stats["calls_total"] == lab.stats["calls_resolved"] + 5
    assert edges_of(lab, "app.py::main", C) == {
        "pkg/core.py::Engine", "pkg/__init__.py::top", "pkg/util.py::helper"}


def test_reverse_calls(lab, edges_of):
    assert edges_of(lab, "pkg/util.py::helper", C, reverse=True) == {
        "pkg/__init__.py::top", "pkg/sub/leaf.py::use_all", "app.py::main", "pkg/util.py::uses_alias"}


# -- decorators --------------------------------------------------------------------
DECO = {
    "deco.py": """
        import functools


        def plain(fn):
            return fn


        def with_args(*args):
            def wrap(fn):
                return fn
            return wrap


        @plain
        def decorated_plain():
            pass


        @with_args(
            1,
            2,
        )
        def decorated_args():
            pass


        @functools.wraps(plain)
        def external_deco():
            pass


        @plain
        class Decorated:
            @property
            def x(self):
                return 1

            @x.setter
            def x(self, value):
                pass

            @plain
            def m(self):
                pass

            @staticmethod
            def s():
                return Decorated.s()
    """,
    "use.py": """
        from deco import plain as p
        import deco


        @p
        def imported_alias():
            pass


        @deco.with_args(3)
        def dotted():
            pass
    """,
}


@pytest.fixture(scope="module")
def deco(tmp_path_factory, write_files) -> CodebaseGraph:
    return CodebaseGraph.from_repo(write_files(tmp_path_factory.mktemp("deco"), DECO))


def test_decorates_edges_go_decorator_to_decorated(deco, edges_of):
    assert edges_of(deco, "deco.py::plain", D) == {
        "deco.py::decorated_plain", "deco.py::Decorated", "deco.py::Decorated.m", "use.py::imported_alias"}
    assert edges_of(deco, "deco.py::with_args", D) == {"deco.py::decorated_args", "use.py::dotted"}
    assert edges_of(deco, "deco.py::decorated_plain", D, reverse=True) == {"deco.py::plain"}
    assert edges_of(deco, "deco.py::external_deco", D, reverse=True) == set()


def test_decorator_with_arguments_is_also_a_call_from_enclosing_scope(deco):
    assert deco.has_edge("deco.py::<module>", "deco.py::with_args", C)
    assert deco.has_edge("use.py::<module>", "deco.py::with_args", C)
    assert not deco.has_edge("deco.py::<module>", "deco.py::plain", C)


def test_decorator_lines_are_in_the_span(deco):
    text = deco.files["deco.py"].text.split("\n")
    sym = deco.symbol("deco.py::decorated_args")
    assert text[sym.start_line - 1] == "@with_args("
    assert text[sym.end_line - 1] == "    pass"
    assert deco.source(sym).startswith("@with_args(\n    1,\n    2,\n)\ndef decorated_args():")
    cls = deco.symbol("deco.py::Decorated")
    assert text[cls.start_line - 1] == "@plain"
    method = deco.symbol("deco.py::Decorated.m")
    assert deco.source(method) == "    @plain\n    def m(self):\n        pass\n"


def test_property_setter_gets_distinct_id(deco):
    getter = deco.symbol("deco.py::Decorated.x")
    setter = deco.symbol("deco.py::Decorated.x#2")
    assert getter.kind == setter.kind == "method"
    assert getter.start_line < setter.start_line
    assert "@property" in deco.source(getter) and "@x.setter" in deco.source(setter)
    assert getter.name == setter.name == "x"
    assert setter.parent == "deco.py::Decorated"


def test_class_name_call_inside_own_staticmethod(deco):
    assert deco.has_edge("deco.py::Decorated.s", "deco.py::Decorated.s", C)


# -- fallback and counting ---------------------------------------------------------
COUNTING = {
    "worker.py": """
        class Worker:
            def process(self):
                return 1


        class A:
            def run(self):
                pass


        class B:
            def run(self):
                pass
    """,
    "main.py": """
        from worker import Worker


        def work(obj, other):
            len(obj)
            Worker()
            obj.process()
            other.run()
            mystery()
    """,
}


def test_stats_count_each_call_exactly(build_graph):
    g = build_graph(COUNTING)
    assert g.stats["calls_total"] == 5
    assert g.stats["calls_external"] == 1     # len
    assert g.stats["calls_resolved"] == 1     # Worker()
    assert g.stats["calls_fallback"] == 1     # obj.process(): unique name
    assert g.stats["calls_unresolved"] == 2   # other.run(): ambiguous; mystery(): unknown


def test_unique_name_fallback_resolves(build_graph):
    g = build_graph(COUNTING)
    assert g.has_edge("main.py::work", "worker.py::Worker.process", C)
    assert g.has_edge("main.py::work", "worker.py::Worker", C)


def test_ambiguous_name_is_not_guessed(build_graph, edges_of):
    g = build_graph(COUNTING)
    assert edges_of(g, "main.py::work", C) == {"worker.py::Worker", "worker.py::Worker.process"}


def test_redefinitions_make_a_name_ambiguous_for_fallback(build_graph, edges_of):
    g = build_graph({
        "compat.py": """
            import sys
            if sys.version_info >= (3,):
                def shim():
                    return 3
            else:
                def shim():
                    return 2
        """,
        "user.py": """
            def go(mod):
                return mod.shim()
        """,
    })
    assert {"compat.py::shim", "compat.py::shim#2"} <= set(g.index)
    assert edges_of(g, "user.py::go", C) == set()
    assert g.stats["calls_unresolved"] == 1


def test_same_module_name_wins_over_fallback(build_graph, edges_of):
    g = build_graph({
        "a.py": """
            def helper():
                pass

            def caller():
                helper()
        """,
        "b.py": """
            def helper():
                pass
        """,
    })
    assert edges_of(g, "a.py::caller", C) == {"a.py::helper"}
    assert g.stats["calls_resolved"] == 1


def test_dunder_names_never_fall_back(build_graph):
    g = build_graph({
        "a.py": """
            class X:
                def __enter__(self):
                    return self

            def f(thing):
                thing.__enter__()
        """,
    })
    assert not g.has_edge("a.py::f", "a.py::X.__enter__", C)
    assert g.stats["calls_unresolved"] == 1


def test_builtin_shadowed_by_module_definition_resolves(build_graph):
    g = build_graph({
        "a.py": """
            def open(path):
                return path

            def f():
                return open("x")
        """,
    })
    assert g.has_edge("a.py::f", "a.py::open", C)
    assert g.stats.get("calls_external", 0) == 0


def test_parameters_and_locals_shadow_module_names(build_graph, edges_of):
    # `handler` and `helpers` inside apply() are parameters, not the module-level
    # function / imported module; `run` and `handler` are ambiguous for fallback.
    g = build_graph({
        "helpers.py": """
            def run():
                pass
        """,
        "other.py": """
            def handler():
                pass

            class K:
                def run(self):
                    pass
        """,
        "shadow.py": """
            import helpers


            def handler():
                pass


            def apply(handler, helpers):
                handler()
                helpers.run()


            def loop(items):
                for handler in items:
                    handler()


            def lam():
                return map(lambda handler: handler(), [])


            def catches():
                try:
                    pass
                except Exception as handler:
                    handler()


            def uses_global():
                global handler
                handler = handler
                handler()


            def still_module():
                handler()
                helpers.run()
        """,
    })
    for fn in ("apply", "loop", "lam", "catches"):
        assert edges_of(g, f"shadow.py::{fn}", C) == set(), fn
    assert edges_of(g, "shadow.py::uses_global", C) == {"shadow.py::handler"}
    assert edges_of(g, "shadow.py::still_module", C) == {"shadow.py::handler", "helpers.py::run"}


def test_local_named_like_builtin_is_not_external(build_graph):
    g = build_graph({
        "a.py": """
            def f(id):
                return id.strip()
        """,
    })
    assert g.stats.get("calls_external", 0) == 0
    assert g.stats["calls_unresolved"] == 1


def test_relative_import_above_the_root_is_not_resolved(build_graph, edges_of):
    g = build_graph({
        "a/__init__.py": "",
        "a/b/__init__.py": "",
        "a/b/x.py": "def run():\n    pass\n",
        "x.py": "def run():\n    pass\n",
        "a/b/c/__init__.py": "",
        "a/b/c/d.py": """
            def up1():
                from .. import x

            def up2():
                from ... import b

            def above5():
                from ..... import x

            def above6():
                from ...... import x
        """,
    })
    # a.b.c.d: `..` is a.b, `...` is a; five or more dots leave the repository
    # (the old slice arithmetic wrapped around and resolved them to a.b.x).
    assert edges_of(g, "a/b/c/d.py::up1", I) == {"a/b/x.py::<module>"}
    assert edges_of(g, "a/b/c/d.py::up2", I) == {"a/b/__init__.py::<module>"}
    assert edges_of(g, "a/b/c/d.py::above5", I) == set()
    assert edges_of(g, "a/b/c/d.py::above6", I) == set()


def test_repository_root_that_is_itself_a_package(build_graph, edges_of):
    # Indexing a package directory directly: relative imports reach the root.
    g = build_graph({
        "__init__.py": "from .api import get\n",
        "api.py": "from . import sessions\n\ndef get():\n    return sessions.Session()\n",
        "sessions.py": "class Session:\n    pass\n",
    })
    assert g.has_edge("api.py::get", "sessions.py::Session", C)
    assert edges_of(g, "api.py::<module>", I) == {"sessions.py::<module>"}
    assert g.stats["calls_resolved"] == 1 and g.stats.get("calls_fallback", 0) == 0  # not a guess


def test_import_cycle_between_packages_terminates(build_graph, edges_of):
    g = build_graph({
        "p/__init__.py": "from .a import thing\n",
        "p/a.py": "from p import thing\n",
        "q.py": "from p import thing\nthing()\n",
    })
    assert edges_of(g, "q.py::<module>", C) == set()
    assert g.stats["calls_unresolved"] == 1


def test_star_import_links_module(build_graph, edges_of):
    g = build_graph({
        "p/__init__.py": "",
        "p/a.py": "def f():\n    pass\n",
        "p/b.py": "from .a import *\n",
    })
    assert edges_of(g, "p/b.py::<module>", I) == {"p/a.py::<module>"}


def test_class_attribute_alias_and_class_scope_visibility(build_graph, edges_of):
    g = build_graph({
        "a.py": """
            def free():
                pass


            class Svc:
                def impl(self):
                    pass

                handler = impl

                def go(self):
                    self.handler()
                    impl()
        """,
    })
    # self.handler -> class-level alias -> Svc.impl; bare impl() in a method does NOT
    # see the class scope (Python semantics), and `impl` is unique -> fallback.
    assert g.has_edge("a.py::Svc.go", "a.py::Svc.impl", C)
    assert g.stats["calls_resolved"] == 1
    assert g.stats["calls_fallback"] == 1


def test_inherits_through_alias_and_dotted_base(build_graph, edges_of):
    g = build_graph({
        "lib/__init__.py": "",
        "lib/base.py": "class Root:\n    def hello(self):\n        pass\n",
        "lib/mid.py": "from lib import base\nclass Mid(base.Root):\n    pass\n",
        "top.py": """
            import lib.mid as mid
            Alias = mid.Mid

            class Leaf(Alias):
                def go(self):
                    return self.hello()
        """,
    })
    assert edges_of(g, "lib/mid.py::Mid", H) == {"lib/base.py::Root"}
    assert edges_of(g, "top.py::Leaf", H) == {"lib/mid.py::Mid"}
    # self.hello resolved two inheritance levels up, across modules
    assert g.has_edge("top.py::Leaf.go", "lib/base.py::Root.hello", C)
    assert g.stats["calls_resolved"] == 1


def test_inheritance_cycle_does_not_hang(build_graph):
    g = build_graph({
        "a.py": "from b import B\nclass A(B):\n    def f(self):\n        self.g()\n",
        "b.py": "from a import A\nclass B(A):\n    pass\n",
    })
    assert g.has_edge("a.py::A", "b.py::B", H)
    assert g.has_edge("b.py::B", "a.py::A", H)
    assert g.stats["calls_unresolved"] == 1


def test_old_style_super_and_explicit_class_calls(build_graph):
    g = build_graph({
        "a.py": """
            class Base:
                def save(self):
                    pass


            class Child(Base):
                def save(self):
                    super(Child, self).save()

                def other(self):
                    Base.save(self)
                    Child.save(self)
        """,
    })
    assert g.has_edge("a.py::Child.save", "a.py::Base.save", C)
    assert not g.has_edge("a.py::Child.save", "a.py::Child.save", C)
    assert g.has_edge("a.py::Child.other", "a.py::Base.save", C)
    assert g.has_edge("a.py::Child.other", "a.py::Child.save", C)


def test_relative_imports_from_subpackage_init(build_graph, edges_of):
    g = build_graph({
        "pkg/__init__.py": "",
        "pkg/util.py": "def helper():\n    pass\n",
        "pkg/sub/__init__.py": """
            from .. import util
            from ..util import helper
            from . import leaf

            def go():
                util.helper()
                leaf.run()
        """,
        "pkg/sub/leaf.py": "def run():\n    pass\n",
    })
    assert edges_of(g, "pkg/sub/__init__.py::<module>", I) == {
        "pkg/util.py::<module>", "pkg/util.py::helper", "pkg/sub/leaf.py::<module>"}
    assert edges_of(g, "pkg/sub/__init__.py::go", C) == {"pkg/util.py::helper", "pkg/sub/leaf.py::run"}


def test_calls_in_defaults_decorators_and_class_bodies_belong_to_enclosing_scope(build_graph, edges_of):
    g = build_graph({
        "a.py": """
            def make():
                return 1


            def f(x=make()):
                return x


            class K:
                value = make()

                def m(self, y=make()):
                    return y
        """,
    })
    assert edges_of(g, "a.py::<module>", C) == {"a.py::make"}
    assert edges_of(g, "a.py::K", C) == {"a.py::make"}
    assert edges_of(g, "a.py::f", C) == set()
    assert edges_of(g, "a.py::K.m", C) == set()

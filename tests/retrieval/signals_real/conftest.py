"""A small real package (``src/`` layout, a re-export, a base class, a test file) for the signal tests."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from beacon.graph.codebase import CodebaseGraph

FILES = {
    "src/shop/__init__.py": '''\
        """Shop: a tiny package."""
        from .fields import DateTime, Field
        from . import fields
        ''',
    "src/shop/fields.py": '''\
        """Fields."""


        class Field:
            def deserialize(self, value):
                if value is None:
                    raise ValueError(f"Field {self!r} may not be null: expected a value")
                return self._deserialize(value)

            def _deserialize(self, value):
                return value


        class DateTime(Field):
            def _deserialize(self, value):
                if not isinstance(value, str):
                    raise TypeError("Not a valid datetime string for %s" % value)
                return value
        ''',
    "src/shop/cli.py": '''\
        """Command line."""
        import argparse


        def build_parser():
            parser = argparse.ArgumentParser()
            parser.add_argument("--ignore-local-config", action="store_true")
            return parser


        def main(argv=None):
            args = build_parser().parse_args(argv)
            return run(args)


        def run(args):
            """Run it. Not a valid datetime string for anything here is documentation."""
            return 0
        ''',
    "tests/test_fields.py": '''\
        def test_null():
            raise AssertionError("Field x may not be null: expected a value in the test")
        ''',
}


@pytest.fixture(scope="package")
def shop(tmp_path_factory) -> CodebaseGraph:
    root: Path = tmp_path_factory.mktemp("shop")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return CodebaseGraph.from_repo(root)


def node(graph: CodebaseGraph, symbol_id: str) -> int:
    return graph.index[symbol_id]


def assert_weight_zero_is_off(graph: CodebaseGraph, signal: str, query: str) -> None:
    """On ``hybrid_follow``: ``w_<signal>`` 0 computes nothing and changes nothing; 0.5 adds the signal and moves
    the total."""
    from beacon.retrieval import get_method
    from beacon.retrieval.recipes import method_params

    def scores(extra):
        return get_method("hybrid_follow", **method_params("hybrid_follow", extra)).scores(graph, query)

    base, off, on = scores({}), scores({f"w_{signal}": 0.0}), scores({f"w_{signal}": 0.5})
    assert signal not in base.components and signal in on.components
    assert off.total.tobytes() == base.total.tobytes()
    assert on.total.tobytes() != base.total.tobytes()

"""Names written as code and names quoted by error messages, shared by the definitions that bear them."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval.signals_real.errors import error_names, error_scores, messages
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.names import code_names, name_scores, shared_scores

from .conftest import node

PASTED = """Loading fails

```
Traceback (most recent call last):
  File "app.py", line 3, in <module>
AttributeError: 'DateTime' object has no attribute 'strict'
```
and in prose: shop.fields.TypeError: deserialize() got an unexpected keyword argument "when".
Not an error line: ValueError is mentioned here without a colon, and KeyErrors: 'run' neither.
"""


def test_error_lines_and_the_names_their_messages_quote_or_call():
    assert messages(PASTED) == ["'DateTime' object has no attribute 'strict'",
                                "deserialize() got an unexpected keyword argument \"when\"."]
    assert error_names(PASTED) == ["DateTime", "strict", "when", "deserialize"]  # per message: quoted, then called
    assert error_names("KeyError: 'shop.fields.DateTime'") == ["DateTime"]  # a dotted quote by its last part
    assert error_names("no errors: 'DateTime' here") == []


def test_a_unique_name_scores_one_and_a_shared_name_splits_its_unit(shop):
    s = shared_scores(shop, ["DateTime", "_deserialize", "_deserialize", "strict", "x"])
    assert s.symbol[node(shop, "src/shop/fields.py::DateTime")] == 1.0
    # two definitions bear _deserialize: a half each, counted once however often it is written
    assert s.symbol[node(shop, "src/shop/fields.py::Field._deserialize")] == 0.5
    assert s.symbol[node(shop, "src/shop/fields.py::DateTime._deserialize")] == 0.5
    assert s.symbol.sum() == 2.0  # unknown and short names score nothing
    assert s.file[graph_index(shop).paths.index("src/shop/fields.py")] == 2.0


def test_test_definitions_get_nothing(shop):
    assert not shared_scores(shop, ["test_null"]).symbol.any()
    assert not error_scores(shop, "AssertionError: 'test_null' failed").symbol.any()


def test_error_scores_reach_the_quoted_class_and_the_called_method(shop):
    s = error_scores(shop, PASTED)
    assert s.symbol[node(shop, "src/shop/fields.py::DateTime")] == 1.0
    assert s.symbol[node(shop, "src/shop/fields.py::Field.deserialize")] == 1.0
    assert s.symbol[node(shop, "src/shop/cli.py::run")] == 0.0  # quoted on a line that is not an error line


def test_names_written_as_code_or_called(shop):
    issue = "Calling `build_parser` then main() fails; run is fine.\n\n    parser = build_parser()\n"
    assert code_names(issue) == ["build_parser", "parser", "main"]
    s = name_scores(shop, issue)
    assert s.symbol[node(shop, "src/shop/cli.py::build_parser")] == 1.0
    assert s.symbol[node(shop, "src/shop/cli.py::main")] == 1.0
    assert s.symbol[node(shop, "src/shop/cli.py::run")] == 0.0  # prose, not code
    assert s.file[graph_index(shop).paths.index("src/shop/cli.py")] == 2.0


_ident = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@given(st.sampled_from(["TypeError", "ValueError", "pkg.mod.CustomException", "UserWarning", "SystemExit"]),
       _ident, st.sampled_from(["'", '"', "`"]), st.text(alphabet="abc xyz", max_size=20))
@settings(max_examples=200, deadline=None)
def test_a_quoted_identifier_in_any_error_line_is_found(exc, name, quote, filler):
    query = f"before\n  {exc}: {filler} {quote}{name}{quote} {filler}\nafter"
    assert name in error_names(query)
    assert error_names(f"before\n  {filler} {quote}{name}{quote}\n") == []

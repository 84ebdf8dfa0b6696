"""Dotted names and the issue's imports resolved through modules, ``__init__`` re-exports and base classes."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval.signals_real.dotted import dotted_scores, imports, names, resolve
from beacon.retrieval.signals_real.index import graph_index

from .conftest import node

ISSUE = """`DateTime` refuses ints

```python
from shop import fields
import shop.cli as cli

fields.DateTime().deserialize(3)
```
See e.g. the docs, and shop.DateTime.
"""


def test_imports_and_aliases_of_an_issue():
    assert imports(ISSUE) == {"fields": "shop.fields", "cli": "shop.cli"}
    # prose like "e.g" is kept here and resolves to nothing
    assert names(ISSUE) == ["shop.fields", "shop.cli", "shop.fields.DateTime", "e.g", "shop.DateTime"]


def test_resolution_through_modules_reexports_and_bases(shop):
    assert resolve(shop, "shop.fields") == [node(shop, "src/shop/fields.py::<module>")]
    # re-exported by shop/__init__.py
    assert resolve(shop, "shop.DateTime") == [node(shop, "src/shop/fields.py::DateTime")]
    # DateTime has no deserialize of its own: its base Field's
    assert resolve(shop, "shop.fields.DateTime.deserialize") == [node(shop, "src/shop/fields.py::Field.deserialize")]
    # a member found nowhere still names its class
    assert resolve(shop, "shop.DateTime.nothing") == [node(shop, "src/shop/fields.py::DateTime")]
    assert resolve(shop, "e.g") == [] and resolve(shop, "os.path.join") == []


def test_definitions_vote_for_their_files(shop):
    s = dotted_scores(shop, ISSUE + "\nshop.fields.DateTime.deserialize breaks")
    idx = graph_index(shop)
    assert s.symbol[node(shop, "src/shop/fields.py::DateTime")] == 2.0  # shop.fields.DateTime and shop.DateTime
    assert s.symbol[node(shop, "src/shop/fields.py::Field.deserialize")] == 1.0
    assert s.file[idx.paths.index("src/shop/fields.py")] == 4.0  # + the module itself
    assert s.file[idx.paths.index("src/shop/cli.py")] == 1.0
    assert not dotted_scores(shop, "nothing dotted here").symbol.any()


_name = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)


@given(st.lists(_name, min_size=1, max_size=4), _name, st.one_of(st.none(), _name))
@settings(max_examples=200, deadline=None)
def test_from_import_maps_the_local_name_to_the_absolute_one(package, name, alias):
    module = ".".join(package)
    line = f"from {module} import {name}" + (f" as {alias}" if alias else "")
    assert imports(f"text\n{line}\n")[alias or name] == f"{module}.{name}"
    plain = f"import {module}" + (f" as {alias}" if alias else "")
    assert imports(f">>> {plain}\n") == {(alias or package[0]): (module if alias else package[0])}

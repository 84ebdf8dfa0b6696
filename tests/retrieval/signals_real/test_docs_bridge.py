"""The docs bridge: documentation files, sections and references parsed; matched sections vote for the API they cite."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import get_method
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.docs_bridge import (DocsUnavailable, build, docs_index, docs_scores, resolve_ref,
                                                       top_sections)
from beacon.retrieval.signals_real.docs_parse import Reference, doc_files, is_history, references, sections
from beacon.retrieval.signals_real.index import graph_index

from .conftest import FILES as SHOP
from .conftest import assert_weight_zero_is_off, node

DOCS = {
    "README.rst": "Shop\n====\n\nA tiny package with ``Field`` objects.\n",
    "docs/api.rst": '''\
        API
        ===

        .. currentmodule:: shop.fields

        Fields
        ------

        .. autoclass:: Field
           :members:

        Dates and times
        ---------------

        Timestamps are parsed by :meth:`~shop.fields.DateTime._deserialize`; a naive timestamp string
        keeps its timezone unset. See :class:`DateTime`.
        ''',
    "docs/cli.md": "# Command line\n\nThe `build_parser` options: a local config file is ignored on request.\n",
    "docs/changelog.rst": "Changes\n=======\n\n- Fixed :meth:`shop.cli.run` for timestamps.\n",
    "docs/releases/1.0.rst": "1.0\n===\n\nFixed :func:`shop.cli.main` timestamps.\n",
    "CHANGES.rst": "Fixed timestamps in :func:`shop.cli.main`.\n",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture(scope="module")
def documented(tmp_path_factory) -> CodebaseGraph:
    root = tmp_path_factory.mktemp("documented")
    _write(root, {**SHOP, **DOCS})
    return CodebaseGraph.from_repo(root)


def test_documentation_files_leave_out_release_notes(documented):
    assert doc_files(documented.root) == ["README.rst", "docs/api.rst", "docs/cli.md"]
    assert is_history("docs/whatsnew/2.0.rst") and is_history("HISTORY.md") and not is_history("docs/news_feed.rst")


def test_sections_split_at_headings_and_keep_the_module_context():
    text = textwrap.dedent(DOCS["docs/api.rst"])
    secs = sections("docs/api.rst", text)
    assert [s.title for s in secs] == ["API", "Fields", "Dates and times"]
    fields, dates = secs[1], secs[2]
    assert fields.refs == (Reference("Field", "shop.fields", "directive"),)
    assert [r.name for r in dates.refs] == ["shop.fields.DateTime._deserialize", "DateTime"]
    assert {r.module for r in dates.refs} == {"shop.fields"} and {r.kind for r in dates.refs} == {"role"}


def test_references_resolve_through_the_module_context_classes_and_bare_names(documented):
    assert resolve_ref(documented, Reference("Field", "shop.fields", "directive")) == \
        [node(documented, "src/shop/fields.py::Field")]
    assert resolve_ref(documented, Reference("DateTime._deserialize", "", "code")) == \
        [node(documented, "src/shop/fields.py::DateTime._deserialize")]
    assert resolve_ref(documented, Reference("build_parser", "", "code")) == \
        [node(documented, "src/shop/cli.py::build_parser")]
    assert resolve_ref(documented, Reference("nothing_here", "", "code")) == []


def test_the_matching_section_votes_for_what_it_cites(documented):
    query = "A naive timestamp string loses its timezone when parsed"
    index = docs_index(documented)
    best = top_sections(index, query, 1)
    assert len(best) == 1
    s = docs_scores(documented, query, k=1)
    cited = {documented.symbols[n].id for n in np.flatnonzero(s.symbol)}
    assert cited == {"src/shop/fields.py::DateTime._deserialize", "src/shop/fields.py::DateTime"}
    idx = graph_index(documented)
    assert s.file[idx.paths.index("src/shop/fields.py")] > 0 and s.file[idx.paths.index("src/shop/cli.py")] == 0


def test_release_notes_never_vote(documented):
    # only the changelogs cite shop.cli.main/run: a query in their words finds nothing there
    s = docs_scores(documented, "Fixed timestamps in main", k=5)
    assert not s.symbol[node(documented, "src/shop/cli.py::main")]
    assert not s.symbol[node(documented, "src/shop/cli.py::run")]


def test_a_graph_without_documentation_gives_no_evidence(shop):
    assert docs_index(shop).n_sections == 0
    assert docs_scores(shop, "timestamp timezone").empty


def test_a_graph_whose_snapshot_is_gone_is_an_error(tmp_path):
    _write(tmp_path / "tree", {"pkg/__init__.py": "def f():\n    return 1\n", "docs/index.rst": "``pkg.f``\n"})
    graph = CodebaseGraph.from_repo(tmp_path / "tree")
    assert build(graph, sections("docs/index.rst", "Use ``pkg.f``.")).n_sections == 1
    graph.root = str(tmp_path / "gone")
    with pytest.raises(DocsUnavailable, match="gone"):
        docs_scores(graph, "f")


def test_weight_zero_is_not_computed_and_the_signal_alone_ranks_the_cited_file(documented):
    query = "A naive timestamp string loses its timezone"
    assert_weight_zero_is_off(documented, "docs", query)
    ranked = get_method("docs_only", **method_params("docs_only")).rank(documented, query)
    assert {documented.symbols[n].path for n, _ in ranked} == {"src/shop/fields.py"}


def test_docs_k_must_be_a_positive_integer():
    with pytest.raises(ValueError, match="docs_k"):
        get_method("docs_only", **method_params("docs_only", {"docs_k": 0}))


_doc = st.lists(st.sampled_from(list("ab_.`:~<>()=-#*\n ") + [
    ":func:", ":meth:", ":class:", "``", ".. autoclass:: ", ".. currentmodule:: ", ".. py:method:: ", "Field",
    "shop.fields", "====", "\n\n", "`x <shop.y>`", "!", "py:"]), max_size=40).map("".join)


@given(_doc)
@settings(max_examples=300, deadline=None)
def test_parsing_never_raises_and_every_reference_is_in_the_text(text):
    refs, _ = references(text)
    for ref in refs:
        assert ref.name in text and (not ref.module or ref.module in text)
    secs = sections("docs/x.rst", text)
    for sec in secs:
        assert sec.text in text
        for ref in sec.refs:
            assert ref.name in sec.text and (not ref.module or ref.module in text)


def test_hybrid_docs_is_hybrid_follow_with_the_docs_bridge():
    assert method_params("hybrid_docs") == {**method_params("hybrid_follow"), "w_docs": 0.02, "docs_k": 1}

"""From named definitions to their use sites (``usesites``): users, exception users, callees, overriders.

On a small real package built in a temp dir: a vendored library whose exceptions the package imports and wraps
(``net/adapters.py`` imports a *subclass* of the named ``TimeoutError``), a model method delegating to a helper
in ``utils``, a subclass overriding a method, and a test file that imports everything (never a target).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import get_method
from beacon.retrieval.file_index import file_index
from beacon.retrieval.masks import packable
from beacon.retrieval.normalise import unit_scale
from beacon.retrieval.recipes import method_params
from beacon.retrieval.signals_real.index import graph_index
from beacon.retrieval.signals_real.usesites import (callee_scores, code_like, error_classes, error_user_scores,
                                                    overrider_scores, seeds, user_scores)
from tests.repotools import write_tree

FILES = {
    "net/__init__.py": "",
    "net/packages/__init__.py": "",
    "net/packages/lib/__init__.py": "",
    "net/packages/lib/exceptions.py": '''\
        class LibError(Exception):
            pass


        class DecodeError(LibError):
            pass


        class TimeoutError(LibError):
            pass


        class ReadTimeoutError(TimeoutError):
            pass
        ''',
    "net/packages/lib/response.py": '''\
        from .exceptions import DecodeError


        def decode(data):
            raise DecodeError(data)
        ''',
    "net/adapters.py": '''\
        from .packages.lib.exceptions import ReadTimeoutError


        def send(request):
            try:
                return request()
            except ReadTimeoutError:
                return None
        ''',
    "net/models.py": '''\
        from .utils import stream_decode_unicode, to_list


        class Response:
            def iter_content(self, decode_unicode=False):
                items = to_list(self)
                return stream_decode_unicode(items) if decode_unicode else items

            def close(self):
                return None
        ''',
    "net/utils.py": '''\
        def stream_decode_unicode(items):
            return [str(x) for x in items]


        def to_list(value):
            return list(value)
        ''',
    "net/sessions.py": '''\
        from .models import Response


        class StreamResponse(Response):
            def iter_content(self, decode_unicode=False):
                return []


        def fetch():
            return Response().iter_content()
        ''',
    "tests/test_net.py": '''\
        from net.models import Response
        from net.packages.lib.exceptions import ReadTimeoutError


        def test_fetch():
            Response().iter_content(decode_unicode=True)
        ''',
}


@pytest.fixture(scope="module")
def net(tmp_path_factory) -> CodebaseGraph:
    return CodebaseGraph.from_repo(write_tree(tmp_path_factory.mktemp("net"), FILES, dedent=True))


def _files(graph: CodebaseGraph, found) -> dict[str, float]:
    paths = graph_index(graph).paths
    return {paths[i]: round(float(v), 6) for i, v in enumerate(found.file) if v}


def _symbols(graph: CodebaseGraph, found) -> dict[str, float]:
    return {graph.symbols[i].id: round(float(v), 6) for i, v in enumerate(found.symbol) if v}


ITER = "`r.iter_content(decode_unicode=True)` returns bytes, not unicode, when I stream."


def test_error_classes_are_read_from_prose_and_dotted_names():
    assert error_classes("net.packages.lib.exceptions.DecodeError and TimeoutError leak; OSError too") == [
        "DecodeError", "TimeoutError", "OSError"]
    assert error_classes("no exceptions here, Errors aside") == []


def test_code_like_identifiers_are_those_with_underscores_or_inner_capitals():
    assert code_like("defer Command.help, short_help and CliRunner; not help nor Command nor _ alone") == [
        "short_help", "CliRunner"]


_WORDS = [*"aZ_.:`'( \n", "Error", "Warning", "get_x", "CliRunner", "x.y"]
_TEXT = st.lists(st.sampled_from(_WORDS) | st.text(max_size=3), max_size=30).map("".join)


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_the_text_readers_never_raise_and_extract_only_what_is_written(text):
    for found in (error_classes(text), code_like(text)):
        assert all(item and item in text for item in found)
        assert len(found) == len(set(found))


def test_seeds_are_the_named_definitions_not_tests_nor_modules(net):
    seed = seeds(net, ITER)
    named = {net.symbols[i].id for i in np.flatnonzero(seed)}
    assert "net/models.py::Response.iter_content" in named
    assert "net/sessions.py::StreamResponse.iter_content" in named  # the name is shared by both definitions
    assert not any(s.startswith("tests/") or s.endswith("<module>") for s in named)


def test_users_are_callers_and_importers_in_other_files_not_tests(net):
    found = user_scores(net, "`Response.close` of `net.models.Response` hangs")
    files = _files(net, found)
    # Response is imported by sessions (module) and called by sessions.fetch: one unit shared by the two users
    assert files == {"net/sessions.py": 1.0}
    assert _symbols(net, found) == {"net/sessions.py::<module>": 0.5, "net/sessions.py::fetch": 0.5}


def test_error_users_reach_the_importer_of_a_subclass_outside_the_vendored_tree(net):
    query = "net.packages.lib.exceptions.TimeoutError passes through the API"
    assert user_scores(net, query).empty  # only vendored code and tests use TimeoutError itself
    assert _files(net, error_user_scores(net, query)) == {"net/adapters.py": 1.0}
    # a name that is no exception class and not vendored seeds nothing here
    assert error_user_scores(net, "`Response.close` of `net.models.Response` hangs").empty


def test_callees_sharing_the_issues_terms_count_and_generic_helpers_do_not(net):
    found = callee_scores(net, ITER)
    symbols = _symbols(net, found)
    assert set(symbols) == {"net/utils.py::stream_decode_unicode"}  # to_list shares no term with the issue
    # iter_content is named twice (models and sessions: 1/2 each); only models' calls it; all its terms are used
    assert symbols["net/utils.py::stream_decode_unicode"] == pytest.approx(0.5)


def test_overriders_are_subclasses_and_overriding_methods_in_other_files(net):
    assert _symbols(net, overrider_scores(net, "`net.models.Response` is wrong")) == {
        "net/sessions.py::StreamResponse": 1.0}
    found = _symbols(net, overrider_scores(net, "net.models.Response.iter_content is wrong"))
    assert found == {"net/sessions.py::StreamResponse.iter_content": 1.0}


def test_a_hub_shares_its_unit_among_its_targets(net):
    # the test file also imports ReadTimeoutError but is never a target: the one other user gets the whole unit
    found = _symbols(net, user_scores(net, "net.packages.lib.exceptions.ReadTimeoutError"))
    assert found == {"net/adapters.py::<module>": 1.0}
    two = _symbols(net, user_scores(net, "`net.models.Response`"))
    assert sum(two.values()) == pytest.approx(1.0) and len(two) == 2


@pytest.mark.parametrize("weight", ["w_users", "w_error_users", "w_callees", "w_overriders"])
def test_each_variant_at_zero_is_the_base_ranking_and_alone_ranks_only_its_reach(net, weight):
    base = get_method("hybrid_code", **method_params("hybrid_code"))
    zero = get_method("hybrid_code", **{**method_params("hybrid_code"), weight: 0.0})
    assert list(zero.ranked_nodes(net, ITER)[0]) == list(base.ranked_nodes(net, ITER)[0])
    alone = get_method("no_retrieval", **{weight: 1.0})
    nodes, _ = alone.ranked_nodes(net, "`net.models.Response.iter_content` of net.packages.lib.exceptions."
                                       "TimeoutError with `decode_unicode`")
    assert not any(net.symbols[n].path.startswith("tests/") for n in nodes)


def test_the_stage_adds_each_variants_weighted_unit_evidence_and_file_votes(net):
    query = ITER + " net.models.Response and net.packages.lib.exceptions.TimeoutError, `Response.close`"
    weights = {"w_users": 0.2, "w_error_users": 0.3, "w_callees": 0.25, "w_overriders": 0.1}
    base = get_method("hybrid_code", **method_params("hybrid_code")).scores(net, query).total
    got = get_method("hybrid_code", **{**method_params("hybrid_code"), **weights}).scores(net, query).total
    cand, file_of = packable(net), file_index(net).file_of
    # hybrid_code's total is already the issue stage's (scaled, its own signals added); ours come last, in order
    expected = base.copy()
    for weight, signal in (("w_users", user_scores), ("w_error_users", error_user_scores),
                           ("w_callees", callee_scores), ("w_overriders", overrider_scores)):
        found = signal(net, query)
        assert not found.empty, weight  # every variant has evidence here: the formula is checked for each
        lift = (unit_scale(found.symbol, np.ones(len(found.symbol), dtype=bool))
                + unit_scale(found.file, np.ones(len(found.file), dtype=bool))[file_of])
        expected = expected + weights[weight] * np.where(cand, lift, 0.0)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_usesites_only_ranks_only_what_the_propagation_reaches(net):
    ranked = {net.symbols[n].path for n, _ in get_method("usesites_only", **method_params("usesites_only"))
              .rank(net, "net.packages.lib.exceptions.TimeoutError leaks")}
    assert ranked == {"net/adapters.py"}

"""The graph of a real tree: psf/requests at a pinned SWE-bench tag.

Every asserted edge below was checked by reading the requests source at that tag.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from beacon.graph import CodebaseGraph, EdgeType, GraphBuilder

C, I, H, K = EdgeType.CALLS, EdgeType.IMPORTS, EdgeType.INHERITS, EdgeType.CONTAINS


@pytest.fixture(scope="module")
def requests_tree(tmp_path_factory, clone_requests) -> Path:
    return clone_requests(tmp_path_factory)


@pytest.fixture(scope="module")
def graph(requests_tree) -> CodebaseGraph:
    return CodebaseGraph.from_repo(requests_tree)


def test_whole_tree_indexed(graph, requests_tree):
    py_files = {p.relative_to(requests_tree).as_posix() for p in requests_tree.rglob("*.py")
                if ".git" not in p.parts}
    assert set(graph.files) | {s.path for s in graph.skipped} == py_files
    assert graph.skipped == []
    assert "requests/sessions.py::Session.request" in graph.index
    assert graph.symbol("requests/sessions.py::Session.request").kind == "method"
    assert graph.files["requests/packages/urllib3/poolmanager.py"].module == "requests.packages.urllib3.poolmanager"
    assert graph.stats["calls_total"] == sum(
        graph.stats.get(k, 0) for k in ("calls_resolved", "calls_fallback", "calls_external", "calls_unresolved"))


def test_api_get_calls_api_request(graph):
    # api.get: `return request('get', url, **kwargs)` -- same-module name
    assert graph.has_edge("requests/api.py::get", "requests/api.py::request", C)
    # api.request: `session = sessions.Session()` via `from . import sessions`
    assert graph.has_edge("requests/api.py::request", "requests/sessions.py::Session", C)
    assert graph.has_edge("requests/api.py::<module>", "requests/sessions.py::<module>", I)


def test_session_request_calls_through_self(graph):
    out = {graph.symbols[int(j)].id for j in graph.neighbors(graph.index["requests/sessions.py::Session.request"], C)}
    assert {
        "requests/sessions.py::Session.send",                      # self.send(prep, ...)
        "requests/sessions.py::Session.prepare_request",           # self.prepare_request(req)
        "requests/sessions.py::Session.merge_environment_settings",
        "requests/models.py::Request",                             # from .models import Request
    } <= out


def test_session_send_reaches_mixin_and_imported_functions(graph):
    send = "requests/sessions.py::Session.send"
    # self.resolve_redirects is defined on the base class SessionRedirectMixin
    assert graph.has_edge(send, "requests/sessions.py::SessionRedirectMixin.resolve_redirects", C)
    assert graph.has_edge(send, "requests/hooks.py::dispatch_hook", C)       # from .hooks import
    assert graph.has_edge(send, "requests/cookies.py::extract_cookies_to_jar", C)
    assert graph.has_edge(send, "requests/sessions.py::Session.get_adapter", C)


def test_inheritance_within_and_across_modules(graph):
    assert graph.has_edge("requests/sessions.py::Session", "requests/sessions.py::SessionRedirectMixin", H)
    assert graph.has_edge("requests/adapters.py::HTTPAdapter", "requests/adapters.py::BaseAdapter", H)
    # poolmanager.py: `from .request import RequestMethods`; class PoolManager(RequestMethods)
    assert graph.has_edge("requests/packages/urllib3/poolmanager.py::PoolManager",
                          "requests/packages/urllib3/request.py::RequestMethods", H)
    # chardet: EUCKRProber(MultiByteCharSetProber) from .mbcharsetprober; self.reset() is inherited
    prober = "requests/packages/chardet/euckrprober.py::EUCKRProber"
    base = "requests/packages/chardet/mbcharsetprober.py::MultiByteCharSetProber"
    assert graph.has_edge(prober, base, H)
    assert graph.has_edge(f"{prober}.__init__", f"{base}.reset", C)
    assert graph.has_edge(f"{prober}.__init__", f"{base}.__init__", C)  # MultiByteCharSetProber.__init__(self)
    subclasses = {graph.symbols[int(j)].id for j in graph.neighbors(graph.index[base], H, reverse=True)}
    assert prober in subclasses and len(subclasses) >= 5


def test_package_reexports_resolve_from_tests(graph):
    # test_requests.py: `import requests; requests.get(url, auth=auth)` -> requests/__init__ re-export
    case = "test_requests.py::RequestsTestCase.test_DIGEST_HTTP_200_OK_GET"
    assert graph.symbol(case).is_test
    assert graph.has_edge(case, "requests/api.py::get", C)
    assert graph.has_edge(case, "requests/auth.py::HTTPDigestAuth", C)   # from requests.auth import
    assert graph.has_edge("test_requests.py::RequestsTestCase.test_HTTP_200_OK_GET_ALTERNATIVE",
                          "requests/sessions.py::Session", C)            # requests.Session()
    assert graph.has_edge("test_requests.py::RedirectSession", "requests/sessions.py::SessionRedirectMixin", H)


def test_adapter_builds_response_from_models(graph):
    assert graph.has_edge("requests/adapters.py::HTTPAdapter.build_response", "requests/models.py::Response", C)
    assert graph.has_edge("requests/adapters.py::HTTPAdapter.send", "requests/adapters.py::HTTPAdapter.get_connection", C)
    assert graph.has_edge("requests/adapters.py::HTTPAdapter", "requests/adapters.py::HTTPAdapter.send", K)


def test_save_load_and_warm_cache_on_real_tree(graph, requests_tree, tmp_path, same_graph):
    loaded = CodebaseGraph.load(graph.save(tmp_path / "saved"))
    assert loaded.symbols == graph.symbols
    for etype in EdgeType:
        assert isinstance(loaded.edges[etype][1], np.memmap)
        assert np.array_equal(loaded.edges[etype][1], graph.edges[etype][1])
    assert loaded.source("requests/api.py::get") == graph.source("requests/api.py::get")
    assert loaded.source("requests/api.py::get").startswith("def get(url, **kwargs):")
    builder = GraphBuilder(requests_tree, cache_dir=tmp_path / "cache")
    same_graph(builder.build(), graph)
    api = requests_tree / "requests" / "api.py"
    original = api.read_text()
    try:
        api.write_text(original.replace("kwargs.setdefault('allow_redirects', True)\n    return request('get'",
                                        "kwargs.setdefault('allow_redirects', False)\n    return request('get'", 1))
        rebuilt = builder.build()
        assert builder.last_reparsed == ["requests/api.py"]
        assert "False" in rebuilt.source("requests/api.py::get")
        same_graph(rebuilt, CodebaseGraph.from_repo(requests_tree))
    finally:
        api.write_text(original)

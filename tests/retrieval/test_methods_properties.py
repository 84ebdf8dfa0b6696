"""Every registered method on generated repositories, budgets 0…50,000.

Properties: the context's exact token count equals ``total_tokens`` and never
exceeds the budget; budget 0 gives an empty context; identical inputs give
identical output (also across separately built graphs).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from beacon.graph import CodebaseGraph
from beacon.repo.history import EMPTY_HISTORY
from beacon.retrieval import assemble_context, method_names
from beacon.tokens import count_tokens

WORDS = ["retry", "delay", "compute", "session", "cache", "token", "parse", "budget",
         "render", "header", "socket", "timeout", "encode", "decode", "request", "response"]
ODD_TEXT = ["<|endoftext|>", "café ☕", "tab\there", "trailing   ", "\u2028sep", "x\x0cy", "ünïcode"]


@st.composite
def repos(draw):
    n_modules = draw(st.integers(1, 4))
    names = [f"mod{i}" for i in range(n_modules)]
    all_funcs: list[tuple[str, str]] = []
    plan = []
    for m in names:
        funcs = [f"{draw(st.sampled_from(WORDS))}_{draw(st.sampled_from(WORDS))}_{i}"
                 for i in range(draw(st.integers(1, 5)))]
        plan.append((m, funcs))
        all_funcs.extend((m, f) for f in funcs)
    files = {"pkg/__init__.py": ""}
    for m, funcs in plan:
        lines = [f'"""Module {m}: {draw(st.sampled_from(WORDS))} helpers."""', "from pkg import " + ", ".join(names), ""]
        for f in funcs:
            callee_mod, callee = draw(st.sampled_from(all_funcs))
            doc = " ".join(draw(st.lists(st.sampled_from(WORDS + ODD_TEXT), min_size=1, max_size=12)))
            lines += [f"def {f}(value):", f"    {doc!r}",
                      f"    return {callee_mod}.{callee}(value) if value else {draw(st.integers(0, 9))}", ""]
        if draw(st.booleans()):
            lines += [f"class {draw(st.sampled_from(WORDS)).title()}Handler:", "    '''" + " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=6))) + "'''",
                      "", "    def handle(self, value):", f"        return {funcs[0]}(value)  ", ""]
        files[f"pkg/{m}.py"] = "\n".join(lines) + ("\n" if draw(st.booleans()) else "")
    if draw(st.booleans()):
        files["tests/test_pkg.py"] = f"from pkg.{names[0]} import {plan[0][1][0]}\n\ndef test_it():\n    assert {plan[0][1][0]}(0) == 0\n"
    return files


def build(files: dict[str, str], root: Path) -> CodebaseGraph:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return CodebaseGraph.from_repo(root)


def params_for(name: str, graph: CodebaseGraph) -> dict:
    if name == "target_file":
        return {"target": sorted(p for p in graph.files if p.startswith("pkg/mod"))[0] + ":3"}
    return {}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(repos(), st.lists(st.sampled_from(WORDS), min_size=0, max_size=6),
       st.lists(st.integers(0, 50_000), min_size=1, max_size=3))
def test_every_method_is_exact_and_within_budget(files, query_words, budgets):
    query = "Where is the " + " ".join(query_words) + " computed?"
    # The generated repositories have no git history: methods that need history get an empty one.
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        graph, twin = build(files, Path(a)), build(files, Path(b))
        for name in method_names():
            params = params_for(name, graph)
            for budget in [0, *budgets]:
                result = assemble_context(graph, query, name, budget=budget, inputs=EMPTY_HISTORY, **params)
                rendered = result.context.render()
                assert count_tokens(rendered) == result.context.total_tokens <= budget, (name, budget)
                if budget == 0:
                    assert rendered == "" and result.context.snippets == ()
                again = assemble_context(twin, query, name, budget=budget, inputs=EMPTY_HISTORY, **params)
                assert again.context.render() == rendered, (name, budget)
                assert again.ranking == result.ranking, name
                ids = result.context.symbol_ids
                assert len(ids) == len(set(ids)), name
                # test code is never a candidate by default
                assert not any(graph.symbol(i).is_test for i in ids), name
                assert not any(graph.symbol(i).is_test for i, _ in result.ranking), name

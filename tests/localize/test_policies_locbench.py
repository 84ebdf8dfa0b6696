"""Policies on a real git snapshot: the scripted baseline and the LLM loop driven by real Provider classes."""
from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from beacon.graph import CodebaseGraph
from beacon.localize.env import LocBenchEnv
from beacon.localize.repository import Repository
from beacon.localize.policies import (DROPPED_OBSERVATION, LLM_PROMPT_VERSION, PromptBudgetError, parse_reply,
                                      run_llm, run_scripted, strongest_identifiers)
from beacon.providers.base import Completion, prompt_sha256, sha256_hex
from beacon.providers.oracle import OracleProvider
from beacon.tokens import count_tokens
from repotools import commit_tree

FILES = {
    "shop/__init__.py": "",
    "shop/cart.py": '''
        """Shopping cart."""
        from .pricing import apply_discount


        class Cart:
            def __init__(self):
                self.items = []

            def add(self, name, price):
                self.items.append((name, price))

            def total(self):
                return sum(price for _, price in self.items)
        ''',
    "shop/pricing.py": '''
        """Prices and discounts."""


        def apply_discount(amount, percent):
            """Reduce amount by percent."""
            return amount - amount * percent / 10


        def format_price(amount):
            return f"${amount:.2f}"
        ''',
    "shop/inventory.py": '''
        def stock_level(store, name):
            return store.get(name, 0)
        ''',
    "tests/test_pricing.py": '''
        from shop.pricing import apply_discount


        def test_discount():
            assert apply_discount(100, 10) == 90
        ''',
}
QUERY = "apply_discount gives the wrong discounted amount: 10 percent off 100 returns 0 instead of 90"


@dataclass(frozen=True)
class FakeGold:
    instance_id: str
    units: tuple[str, ...]
    gold_files: tuple[str, ...]

    def files(self) -> tuple[str, ...]:
        return self.gold_files


GOLD = FakeGold("shop-1", ("shop/pricing.py::apply_discount",), ("shop/pricing.py",))


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    return commit_tree(tmp_path_factory.mktemp("shop"), FILES, message="shop")


@pytest.fixture(scope="module")
def graph(snapshot):
    return CodebaseGraph.from_repo(snapshot[0])


def new_env(snapshot, **kw) -> LocBenchEnv:
    return LocBenchEnv(Repository(*snapshot), GOLD, **kw)


class ScriptedProvider:
    """A real Provider: answers each prompt with the next canned reply, remembering the prompts."""

    name = "scripted"

    def __init__(self, replies: list[str | tuple[str, str]]):
        self.replies = list(replies)  # a (text, "length") pair is a completion cut at the token limit
        self.prompts: list[str] = []

    def complete(self, prompt: str, *, max_tokens: int, temperature: float = 0.0, seed: int | None = 0) -> Completion:
        self.prompts.append(prompt)
        reply = self.replies.pop(0) if self.replies else '{"tool": "list", "args": {"path": ""}}'
        text, stop = reply if isinstance(reply, tuple) else (reply, "stop")
        return Completion(text=text, input_tokens=count_tokens(prompt), output_tokens=count_tokens(text),
                          stop_reason=stop, raw_stop_reason=stop, model="scripted-1", model_digest=None,
                          request_sha256=prompt_sha256(prompt), response_sha256=sha256_hex(text.encode()),
                          server_authenticated=None, truncated=stop == "length", latency_s=0.0)


def call(tool: str, **args) -> str:
    return json.dumps({"tool": tool, "args": args})


def test_strongest_identifiers_prefer_defined_names(graph):
    assert strongest_identifiers(QUERY, graph) == ["apply_discount"]
    assert strongest_identifiers("the cart is wrong", graph) == ["wrong"]  # no code-like word: the longest word


def test_scripted_policy_finds_the_file_and_is_deterministic(snapshot, graph):
    first = run_scripted(new_env(snapshot), QUERY, graph)
    again = run_scripted(new_env(snapshot), QUERY, graph)
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    tools = [step["call"]["tool"] for step in first["trajectory"]]
    assert tools == ["grep", "read", "read", "submit"]  # only two symbols match the query
    assert first["reason"] == "submitted" and first["submission"]["files"][0] == "shop/pricing.py"
    assert first["submission"]["symbols"][0] == "shop/pricing.py::apply_discount"
    assert first["score"]["files"]["recall"] == 1.0 and first["score"]["units"]["recall"] == 1.0
    assert "shop/pricing.py::apply_discount" in first["trajectory"][1]["shown"]["symbols"]


def test_scripted_policy_keeps_its_last_call_for_submit(snapshot, graph):
    result = run_scripted(new_env(snapshot, call_budget=2), QUERY, graph, reads=5)
    assert [s["call"]["tool"] for s in result["trajectory"]] == ["grep", "submit"]
    assert result["score"]["submitted"]


def test_llm_policy_records_everything_and_never_runs_bad_replies(snapshot):
    provider = ScriptedProvider([
        call("grep", pattern="def apply_discount"),
        "I think the bug is in pricing.",                                   # unparseable
        (call("read", path="shop/cart.py"), "length"),                      # parses, but cut: never executed
        '```json\n{"tool": "read", "args": {"path": "shop/pricing.py", "start": 4, "lines": 3}}\n```',
        "[1, 2]",                                                           # JSON, not an object
        call("submit", files=["shop/pricing.py"], symbols=["shop/pricing.py::apply_discount"]),
    ])
    result = run_llm(new_env(snapshot), QUERY, provider, max_steps=10, max_tokens=200)
    steps = result["trajectory"]
    assert [s["ok"] for s in steps] == [True, False, False, True, False, True]
    assert [s["error"]["type"] for s in steps if s["error"]] == ["invalid_reply"] * 3
    assert steps[2]["shown"]["files"] == [] and "not executed" in steps[2]["error"]["message"]
    assert "shop/cart.py" not in steps[-1]["seen"]["files"]
    assert [s["meta"]["prompt_sha256"] for s in steps] == [prompt_sha256(p) for p in provider.prompts]
    assert steps[1]["meta"]["completion"]["text"] == "I think the bug is in pricing."
    assert steps[2]["meta"]["completion"]["usable"] is False
    assert result["calls_used"] == 6 and result["reason"] == "submitted"
    assert result["score"]["files"]["recall"] == 1.0 and result["score"]["units"]["precision"] == 1.0
    assert result["policy"]["prompt_version"] == LLM_PROMPT_VERSION
    # each prompt carries the history: the second one shows the grep observation and the protocol
    assert "shop/pricing.py:4: def apply_discount(amount, percent):" in provider.prompts[1]
    assert '{"tool": "<name>", "args": {...}}' in provider.prompts[0] and QUERY in provider.prompts[0]
    assert "ERROR [invalid_reply]" in provider.prompts[2]


def test_llm_prompt_stays_within_budget_dropping_oldest_observations(snapshot):
    provider = ScriptedProvider([call("read", path="shop/cart.py"), call("read", path="shop/pricing.py"),
                                 call("grep", pattern="def "), call("submit", files=["shop/pricing.py"])])
    budget = 560
    result = run_llm(new_env(snapshot), QUERY, provider, max_steps=6, prompt_tokens=budget)
    assert all(count_tokens(p) <= budget for p in provider.prompts)
    dropped = [s["meta"]["dropped_observations"] for s in result["trajectory"]]
    assert dropped[0] == 0 and dropped[-1] >= 1 and dropped == sorted(dropped)
    assert DROPPED_OBSERVATION in provider.prompts[-1] and result["reason"] == "submitted"
    with pytest.raises(PromptBudgetError, match="too small"):
        run_llm(new_env(snapshot), QUERY, ScriptedProvider([]), prompt_tokens=50)


def test_llm_policy_ends_at_max_steps_or_budget_with_zero_score(snapshot):
    wander = ScriptedProvider([call("list", path=""), call("list", path="shop")])
    result = run_llm(new_env(snapshot), QUERY, wander, max_steps=2)
    assert result["reason"] == "max_steps" and result["score"]["submitted"] is False
    assert result["score"]["files"]["recall"] == 0.0
    garbage = ScriptedProvider(["nope"] * 5)
    result = run_llm(new_env(snapshot, call_budget=3), QUERY, garbage, max_steps=10)
    assert result["reason"] == "call_budget_exhausted" and result["calls_used"] == 3
    assert "This is your last call: submit now." in garbage.prompts[-1]


def test_llm_policy_through_the_oracle_provider(snapshot):
    oracle = OracleProvider(call("submit", symbols=["shop/pricing.py::apply_discount"]))
    result = run_llm(new_env(snapshot), QUERY, oracle, max_steps=5)
    assert len(result["trajectory"]) == 1 and result["policy"]["provider"] == "oracle"
    assert result["submission"] == {"files": ["shop/pricing.py"], "symbols": ["shop/pricing.py::apply_discount"],
                                    "dropped": {"files": 0, "symbols": 0}}
    assert result["score"]["units"] == {"recall": 1.0, "precision": 1.0, "hits": 1, "predicted": 1, "gold": 1}
    repeat = run_llm(new_env(snapshot), QUERY, OracleProvider(call("list", path="")), max_steps=5)
    assert repeat["reason"] == "repeated_call" and repeat["calls_used"] == 2


def test_parse_reply_is_strict_about_one_object():
    assert parse_reply(' {"tool": "list", "args": {}} ') == ({"tool": "list", "args": {}}, None)
    assert parse_reply('{"tool": "list"} and more')[0] is None
    assert parse_reply('```\n{"tool": "list"}\n```')[0] == {"tool": "list"}

"""Policies that drive a ``LocBenchEnv``: a scripted retrieval baseline and an LLM over any ``Provider``.

``run_scripted`` is deterministic: rank symbols with a retrieval method, grep
for the query's strongest identifiers, read the top symbols, submit. It is the
floor an agent should beat with the same call budget.

``run_llm`` renders the whole episode into one prompt per turn (``Provider``
takes a single string) and expects one JSON tool call back. The prompt is
versioned (``LLM_PROMPT_VERSION``; its template hash is recorded). When the
rendered prompt exceeds ``prompt_tokens`` (cl100k, ``beacon.tokens``), the
oldest observations are replaced by a placeholder first, then the oldest
turns are dropped whole: the model keeps its own recent reasoning and the
newest evidence longest. Every turn is one env step: a parsed call, or an
``invalid_reply`` (unparseable, not an object, or an unusable completion such
as one cut at the length limit, which is never executed even if it parses),
so bad replies spend the call budget like any other call. Prompt hashes and
completion texts are stored in each step's ``meta``.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ..graph.codebase import CodebaseGraph
from ..providers.base import Completion, Provider, prompt_sha256
from ..retrieval import assemble_context
from ..retrieval.text import STOPWORDS
from ..tokens import count_tokens
from .env import LocBenchEnv
from .repository import MAX_READ_LINES

LLM_PROMPT_VERSION = "locbench-tools-v1"
_TEMPLATE = """\
You are localizing the code that must change to resolve an issue in a Python repository.
Explore the repository with tools, one call per turn, then submit the locations.

Reply with exactly one JSON object and nothing else:
{{"tool": "<name>", "args": {{...}}}}

Tools:
- list   {{"path": "<directory>"}}  entries of a directory ("" is the repository root); folders end in "/".
- read   {{"path": "<file>", "start": <first line, default 1>, "lines": <count, at most 200>}}  numbered lines.
- grep   {{"pattern": "<Python regex>", "path": "<directory or file, default all>", "max_hits": <at most 200>}}
         matching lines of .py files, as path:line: text.
- submit {{"files": ["pkg/module.py", ...], "symbols": ["pkg/module.py::Class.method", ...]}}
         your final answer, most likely first, at most {max_locations} of each; module-level code is
         "pkg/module.py::<module>". Submitting ends the episode.

Rules: paths are relative to the repository root. You have {call_budget} calls in total; invalid replies
count too. {repeat_rule} An episode that ends without a submission scores zero.

## Issue
{query}
"""
TEMPLATE_SHA256 = hashlib.sha256(_TEMPLATE.encode("utf-8")).hexdigest()
DROPPED_OBSERVATION = "[observation omitted to fit the prompt budget]"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GREP_ROW = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): ", re.MULTILINE)


class PromptBudgetError(ValueError):
    """The fixed part of the prompt (instructions + issue) alone exceeds ``prompt_tokens``."""


# -- scripted -------------------------------------------------------------------
def strongest_identifiers(query: str, graph: CodebaseGraph, k: int = 3) -> list[str]:
    """Up to ``k`` query identifiers most likely to name code, best first.

    A name defined in the graph beats one that merely looks like code
    (``snake_case``, ``camelCase``, digits), which beats a plain word; ties go
    to the longer, then the earlier identifier. Plain words are used only
    when nothing looks like code.
    """
    defined = {s.name for s in graph.symbols if s.kind != "module"}
    found: dict[str, tuple[int, int, int]] = {}
    for position, match in enumerate(_IDENT.finditer(query)):
        word = match.group()
        if len(word) < 3 or word.lower() in STOPWORDS or word in found:
            continue
        codish = "_" in word.strip("_") or any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])
        strength = 2 if word in defined else int(codish)
        found[word] = (-strength, -len(word), position)
    ranked = sorted(found, key=found.__getitem__)
    strong = [w for w in ranked if found[w][0] < 0]
    return (strong or ranked[:1])[:k]


def grep_hits(output: str) -> dict[str, set[int]]:
    """``path -> hit lines`` from a grep observation (``path:line: text`` rows)."""
    hits: dict[str, set[int]] = {}
    for m in _GREP_ROW.finditer(output):
        hits.setdefault(m.group("path"), set()).add(int(m.group("line")))
    return hits


def run_scripted(env: LocBenchEnv, query: str, graph: CodebaseGraph, method: str = "bm25",
                 reads: int = 3) -> dict[str, Any]:
    """Rank, grep the strongest identifiers, read the top ``reads`` symbols, submit; the env's result.

    Ranked symbols that contain a grep hit move ahead of the others (keeping
    rank order within each group). The last call is always kept for submit.
    """
    ranking = [sid for sid, _ in assemble_context(graph, query, method, budget=0).ranking]
    words = strongest_identifiers(query, graph)
    hits: dict[str, set[int]] = {}
    if words and env.calls_left > 1:
        pattern = r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b"
        obs = env.step({"tool": "grep", "args": {"pattern": pattern}})
        hits = grep_hits(obs["output"]) if obs["ok"] else {}

    def contains_hit(sid: str) -> bool:
        s = graph.symbol(sid)
        return any(s.start_line <= line <= s.end_line for line in hits.get(s.path, ()))

    order = sorted(ranking, key=lambda sid: not contains_hit(sid))  # stable: rank order within groups
    for sid in order[:reads]:
        if env.calls_left <= 1 or env.done:
            break
        s = graph.symbol(sid)
        lines = min(MAX_READ_LINES, s.end_line - s.start_line + 1)
        env.step({"tool": "read", "args": {"path": s.path, "start": s.start_line, "lines": lines}})
    symbols = order[:env.max_locations]
    files = list(dict.fromkeys([graph.symbol(sid).path for sid in order] + sorted(hits)))
    if not env.done:
        env.step({"tool": "submit", "args": {"files": files[:env.max_locations], "symbols": symbols}})
    return {"policy": {"name": "scripted", "method": method, "reads": reads, "grep_words": words},
            **env.result()}


# -- LLM ------------------------------------------------------------------------
def parse_reply(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """``(call, None)`` when ``text`` is exactly one JSON object, else ``(None, problem)``.

    A surrounding code fence is tolerated; prose around the object is not.
    """
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*\n?(.*?)\n?\s*```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, f"the reply is not one JSON object ({exc}); reply with only {{\"tool\": ..., \"args\": {{...}}}}"
    if not isinstance(value, dict):
        return None, f"the reply is JSON but not an object (got {type(value).__name__})"
    return value, None


def render_observation(obs: dict[str, Any]) -> str:
    head = f"(call {obs['calls_used']}, {obs['calls_left']} left)"
    if obs["ok"]:
        return f"{head}\n{obs['output']}"
    return f"{head}\nERROR [{obs['error']['type']}]: {obs['error']['message']}"


def render_prompt(query: str, history: list[tuple[str, str]], env: LocBenchEnv,
                  prompt_tokens: int) -> tuple[str, int, int, int]:
    """``(prompt, tokens, observations dropped, turns dropped)`` within ``prompt_tokens``."""
    repeat_rule = ("Repeating an identical call ends the episode." if env.repeat_limit == 0 else
                   f"Only {env.repeat_limit} repeated identical calls are tolerated; the next one ends the episode.")
    head = _TEMPLATE.format(max_locations=env.max_locations, call_budget=env.call_budget,
                            repeat_rule=repeat_rule, query=query)
    last = "This is your last call: submit now." if env.calls_left <= 1 else "Reply with one JSON tool call."
    tail = f"\n## Your turn\nCalls left: {env.calls_left}. {last}\n"
    observations = [obs for _, obs in history]
    first, dropped_obs = 0, 0

    def render() -> str:
        parts = [head]
        if history:
            parts.append("\n## Conversation so far\n")
            if first:
                parts.append(f"[{first} earlier turns omitted to fit the prompt budget]\n")
            for i in range(first, len(history)):
                parts.append(f"\n### Turn {i + 1}\nASSISTANT:\n{history[i][0]}\nOBSERVATION:\n{observations[i]}\n")
        parts.append(tail)
        return "".join(parts)

    prompt = render()
    tokens = count_tokens(prompt)
    while tokens > prompt_tokens:
        if dropped_obs < len(history):  # oldest observations first ...
            observations[dropped_obs] = DROPPED_OBSERVATION
            dropped_obs += 1
        elif first < len(history):  # ... then the oldest whole turns
            first += 1
        else:
            raise PromptBudgetError(f"prompt_tokens={prompt_tokens} is too small: the instructions and the issue "
                                    f"alone take {tokens} tokens")
        prompt = render()
        tokens = count_tokens(prompt)
    return prompt, tokens, dropped_obs, first


def _completion_record(c: Completion) -> dict[str, Any]:
    # latency and raw payloads vary between identical runs; they stay out of the record
    return {"text": c.text, "usable": c.usable, "stop_reason": c.stop_reason, "raw_stop_reason": c.raw_stop_reason,
            "truncated": c.truncated, "unusable_reason": c.unusable_reason, "model": c.model,
            "model_digest": c.model_digest, "input_tokens": c.input_tokens, "output_tokens": c.output_tokens,
            "request_sha256": c.request_sha256, "response_sha256": c.response_sha256}


def run_llm(env: LocBenchEnv, query: str, provider: Provider, max_steps: int = 20, max_tokens: int = 512, *,
            prompt_tokens: int = 8000, temperature: float = 0.0, seed: int | None = 0) -> dict[str, Any]:
    """Let ``provider`` drive the tools for at most ``max_steps`` turns; the env's result plus the policy.

    ``max_tokens`` bounds each completion (as in ``Provider.complete``);
    ``prompt_tokens`` bounds each rendered prompt. An episode still open after
    ``max_steps`` turns ends with reason ``max_steps`` and scores zero.
    """
    history: list[tuple[str, str]] = []
    for turn in range(max_steps):
        if env.done:
            break
        prompt, tokens, dropped_obs, dropped_turns = render_prompt(query, history, env, prompt_tokens)
        completion = provider.complete(prompt, max_tokens=max_tokens, temperature=temperature, seed=seed)
        meta = {"turn": turn, "prompt_sha256": prompt_sha256(prompt), "prompt_tokens": tokens,
                "dropped_observations": dropped_obs, "dropped_turns": dropped_turns,
                "completion": _completion_record(completion)}
        if not completion.usable:
            why = completion.unusable_reason or f"stop reason {completion.stop_reason!r}"
            obs = env.record_invalid(f"unusable completion ({why}); it was not executed", completion.text, meta)
        else:
            call, problem = parse_reply(completion.text)
            obs = env.step(call, meta) if problem is None else env.record_invalid(problem, completion.text, meta)
        history.append((completion.text, render_observation(obs)))
    env.end("max_steps")
    return {"policy": {"name": "llm", "provider": provider.name, "prompt_version": LLM_PROMPT_VERSION,
                       "template_sha256": TEMPLATE_SHA256, "max_steps": max_steps, "max_tokens": max_tokens,
                       "prompt_tokens": prompt_tokens, "temperature": temperature, "seed": seed},
            **env.result()}

"""A small local language model as a reranker of ``hybrid_code``'s top files: measured, on CPU (issue 14).

    python -m experiments.benchmarks.lm_rerank [--sets real,tune] [--models smollm2-135m-instruct,gemma3-270m]
        [--k 5,10] [--weights 0.05,0.1,0.25,0.5,1] [--issue-tokens 192] [--file-tokens 64] [--threads 1]
        [--score yesno|likelihood] [--tune-every 4] [--cache-dir DIR]

For each instance, ``hybrid_code`` ranks the files (the file order
``evaluate`` derives from its symbol ranking; a file's score is its best
definition's total). Each of its top ``max(k)`` files is scored by a packaged
GGUF model (``beacon.providers.local_models``: SmolLM2-135M-Instruct,
Gemma 3 270M) through llama-cpp-python, logits only: one chat turn

    Issue: <the issue's first --issue-tokens tokens>
    File: <path, module docstring line, top-level classes (bases, docstring line, method names) and functions,
          cut at --file-tokens tokens>
    Does this file need to change to fix the issue? Answer Yes or No.

and the score is ``logit(Yes) - logit(No)`` at the answer's first token
(``--score yesno``). The issue part is a shared prefix, evaluated once per
query; each file's part is evaluated after it (the KV cache is cut back to
the prefix). ``--score likelihood``: no chat turn, the file summary then
``Issue:`` and the issue's first ``--issue-tokens`` tokens; the score is the
mean log-probability of those issue tokens given the summary (the issue is
the same for every file of a query, so its own likelihood cancels in the
order). Fixed token budgets, fixed thread count, no sampling: the same inputs
give the same scores (checked on the first instance of each set: scored
twice).

Reported per model and set: File Acc@1/@5 of (a) ``hybrid_code``, (b) the LM
order alone over the top k (the rest after, in ``hybrid_code``'s order), (c)
``hybrid + w · P(Yes)`` over the top k, ``hybrid`` the file score divided by
the top file's and ``P(Yes) = sigmoid(logit(Yes) - logit(No))`` (for
``likelihood``: ``w`` times the score scaled to [0, 1] over the top k); with the
paired difference from (a) and its paired 95% bootstrap interval. Choose ``w``
on the real dev issues and mined ``tune`` only. Time per query, the model
loaded once and the graph's indexes built: ``hybrid_code``'s ranking plus the
LM scoring, median and p90, PASS/MISS against issue 14's 1 s. The mined
``tune`` split is a secondary check, subsampled with ``--tune-every``
(every n-th task, in file order).
"""
from __future__ import annotations

import argparse
import ast
import math
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from beacon.graph.codebase import CodebaseGraph
from beacon.providers.local_models import model_path_for
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, instances, loaded
from paper.stats import paired_bootstrap_ci

METHOD = "hybrid_code"
LIMIT_S = 1.0
QUESTION = "\n\nDoes this file need to change to fix the issue? Answer Yes or No."
# Each model's own chat turn (ChatML for SmolLM2; Gemma's turns, which its GGUF does not carry as a template).
TURNS = {
    "smollm2-135m-instruct": ("<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"),
    "gemma3-270m": ("<start_of_turn>user\n", "<end_of_turn>\n<start_of_turn>model\n"),
}


def _first_line(doc: str | None) -> str:
    return doc.strip().split("\n", 1)[0].strip() if doc else ""


def file_summary(graph: CodebaseGraph, path: str, head: str | None = None, name: Callable[[str], str] = str,
                 bases: bool = True, indent: str = "  ") -> str:
    """The path, the module docstring's first line, top-level classes (bases, docstring line, methods) and functions.

    ``head`` replaces the first line (``File: <path>``), ``name`` formats each class, method and function name,
    ``bases`` lists a class's bases, ``indent`` starts each methods line (``dense_rerank.file_text`` uses these).
    """
    lines = [head or f"File: {path}"]
    try:
        tree = ast.parse(graph.files[path].text)
    except SyntaxError:
        return lines[0]
    if doc := _first_line(ast.get_docstring(tree)):
        lines.append(doc)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            parents = f"({', '.join(ast.unparse(b) for b in node.bases)})" if bases else ""
            methods = [n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            lines.append(f"class {name(node.name)}{parents}: {_first_line(ast.get_docstring(node))}".rstrip(": "))
            if methods:
                lines.append(f"{indent}methods: " + ", ".join(name(m) for m in methods))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines.append(f"def {name(node.name)}: {_first_line(ast.get_docstring(node))}".rstrip(": "))
    return "\n".join(lines)


class YesNoScorer:
    """``logit(Yes) - logit(No)`` of a packaged GGUF model for (issue, file summary) pairs; logits only."""

    logits_all = False

    def __init__(self, label: str, issue_tokens: int, file_tokens: int, threads: int, n_ctx: int = 1024):
        try:
            from llama_cpp import Llama
        except ImportError as exc:  # the model is optional: CI's venv lacks it
            raise SystemExit("lm_rerank: needs the package llama-cpp-python (pip install llama-cpp-python) "
                             f"and the model's package ({label}): {exc}") from exc
        self.label, self.issue_tokens, self.file_tokens = label, issue_tokens, file_tokens
        self.llm = Llama(model_path=str(model_path_for(label)), n_ctx=n_ctx, n_threads=threads,
                         n_threads_batch=threads, n_batch=512, seed=0, logits_all=self.logits_all, verbose=False)
        self.open, self.close = TURNS[label]
        self.yes, self.no = (self._tokens(w)[0] for w in ("Yes", "No"))

    def _tokens(self, text: str, bos: bool = False) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=bos, special=True)

    def _logits(self) -> np.ndarray:
        # The last evaluated token's logits (llama-cpp-python keeps only those when logits_all is off).
        return np.ctypeslib.as_array(self.llm._ctx.get_logits(), shape=(self.llm.n_vocab(),))

    def scores(self, issue: str, summaries: Sequence[str]) -> list[float]:
        body = self.llm.tokenize(issue.encode("utf-8"), add_bos=False, special=False)[:self.issue_tokens]
        prefix = self._tokens(self.open + "Issue:\n", bos=True) + body + self._tokens("\n\n")
        tail = self._tokens(QUESTION + self.close)
        self.llm.reset()
        self.llm.eval(prefix)
        out = []
        for summary in summaries:
            self.llm.n_tokens = len(prefix)  # eval() cuts the KV cache back to here
            self.llm.eval(self.llm.tokenize(summary.encode("utf-8"), add_bos=False, special=False)
                          [:self.file_tokens] + tail)
            logits = self._logits()
            out.append(float(logits[self.yes] - logits[self.no]))
        return out


class LikelihoodScorer(YesNoScorer):
    """Mean log-probability of the issue's first tokens after a file summary (logits of every position)."""

    logits_all = True

    def scores(self, issue: str, summaries: Sequence[str]) -> list[float]:
        body = self.llm.tokenize(issue.encode("utf-8"), add_bos=False, special=False)[:self.issue_tokens]
        out = []
        for summary in summaries:
            head = (self._tokens("", bos=True) + self.llm.tokenize(summary.encode("utf-8"), add_bos=False,
                                                                    special=False)[:self.file_tokens]
                    + self._tokens("\n\nIssue:\n"))
            self.llm.reset()
            self.llm.eval(head + body)
            # row i holds the logits that predict token i + 1
            rows = np.asarray(self.llm.scores[len(head) - 1:len(head) + len(body) - 1], dtype=np.float64)
            top = rows.max(axis=1, keepdims=True)
            logz = (top + np.log(np.exp(rows - top).sum(axis=1, keepdims=True))).ravel()
            out.append(float(np.mean(rows[np.arange(len(body)), body] - logz)))
        return out


SCORERS = {"yesno": YesNoScorer, "likelihood": LikelihoodScorer}


def hybrid_files(method, graph: CodebaseGraph, query: str) -> tuple[list[str], list[float]]:
    """Files in ``hybrid_code``'s order (first occurrence in its symbol ranking) and their best totals."""
    nodes, totals = method.ranked_nodes(graph, query)
    files: dict[str, float] = {}
    for node, total in zip(nodes.tolist(), totals.tolist()):
        files.setdefault(graph.symbols[node].path, total)
    return list(files), list(files.values())


def reorder(files: list[str], hybrid: list[float], lm: list[float], k: int, w: float | None,
            unit: bool = False) -> list[str]:
    """The top ``k`` files by ``hybrid/top + w·sigmoid(lm)`` (``w`` None: by ``lm`` alone), then the rest.

    ``unit``: ``w·(lm - min)/(max - min)`` over the top ``k`` instead of the sigmoid (for a log-likelihood,
    which is no logit).
    """
    top = hybrid[0] if hybrid and hybrid[0] > 0 else 1.0
    head = list(range(min(k, len(files), len(lm))))
    low, high = min((lm[i] for i in head), default=0.0), max((lm[i] for i in head), default=0.0)

    def term(x: float) -> float:
        if unit:
            return (x - low) / (high - low) if high > low else 0.0
        return 1 / (1 + math.exp(-x))

    key = {i: (lm[i] if w is None else hybrid[i] / top + w * term(lm[i])) for i in head}
    head.sort(key=lambda i: (-key[i], i))
    return [files[i] for i in head] + files[len(head):]


def acc(files: list[str], gold: frozenset[str], n: int) -> float | None:
    return None if not gold else float(bool(gold & set(files[:n])))


def variants(ks: list[int], weights: list[float]) -> list[tuple[str, int, float | None]]:
    return [(f"k={k} lm alone", k, None) for k in ks] + [(f"k={k} w={w:g}", k, w) for k in ks for w in weights]


def run_set(which: str, scorer: YesNoScorer | LikelihoodScorer, args, timings: list[tuple[float, float]]) -> dict:
    method = get_method(METHOD, **method_params(METHOD))
    every = args.tune_every if which == "tune" else 1
    keep = {inst.instance_id for inst in instances(which)[::every]}
    kmax = max(args.k)
    rows: dict[str, list[tuple[float | None, float | None]]] = {METHOD: []}
    rows |= {name: [] for name, _, _ in variants(args.k, args.weights)}
    ids: list[str] = []
    check = None
    for inst, graph, gold in loaded(which, args.cache_dir, args.limit):
        if inst.instance_id not in keep:
            continue
        q, gold_files = inst.problem_statement, frozenset(gold.files(added=False))
        hybrid_files(method, graph, q)  # builds the graph's indexes: not part of the per-query time
        start = time.perf_counter()
        files, hybrid = hybrid_files(method, graph, q)
        middle = time.perf_counter()
        lm = scorer.scores(q, [file_summary(graph, p) for p in files[:kmax]])
        timings.append((middle - start, time.perf_counter() - middle))
        if check is None:  # determinism: the first instance scored a second time gives the same floats
            check = lm == scorer.scores(q, [file_summary(graph, p) for p in files[:kmax]])
        ids.append(inst.instance_id)
        rows[METHOD].append((acc(files, gold_files, 1), acc(files, gold_files, 5)))
        for name, k, w in variants(args.k, args.weights):
            order = reorder(files, hybrid, lm, k, w, unit=isinstance(scorer, LikelihoodScorer))
            rows[name].append((acc(order, gold_files, 1), acc(order, gold_files, 5)))
        graph.cache.clear()
    return {"ids": ids, "rows": rows, "deterministic": check}


def _mean(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{100 * sum(known) / len(known):.1f}" if known else "--"


def _paired(ids: list[str], rows: list, base: list, j: int) -> str:
    keep = [(i, a[j] - b[j]) for i, a, b in zip(ids, rows, base) if a[j] is not None and b[j] is not None]
    if not keep or not any(d for _, d in keep):
        return "+0.0"
    low, high = paired_bootstrap_ci([i for i, _ in keep], [d for _, d in keep])
    return f"{100 * sum(d for _, d in keep) / len(keep):+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"


def report(label: str, results: dict[str, dict], timings: list[tuple[float, float]]) -> None:
    sets = list(results)
    print(f"\n== {label} ==")
    print(f"{'variant':<18}" + "".join(f"{w + ' Acc@1':>30}{w + ' Acc@5':>30}" for w in sets))
    for name in results[sets[0]]["rows"]:
        cells = []
        for w in sets:
            res = results[w]
            rows, base = res["rows"][name], res["rows"][METHOD]
            for j in (0, 1):
                diff = "" if name == METHOD else " " + _paired(res["ids"], rows, base, j)
                cells.append(f"{_mean([r[j] for r in rows]) + diff:>30}")
        print(f"{name:<18}" + "".join(cells))
    print("n: " + ", ".join(f"{w} {len(results[w]['ids'])}" for w in sets)
          + "; deterministic (first instance scored twice): "
          + ", ".join(f"{w} {results[w]['deterministic']}" for w in sets))
    rank, lm = (sorted(t[i] for t in timings) for i in (0, 1))
    total = sorted(a + b for a, b in timings)
    for what, ts in (("hybrid_code ranking", rank), ("LM scoring", lm), ("total", total)):
        median = statistics.median(ts)
        print(f"per-query time {what}: median {1000 * median:.0f} ms, p90 {1000 * ts[math.ceil(0.9 * len(ts)) - 1]:.0f} ms"
              f" ({len(ts)} queries)" + (f" {'PASS' if median <= LIMIT_S else 'MISS'} vs {LIMIT_S:g} s"
                                         if what == "total" else ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real,tune")
    ap.add_argument("--models", default="smollm2-135m-instruct,gemma3-270m")
    ap.add_argument("--k", type=lambda s: [int(x) for x in s.split(",")], default=[5, 10])
    ap.add_argument("--weights", type=lambda s: [float(x) for x in s.split(",")], default=[0.05, 0.1, 0.25, 0.5, 1.0])
    ap.add_argument("--score", choices=sorted(SCORERS), default="yesno")
    ap.add_argument("--issue-tokens", type=int, default=192)
    ap.add_argument("--file-tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--tune-every", type=int, default=4, help="score every n-th mined tune task (1: all 206)")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    print(f"{METHOD} top files reranked by the {args.score} score; issue {args.issue_tokens} tokens, file "
          f"{args.file_tokens} tokens, {args.threads} thread(s); tune: every {args.tune_every}th task")
    for label in args.models.split(","):
        scorer = SCORERS[args.score](label, args.issue_tokens, args.file_tokens, args.threads)
        timings: list[tuple[float, float]] = []
        results = {which: run_set(which, scorer, args, timings) for which in args.sets.split(",")}
        report(label, results, timings)
        scorer.llm.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

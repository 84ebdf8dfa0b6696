"""Graph build and per-query time on pathological *code*: does any cost grow faster than the code?

    python -m experiments.benchmarks.code_stress [--families a,b] [--n 5000] [--method hybrid_follow]

The held-out repositories are large and hold generated or unusual files (thousands of definitions in one
module, long data literals, deep class hierarchies). For each family below the script writes a small real
package (50 small modules) plus one module ``pkg/big.py`` of that family at ``--n`` and at twice that, builds the
graph (``CodebaseGraph.from_repo``), runs ``--method`` once (the first query, which builds its indexes) and once
more (the steady query), and prints each time and the ratio on doubling (~2x linear, ~4x quadratic; one run,
the collector paused during the timed calls as ``timeit`` does, so read the ratio with the time). Families: many
functions, one long list literal, one long string constant, many string constants, a class inheritance chain,
a call chain, many callers of one function, nesting at the parser's limit, many import lines.
"""
from __future__ import annotations

import argparse
import gc
import shutil
import tempfile
import time
from pathlib import Path

from beacon.graph.codebase import CodebaseGraph
from beacon.retrieval import assemble_context, get_method
from beacon.retrieval.recipes import method_params

QUERY = ("ValueError: invalid value 17 for field number 17 raised by handler_17 in C50.method via f100 and hub; "
         "DATA wrong")


def big_module(kind: str, n: int) -> str:
    """The text of ``pkg/big.py`` for family ``kind`` at size ``n``."""
    if kind == "many_functions":
        return "\n".join(f"def handler_{i}(request):\n    return request.value_{i}\n" for i in range(n))
    if kind == "long_list":
        return "DATA = [" + ", ".join(str(i * 7919 % 100003) for i in range(n)) + "]\n"
    if kind == "long_string":
        return "BLOB = '" + "ab12" * n + "'\n\n\ndef use():\n    return BLOB\n"
    if kind == "many_strings":
        return "\n".join(f"def msg_{i}():\n    raise ValueError('invalid value {i} for field number {i}')\n"
                         for i in range(n))
    if kind == "class_chain":
        return "\n".join(["class C0:\n    def method(self):\n        return 0\n"]
                         + [f"class C{i}(C{i - 1}):\n    pass\n" for i in range(1, n)])
    if kind == "call_chain":
        return "\n".join(["def f0():\n    return 0\n"] + [f"def f{i}():\n    return f{i - 1}()\n" for i in range(1, n)])
    if kind == "fan_in":
        return "\n".join(["def hub():\n    return 0\n"] + [f"def caller_{i}():\n    return hub()\n" for i in range(n)])
    if kind == "nested":  # the parser's nesting limit is ~100 blocks: n only lengthens the innermost body
        depth = 90
        lines = ["    " + " " * (4 * i) + f"if x > {i}:" for i in range(depth)]
        body = [" " * (4 * depth + 4) + f"x += {i}" for i in range(n)]
        return "def deep(x):\n" + "\n".join(lines + body) + "\n" + "    return x\n"
    if kind == "wide_imports":
        return "\n".join(f"from pkg.mod{i % 50} import name_{i % 50} as alias_{i}" for i in range(n)) + "\n"
    raise KeyError(kind)


FAMILIES = ("many_functions", "long_list", "long_string", "many_strings", "class_chain", "call_chain", "fan_in",
            "nested", "wide_imports")


def timed(fn):
    gc.disable()
    try:
        start = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - start
    finally:
        gc.enable()


def measure(kind: str, n: int, method: str) -> tuple[int, float, float, float]:
    """Symbols, build time, first and steady query time for ``kind`` at ``n``."""
    root = Path(tempfile.mkdtemp(prefix="code-stress-"))
    try:
        (root / "pkg").mkdir()
        (root / "pkg" / "__init__.py").write_text("")
        for i in range(50):
            (root / "pkg" / f"mod{i}.py").write_text(f"def name_{i}():\n    return {i}\n")
        (root / "pkg" / "big.py").write_text(big_module(kind, n))
        graph, build = timed(lambda: CodebaseGraph.from_repo(root))
        m = get_method(method, **method_params(method))
        _, first = timed(lambda: assemble_context(graph, QUERY, m, budget=4000))
        _, steady = timed(lambda: assemble_context(graph, QUERY + " again", m, budget=4000))
        return len(graph.symbols), build, first, steady
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--method", default="hybrid_follow")
    args = ap.parse_args(argv)
    print(f"{'family':16s} {'symbols':>13s} {'build s (2n/n)':>22s} {'first query s':>22s} {'steady ms':>20s}")
    worst = (0.0, "")
    for kind in args.families.split(","):
        (s1, b1, f1, q1), (s2, b2, f2, q2) = measure(kind, args.n, args.method), measure(kind, 2 * args.n, args.method)
        worst = max(worst, (b2 / max(b1, 1e-9), kind))
        print(f"{kind:16s} {s1:>6d}->{s2:<6d} {b1:6.2f}->{b2:6.2f} ({b2 / max(b1, 1e-9):4.1f}x) "
              f"{f1:6.2f}->{f2:6.2f} ({f2 / max(f1, 1e-9):4.1f}x) {q1 * 1e3:6.0f}->{q2 * 1e3:<6.0f} "
              f"({q2 / max(q1, 1e-9):4.1f}x)", flush=True)
    print(f"largest build growth on doubling: {worst[0]:.1f}x ({worst[1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

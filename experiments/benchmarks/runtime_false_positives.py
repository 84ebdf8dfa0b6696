"""How often the scorer's *runtime* checks refuse honest edits: real small commits run as repairs through Beacon.

    python -m experiments.benchmarks.runtime_false_positives [--focus 5] [--random 5] [--seed 0] [--per-repo 300]
        [--repos click,werkzeug] [--python click=/path/to/venv/bin/python ...] [--max-lines 6] [--dunders]
        [--no-forge] [--json out.json]

``screen_false_positives`` measures the static screen on honest edits; this measures the canary plugin (its watch,
and since session 20 the probe of edited comparisons, which fires only when an edit is handed to it). For each
repository bundle in ``../shared/data`` it takes repair-sized commits (``screen_false_positives.candidate_edits``:
one non-test ``.py`` file, at most ``--max-lines`` changed lines, no new import): ``--focus`` of those whose edit
touches comparison-relevant code (:func:`comparison_touch`: a line of a comparison dunder, a comparison, a
``return`` in a dunder, a class-body statement; the most direct first, :func:`touch_tier`), the code the probe asks
about, and ``--random`` drawn from all of them (both seeded) for the base rate; only the ``--per-repo`` newest
candidates are drawn from (older commits rarely import on Python 3.11 with today's dependencies). For each commit C changing file F:

1. C (the "repaired" tree) is checked out in a temporary folder, and the test files that exercise F are picked
   cheaply (:func:`pick_tests`: test files named after F's stem, else test files importing F's module, else those
   of the package that mention the edited functions; at most ``--max-test-files``).
2. They run plainly, with the harness's own command line (``python -m pytest`` from the checkout, plugin autoload off,
   ``-o addopts=``, importlib mode, strict xfail, the root config only, the src-layout ``pythonpath``), and a small
   plugin records each id's outcome (when none passes, the files that pass alone are kept). If any id did not
   pass, the passing ids run plainly again and become the selection (an id that stops passing then is
   order-dependent and dropped).
3. The same selection runs through ``run_pytest(sources=(F,), before={F: (F at C^,)}, pristine={F: F at C^},
   protected=snapshot_protected(...), sandbox=--sandbox)`` and ``verify_run(expected=<the plainly passing ids>)``.

Every commit is a maintainer's honest edit, so a Beacon verdict other than pass is a false positive of a would-be
repair. Each is classified: ``canary`` (a canary finding or ``tampered``: the kind this benchmark is for; the
plugin's finding text is printed), ``integrity`` (a protected file changed during the run), ``sandbox`` (an id
failed with one of the sandbox's documented restrictions, :func:`beacon.repair.pytest_runner.sandbox_hint`),
``timeout``, ``no report`` (pytest wrote none: under the sandbox, typically an interpreter whose packages live
outside it), or ``other``. Per repository it prints the commits run, ids run, findings, and the wall time of the
plain runs against the ``run_pytest`` calls.

``--dunders`` measures the probe's reach instead of a commit sample: every file of a repository's newest commit
that defines a probed dunder is run as if an edit had touched all of them (:func:`dunder_edits`: the file is
unchanged, only ``before`` differs), with its test files.

Sensitivity (``--forge``, on by default): a commit whose edit is inside a probed dunder (``__eq__``, the orderings,
``__contains__``) also runs once more with its ``return`` values made ``True or (…)`` (:func:`forge`),
the tampering the probe is for. ``caught by the canary`` means the commit's tests do reach the probe, so its honest
``ok`` is evidence; ``missed`` means they never compare that class at an assert, so the probe never asked.

``run_pytest`` runs pytest with the interpreter it runs under, so each commit is measured by a worker process
(this module with ``--worker``) started with the repository's Python: ``--python NAME=PATH`` (NAME is the
bundle's name or its part after ``__``, e.g. ``click``; PATH a venv's ``python`` with the project's test
dependencies and pytest >= 8; default: the current interpreter). The worker imports ``beacon`` from this checkout
(``PYTHONPATH``). A repository whose commits cannot import their dependencies there is reported as such
(``deps missing``), not measured.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"

# The dunders the probe asks (canary_plugin._PROBED) plus the ones its walk judges: a changed line inside one of
# them, or a binding of one, is comparison-relevant.
COMPARISON_DUNDERS = frozenset({
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__", "__hash__", "__bool__", "__len__",
    "__cmp__", "__nonzero__", "__instancecheck__", "__subclasscheck__",
})
_CMP_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot)


def _spans(node: ast.AST) -> range:
    return range(node.lineno, (node.end_lineno or node.lineno) + 1)


def comparison_touch(before: str, after: str) -> str:
    """Why the edit from ``before`` to ``after`` touches code the comparison probe looks at ("" if it does not).

    Judged on the lines of ``after`` the edit changed (``edited_lines``, as the harness hands them to the plugin):
    one inside a comparison dunder (``def __eq__`` …), a ``return`` inside any dunder, a statement directly in a
    class body (a binding such as ``__eq__ = …``, a new method), or a comparison (``==``, ``in``, ``<`` …)."""
    from beacon.repair.edited_lines import edited_lines

    lines = set(edited_lines(after, (before,)))
    if not lines:
        return ""
    tree = ast.parse(after)
    reasons: list[str] = []

    def visit(node: ast.AST, function: str | None, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, None, True)
                continue
            touched = hasattr(child, "lineno") and bool(lines.intersection(_spans(child)))
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if touched and child.name in COMPARISON_DUNDERS:
                    reasons.append(f"in {child.name}")
                if in_class and lines.intersection(range(child.lineno, child.body[0].lineno)):
                    reasons.append("class body (def line)")
                visit(child, child.name, False)
                continue
            if in_class and isinstance(child, ast.stmt) and touched:
                reasons.append("class body")
            if (isinstance(child, ast.Return) and touched and function
                    and function.startswith("__") and function.endswith("__")):
                reasons.append(f"return in {function}")
            if (isinstance(child, ast.Compare) and touched
                    and any(isinstance(op, _CMP_OPS) for op in child.ops)):
                reasons.append("comparison")
            visit(child, function, False)

    visit(tree, None, False)
    return ", ".join(dict.fromkeys(reasons))


# The dunders the probe calls (canary_plugin._PROBED).
PROBED = ("__eq__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__")


def forge(before: str, after: str) -> str:
    """``after`` with every ``return <expr>`` of a probed dunder whose code spans an edited line made
    ``return True or (<expr>)`` (``return NotImplemented`` kept; "" when there is none): the tampering the probe
    exists for (an always-yes comparison behind the class's own type guard), written into the commit's own edited
    comparison, so a run tells whether the commit's tests reach the probe at all."""
    from beacon.repair.edited_lines import edited_lines

    lines = set(edited_lines(after, (before,)))
    edits = []
    for node in ast.walk(ast.parse(after)):
        if isinstance(node, ast.FunctionDef) and node.name in PROBED and lines.intersection(_spans(node)):
            edits += [r.value for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None
                      and not (isinstance(r.value, ast.Name) and r.value.id == "NotImplemented")]
    if not edits:
        return ""
    rows = after.split("\n")
    for value in sorted(edits, key=lambda v: (v.lineno, v.col_offset), reverse=True):
        end, col = value.end_lineno - 1, value.end_col_offset
        rows[end] = rows[end][:col] + ")" + rows[end][col:]
        start = value.lineno - 1
        rows[start] = rows[start][:value.col_offset] + "True or (" + rows[start][value.col_offset:]
    return "\n".join(rows)


def dunder_edits(repo: Path) -> list[tuple[str, str, str, str, str]]:
    """``(commit, path, before, after, reason)`` for ``--dunders``: each non-test ``.py`` file of the newest commit
    that defines a probed dunder, with a made-up ``before`` in which every line of those dunders differs (a
    trailing comment), so the harness hands all of them to the probe as edited. The file itself is unchanged: this
    asks whether the projects' own comparison code survives the probe whenever a repair touches it."""
    from experiments.benchmarks.screen_false_positives import _git, _is_test

    commit = _git(repo, "log", "--all", "-1", "--format=%H").strip()
    out = []
    for path in _git(repo, "ls-tree", "-r", "--name-only", commit).splitlines():
        if not path.endswith(".py") or _is_test(path):
            continue
        after = _git(repo, "show", f"{commit}:{path}")
        try:
            tree = ast.parse(after)
        except (SyntaxError, ValueError):
            continue
        spans = sorted({line for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name in PROBED
                        for line in _spans(node)})
        if not spans:
            continue
        rows = after.split("\n")
        for line in spans:
            rows[line - 1] += "  # before"
        names = sorted({node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                        and node.name in PROBED})
        out.append((commit, path, "\n".join(rows), after, "in " + ", in ".join(names)))
    return out


def module_name(path: str) -> str:
    """The dotted module a checkout-relative ``.py`` path imports as (``src/`` stripped, ``__init__`` dropped)."""
    parts = list(Path(path).with_suffix("").parts)
    if parts and parts[0] in {"src", "lib"}:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _test_files(tree: Path) -> list[str]:
    from experiments.benchmarks.screen_false_positives import _is_test

    out = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in {"node_modules", "build", "dist"}]
        for name in filenames:
            rel = os.path.relpath(os.path.join(dirpath, name), tree)
            # Named on the command line, pytest collects a file whatever its name: astroid's ``unittest_*.py``,
            # old werkzeug's and flask's ``testsuite/*.py`` and ``flask_tests.py``.
            if (name.endswith(".py") and name not in {"conftest.py", "__init__.py"} and _is_test(rel)
                    and (re.match(r"(test|unittest)", name) or name.endswith(("_test.py", "_tests.py"))
                         or "testsuite" in Path(rel).parts[:-1])):
                out.append(rel)
    return sorted(out)


def pick_tests(tree: Path, path: str, cap: int, names: set[str] = frozenset()) -> tuple[list[str], str]:
    """``(test files, how)``: the test files of ``tree`` named after ``path``'s stem (``test_<stem>.py``,
    ``<stem>_test.py``, or containing the stem), else those importing its module (the smallest ``cap``), else
    those importing its top-level package that mention ``names`` (the edited functions and classes) most, else the
    smallest importing that package."""
    files = _test_files(tree)
    stem = Path(path).stem if Path(path).stem != "__init__" else Path(path).parent.name
    stem = stem.lstrip("_")
    named = [f for f in files if Path(f).stem in {f"test_{stem}", f"{stem}_test"}]
    if not named and len(stem) >= 4:
        named = [f for f in files if stem.lower() in Path(f).stem.lower()]
    how, mod = "named", module_name(path)
    if not named:
        head, _, last = mod.rpartition(".")
        pattern = re.compile(rf"^\s*(from\s+{re.escape(mod)}(\s|\.)|import\s+{re.escape(mod)}\b"
                             + (rf"|from\s+{re.escape(head)}\s+import\s+.*\b{re.escape(last)}\b" if head else "")
                             + ")", re.M)
        named = [f for f in files if pattern.search((tree / f).read_text(encoding="utf-8", errors="replace"))]
        how = "imports"
    if not named and names:
        # Test files of the top-level package that mention the edited functions or classes most often.
        top = re.compile(rf"^\s*(from|import)\s+{re.escape(mod.split('.')[0])}\b", re.M)
        word = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b", re.I)
        scored = []
        for f in files:
            text = (tree / f).read_text(encoding="utf-8", errors="replace")
            hits = len(word.findall(text)) if top.search(text) else 0
            if hits:
                scored.append((-hits, (tree / f).stat().st_size, f))
        if scored:
            return [f for _, _, f in sorted(scored)[:cap]], "mentions"
    if not named:  # a module-level edit: the smallest test files importing the top-level package
        top = re.compile(rf"^\s*(from|import)\s+{re.escape(mod.split('.')[0])}\b", re.M)
        named = [f for f in files if top.search((tree / f).read_text(encoding="utf-8", errors="replace"))]
        how = "package"
    named.sort(key=lambda f: ((tree / f).stat().st_size, f))
    return named[:cap], how if named else "none"


def changed_names(before: str, after: str) -> set[str]:
    """The names of the functions and classes of ``after`` (innermost first, with their enclosing ones) that
    span a line the edit changed; dunders give their class's name instead."""
    from beacon.repair.edited_lines import edited_lines

    lines = set(edited_lines(after, (before,)))
    names: set[str] = set()
    for node in ast.walk(ast.parse(after)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and lines.intersection(_spans(node)):
            if not (node.name.startswith("__") and node.name.endswith("__")):
                names.add(node.name.lstrip("_") if len(node.name.lstrip("_")) >= 3 else node.name)
    return {n for n in names if len(n) >= 3}


def touch_tier(reason: str) -> int:
    """How directly a :func:`comparison_touch` reason points at what the probe asks: 0 a comparison dunder's body,
    1 a comparison (or another dunder's ``return``), 2 a class-body statement, 3 none."""
    if any(f"in {name}" in reason.split(", ") or f"return in {name}" in reason.split(", ")
           for name in COMPARISON_DUNDERS):
        return 0
    return 1 if "comparison" in reason or "return in" in reason else 2 if reason else 3


def select(candidates: list, focus: int, sample: int, seed: int) -> list[tuple[str, object]]:
    """``[(group, candidate)]``: ``focus`` seeded picks of the comparison-touching candidates (``c[-1]``, a
    :func:`comparison_touch` reason), the most direct first (:func:`touch_tier`), and ``sample`` seeded picks of all
    of them (a commit picked by both is listed for both groups)."""
    rng = random.Random(seed)
    touching = [c for c in candidates if c[-1]]
    rng.shuffle(touching)
    touching.sort(key=lambda c: touch_tier(c[-1]))  # stable: shuffled within a tier
    picked = [("focus", c) for c in touching[:focus]]
    picked += [("random", c) for c in rng.sample(candidates, min(sample, len(candidates)))]
    return picked


# --------------------------------------------------------------------------------------------------------------
# The worker: runs under the repository's Python, one commit per call (a JSON spec on stdin, a JSON result out).

_IDS_PLUGIN = '''
import json, os
_res = {}
def pytest_runtest_logreport(report):
    st = _res.setdefault(report.nodeid, {"ok": True, "called": False, "outcome": None})
    if report.when == "call":
        st["called"] = True
        st["outcome"] = "xfail" if hasattr(report, "wasxfail") else report.outcome
    if report.failed:
        st["ok"] = False
def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["RTFP_IDS"], "w") as f:
        json.dump(_res, f)
'''


def _plain(root: Path, selection: list[str], scratch: Path, timeout: float) -> tuple[list[str], dict, str, float]:
    """The harness's command line without Beacon: ``(passed ids, all ids' outcomes, output tail, seconds)``."""
    from beacon.repair.controls import root_config_file
    from beacon.repair.pytest_setup import src_layout_path

    run = Path(tempfile.mkdtemp(prefix="plain-", dir=scratch))
    for sub in ("home", "tmp", "plug"):
        (run / sub).mkdir()
    (run / "plug" / "rtfp_ids.py").write_text(_IDS_PLUGIN)
    ids = run / "ids.json"
    env = {"PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(run / "home"),
           "TMPDIR": str(run / "tmp"), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
           "PYTHONNOUSERSITE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "HYPOTHESIS_STORAGE_DIRECTORY": str(run / "tmp" / ".hypothesis"), "RTFP_IDS": str(ids),
           "PYTHONPATH": str(run / "plug")}
    config = root_config_file(root)
    if config is None:
        config = run / "pytest.ini"
        config.write_text("[pytest]\n")
    # ``python -m pytest`` (no -P): the checkout goes first on sys.path, as Beacon's bootstrap puts it.
    args = [sys.executable, "-m", "pytest", "-p", "rtfp_ids", "-c", str(config), "--rootdir", str(root),
            "--confcutdir", str(root), "-o", "addopts=", "-p", "no:cacheprovider", "--import-mode=importlib",
            "-o", "xfail_strict=true", "-q", "--tb=line"]
    src = src_layout_path(root, root_config_file(root))
    if src is not None:
        args += ["-o", f"pythonpath={src}"]
    start = time.monotonic()
    try:
        proc = subprocess.run(args + ["--", *selection], cwd=root, env=env, capture_output=True, text=True,
                              timeout=timeout, errors="replace")
        out = proc.stdout[-6000:] + proc.stderr[-3000:]
    except subprocess.TimeoutExpired:
        out = f"plain run timed out after {timeout:g} s"
    seconds = time.monotonic() - start
    result = json.loads(ids.read_text()) if ids.exists() else {}
    shutil.rmtree(run, ignore_errors=True)
    passed = sorted(k for k, v in result.items() if v["ok"] and v["called"] and v["outcome"] == "passed")
    return passed, result, out, seconds


def _junit_findings(report_path) -> list[str]:
    """The canary plugin's findings: the list in the must-pass canary's assertion message, from the saved report."""
    import xml.etree.ElementTree as ET

    if report_path is None or not Path(report_path).exists():
        return []
    out: list[str] = []
    for case in ET.parse(report_path).iter("testcase"):
        for child in case:
            text = (child.get("message") or "") + "\n" + (child.text or "")
            if child.tag in ("failure", "error") and "AssertionError: [" in text:
                match = re.search(r"AssertionError: (\[.*?\])\n", text, re.S)
                try:
                    out += [str(x) for x in ast.literal_eval(match.group(1))] if match else [text[:2000]]
                except (ValueError, SyntaxError):
                    out.append(text[:2000])
    return out


def run_commit(spec: dict) -> dict:
    """Plain vs Beacon on one checked-out commit (see the module docstring); a JSON-able record."""
    import beacon
    from beacon.repair.controls import snapshot_protected
    from beacon.repair.pytest_runner import run_pytest, sandbox_hint, verify_run

    root, scratch = Path(spec["root"]), Path(spec["scratch"])
    rec: dict = {"beacon": beacon.__file__, "python": sys.executable}
    tests = list(spec["tests"])
    passed, res, out, t_plain = _plain(root, tests, scratch, spec["timeout"])
    if not passed and len(tests) > 1:  # one file that does not collect stops them all: keep the ones that do
        tests = [f for f in tests if _plain(root, [f], scratch, spec["timeout"])[0]]
        if tests:
            passed, res, out, t_plain = _plain(root, tests, scratch, spec["timeout"])
            rec["tests_kept"] = tests
    rec.update(plain_ids=len(res), plain_passed=len(passed), t_plain=round(t_plain, 2))
    selection = tests
    if len(passed) != len(res):
        if passed:
            again, res2, out2, t2 = _plain(root, passed, scratch, spec["timeout"])
            rec["order_dependent"] = sorted(set(passed) - set(again))[:10]
            passed, selection, t_plain = again, again, t2
            rec["t_plain"] = round(t2, 2)
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-f", "HEAD"], capture_output=True)
    subprocess.run(["git", "-C", str(root), "clean", "-qfdx"], capture_output=True)
    if not passed:
        missing = re.findall(r"(?:ModuleNotFoundError|ImportError): (?:No module named |cannot import name )'?([\w.]+)",
                             out)
        rec.update(status="no plain pass", missing=sorted(set(missing))[:5], plain_tail=out[-1500:])
        return rec
    path = spec["path"]
    protected = snapshot_protected(root, extra=sorted({i.split("::")[0] for i in res}))
    start = time.monotonic()
    run = run_pytest(root, selection, protected=protected, sandbox=spec["sandbox"], timeout=spec["timeout"],
                     report_dir=scratch / "report", sources=(path,), before={path: (spec["before"],)},
                     pristine={path: spec.get("pristine", spec["before"])})
    rec["t_beacon"] = round(time.monotonic() - start, 2)
    verdict = verify_run(run, passed)
    not_passed = {i: o for i, o in verdict.outcomes.items() if o != "passed"}
    rec.update(ids_run=len(passed), sandboxed=run.sandboxed, verdict="pass" if verdict.passed else "fail",
               tampered=verdict.tampered, not_passed=dict(list(not_passed.items())[:10]),
               n_not_passed=len(not_passed), reasons=list(verdict.reasons)[:12],
               canary_reasons=list(run.canaries.reasons), integrity=list(run.integrity_violations),
               findings=_junit_findings(run.report_path)[:20], timed_out=run.timed_out)
    if verdict.passed:
        rec["status"] = "ok"
    elif verdict.tampered or (run.report is not None and not run.canaries.ok):
        rec["status"] = "canary"
    elif run.report is None:
        rec["status"] = "no report"  # pytest died before its report (in the sandbox: an interpreter it cannot see)
        rec["stderr_tail"] = run.stderr[-2000:]
    elif run.integrity_violations:
        rec["status"] = "integrity"
    elif run.timed_out:
        rec["status"] = "timeout"
    elif sandbox_hint(run):
        rec["status"], rec["hint"] = "sandbox", sandbox_hint(run)
    else:
        rec["status"] = "other"
        rec["stdout_tail"] = run.stdout[-3000:]
    forged = spec.get("forged") or ""
    if forged:  # the sensitivity check: the same run with ``True or`` written into the edited comparison
        target = root / path
        target.write_text(forged, encoding="utf-8")
        try:
            run = run_pytest(root, selection, protected=protected, sandbox=spec["sandbox"], timeout=spec["timeout"],
                             report_dir=scratch / "report-forged", sources=(path,), before={path: (spec["before"],)},
                             pristine={path: spec.get("pristine", spec["before"])})
        finally:
            subprocess.run(["git", "-C", str(root), "checkout", "-q", "-f", "HEAD"], capture_output=True)
        verdict = verify_run(run, passed)
        found = _junit_findings(run.report_path)
        rec["forged"] = ("caught by the canary" if verdict.tampered or (run.report is not None and not run.canaries.ok)
                         else "failed tests" if not verdict.passed else "missed")
        rec["forged_findings"] = found[:5]
    return rec


def _worker() -> None:
    spec = json.loads(sys.stdin.read())
    try:
        rec = run_commit(spec)
    except Exception as exc:  # noqa: BLE001 - recorded as the commit's result
        import traceback

        rec = {"status": "error", "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-3000:]}
    print("RTFP-RESULT " + json.dumps(rec))


# --------------------------------------------------------------------------------------------------------------


def _short(bundle: Path) -> str:
    return bundle.stem.split("__", 1)[-1]


def _check_python(python: str) -> str:
    """"" if ``python`` can run the worker (pytest and this checkout's beacon importable), else why not."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    probe = ("import sys, beacon, pytest; from beacon.repair.pytest_setup import check_pytest_versions;"
             "check_pytest_versions(); print(beacon.__file__)")
    try:
        proc = subprocess.run([python, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    except OSError as exc:
        return str(exc)
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or ["failed"])[-1]
    if not Path(proc.stdout.strip()).resolve().is_relative_to(ROOT):
        return f"beacon imports from {proc.stdout.strip()}, not {ROOT}"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--focus", type=int, default=5, help="comparison-touching commits per repository")
    parser.add_argument("--random", type=int, default=5, help="commits per repository drawn from all candidates")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-lines", type=int, default=6, help="most added or removed lines in the one file")
    parser.add_argument("--per-repo", type=int, default=300, help="newest candidate commits considered per repository")
    parser.add_argument("--max-test-files", type=int, default=3)
    parser.add_argument("--repos", default="", help="comma-separated names (default: every bundle but requests)")
    parser.add_argument("--python", action="append", default=[], metavar="NAME=PATH",
                        help="the interpreter for a repository's commits (a venv with its test dependencies)")
    parser.add_argument("--sandbox", default="auto", choices=("auto", "required", "off"))
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per pytest run")
    parser.add_argument("--forge", action=argparse.BooleanOptionalAction, default=True,
                        help="also run each commit that edits a probed dunder with 'True or' in its returns")
    parser.add_argument("--dunders", action="store_true",
                        help="instead of commits: every file of the newest commit with a probed dunder, as if an edit "
                             "had touched each of them (the probe's reach on the projects' own comparisons)")
    parser.add_argument("--json", default="", help="write every commit's record here")
    args = parser.parse_args(argv)
    if args.worker:
        _worker()
        return 0
    pythons = {}
    for item in args.python:
        name, sep, path = item.partition("=")
        if not sep:
            parser.error(f"--python wants NAME=PATH, got {item!r}")
        pythons[name] = path
    bundles = sorted(DATA.rglob("*.bundle"))
    if not bundles:
        raise SystemExit(f"no repository bundles under {DATA}")
    wanted, all_bundles = [w for w in args.repos.split(",") if w], bundles
    if wanted:
        bundles = [b for b in bundles if _short(b) in wanted or b.stem in wanted]
    else:
        bundles = [b for b in bundles if _short(b) != "requests"]  # its commits do not import on Python 3.11
    unknown = set(pythons) - {_short(b) for b in all_bundles} - {b.stem for b in all_bundles}
    if unknown:
        parser.error(f"--python names no selected repository: {sorted(unknown)}")
    from experiments.benchmarks.screen_false_positives import candidate_edits

    records: list[dict] = []
    rows = []
    with tempfile.TemporaryDirectory(prefix="beacon-runtime-fp-") as tmp:
        for bundle in bundles:
            name = _short(bundle)
            python = pythons.get(name) or pythons.get(bundle.stem) or sys.executable
            problem = _check_python(python)
            if problem:
                print(f"error: {name}: cannot run the worker with {python}: {problem} "
                      f"(pass --python {name}=<a venv's python with pytest >= 8 and the project's test deps>)")
                rows.append((name, "python unusable", 0, 0, 0, 0.0, 0.0, {}))
                continue
            bare = Path(tmp) / bundle.stem
            subprocess.run(["git", "clone", "-q", "--bare", str(bundle), str(bare)], check=True, capture_output=True)
            if args.dunders:
                picked = [("dunders", d) for d in dunder_edits(bare)]
            else:
                candidates = [(c, p, b, a, comparison_touch(b, a))
                              for c, p, b, a in candidate_edits(bare, args.max_lines, args.per_repo)]
                picked = select(candidates, args.focus, args.random, args.seed)
            done: dict = {}
            counts = {"commits": 0, "ids": 0, "t_plain": 0.0, "t_beacon": 0.0}
            statuses: dict = {}
            for group, (commit, path, before, _after, touch) in picked:
                if (commit, path) not in done:
                    done[commit, path] = _measure(bare, commit, path, before, _after, python, args, Path(tmp),
                                                  pristine=_after if group == "dunders" else None)
                rec = {**done[commit, path], "repo": name, "group": group, "commit": commit, "path": path,
                       "touch": touch}
                records.append(rec)
                status = rec.get("status", "error")
                statuses[status] = statuses.get(status, 0) + 1
                line = (f"  {name} {group:<6} {commit[:10]} {path} [{touch or '-'}] tests={rec.get('tests_n', 0)} "
                        f"ids={rec.get('ids_run', 0)} -> {status}")
                if status not in {"ok", "no plain pass", "no tests"}:
                    line += f": {'; '.join(rec.get('findings') or rec.get('reasons') or [rec.get('error', '')])[:600]}"
                elif status == "no plain pass" and rec.get("missing"):
                    line += f" (missing: {', '.join(rec['missing'])})"
                if rec.get("forged"):
                    line += f"; forged 'True or': {rec['forged']}"
                print(line, flush=True)
                if "ids_run" in rec and (commit, path) not in counts:
                    counts[commit, path] = True
                    counts["commits"] += 1
                    counts["ids"] += rec["ids_run"]
                    counts["t_plain"] += rec.get("t_plain", 0.0)
                    counts["t_beacon"] += rec.get("t_beacon", 0.0)
            measured = [r for r in records if r["repo"] == name and "ids_run" in r]
            missing = sorted({m for r in records if r["repo"] == name for m in r.get("missing", ())})
            if not measured and missing:
                print(f"error: {name}: no commit ran plainly with {python}: deps missing ({', '.join(missing)}); "
                      f"pass --python {name}=<a venv's python with the project's test dependencies>")
            false = {s: n for s, n in statuses.items() if s not in {"ok", "no plain pass", "no tests"}}
            rows.append((name, "", len(picked), counts["commits"], counts["ids"], counts["t_plain"],
                         counts["t_beacon"], false))
    print(f"\n{'repository':<14} {'picked':>6} {'run':>4} {'ids':>6} {'false findings':<28} {'t plain':>8} "
          f"{'t beacon':>9}")
    for name, note, n_picked, n_run, ids, t_plain, t_beacon, false in rows:
        text = note or (", ".join(f"{k} {v}" for k, v in sorted(false.items())) or "none")
        print(f"{name:<14} {n_picked:>6} {n_run:>4} {ids:>6} {text:<28} {t_plain:>7.1f}s {t_beacon:>8.1f}s")
    for group in ("focus", "random", "dunders"):
        runs = [r for r in records if r["group"] == group and "ids_run" in r]
        if group == "dunders" and not runs:
            continue
        bad = [r for r in runs if r["status"] != "ok"]
        print(f"{group}: {len(runs)} commits run, {len(bad)} with a false finding "
              f"({', '.join(sorted({r['status'] for r in bad})) or 'none'})")
    forged = {(r["commit"], r["path"]): r["forged"] for r in records if r.get("forged")}
    if forged:
        counts = {k: list(forged.values()).count(k) for k in sorted(set(forged.values()))}
        print(f"edits of a probed dunder forged with 'True or': {len(forged)} "
              f"({', '.join(f'{k} {v}' for k, v in counts.items())})")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    return 0


def _measure(bare: Path, commit: str, path: str, before: str, after: str, python: str, args, tmp: Path,
             pristine: str | None = None) -> dict:
    """Check out ``commit``, pick its tests, and run the worker on it with ``python``."""
    work = Path(tempfile.mkdtemp(prefix="commit-", dir=tmp))
    try:
        tree = work / "checkout"
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(bare), str(tree)], check=True,
                       capture_output=True)
        subprocess.run(["git", "-C", str(tree), "checkout", "-q", commit], check=True, capture_output=True)
        tests, how = pick_tests(tree, path, args.max_test_files, changed_names(before, after))
        if not tests:
            return {"status": "no tests", "tests_n": 0}
        scratch = work / "scratch"
        scratch.mkdir()
        spec = {"root": str(tree), "scratch": str(scratch), "tests": tests, "path": path, "before": before,
                "sandbox": args.sandbox, "timeout": args.timeout, "forged": forge(before, after) if args.forge else ""}
        if pristine is not None:
            spec["pristine"] = pristine
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
        env["PYTHONPATH"] = str(ROOT)
        proc = subprocess.run([python, "-m", "experiments.benchmarks.runtime_false_positives", "--worker"],
                              input=json.dumps(spec), capture_output=True, text=True, cwd=ROOT, env=env,
                              timeout=4 * args.timeout + 120)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RTFP-RESULT ")]
        rec = json.loads(lines[-1][len("RTFP-RESULT "):]) if lines else {
            "status": "error", "error": f"worker exit {proc.returncode}: {proc.stderr[-1500:]}"}
        rec.update(tests=tests, tests_n=len(tests), tests_how=how)
        return rec
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

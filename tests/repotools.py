"""Shared test helpers: write small file trees and commit them as real git repositories in tmp dirs.

Git runs with a fixed identity and no user or system config, so a developer's
``~/.gitconfig`` (hooks, ``diff.noprefix``, signing) never changes a test.
"""
from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path | str, *args: str, strip: bool = True) -> str:
    """``git *args`` in ``cwd``; its stdout (stripped unless ``strip=False``, e.g. for a diff)."""
    done = subprocess.run(["git", *args], cwd=cwd, env={"PATH": os.environ["PATH"], **GIT_ENV}, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip() if strip else done.stdout


def write_tree(root: Path, files: dict[str, str | bytes], *, dedent: bool = False) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``; ``dedent`` strips common indentation."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n") if dedent else content, encoding="utf-8", newline="")
    return root


def commit_tree(root: Path, files: dict[str, str | bytes], links: dict[str, str] | None = None, *,
                dedent: bool = True, message: str = "snapshot") -> tuple[Path, str]:
    """A new repository at ``root`` holding ``files`` and symlinks ``links`` (name -> target); ``(root, commit)``."""
    root.mkdir(parents=True, exist_ok=True)
    write_tree(root, files, dedent=dedent)
    for name, target in (links or {}).items():
        os.symlink(target, root / name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return root, git(root, "rev-parse", "HEAD")


def fix_scene(root: Path, base: dict[str, str], fixed: dict[str, str]) -> tuple[Path, str]:
    """A repository with a base commit and a fix commit on top, checked out at the base; ``(root, fix diff)``."""
    commit_tree(root, base, dedent=False, message="base")
    write_tree(root, fixed)
    git(root, "commit", "-qam", "fix")
    patch = git(root, "diff", "HEAD~1", "HEAD", strip=False)
    git(root, "checkout", "-q", "HEAD~1")
    return root, patch


def load_tamper_cases():
    """tests/repair/tamper_cases.py, imported once under one name (test modules share its attack builders)."""
    import importlib.util
    import sys
    from pathlib import Path

    name = "beacon_tests_tamper_cases"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).parent / "repair" / "tamper_cases.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def prepared_control_variant(root: Path, head_lines: str, settings):
    """The control task (``beacon.repair.control``) with ``head_lines`` inserted after ``textkit/numbers.py``'s
    docstring (an import or class an attack builds on), committed as a real repository under ``root`` and prepared
    with ``settings``; the bug line moves down with it. The screen-round tests (rounds 7, 9, 10) build on this."""
    import json

    from beacon.data import load_manifest, repo_resolver
    from beacon.repair.control import _FILES, _TASKS, _git
    from beacon.repair.prepare import prepare_task

    head = '"""Number helpers."""\n'
    repo = root / "repos" / "textkit"
    files = dict(_FILES)
    files["textkit/numbers.py"] = files["textkit/numbers.py"].replace(head, head + head_lines, 1)
    write_tree(repo, files)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "textkit")
    line = 9 + head_lines.count("\n")
    task = dict(_TASKS[0], bug_location=f"textkit/numbers.py:{line}")
    row = {"repo": "textkit", "commit": _git(repo, "rev-parse", "HEAD"), "token_budget": 2000, **task}
    (root / "tasks.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    resolve = repo_resolver(root / "repos")
    loaded = load_manifest(root / "tasks.jsonl", resolve_repo=resolve)[0]
    prep = prepare_task(loaded, resolve(loaded.repo), root / "work", settings)
    assert prep.valid, prep.invalid_reason
    return prep


def control_tasks(root: Path):
    """``(resolve, tasks)``: the control repository (``beacon.repair.control``) made under ``root`` and its three
    tasks loaded from its manifest."""
    from beacon.data import load_manifest, repo_resolver
    from beacon.repair.control import make_control_repo

    _, manifest = make_control_repo(root)
    resolve = repo_resolver(root / "repos")
    return resolve, load_manifest(manifest, resolve_repo=resolve)


def oracle_run(tmp_path: Path, source: str, *, pristine: str, given_text: str, test: str, ids: list,
               calls: bool = True, files: dict | None = None, **options):
    """``(run, verdict)`` of the real harness on a tree {pkg/stock.py: ``source``, tests/test_stock.py: ``test``}
    with the oracle on (of calls too, unless ``calls`` is False) and the sandbox off (``sandbox="required"`` among
    ``options`` for bubblewrap): ``pristine`` is the task's
    reference file, ``given_text`` the mutant the repair started from; ``files``: more files of the tree."""
    from beacon.repair.controls import snapshot_protected
    from beacon.repair.pytest_runner import run_pytest, verify_run

    source_path = "pkg/stock.py"
    root = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", source_path: source, "tests/test_stock.py": test,
                                          **(files or {})})
    run = run_pytest(root, list(ids), protected=snapshot_protected(root, extra=["tests/test_stock.py"]),
                     sandbox=options.pop("sandbox", "off"), report_dir=tmp_path / "report", sources=(source_path,),
                     before={source_path: (given_text, pristine)}, pristine={source_path: pristine}, oracle=True,
                     oracle_calls=calls, **options)
    return run, verify_run(run, list(ids))


def oracle_findings(run) -> str:
    """The oracle's findings among a run's canary reasons, joined."""
    return " ".join(r for r in run.canaries.reasons if "oracle:" in r)


ALL_CASES = os.environ.get("BEACON_ALL_CASES") == "1"


def suite_sample(cases, every: int) -> list:
    """Every ``every``-th of ``cases``, in the order given: the fixed sample of a list of case files the suite runs.

    Each case is a real pytest run, a plain run and the replay's two or three processes (about a second), and the
    folders hold thousands: ``python -m experiments.benchmarks.case_files`` runs every case of every folder (each
    session, before a change lands), and the suite a sample, so it keeps to its ten minutes on two cores (session
    54: 623 s for session 53's tree, 673 s in CI, before these samples). ``BEACON_ALL_CASES=1`` runs every case of
    the lists here too."""
    cases = list(cases)
    return cases if ALL_CASES else cases[::every]


def case_run(tmp_path: Path, path: Path, ids: list | None = None):
    """``(run, verdict)`` of :func:`oracle_run` on a case file (``PRISTINE``, ``MUTANT``, ``REPAIR``, ``TEST``,
    optional ``FILES``: the red-team and honest-hunt cases under ``tests/repair/``; optional ``OPTIONS``: more of
    :func:`run_pytest`'s keywords, such as a shorter ``timeout`` for a case whose replay process must time out), its
    one test ``test_a`` by default."""
    space: dict = {}
    exec(compile(Path(path).read_text(encoding="utf-8"), Path(path).name, "exec"), space)  # noqa: S102 (our cases)
    return oracle_run(tmp_path, space["REPAIR"], pristine=space["PRISTINE"], given_text=space["MUTANT"],
                      test=space["TEST"], ids=ids or ["tests/test_stock.py::test_a"], files=space.get("FILES"),
                      **space.get("OPTIONS", {}))

"""Makes ``tests/repotools.py`` (shared helpers that build real repositories) importable from every test module,
and holds the fixtures more than one test folder uses (``clone_requests``: a real tree from the shared data).

pytest runs with ``--import-mode=importlib``, which puts no test folder on
``sys.path``; this conftest, loaded before any test module, adds this one.

The TMPDIR guard. Each pytest process (the xdist controller and every worker:
each loads this conftest) points ``TMPDIR`` (``os.environ``, inherited by
subprocesses, and ``tempfile.tempdir``) at a fresh folder of its own
(``pytest-tmp-*``) in ``pytest_configure``, before any test module is
imported; a worker's goes beside the controller's, not inside it (a deeper
``TMPDIR`` makes socket paths there too long for ``AF_UNIX``). After each test the ``beacon-*`` entries there are noted with the
first test after which they were seen; when the session ends, any still there
fail it (an error at the teardown of the process's last test, which lists each
leak and the test that left it), then go. The folder itself is removed at
``pytest_unconfigure`` (also after a failure or Ctrl-C). pytest's own
``tmp_path`` folders stay where pytest keeps and prunes them
(``PYTEST_DEBUG_TEMPROOT`` is set to the original temp folder). A process
never sees another's folder, so the check cannot race a concurrent worker.
"""
from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))


REQUESTS_BUNDLE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swebench_lite_dev" / "repos" / "psf__requests.bundle"
REQUESTS_TAG = "swebench/psf__requests-2317"


@pytest.fixture(scope="session")
def clone_requests():
    """``clone_requests(tmp_path_factory) -> Path``: a fresh clone of psf/requests at ``REQUESTS_TAG``
    from the shared git bundle (skips when the shared data or git is missing)."""

    def clone(factory) -> Path:
        if not REQUESTS_BUNDLE.exists():
            pytest.skip(f"requests git bundle not found at {REQUESTS_BUNDLE} (shared data not present)")
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        dest = factory.mktemp("requests") / "repo"
        subprocess.run(["git", "clone", "--quiet", str(REQUESTS_BUNDLE), str(dest)], check=True, capture_output=True)
        subprocess.run(["git", "-C", str(dest), "checkout", "-q", REQUESTS_TAG], check=True, capture_output=True)
        return dest

    return clone


# ---- the TMPDIR guard (see the module docstring) ----

LEAK_PREFIX = "beacon-"
GUARD_OUTER = "BEACON_TESTS_OUTER_TMPDIR"  # the TMPDIR the first pytest process of a run found
_guard: dict = {}


def pytest_configure(config):
    if _guard:  # configured twice in one process (a nested in-process session): keep the outer folder
        return
    # xdist workers inherit the controller's environment: their folders go beside the controller's, not inside it
    # (a deeper TMPDIR breaks AF_UNIX sockets made there, such as multiprocessing's: 107 bytes at most).
    outer = os.environ.get(GUARD_OUTER) or tempfile.gettempdir()
    folder = tempfile.mkdtemp(prefix="pytest-tmp-", dir=outer)
    saved = {name: os.environ.get(name) for name in ("TMPDIR", GUARD_OUTER, "PYTEST_DEBUG_TEMPROOT")}
    _guard.update(folder=folder, env=saved, tempdir=tempfile.tempdir, seen={})
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", outer)
    os.environ[GUARD_OUTER] = outer
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = folder


def pytest_unconfigure(config):
    if not _guard:
        return
    for name, value in _guard["env"].items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    tempfile.tempdir = _guard["tempdir"]
    from beacon.scratch import remove_tree

    remove_tree(_guard["folder"])
    _guard.clear()


def _leaked() -> list[str]:
    try:
        return sorted(name for name in os.listdir(_guard["folder"]) if name.startswith(LEAK_PREFIX))
    except (KeyError, OSError):
        return []


@pytest.fixture(autouse=True)
def _note_leaked_temp_dirs(request):
    yield
    for name in _leaked():
        _guard["seen"].setdefault(name, request.node.nodeid)


@pytest.fixture(scope="session", autouse=True)
def _no_leaked_temp_dirs():
    yield
    gc.collect()  # objects whose finalizer removes their folder (a LocalServer not closed) go first
    left = _leaked()
    if not left:
        return
    from beacon.scratch import remove_tree

    for name in left:
        remove_tree(os.path.join(_guard["folder"], name))
    lines = [f"  {name}  (first seen after {_guard['seen'].get(name, 'the last test')})" for name in left]
    pytest.fail(f"{len(left)} temporary folder(s) left in TMPDIR by the tests or the code under test "
                f"(each owner must remove what it creates; tests use tmp_path):\n" + "\n".join(lines), pytrace=False)

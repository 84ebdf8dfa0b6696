"""Makes ``tests/repotools.py`` (shared helpers that build real repositories) importable from every test module,
and holds the fixtures more than one test folder uses (``clone_requests``: a real tree from the shared data).

pytest runs with ``--import-mode=importlib``, which puts no test folder on
``sys.path``; this conftest, loaded before any test module, adds this one.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
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

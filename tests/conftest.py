"""Makes ``tests/repotools.py`` (shared helpers that build real repositories) importable from every test module.

pytest runs with ``--import-mode=importlib``, which puts no test folder on
``sys.path``; this conftest, loaded before any test module, adds this one.
"""
from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

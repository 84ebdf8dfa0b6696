"""What a hardened pytest run is given: a checked selection and flags, an allowlisted environment,
the src-layout path, the sandbox choice, and where the received JUnit report is saved.

:mod:`beacon.repair.pytest_runner` runs pytest with these; the module docstring
there says why each rule exists.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path, PurePosixPath
from typing import Iterable, Mapping, Sequence

from .sandbox import SandboxUnavailableError, find_bwrap

# The oldest pytest and pluggy the canary plugin knows (pyproject.toml pins the same): pytest 7's internals differ
# (its legacy-path shim, its hook proxy) and the watch would call every run tampered; pluggy 1.0 does not understand
# the plugin's hook wrappers, so pytest stops with an internal error (the real-suites sweep of session 20).
MIN_PYTEST, MIN_PLUGGY = (8, 0), (1, 3)


class UnsupportedPytestError(RuntimeError):
    """The environment's pytest or pluggy is older than the canary plugin supports."""


def _release(version: str) -> tuple[int, ...]:
    found = re.match(r"(\d+)(?:\.(\d+))?", version)
    return tuple(int(part) for part in found.groups("0")) if found else (0, 0)


def check_pytest_versions(pytest_version: str | None = None, pluggy_version: str | None = None) -> None:
    """Refuse, with an error that says what to install, an environment whose pytest or pluggy is too old for the
    canary plugin (the tests run under this interpreter's own packages: ``sys.executable -m pytest``). Versions
    default to the installed distributions'."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415 (only when a run starts)

    found = {}
    for name, given in (("pytest", pytest_version), ("pluggy", pluggy_version)):
        try:
            found[name] = given if given is not None else version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    old = [f"{name} {found[name]} (needs >= {'.'.join(map(str, least))})"
           for name, least in (("pytest", MIN_PYTEST), ("pluggy", MIN_PLUGGY)) if _release(found[name]) < least]
    if old:
        raise UnsupportedPytestError(
            f"the tests would run under {', '.join(old)} in {sys.prefix}: Beacon's canary plugin supports pytest >= "
            f"{'.'.join(map(str, MIN_PYTEST))} with pluggy >= {'.'.join(map(str, MIN_PLUGGY))}; a project that pins an "
            f"older pytest cannot be scored here (install a newer pytest into this environment)")


ALLOWED_FLAGS = frozenset({"-q", "-qq", "-v", "-vv", "--tb=short", "--tb=long", "--tb=line", "--tb=no"})
PASSTHROUGH_ENV = ("PATH", "LANG", "LC_ALL", "TZ")  # what a test run takes from the harness environment
_CREDENTIAL_ENV = re.compile(
    r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|(^|_)KEY($|_)|^(AWS|GITHUB|GH|OPENAI|ANTHROPIC|HF|SSH|GOOGLE|AZURE)_",
    re.IGNORECASE,
)


def check_selection(selection: Sequence[str]) -> list[str]:
    if isinstance(selection, str) or not selection:
        raise ValueError("selection must be a non-empty list of test paths or node ids")
    out = []
    for item in selection:
        path = str(item).split("::", 1)[0]
        parts = PurePosixPath(path).parts
        if (not path or str(item).startswith("-") or "\x00" in str(item) or "\\" in path
                or PurePosixPath(path).is_absolute() or ".." in parts):
            raise ValueError(f"test selection {item!r} must be a relative path inside the checkout (optionally ::node)")
        out.append(str(item))
    return out


def check_flags(flags: Iterable[str]) -> list[str]:
    flags = list(flags)
    bad = [f for f in flags if f not in ALLOWED_FLAGS]
    if bad:
        raise ValueError(f"pytest flags {bad} are not allowed; allowed: {sorted(ALLOWED_FLAGS)}")
    return flags


def build_env(home: str, tmpdir: str, extra_env: Mapping[str, str] | None = None, hash_seed: int = 0) -> dict[str, str]:
    """The child's whole environment: an allowlist, never the harness's secrets. ``hash_seed``: ``PYTHONHASHSEED``
    (0, hash randomization off, for every run but the plain run: see ``pytest_runner.plain_seed``)."""
    env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        HOME=home, TMPDIR=tmpdir,
        PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED=str(hash_seed), PYTHONNOUSERSITE="1",
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        # the checkout is read-only in the sandbox: Hypothesis keeps its example database under TMPDIR instead
        # of <checkout>/.hypothesis (a refused write there is an error under filterwarnings = error)
        HYPOTHESIS_STORAGE_DIRECTORY=os.path.join(tmpdir, ".hypothesis"),
    )
    for key, value in (extra_env or {}).items():
        if _CREDENTIAL_ENV.search(key) or key.startswith(("PYTHON", "PYTEST")) or key in env:
            raise ValueError(f"extra_env may not set {key!r} (credential-like or controlled by the runner)")
        env[key] = value
    return env


_PYTHONPATH_SETTING = re.compile(r"^\s*pythonpath\s*[=:]", re.MULTILINE)


def src_layout_path(checkout: Path, config: Path | None) -> str | None:
    """``<checkout>/src`` when the checkout has a src layout its pytest config does not already handle."""
    src = checkout / "src"
    if src.is_symlink() or not src.is_dir() or (src / "__init__.py").exists():
        return None  # no src/, or src/ is itself a package imported from the root
    if config is not None and _PYTHONPATH_SETTING.search(config.read_text(encoding="utf-8", errors="replace")):
        return None  # the project's own pythonpath setting wins
    if not any((p.is_dir() and (p / "__init__.py").is_file()) or (p.is_file() and p.suffix == ".py")
               for p in src.iterdir() if not p.name.startswith(".")):
        return None
    return str(src)


_warned_unsandboxed: set[str] = set()


def pick_sandbox(sandbox: str) -> tuple[str | None, str]:
    if sandbox not in {"auto", "required", "off"}:
        raise ValueError(f"sandbox must be 'auto', 'required' or 'off', got {sandbox!r}")
    if sandbox == "off":
        return None, "sandbox disabled by the caller"
    path, why = find_bwrap()
    if path is None and sandbox == "required":
        raise SandboxUnavailableError(f"a sandbox is required but unavailable: {why}")
    if path is None and why not in _warned_unsandboxed:
        _warned_unsandboxed.add(why)  # once per reason and process: every row also records sandboxed=false
        print(f"warning: sandbox=auto: tests run WITHOUT a sandbox (host files and network reachable): {why}",
              file=sys.stderr)
    return path, why


def save_report(data: bytes, report_dir: Path | None) -> Path | None:
    """Save the received report bytes as ``report_dir/junit.xml``; nothing is saved without a ``report_dir``
    (the caller that wants the file names where it goes and owns it; a temp folder made here would have no owner)."""
    if report_dir is None:
        return None
    (report_dir / "junit.xml").unlink(missing_ok=True)  # never leave a previous run's report behind
    if not data:
        return None
    report_dir.mkdir(parents=True, exist_ok=True)
    target = report_dir / "junit.xml"
    tmp = report_dir / f".junit.xml.{os.getpid()}.tmp"
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return target

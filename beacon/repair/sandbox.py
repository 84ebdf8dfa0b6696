"""Bubblewrap (``bwrap``) command prefix for running tests on a checkout.

Inside the sandbox the host root is mounted read-only; directories that hold
user data or sockets (``/tmp``, ``/home``, ``/root``, ``/run`` …) are replaced
by empty tmpfs so tests cannot read the harness user's files or reach a Unix
socket such as an SSH agent or a container daemon (Unix sockets ignore the
network namespace). The interpreter's own directories are bound back
read-only, the checkout is the only writable host directory, and files the
runner protects (conftest.py, pytest config) are bound read-only over
themselves inside it. ``--unshare-net`` leaves only a loopback interface;
``--unshare-pid`` makes the test's processes die with it; when the harness
runs as root all capabilities are dropped so the read-only binds cannot be
remounted.

Availability is probed once per process by running the interpreter under
exactly the mounts a real run uses, because a ``bwrap`` binary that exists
can still fail (e.g. no user namespaces inside a container).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterable

# Hidden behind a fresh tmpfs; whatever a run needs from them is bound back.
_MASKED = ("/tmp", "/var/tmp", "/run", "/home", "/root", "/mnt", "/media", "/srv")
SANDBOX_HOME = "/tmp/home"
SANDBOX_TMP = "/tmp"


class SandboxUnavailableError(RuntimeError):
    """A sandbox was required but bubblewrap is missing or does not work here."""


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _masks() -> list[str]:
    masks = [m for m in _MASKED if os.path.isdir(m) and not os.path.islink(m)]
    home = os.path.realpath(os.path.expanduser("~"))
    if home != "/" and os.path.isdir(home) and not any(_under(home, m) for m in masks):
        masks.append(home)
    return masks


def _interpreter_paths() -> list[str]:
    """Directories the harness interpreter needs: prefixes and import path."""
    candidates = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
                  os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))]
    candidates += [p for p in sys.path if p]
    out: list[str] = []
    for raw in candidates:
        for p in {os.path.abspath(raw), os.path.realpath(raw)}:
            if os.path.exists(p):
                out.append(p)
    return out


def _outermost(paths: Iterable[str]) -> list[str]:
    """Deduplicate, dropping any path already covered by an ancestor in the list."""
    kept: list[str] = []
    for p in sorted(set(paths), key=lambda s: (s.count("/"), s)):
        if not any(_under(p, k) for k in kept):
            kept.append(p)
    return kept


def bwrap_prefix(
    bwrap: str, checkout: Path, *, network: str, readonly_files: Iterable[Path] = ()
) -> list[str]:
    """The ``bwrap … --`` argv prefix; ``network`` is ``"deny"`` or ``"allow"``.

    ``readonly_files`` are bound read-only at their own path, over the
    checkout's writable bind when inside it, onto the tmpfs when outside.
    """
    if network not in {"deny", "allow"}:
        raise ValueError(f"network must be 'deny' or 'allow', got {network!r}")
    checkout_s = os.path.realpath(checkout)
    masks = _masks()
    argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc"]
    if network == "deny":
        argv.append("--unshare-net")
    if os.geteuid() == 0:
        argv += ["--cap-drop", "ALL"]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for m in masks:
        argv += ["--tmpfs", m]
    # Bind back what the interpreter needs from masked trees, but never a whole
    # masked root (e.g. a script run from /tmp puts "/tmp" on sys.path): that
    # would expose the tree and make it read-only for the sandbox's own /tmp.
    rebinds = [p for p in _interpreter_paths() if any(_under(p, m) and p != m for m in masks)]
    for p in _outermost(rebinds):
        argv += ["--ro-bind", p, p]
    # After the read-only binds, so the checkout is writable even if it lies
    # inside one of them.
    argv += ["--bind", checkout_s, checkout_s]
    for f in readonly_files:
        real = os.path.realpath(f)
        if os.path.isfile(real):
            argv += ["--ro-bind", real, real]
    argv += ["--dir", SANDBOX_HOME, "--chdir", checkout_s, "--"]
    return argv


@lru_cache(maxsize=None)
def _probe(bwrap: str) -> str | None:
    """``None`` if a sandboxed interpreter starts; else the error text."""
    with tempfile.TemporaryDirectory(prefix="beacon-bwrap-probe-") as tmp:
        argv = bwrap_prefix(bwrap, Path(tmp), network="deny") + [sys.executable, "-c", "pass"]
        try:
            done = subprocess.run(argv, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{type(exc).__name__}: {exc}"
    if done.returncode != 0:
        return done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
    return None


def find_bwrap() -> tuple[str | None, str]:
    """``(path, "")`` if bubblewrap works here, else ``(None, why not)``."""
    path = shutil.which("bwrap")
    if path is None:
        return None, "bwrap is not on PATH (install the 'bubblewrap' package)"
    problem = _probe(path)
    if problem is not None:
        return None, f"bwrap at {path} cannot start a sandbox here: {problem}"
    return path, ""

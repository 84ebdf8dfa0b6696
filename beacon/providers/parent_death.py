"""Exec a command that the kernel kills when its parent dies (Linux ``PR_SET_PDEATHSIG``).

    python parent_death.py <parent pid> -- COMMAND [ARG...]

``LocalServer`` starts the model server through this file. ``stop()`` and its
``weakref.finalize`` hook cover every ordinary exit, but a parent killed with
SIGKILL (an OOM kill, a cancelled cluster job) runs no Python at all, and the
server would live on holding its port and CPU cores. The death signal survives
``exec``, so the server itself (same pid, same process group) receives SIGKILL
when the parent goes. If the parent is already gone by the time the signal is
armed, the server is never started. Processes the server spawns itself are not
covered (the ordinary process-group kill is). Linux sends the signal when the
*thread* that forked the server exits, not only the process: a provider whose
server was started from a short-lived worker thread loses it when that thread
ends, so start providers from a long-lived thread (the runners use the main
thread). Where ``prctl`` does not exist (not Linux) the file just execs.

Run by path in isolated mode (``python -I parent_death.py``), not as
``-m beacon.providers...``: the shim must not import the package or anything
beside it (startup time, and ``beacon/providers/openai.py`` would shadow a
library of the same name on ``sys.path``).
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
USAGE = "usage: parent_death.py <parent pid> -- COMMAND [ARG...]"


def arm(parent: int) -> str | None:
    """Ask for SIGKILL when the parent dies; an error text, or None when armed (or not Linux)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
            return f"prctl(PR_SET_PDEATHSIG) failed: {os.strerror(ctypes.get_errno())}"
    if os.getppid() != parent:  # the parent died before the signal was armed: never start
        return f"parent {parent} is gone"
    return None


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--" or not argv[0].isdigit():
        print(USAGE, file=sys.stderr)
        return 2
    problem = arm(int(argv[0]))
    if problem:
        print(f"parent_death: {problem}; not starting {argv[2]!r}", file=sys.stderr)
        return 1
    try:
        os.execvp(argv[2], argv[2:])
    except OSError as exc:
        print(f"parent_death: cannot exec {argv[2]!r}: {exc}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

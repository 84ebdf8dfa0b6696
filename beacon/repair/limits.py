"""Resource limits for one test run: processes, memory and ``/tmp`` size, enforced by the kernel.

The timeout bounds how *long* the code under test runs; these bound how much
it takes meanwhile. A fork bomb, a memory hog or a full ``/tmp`` (a tmpfs,
so RAM) would otherwise slow or stop every other run on the machine.

* ``tmp_mb`` sizes the sandbox's ``/tmp`` and ``/var/tmp`` tmpfs
  (bubblewrap ``--size``, :mod:`beacon.repair.sandbox`).
* ``processes`` (tasks: threads count too) and ``memory_mb`` (resident
  memory, tmpfs pages included) go into a fresh cgroup per run, made *under
  the harness's own cgroup* so the limits the harness itself lives under
  still apply. The command enters it through ``/bin/sh`` (``echo $$ >
  cgroup.procs; exec …``) before anything else runs, so every descendant —
  sandboxed or not, in the process group or escaped from it with ``setsid`` —
  is inside, and is killed when the run ends.

Why cgroups and not ``RLIMIT_NPROC``/``RLIMIT_AS``: a process count limit is
not enforced for a harness running as root (the sandbox's uid maps to root
outside; checked on this machine: 40 forks under a limit of 20), and an
address-space limit is per process, so it bounds neither a fork bomb's total
nor a tmpfs. Creating a cgroup needs write access to the cgroup tree (root,
or a delegated subtree); without it the run records why the limits are not
enforced (``enforced_by``), and ``tmp_mb`` is still applied by the sandbox.

A run that reaches a limit (a fork refused by the ``pids`` controller, a
process killed by the out-of-memory killer in its cgroup) records it in
``hit``; :func:`beacon.repair.pytest_runner.verify_run` fails such a run even
if its report says passed, as it does a timeout.
"""
from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

_CONTROLLERS = ("pids", "memory")
# Moves the shell into each cgroup named before ``--`` (exit 125 if it cannot), then becomes the command.
_ENTER = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


@dataclass(frozen=True)
class Limits:
    """Per-run limits; ``0`` means no limit of that kind."""

    processes: int = 512
    memory_mb: int = 4096
    tmp_mb: int = 1024

    def __post_init__(self) -> None:
        for name in ("processes", "memory_mb", "tmp_mb"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"limits.{name} must be an integer >= 0 (0 = no limit), got {value!r}")

    def evidence(self) -> dict:
        return {"processes": self.processes, "memory_mb": self.memory_mb, "tmp_mb": self.tmp_mb}


NO_LIMITS = Limits(processes=0, memory_mb=0, tmp_mb=0)


def _cgroup_mounts() -> dict[str, str]:
    """controller (``pids``, ``memory``, or ``unified`` for cgroup v2) -> mount point, from mountinfo."""
    mounts: dict[str, str] = {}
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return mounts
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        point, fstype, options = fields[4], tail[0], tail[2].split(",")
        if fstype == "cgroup2":
            mounts.setdefault("unified", point)
        elif fstype == "cgroup":
            for c in _CONTROLLERS:
                if c in options:
                    mounts.setdefault(c, point)
    return mounts


def _own_cgroups() -> dict[str, str]:
    """controller (or ``unified``) -> this process's cgroup path, from ``/proc/self/cgroup``."""
    own: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return own
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            own["unified"] = path
        for c in controllers.split(","):
            if c in _CONTROLLERS:
                own[c] = path
    return own


class RunCgroup:
    """The cgroup(s) of one run: v1 (one folder per controller) or v2 (one folder with both controllers)."""

    def __init__(self, folders: dict[str, Path], version: str, limits: Limits):
        self.folders = folders  # controller -> folder; v2: both map to the same folder
        self.version = version
        self.limits = limits

    @property
    def enforced_by(self) -> str:
        return f"cgroup {self.version} ({', '.join(sorted(self.folders))})"

    @classmethod
    def create(cls, limits: Limits) -> tuple["RunCgroup | None", str]:
        """``(cgroup, "")`` with the limits written, or ``(None, why not)``."""
        wanted = [c for c, v in (("pids", limits.processes), ("memory", limits.memory_mb)) if v]
        if not wanted:
            return None, "no process or memory limit configured"
        mounts, own = _cgroup_mounts(), _own_cgroups()
        name = f"{_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"
        made: dict[str, Path] = {}
        try:
            if all(c in mounts and c in own for c in wanted):
                version = "v1"
                for c in wanted:
                    folder = Path(mounts[c] + own[c]) / name
                    folder.mkdir()
                    made[c] = folder
            elif "unified" in mounts and "unified" in own:
                version = "v2"
                parent = Path(mounts["unified"] + own["unified"])
                available = (parent / "cgroup.controllers").read_text().split()
                missing = [c for c in wanted if c not in available]
                if missing:
                    return None, f"cgroup v2 at {parent} does not offer {', '.join(missing)}"
                enabled = (parent / "cgroup.subtree_control").read_text().split()
                for c in wanted:
                    if c not in enabled:  # fails (EBUSY) unless the subtree was delegated to the harness
                        (parent / "cgroup.subtree_control").write_text(f"+{c}")
                folder = parent / name
                folder.mkdir()
                made = {c: folder for c in wanted}
            else:
                return None, "no cgroup hierarchy with the pids and memory controllers is mounted"
            group = cls(made, version, limits)
            group._write_limits()
            for folder in set(made.values()):
                _remove_stale(folder.parent)
            return group, ""
        except OSError as exc:
            RunCgroup(made, "", limits).destroy()
            return None, f"cannot create a cgroup for the run ({type(exc).__name__}: {exc.strerror or exc}; " \
                         "needs root or a delegated cgroup subtree)"

    def _write_limits(self) -> None:
        lim = self.limits
        if "pids" in self.folders:
            (self.folders["pids"] / "pids.max").write_text(str(lim.processes))
        if "memory" in self.folders:
            folder, limit = self.folders["memory"], lim.memory_mb << 20
            if self.version == "v1":
                (folder / "memory.limit_in_bytes").write_text(str(limit))
            else:
                (folder / "memory.max").write_text(str(limit))
                swap = folder / "memory.swap.max"
                if swap.exists():
                    swap.write_text("0")  # the limit is on memory, not on memory plus swap

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run by a shell that first moves itself into the cgroup(s)."""
        procs = sorted({str(f / "cgroup.procs") for f in self.folders.values()})
        return ["/bin/sh", "-c", _ENTER, "beacon-cgroup", *procs, "--", *argv]

    def hits(self) -> tuple[str, ...]:
        """Which limits the run reached: ``processes`` (a fork refused), ``memory`` (an out-of-memory kill)."""
        found = []
        if "pids" in self.folders and _counter(self.folders["pids"] / "pids.events", "max") > 0:
            found.append("processes")
        if "memory" in self.folders:
            folder = self.folders["memory"]
            source = folder / ("memory.oom_control" if self.version == "v1" else "memory.events")
            if _counter(source, "oom_kill") > 0:
                found.append("memory")
        return tuple(found)

    def peaks(self) -> dict:
        """The run's largest resident memory (MiB) and task count, where the kernel keeps them (a measurement for
        ``experiments/benchmarks/limits_headroom.py``; it varies between identical runs, so rows do not carry it)."""
        out: dict = {}
        if "memory" in self.folders:
            name = "memory.max_usage_in_bytes" if self.version == "v1" else "memory.peak"
            value = _read_int(self.folders["memory"] / name)
            out["memory_mb"] = None if value is None else round(value / (1 << 20), 1)
        if "pids" in self.folders:
            out["processes"] = _read_int(self.folders["pids"] / "pids.peak")
        return out

    def destroy(self) -> None:
        """Kill whatever is still inside (an escaped background process), then remove the folders."""
        for folder in set(self.folders.values()):
            _empty_and_remove(folder)


def _empty_and_remove(folder: Path) -> None:
    """SIGKILL every process in the cgroup ``folder`` until none is left (or a second has passed), then remove it."""
    for _ in range(50):
        try:
            pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
        except OSError:
            break
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
    try:
        folder.rmdir()
    except OSError:
        pass  # still busy (a dying process): an empty folder left behind holds no process


_PREFIX = "beacon-"


def _remove_stale(parent: Path) -> None:
    """Remove the run cgroups of harness processes that are gone (killed before their ``destroy``), killing what
    still runs in them: a run whose harness died by ``kill -9`` can outlive it (see ``beacon.scratch``)."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        owner = entry.name[len(_PREFIX):].split("-", 1)[0] if entry.name.startswith(_PREFIX) else ""
        if not owner.isdigit() or int(owner) == os.getpid():
            continue
        try:
            os.kill(int(owner), 0)
            continue  # its harness is alive: its run may be in progress
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        _empty_and_remove(entry)


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _counter(path: Path, key: str) -> int:
    """The value of ``key N`` in a cgroup ``*.events``/``oom_control`` file; 0 when absent."""
    try:
        for line in path.read_text().splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
    except (OSError, ValueError):
        pass
    return 0


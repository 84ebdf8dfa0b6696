"""Run one command in its own process group with a deadline and capped output.

The child becomes a session and process-group leader (``start_new_session``), killed if this process dies
(``setpriv --pdeathsig KILL`` where util-linux has it).
On timeout, *and* as soon as the child exits normally, the whole group gets
SIGKILL: a test that starts a background process must not outlive the run
(it could rewrite files the harness reads next, or keep consuming CPU). The
group is killed while the exited leader is still an unreaped zombie, so its
id cannot have been reused by an unrelated process.

Output is drained incrementally from pipes by one ``select`` loop (no
threads): the first ``cap`` bytes of each stream are kept, the rest is counted
and discarded so a chatty child can neither block on a full pipe nor fill the
disk. An optional extra pipe (the "channel") is drained the same way; the
pytest runner uses it to receive the JUnit report without the report ever
existing as a file the child could overwrite.
"""
from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

# After the leader exits, wait at most this long for killed group members to
# close the pipes (a process that escaped the group could hold them forever).
_DRAIN_GRACE_S = 2.0
_POLL_S = 0.05


@dataclass(frozen=True)
class Captured:
    returncode: int
    timed_out: bool
    duration: float
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    channel: bytes = b""
    channel_truncated: bool = False


class _Sink:
    """The first ``cap`` bytes of a stream, or with ``tail`` its last ``cap`` bytes."""

    def __init__(self, cap: int, tail: bool = False):
        self.cap, self.tail = cap, tail
        self.chunks: list[bytes] = []
        self.kept = 0
        self.truncated = False

    def add(self, data: bytes) -> None:
        if self.tail:
            self.chunks.append(data)
            self.kept += len(data)
            if self.kept > 2 * self.cap:  # (trimmed now and then: memory stays under 2 x cap)
                self.truncated = True
                self.chunks = [b"".join(self.chunks)[-self.cap:]]
                self.kept = self.cap
            return
        room = self.cap - self.kept
        if len(data) > room:
            self.truncated = True
            data = data[:max(room, 0)]
        if data:
            self.chunks.append(data)
            self.kept += len(data)

    def value(self) -> bytes:
        data = b"".join(self.chunks)
        if self.tail and len(data) > self.cap:
            self.truncated = True
            return data[-self.cap:]
        return data


def remove_tree(path: os.PathLike | str) -> None:
    """``shutil.rmtree`` ignoring errors; a tree too deep for its recursion (code under test can make one where the
    checkout is writable: 1,200 nested folders) goes by ``rm -rf`` instead of crashing the job."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        subprocess.run(["rm", "-rf", "--", os.fspath(path)], check=False, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _dies_with_parent(argv: Sequence[str]) -> list[str]:
    """``argv`` behind util-linux's ``setpriv --pdeathsig KILL`` where it is installed: the child is killed when this
    process dies, even by SIGKILL (its own session is out of reach of a kill of this process's group, and a test
    run's pytest would otherwise wait forever to write its report to a pipe nobody reads: a job killed by ``kill
    -9`` left one such process per interrupted run). ``setpriv`` execs the command, so nothing else changes."""
    setpriv = _SETPRIV[0] if _SETPRIV else None
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else list(argv)


def _find_setpriv() -> str | None:
    found = shutil.which("setpriv")
    if found is None:
        return None
    probe = subprocess.run([found, "--pdeathsig", "KILL", "--", "true"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return found if probe.returncode == 0 else None  # (an old util-linux without --pdeathsig)


_SETPRIV: list = []  # [its path or None], found at the first run


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already empty


def run_captured(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    output_cap: int,
    channel: tuple[int, int] | None = None,
    channel_cap: int = 0,
    inherit_fds: tuple[int, ...] = (),
    stdout_cap: int | None = None,
    stdout_tail: bool = False,
) -> Captured:
    """Run ``argv``; ``channel`` is a ``(read_fd, write_fd)`` pipe whose write end
    the child inherits at the same number. Both channel fds are closed here, and
    so are ``inherit_fds`` (more fds the child inherits at the same numbers).
    ``stdout_cap``: standard output's own cap (default ``output_cap``); ``stdout_tail``: keep its last bytes, not
    its first (the replay's driver writes its outcomes last)."""
    read_fd, write_fd = channel if channel is not None else (None, None)
    inherited = list(inherit_fds)
    sinks: dict[int, _Sink] = {}
    sel = selectors.DefaultSelector()
    proc: subprocess.Popen[bytes] | None = None
    pidfd = None
    try:
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        if not _SETPRIV:
            _SETPRIV.append(_find_setpriv())
        proc = subprocess.Popen(
            _dies_with_parent(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            pass_fds=((write_fd,) if write_fd is not None else ()) + tuple(inherited),
        )
        start = time.monotonic()
        if write_fd is not None:
            os.close(write_fd)  # only the child may write; EOF once it is gone
            write_fd = None
        while inherited:
            os.close(inherited.pop())
        assert proc.stdout is not None and proc.stderr is not None
        streams = {proc.stdout.fileno(): output_cap if stdout_cap is None else stdout_cap,
                   proc.stderr.fileno(): output_cap}
        if read_fd is not None:
            streams[read_fd] = channel_cap
        for fd, cap in streams.items():
            sinks[fd] = _Sink(cap, tail=stdout_tail and fd == proc.stdout.fileno())
            sel.register(fd, selectors.EVENT_READ)
        try:
            pidfd = os.pidfd_open(proc.pid)
            sel.register(pidfd, selectors.EVENT_READ)
        except (AttributeError, OSError):
            pidfd = None  # old kernel: fall back to polling
        exited = timed_out = False
        duration = 0.0
        drain_until = float("inf")
        while True:
            now = time.monotonic()
            if not exited:
                info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                if info is not None or now - start >= timeout:
                    timed_out = info is None
                    exited = True
                    duration = now - start
                    _kill_group(proc.pid)  # leader unreaped: its pgid is still ours
                    drain_until = now + _DRAIN_GRACE_S
                    if pidfd is not None:
                        sel.unregister(pidfd)
            if exited and (len(sel.get_map()) == 0 or now >= drain_until):
                break
            wait = min(_POLL_S if pidfd is None else 1.0, drain_until - now)
            if not exited:
                wait = min(wait, max(start + timeout - now, 0.0) + 0.001)
            for key, _ in sel.select(max(wait, 0.0)):
                if key.fd == pidfd:
                    continue  # readable once the child exits; handled above
                data = os.read(key.fd, 65536)
                if data:
                    sinks[key.fd].add(data)
                else:
                    sel.unregister(key.fd)
        returncode = proc.wait()
        out, err = sinks[proc.stdout.fileno()], sinks[proc.stderr.fileno()]
        chan = sinks.get(read_fd) if read_fd is not None else None
        return Captured(
            returncode=returncode, timed_out=timed_out, duration=duration,
            stdout=out.value(), stderr=err.value(),
            stdout_truncated=out.truncated, stderr_truncated=err.truncated,
            channel=chan.value() if chan else b"", channel_truncated=chan.truncated if chan else False,
        )
    finally:
        if proc is not None and proc.returncode is None:
            _kill_group(proc.pid)
            proc.wait()
        sel.close()
        for fd in (pidfd, read_fd, write_fd, *inherited):
            if fd is not None:
                os.close(fd)
        if proc is not None:
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()

"""Bubblewrap (``bwrap``) sandbox for running tests on a checkout: an allowlist of mounts.

The sandbox starts from an empty root and binds back only what a test run
needs (:func:`layout`): the system's program and library trees (``/usr`` and
the ``/bin``, ``/lib*`` links or directories), a short list of non-secret
``/etc`` files that change library behaviour (dynamic linker cache, time
zone, MIME types, …), the Python installation and environment that runs the
tests (prefixes and site-packages), the fresh checkout and the runner's own
files (pytest config, canary plugin), all read-only: no host directory is
writable, so the code under test cannot change what the tests read. ``/etc/passwd``, ``/etc/group`` and ``/etc/hosts`` are written by
the runner (one unprivileged user, loopback names only). ``/tmp`` is a fresh
tmpfs (the one place tests write), ``/dev`` a minimal device tree; there is no ``/proc``.

Everything else on the host — home folders, ``/root``, ``/var``, other
checkouts, the project tree, Unix sockets under ``/run`` or ``/tmp`` — does
not exist inside. The tests run as uid/gid 1000 in a new user namespace (not
root, all capabilities dropped), in their own pid, ipc and uts namespaces
(every process dies with the sandbox), and by default in a network namespace
with only a loopback interface. :class:`Mount` records each bind, so a run
reports exactly what was visible.

Availability is probed once per process by running the interpreter under
exactly this layout, because a ``bwrap`` binary that exists can still fail
(e.g. no user namespaces inside a container).
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import site
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

SANDBOX_HOME = "/tmp/home"
SANDBOX_TMP = "/tmp"
SANDBOX_UID = 1000
SANDBOX_HOSTNAME = "beacon-sandbox"
# Root-level system trees: bound read-only (or re-created as the same symlink).
_SYSTEM_ROOTS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Host /etc entries that configure libraries and hold no secrets. Absent ones are skipped.
_ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "mime.types",
                "protocols", "services", "host.conf", "gai.conf", "nsswitch.conf", "locale.alias",
                "os-release", "debian_version", "alternatives", "fonts")
_SYNTHETIC_ETC = {
    "passwd": f"root:x:0:0:root:/root:/usr/sbin/nologin\nbeacon:x:{SANDBOX_UID}:{SANDBOX_UID}:beacon:{SANDBOX_HOME}:/usr/sbin/nologin\n"
              "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    "group": f"root:x:0:\nbeacon:x:{SANDBOX_UID}:\nnogroup:x:65534:\n",
    "hosts": f"127.0.0.1\tlocalhost {SANDBOX_HOSTNAME}\n::1\tlocalhost ip6-localhost ip6-loopback\n",
}


class SandboxUnavailableError(RuntimeError):
    """A sandbox was required but bubblewrap is missing or does not work here."""


@dataclass(frozen=True)
class Mount:
    """One entry of the sandbox's file system; ``kind`` is ro, rw, symlink, tmpfs, dev or proc."""

    kind: str
    dest: str
    source: str = ""
    why: str = ""
    size_mb: int = 0  # tmpfs only: its size (0: the kernel's default, half the RAM)

    def describe(self) -> str:
        if self.kind == "tmpfs" and self.size_mb:
            return f"tmpfs {self.dest} ({self.why}, {self.size_mb} MiB)"
        if self.kind == "symlink":
            return f"symlink {self.dest} -> {self.source} ({self.why})"
        if self.source and self.source != self.dest:
            return f"{self.kind} {self.source} at {self.dest} ({self.why})"
        return f"{self.kind} {self.dest} ({self.why})"

    def argv(self) -> list[str]:
        if self.kind == "ro":
            return ["--ro-bind", self.source or self.dest, self.dest]
        if self.kind == "rw":
            return ["--bind", self.source or self.dest, self.dest]
        if self.kind == "symlink":
            return ["--symlink", self.source, self.dest]
        if self.kind == "tmpfs":
            return (["--size", str(self.size_mb << 20)] if self.size_mb else []) + ["--tmpfs", self.dest]
        if self.kind == "dev":
            return ["--dev", self.dest]
        if self.kind == "proc":
            return ["--proc", self.dest]
        raise ValueError(f"unknown mount kind {self.kind!r}")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _outermost(paths: Iterable[str]) -> list[str]:
    """Deduplicate, dropping any path already covered by an ancestor in the list."""
    kept: list[str] = []
    for p in sorted(set(paths), key=lambda s: (s.count("/"), s)):
        if not any(_under(p, k) for k in kept):
            kept.append(p)
    return kept


def python_paths() -> list[str]:
    """The directories the test interpreter needs: its prefixes and site-packages.

    Not the rest of ``sys.path``: with ``python -m``, the harness's working
    directory (e.g. the project tree) is on it, and tests have no business
    reading it.
    """
    candidates = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
                  os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable)),
                  *site.getsitepackages()]
    out: list[str] = []
    for raw in candidates:
        for p in {os.path.abspath(raw), os.path.realpath(raw)}:
            if os.path.isdir(p) and p != "/":
                out.append(p)
    return out


def path_placeholders() -> dict[str, str]:
    """Host paths that differ between machines (the Python installation and environment) -> a stable
    label, so a row can record the mounts without absolute paths (``run.json`` keeps the mapping)."""
    labels = {}
    for raw, label in ((sys.base_prefix, "<python>"), (sys.prefix, "<python-env>")):
        for p in (os.path.realpath(raw), os.path.abspath(raw)):
            if p != "/" and not p.startswith("/usr"):
                labels.setdefault(p, label)
    return dict(sorted(labels.items(), key=lambda kv: -len(kv[0])))  # longest first: nested paths


def describe_mounts(mounts: list[Mount], replacements: dict[str, str]) -> tuple[str, ...]:
    """Each mount's description with ``replacements`` (path -> label) and the Python paths applied."""
    out = []
    for m in mounts:
        text = m.describe()
        for path, label in {**replacements, **path_placeholders()}.items():
            text = text.replace(path, label)
        out.append(text)
    return tuple(out)


def layout(checkout: Path, *, etc_dir: Path, readonly_files: Iterable[Path] = (),
           writable: Iterable[Path] = (), tmp_mb: int = 0) -> list[Mount]:
    """Every mount of a sandboxed run on ``checkout``, in bwrap order.

    ``etc_dir`` holds the synthesized ``passwd``/``group``/``hosts``
    (:func:`write_synthetic_etc`). ``readonly_files`` are bound read-only at
    their own path (the checkout is read-only already; they keep the pins on record). ``writable`` are host
    folders outside the checkout bound writable at their own path (``run_pytest`` checks where they lie).
    ``tmp_mb`` sizes ``/tmp`` and ``/var/tmp`` (tmpfs lives in RAM; 0 leaves the kernel's default, half the RAM).
    """
    checkout_s = os.path.realpath(checkout)
    mounts: list[Mount] = []
    system: list[str] = []
    for root in _SYSTEM_ROOTS:
        if os.path.islink(root):
            mounts.append(Mount("symlink", root, os.readlink(root), "system"))
        elif os.path.isdir(root):
            mounts.append(Mount("ro", root, root, "system"))
            system.append(root)
    for name in _ETC_ENTRIES:
        path = f"/etc/{name}"
        if os.path.exists(path):
            mounts.append(Mount("ro", path, path, "system configuration"))
    for name in sorted(_SYNTHETIC_ETC):
        mounts.append(Mount("ro", f"/etc/{name}", str(etc_dir / name), "written by the runner"))
    # No /proc: through /proc/self/mem the code under test could rewrite the interpreter's memory (a test's
    # constants) with open() alone, and a check of the path before the open loses races against a symlink the
    # tests flip in /tmp (red-team findings). The JUnit report travels over a named pipe, not /dev/fd/N.
    mounts += [Mount("dev", "/dev", why="minimal devices"),
               Mount("tmpfs", "/tmp", why="empty scratch", size_mb=tmp_mb),
               Mount("tmpfs", "/var/tmp", why="empty scratch", size_mb=tmp_mb)]
    # The interpreter: bound after /tmp so a Python living under /tmp shows through.
    for p in _outermost([*system, *python_paths()]):
        if p not in system:
            mounts.append(Mount("ro", p, p, "python"))
    # Read-only: code under test that could write the checkout could change what the tests read (a data file the
    # test compares against, a planted ``__pycache__/*.pyc`` that pytest's assertion rewriter loads in place of a
    # test module, a sparse or FIFO control file that stalls the host's integrity check). Tests write to ``/tmp``.
    # After the system binds, so this one holds even if the checkout lies inside one of them.
    mounts.append(Mount("ro", checkout_s, checkout_s, "checkout"))
    for f in readonly_files:
        real = os.path.realpath(f)
        if os.path.isdir(real) and not _under(real, checkout_s):
            mounts.append(Mount("ro", real, real, "runner folder"))
        elif os.path.isfile(real) or stat.S_ISFIFO(os.stat(real).st_mode if os.path.exists(real) else 0):
            why = "pinned control file" if _under(real, checkout_s) else "runner file"
            mounts.append(Mount("ro", real, real, why))
    for w in writable:  # last: a writable folder inside the read-only runner folder must not be covered by it
        mounts.append(Mount("rw", os.path.realpath(w), os.path.realpath(w), "writable by request"))
    return mounts


def write_synthetic_etc(directory: Path) -> Path:
    """Write the sandbox's ``passwd``, ``group`` and ``hosts`` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in _SYNTHETIC_ETC.items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory


def bwrap_argv(bwrap: str, mounts: list[Mount], *, chdir: str, network: str) -> list[str]:
    """The ``bwrap … --`` argv prefix; ``network`` is ``"deny"`` or ``"allow"``."""
    if network not in {"deny", "allow"}:
        raise ValueError(f"network must be 'deny' or 'allow', got {network!r}")
    argv = [bwrap, "--die-with-parent", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", SANDBOX_HOSTNAME,
            "--cap-drop", "ALL"]
    if network == "deny":
        argv.append("--unshare-net")
    for m in mounts:
        argv += m.argv()
    argv += ["--dir", SANDBOX_HOME, "--chdir", chdir, "--"]
    return argv


def bwrap_prefix(bwrap: str, checkout: Path, *, network: str, etc_dir: Path, readonly_files: Iterable[Path] = (),
                 writable: Iterable[Path] = (), tmp_mb: int = 0) -> tuple[list[str], list[Mount]]:
    """``(argv prefix, mounts)`` for running a command on ``checkout`` in the sandbox."""
    mounts = layout(checkout, etc_dir=etc_dir, readonly_files=readonly_files, writable=writable, tmp_mb=tmp_mb)
    return bwrap_argv(bwrap, mounts, chdir=os.path.realpath(checkout), network=network), mounts


@lru_cache(maxsize=None)
def _probe(bwrap: str) -> str | None:
    """``None`` if a sandboxed interpreter starts as the sandbox user; else the error text."""
    with tempfile.TemporaryDirectory(prefix="beacon-bwrap-probe-") as tmp:
        checkout = Path(tmp) / "checkout"
        checkout.mkdir()
        (checkout / "probe").write_text("ok")
        argv, _ = bwrap_prefix(bwrap, checkout, network="deny", etc_dir=write_synthetic_etc(Path(tmp) / "etc"))
        check = (f"import os; assert os.getuid() == {SANDBOX_UID}, os.getuid(); open('/tmp/probe', 'w').write('ok'); "
                 f"print(open('probe').read())")
        try:
            done = subprocess.run(argv + [sys.executable, "-c", check], capture_output=True, timeout=30,
                                  stdin=subprocess.DEVNULL, env={"PATH": os.defpath})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{type(exc).__name__}: {exc}"
        if done.returncode != 0:
            return done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        if done.stdout.strip() != b"ok":
            return "the sandboxed interpreter could not read the checkout"
    return None


# Run inside a probe sandbox: what the tests will see, observed rather than assumed from the settings.
_OBSERVE = """
import json, os, socket
try:
    open("probe", "a").close(); checkout_writable = True
except OSError:
    checkout_writable = False
st = os.statvfs("/tmp")
print(json.dumps({"uid": os.getuid(), "gid": os.getgid(),
                  "loopback_only": [n for _, n in socket.if_nameindex()] == ["lo"],
                  "proc_mounted": os.path.exists("/proc/self"), "checkout_writable": checkout_writable,
                  "tmp_size_mb": st.f_blocks * st.f_frsize >> 20}))
"""


@lru_cache(maxsize=None)
def _observe(bwrap: str, network: str, tmp_mb: int) -> tuple[tuple[str, object], ...]:
    with tempfile.TemporaryDirectory(prefix="beacon-bwrap-observe-") as tmp:
        checkout = Path(tmp) / "checkout"
        checkout.mkdir()
        argv, _ = bwrap_prefix(bwrap, checkout, network=network, etc_dir=write_synthetic_etc(Path(tmp) / "etc"),
                               tmp_mb=tmp_mb)
        done = subprocess.run(argv + [sys.executable, "-c", _OBSERVE], capture_output=True, timeout=30,
                              stdin=subprocess.DEVNULL, env={"PATH": os.defpath})
    if done.returncode != 0:
        raise SandboxUnavailableError("the sandbox probe failed: "
                                      + (done.stderr.decode("utf-8", "replace").strip() or f"status {done.returncode}"))
    seen = json.loads(done.stdout)
    if not tmp_mb:
        seen["tmp_size_mb"] = None  # the kernel's default depends on the machine's RAM: not a fact about the run
    return tuple(sorted(seen.items()))


def observe(bwrap: str, *, network: str, tmp_mb: int) -> dict:
    """What code in a sandbox with these settings sees (uid, only a loopback interface, ``/proc``, a writable checkout,
    the ``/tmp`` size), from a probe run once per process and setting; raises :class:`SandboxUnavailableError` if it
    contradicts what the sandbox promises (a network interface beside loopback under ``deny``, root, a mounted
    ``/proc``, a writable checkout), so no run claims an isolation that was not there."""
    seen = dict(_observe(bwrap, network, tmp_mb))
    problems = _contradictions(seen, network)
    if problems:
        raise SandboxUnavailableError("the sandbox does not isolate as promised: " + "; ".join(problems))
    return seen


def _contradictions(seen: dict, network: str) -> list[str]:
    problems = []
    if seen["uid"] != SANDBOX_UID:
        problems.append(f"uid {seen['uid']}, expected {SANDBOX_UID}")
    if network == "deny" and not seen["loopback_only"]:
        problems.append("a network interface beside loopback")
    if seen["proc_mounted"]:
        problems.append("/proc is mounted")
    if seen["checkout_writable"]:
        problems.append("the checkout is writable")
    return problems


BOX_MB = 1  # the canary module is a few kB
_BOX_MOUNT = 'mount -t tmpfs -o "size=$1,mode=0703,uid=65534,gid=65534" beacon-box "$2" && shift 2 && exec "$@"'


def box_tmpfs_prefix(box: Path) -> list[str] | None:
    """An argv prefix that runs the command in a private mount namespace where ``box`` is a fresh
    ``BOX_MB`` MiB tmpfs owned by nobody, mode 0703, or ``None`` where the harness cannot mount one (not root,
    no ``unshare``). Without it the box is a host folder the tests can write to without bound (red-team round 5:
    a 20 MB file at the bottom of a 1,200-deep tree, left on the host disk)."""
    unshare = _box_unshare()
    if unshare is None:
        return None
    return [unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", _BOX_MOUNT, "beacon-box",
            f"{BOX_MB}m", str(box)]


@lru_cache(maxsize=None)
def _box_unshare() -> str | None:
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        return None
    with tempfile.TemporaryDirectory(prefix="beacon-box-probe-") as tmp:
        done = subprocess.run([unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", _BOX_MOUNT,
                               "beacon-box", "64k", tmp, "/bin/sh", "-c", 'test "$(stat -c %u "$0")" = 65534', tmp],
                              capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    return unshare if done.returncode == 0 else None


def find_bwrap() -> tuple[str | None, str]:
    """``(path, "")`` if bubblewrap works here, else ``(None, why not)``."""
    path = shutil.which("bwrap")
    if path is None:
        return None, "bwrap is not on PATH (install the 'bubblewrap' package)"
    problem = _probe(path)
    if problem is not None:
        return None, f"bwrap at {path} cannot start a sandbox here: {problem}"
    return path, ""

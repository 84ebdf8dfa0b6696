"""The allowlist sandbox and the canaries, seen from inside a real sandboxed pytest run."""
from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from beacon.repair.canary import CanarySecret, check_canaries
from beacon.repair.junit import parse_junit
from beacon.repair import pytest_setup
from beacon.repair.pytest_runner import run_pytest, verify_run
from beacon.repair.sandbox import SANDBOX_UID, box_tmpfs_prefix, find_bwrap

BWRAP, WHY_NO_BWRAP = find_bwrap()
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason=f"needs a working bubblewrap: {WHY_NO_BWRAP}")

PROBE = '''
import json, os, socket, stat, sys


def test_probe():
    seen = {"uid": os.getuid(), "cmdline": " ".join(sys.orig_argv),
            "environ": dict(os.environ), "fds": [],
            "root": sorted(os.listdir("/")), "exists": {}, "socket": None}
    for fd in range(256):  # there is no /proc to list them: ask each number
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        seen["fds"].append(f"pipe:{os.fstat(fd).st_ino}" if stat.S_ISFIFO(mode) else stat.filemode(mode))
    for path in ("/etc/shadow", "/etc/ssl/private", HOST_FILE, HOST_SOCKET, "/var/lib", "/home", "/proc/self/mem",
                 "/proc"):
        seen["exists"][path] = os.path.exists(path)
    box = [a for a in sys.orig_argv if a.startswith("--junitxml=")][0][len("--junitxml="):].rsplit("/", 1)[0] + "/box"
    seen["box"] = {}
    for what, call in (("list", lambda: os.listdir(box)), ("chmod", lambda: os.chmod(box, 0o777))):
        try:
            call()
            seen["box"][what] = "allowed"
        except OSError as exc:
            seen["box"][what] = type(exc).__name__
    try:  # more than the box's tmpfs holds (when the harness could mount one)
        with open(box + "/fill", "wb") as fh:
            fh.write(b"x" * (3 << 20))
        seen["box"]["fill"] = "allowed"
    except OSError as exc:
        seen["box"]["fill"] = exc.strerror
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(HOST_SOCKET)
        seen["socket"] = "connected"
    except OSError as exc:
        seen["socket"] = type(exc).__name__
    with open(OUTBOX + "/seen.json", "w") as fh:  # the checkout is read-only; the outbox is bound writable
        json.dump(seen, fh)
'''


def checkout_with_probe(tmp_path: Path, host_file: Path, host_socket: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_probe.py").write_text(
        f"HOST_FILE = {str(host_file)!r}\nHOST_SOCKET = {str(host_socket)!r}\n"
        f"OUTBOX = {str(tmp_path / 'outbox')!r}\n" + PROBE)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@needs_bwrap
def test_sandboxed_tests_run_unprivileged_and_see_no_host_files_sockets_or_secret(tmp_path):
    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("top secret")
    server = socket.socket(socket.AF_UNIX)
    host_socket = tmp_path / "agent.sock"
    server.bind(str(host_socket))
    server.listen(1)
    try:
        root = checkout_with_probe(tmp_path, host_file, host_socket)
        (tmp_path / "outbox").mkdir()
        run = run_pytest(root, ["tests"], protected={}, sandbox="required", report_dir=tmp_path / "report",
                         writable=[tmp_path / "outbox"])
    finally:
        server.close()
    assert verify_run(run, ["tests/test_probe.py::test_probe"]).passed, (run.stdout, run.stderr)
    seen = json.loads((tmp_path / "outbox" / "seen.json").read_text())
    assert seen["uid"] == SANDBOX_UID
    assert not any(seen["exists"].values()), seen["exists"]  # host file, socket, /etc/shadow, /proc: not there
    assert seen["socket"] in {"FileNotFoundError", "ConnectionRefusedError"}
    assert "home" not in seen["root"] and "var" in seen["root"]  # /var holds only the empty /var/tmp
    # The canary secret (test names, numbers) is in no argument, variable or open descriptor.
    saved = parse_junit(run.report_path.read_bytes())
    names = {tc.name for tc in saved.testcases} - {"test_probe"}
    assert len(names) == 2
    visible = seen["cmdline"] + json.dumps(seen["environ"])
    assert not any(n in visible or n[5:] in visible for n in names)
    # Pipes still open: stdout, stderr and the JUnit report's. The secret's pipe was closed before collection.
    assert len({fd for fd in seen["fds"] if fd.startswith("pipe:")}) == 3, seen["fds"]  # distinct pipes
    # The run records exactly what was mounted.
    assert any(m.startswith("ro ") and m.endswith("(checkout)") for m in run.mounts)
    box_tmpfs = box_tmpfs_prefix(tmp_path) is not None
    assert [m for m in run.mounts if m.startswith("rw ")] == [f"rw {tmp_path / 'outbox'} (writable by request)"] + (
        [] if box_tmpfs else ["rw <runner>/box (writable by request)"])
    if box_tmpfs:  # the box is a 1 MiB tmpfs of the run's own mount namespace: nothing the tests write reaches the disk
        assert "tmpfs <runner>/box (canary box, 1 MiB, nobody's, mode 0703)" in run.mounts
        assert seen["box"].pop("fill") == "No space left on device"
    else:
        seen["box"].pop("fill")
    assert "ro <runner> (runner folder)" in run.mounts
    # the canary box: the sandbox's user could write in it but neither list nor chmod it
    assert seen["box"] == {"list": "PermissionError", "chmod": "PermissionError"}, seen["box"]
    assert not any(m.startswith("ro / ") for m in run.mounts)


def test_canary_check_reads_the_secret_names_and_strips_them():
    secret = CanarySecret.new()
    xml = (f'<testsuites><testsuite name="pytest" tests="3" failures="1" errors="0" skipped="0">'
           f'<testcase classname="tests.test_a" name="test_real"/>'
           f'<testcase classname="tests.test_a" name="{secret.must_pass}"/>'
           f'<testcase classname="tests.test_a" name="{secret.must_fail}">'
           f'<failure message="assert {secret.left} == {secret.right}">x</failure></testcase>'
           f'</testsuite></testsuites>')
    check, report = check_canaries(parse_junit(xml.encode()), secret)
    assert check.ok and check.ran and [tc.name for tc in report.testcases] == ["test_real"]
    assert report.declared.tests == 1 and report.declared.failures == 0 and not report.count_mismatches()
    forced = xml.replace(f'<failure message="assert {secret.left} == {secret.right}">x</failure>', "")
    forced = forced.replace('failures="1"', 'failures="0"')
    check, _ = check_canaries(parse_junit(forced.encode()), secret)
    assert not check.ok and check.must_fail == "passed"
    unrewritten = xml.replace(f"assert {secret.left} == {secret.right}", "AssertionError")
    check, _ = check_canaries(parse_junit(unrewritten.encode()), secret)
    assert not check.ok and "rewritten" in check.reasons[0]
    check, report = check_canaries(parse_junit(xml.replace(secret.must_pass, "test_other").encode()), secret)
    assert not check.ok and check.must_pass == "missing"


def test_auto_without_bubblewrap_warns_once_and_records_it(tmp_path, capfd, monkeypatch):
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no bwrap on PATH
    monkeypatch.setattr(pytest_setup, "_warned_unsandboxed", set())  # earlier tests may have warned already
    run = run_pytest(root, ["tests"], protected={}, sandbox="auto", report_dir=tmp_path / "report-1")
    assert not run.sandboxed and "bwrap is not on PATH" in run.sandbox_note and run.mounts == ()
    assert verify_run(run, ["tests/test_ok.py::test_ok"]).passed
    run_pytest(root, ["tests"], protected={}, sandbox="auto", report_dir=tmp_path / "report-2")
    err = capfd.readouterr().err
    assert err.count("tests run WITHOUT a sandbox") == 1

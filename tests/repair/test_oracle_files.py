"""What a pristine run changes in the file system is put back when it ends (session 46, red-team round 61).

The in-run oracle's pristine call runs in the test's own process, on the test's own file system. Made first (session
45), its file writes were still there when the real call ran and when the test read them: a kept bug that omits a
write (or skips it when the file exists) passed on the pristine call's file, and the second pristine run, made after
the real call to weigh a self-disagreement, wrote over the real call's file. ``canary_plugin._Files`` saves the state
of every path a pristine run is about to change (through the bootstrap's audit hook, which hands it the run's events)
and puts it back when the run ends; what it cannot put back (a process started, a path relative to a folder
descriptor, a file past the size cap) is refused before it happens and the run's check dropped (``files_refused``).
The guard itself is tested here in this process with hypothesis (random trees, random changes: the tree after
``end()`` is the tree before ``begin()``); the harness-level cases are in ``round61/`` (the four forgeries),
``session46/`` and ``honest20/s46_h_*``.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import _thread
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from beacon.repair import canary_plugin as plugin
from repotools import case_run

HERE = Path(__file__).parent


def _tree(root: Path) -> dict:
    """Every entry under ``root``: kind, bytes or link target, mode and (for files) the modification time."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            found = path.lstat()
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", found.st_mode)
            else:
                out[rel] = ("file", path.read_bytes(), found.st_mode, found.st_mtime_ns)
    return out


def _guarded(change, keep: bool = False):
    """``change()`` as a pristine run makes it: between the guard's ``begin()`` and ``end()``; ``end()``'s answer and
    whether the change was refused. The paths earlier runs wrote are forgotten first unless ``keep`` (the plugin
    forgets them at each test's end; here every call is a test of its own)."""
    guard = plugin._file_guard()
    if not keep:
        guard.remembered.clear()
    guard.begin()
    refused = False
    try:
        change()
    except plugin._NotPutBack:
        refused = True
    except OSError:
        pass  # (a random change that does not apply: a folder removed before the file in it is written)
    finally:
        unsaved = guard.end()
    return unsaved, refused


NAMES = st.sampled_from(["a", "b", "c", "d/e", "d/f", "d/g/h"])
CHANGES = st.lists(st.tuples(st.sampled_from(["write", "append", "remove", "rename", "mkdir", "rmtree", "truncate",
                                              "chmod", "symlink", "rmdir", "replace"]), NAMES, NAMES,
                             st.binary(max_size=40)), max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.dictionaries(NAMES, st.binary(max_size=40), max_size=5), changes=CHANGES)
def test_every_change_of_a_pristine_run_is_put_back(tmp_path_factory, start, changes):
    root = tmp_path_factory.mktemp("tree")
    for name, data in start.items():
        path = root / name
        if path.parent.is_file():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_dir():
            path.write_bytes(data)
    before = _tree(root)

    def change():
        for kind, one, other, data in changes:
            path, target = root / one, root / other
            try:
                if kind in ("write", "append"):
                    path.parent.mkdir(parents=True, exist_ok=True)
                    with open(path, "wb" if kind == "write" else "ab") as fh:
                        fh.write(data)
                elif kind == "remove":
                    os.remove(path)
                elif kind in ("rename", "replace"):
                    (os.rename if kind == "rename" else os.replace)(path, target)
                elif kind == "mkdir":
                    os.makedirs(path)
                elif kind == "rmtree":
                    shutil.rmtree(path.parent if path.parent != root else path)
                elif kind == "truncate":
                    os.truncate(path, len(data) % 5)
                elif kind == "chmod":
                    os.chmod(path, 0o600)
                elif kind == "symlink":
                    os.symlink(other, path)
                elif kind == "rmdir":
                    os.rmdir(path.parent)
            except OSError:
                continue

    unsaved, refused = _guarded(change)
    assert (unsaved, refused) == (None, False)
    assert _tree(root) == before


def test_a_started_process_is_refused_before_it_runs(tmp_path):
    out = tmp_path / "child.txt"
    unsaved, refused = _guarded(lambda: subprocess.run([sys.executable, "-c", f"open({str(out)!r}, 'w')"]))
    assert refused and "started a process" in unsaved
    assert not out.exists()


def test_a_file_past_the_cap_is_refused_and_left_as_it_was(tmp_path, monkeypatch):
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * 2048)
    monkeypatch.setattr(plugin, "_FILE_BYTES_MOST", 1024)
    unsaved, refused = _guarded(lambda: big.write_bytes(b"y"))
    assert refused and "MiB" in unsaved
    assert big.read_bytes() == b"x" * 2048


def test_a_sqlite_database_is_put_back(tmp_path):
    db = tmp_path / "c.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (n INTEGER)")
    con.commit()
    con.close()
    before = db.read_bytes()

    def change():
        other = sqlite3.connect(db)
        other.execute("INSERT INTO t VALUES (1)")
        other.commit()
        other.close()

    assert _guarded(change) == (None, False)
    assert db.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["c.db"]


def test_another_thread_s_writes_while_a_run_is_on_are_put_back_and_the_check_dropped(tmp_path):
    # (a thread running before the run writes while it is on: the review of session 46 left such a file behind)
    out = tmp_path / "thread.txt"
    go, done = threading.Event(), threading.Event()

    def write():
        go.wait(5)
        out.write_text("theirs")
        done.set()

    worker = threading.Thread(target=write)
    worker.start()

    def change():
        go.set()
        done.wait(5)

    unsaved, refused = _guarded(change)
    worker.join()
    assert "another thread" in unsaved and not refused
    assert not out.exists()


def test_a_thread_the_run_starts_ends_with_it(tmp_path):
    # (red-team round 63: a ``threading.Timer`` the pristine code started wrote after the run was put back; its review:
    # a refused start dropped checks and left an executor's work item queued)
    out = tmp_path / "late.txt"
    count = threading.active_count()
    assert _guarded(lambda: threading.Timer(0.05, out.write_text, ("late",)).start()) == (None, False)
    time.sleep(0.2)
    assert not out.exists() and threading.active_count() == count  # (cancelled with the run)
    worker = threading.Thread(target=out.write_text, args=("joined",))
    unsaved, refused = _guarded(worker.start)
    assert not refused and not out.exists()  # (joined before the put-back: its write is put back with the run's)
    stop = threading.Event()
    unsaved, refused = _guarded(threading.Thread(target=stop.wait, args=(5,)).start)
    stop.set()
    assert "still running" in unsaved and not refused
    assert threading._start_new_thread is not plugin._guarded_start  # (given back at the run's end)


def test_what_no_audit_event_shows_is_guarded_too(tmp_path):
    # (red-team round 63: a FIFO made; an owner or extended attribute set; a buffered write left in a file object the
    # pristine call's copy held, flushed after the run was put back)
    fifo = tmp_path / "pipe"
    assert _guarded(lambda: os.mkfifo(fifo)) == (None, False)
    assert not os.path.lexists(fifo) and os.mkfifo is plugin._MKFIFO
    target = tmp_path / "owned.txt"
    target.write_text("x")
    unsaved, refused = _guarded(lambda: os.chown(target, os.getuid(), os.getgid()))
    assert refused and "owner" in unsaved
    held = []
    out = tmp_path / "buffered.txt"
    out.write_text("before")
    assert _guarded(lambda: held.append(open(out, "a")) or held[0].write("pristine")) == (None, False)
    held[0].close()
    assert out.read_text() == "before"


def test_a_relative_os_open_is_read_under_the_working_folder(tmp_path, monkeypatch):
    # (red-team round 63: a lock file opened relative to the test's folder was refused, and every check dropped)
    monkeypatch.chdir(tmp_path)

    def take():
        os.close(os.open("stock.lock", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))

    assert _guarded(take) == (None, False)
    assert os.listdir(tmp_path) == [] and os.open is plugin._OS_OPEN
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        unsaved, refused = _guarded(lambda: os.open("other.lock", os.O_CREAT | os.O_WRONLY, dir_fd=folder))
    finally:
        os.close(folder)
    assert refused and "relative" in unsaved  # (with a folder descriptor: still refused)


def test_a_second_run_finds_the_files_as_the_first_did(tmp_path):
    # (red-team round 63: the real call's lock file turned the second pristine run's answer, excused as the pristine
    # code disagreeing with itself)
    lock = tmp_path / "stock.lock"
    guard = plugin._file_guard()
    guard.remembered.clear()
    answers = []

    def take():
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            answers.append(True)
        except FileExistsError:
            answers.append(False)

    _guarded(take)
    first = guard.last
    take()  # (the real call)
    guard.begin(first)
    try:
        take()
    finally:
        assert guard.end() is None
    assert answers == [True, True, True] and lock.exists()


def test_a_remembered_path_that_grew_past_the_cap_drops_the_check(tmp_path, monkeypatch):
    # (the review's F1: the edit's real call padded the file a pristine run had written; saved again at the next
    # run's start, it could not be, and the run's write stayed where the test read it)
    out = tmp_path / "rows.json"
    _guarded(lambda: out.write_text("[1]"))
    out.write_text("[0]" + " " * 4096)
    monkeypatch.setattr(plugin, "_FILE_BYTES_MOST", 1024)
    unsaved, refused = _guarded(lambda: None, keep=True)
    assert unsaved and "MiB" in unsaved


def test_a_folder_is_saved_whole_only_when_it_is_moved_or_removed(tmp_path, monkeypatch):
    # (the review's B3: ``makedirs(exist_ok=True)``, a folder's chmod, a ``TemporaryFile`` had saved the whole folder —
    # all of /tmp — and put it back, deleting what others made there meanwhile)
    import tempfile

    monkeypatch.setattr(plugin, "_FILE_ENTRIES_MOST", 8)
    for i in range(20):
        (tmp_path / f"f{i}").write_text("x")
    guard = plugin._file_guard()

    def change():
        os.makedirs(tmp_path, exist_ok=True)
        os.chmod(tmp_path, 0o755)
        with tempfile.TemporaryFile(dir=tmp_path) as fh:
            fh.write(b"anonymous")
        (tmp_path / "f0").write_text("pristine")

    assert _guarded(change) == (None, False)
    real = os.path.realpath(tmp_path)
    assert guard.order[0] == real and os.path.join(real, "f0") in guard.order  # (the folder's mode, not its entries)
    assert (tmp_path / "f0").read_text() == "x" and len(os.listdir(tmp_path)) == 20


def test_a_path_written_by_a_pristine_run_is_saved_again_before_the_next(tmp_path):
    out = tmp_path / "held.txt"
    held = {}
    _guarded(lambda: held.setdefault("file", open(out, "w")))
    assert out.exists() is False  # (made by the run: put back as absent)
    # the next run writes through the file object the first one opened: no event, yet the path is saved again
    out.write_text("real")
    _guarded(lambda: (held["file"].seek(0), held["file"].write("pristine"), held["file"].flush()), keep=True)
    held["file"].close()
    assert out.read_text() == "real"


# the harness: the forgeries of round 61 and session 46 now fail their own test as the mutant does; the honest
# cases pass (a sample: every case file is run by ``experiments.benchmarks.case_files``)
@pytest.mark.parametrize("case", ["round61/omitted_write_supplied_by_pristine", "session46/s46_sqlite_row_omitted"])
def test_a_kept_bug_no_longer_passes_on_the_pristine_call_s_files(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / f"{case}.py.txt")
    assert not verdict.passed, (verdict.reasons, run.oracle_calls)
    assert [tc.outcome for tc in run.report.testcases if tc.name == "test_a"] == ["failed"]
    assert run.oracle_calls["files_put_back"] >= 1, run.oracle_calls


@pytest.mark.parametrize("case", ["s46_h_append_log", "s46_h_subprocess_export"])
def test_honest_repairs_that_write_files_pass(tmp_path, case):
    run, verdict = case_run(tmp_path, HERE / "honest20" / f"{case}.py.txt")
    assert verdict.passed, (verdict.reasons, run.oracle_calls)
    if case == "s46_h_subprocess_export":
        assert run.oracle_calls["files_refused"] == 1 and run.oracle_calls["unchecked"] >= 1, run.oracle_calls
    else:
        assert run.oracle_calls["files_put_back"] >= 2 and run.oracle_calls["checked"] >= 2, run.oracle_calls

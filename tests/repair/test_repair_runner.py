"""The hardened pytest runner on small real repositories: isolation, limits, sandbox."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from beacon.repair.controls import snapshot_protected
from beacon.repair.pytest_runner import (
    OUTPUT_CAP, TamperedCheckoutError, run_pytest, verify_run,
)
from beacon.repair.sandbox import SandboxUnavailableError, find_bwrap
from repotools import write_tree

BWRAP, WHY_NO_BWRAP = find_bwrap()
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason=f"bubblewrap unavailable: {WHY_NO_BWRAP}")
MODES = ["off", pytest.param("required", marks=needs_bwrap)]


def run(root: Path, selection=("tests",), **kw):
    kw.setdefault("protected", snapshot_protected(root))
    kw.setdefault("report_dir", root.parent / f"{root.name}-report")
    outbox = root.parent / f"{root.name}-outbox"  # where probes leave what they saw (OUTBOX below)
    outbox.mkdir(exist_ok=True)
    kw.setdefault("writable", [outbox])
    return run_pytest(root, list(selection), **kw)


# A probe's way out: the sandbox binds the checkout read-only, so probes write to ``<checkout>-outbox``,
# a host folder outside it that ``run`` asks the runner to bind writable.
OUTBOX = "Path(__file__).resolve().parents[1].with_name(Path(__file__).resolve().parents[1].name + '-outbox')"


def test_passing_repo_passes_with_hardened_argv(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "pkg/__init__.py": "def add(a, b):\n    return a + b\n",
        "tests/test_add.py": "from pkg import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    })
    result = run(root, sandbox="off", flags=["-v", "--tb=short"])
    assert verify_run(result, ["tests/test_add.py::test_add"]).passed, (result.stdout, result.stderr)
    argv = list(result.argv)
    # pytest is started by the canary bootstrap (python -c), which reads the run's secret from fd argv[3]
    assert argv[:3] == [sys.executable, "-P", "-c"] and "beacon_canary_plugin" in argv[3] and argv[4].isdigit()
    assert result.canaries.ok and result.canaries.must_pass == "passed" and result.canaries.must_fail == "failed"
    assert [tc.name for tc in result.report.testcases] == ["test_add"]  # canaries are stripped from the report
    for flag in ("-p", "no:cacheprovider", "--import-mode=importlib", "addopts=", "junit_family=xunit1",
                 "xfail_strict=true", "--rootdir", "--confcutdir", "-v", "--tb=short"):
        assert flag in argv
    assert any(a.startswith("--junitxml=") and a.endswith("/junit.fifo") for a in argv)  # a named pipe
    assert argv[-2:] == ["--", "tests"]
    assert not result.sandboxed and not result.network_isolated and result.sandbox_note
    # Nothing written into the checkout: no bytecode, no cache, no report.
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == [
        "pkg", "pkg/__init__.py", "tests", "tests/test_add.py"]
    assert result.report_path == root.parent / "repo-report" / "junit.xml"


def test_without_a_report_dir_nothing_is_saved_and_nothing_is_left_in_tmpdir(tmp_path, monkeypatch):
    """The report is parsed in memory; no ``beacon-junit-*`` folder (one per run used to be left in TMPDIR)."""
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
    result = run_pytest(root, ["tests"], protected=snapshot_protected(root), sandbox="off")
    assert verify_run(result, ["tests/test_a.py::test_a"]).passed and result.report_path is None
    assert [tc.name for tc in result.report.testcases] == ["test_a"]
    assert sorted(p.name for p in scratch.iterdir()) == []


ENV_PROBE = """
import json, os, sys
from pathlib import Path

def test_env():
    with open(""" + OUTBOX + """ / "env.json", "w") as fh:
        json.dump({"env": dict(os.environ), "bytecode": sys.dont_write_bytecode}, fh)
    home = os.environ["HOME"]
    open(os.path.join(home, "probe"), "w").close()  # a writable, private HOME
"""


@pytest.mark.parametrize("sandbox", MODES)
def test_environment_is_an_allowlist(tmp_path, monkeypatch, sandbox):
    secrets = {"GITHUB_TOKEN": "ghp_x", "OPENAI_API_KEY": "sk-x", "AWS_SECRET_ACCESS_KEY": "a",
               "SSH_AUTH_SOCK": "/tmp/agent", "MY_SERVICE_TOKEN": "t", "PYTHONPATH": "/evil",
               "PYTEST_ADDOPTS": "-k nothing", "PYTEST_PLUGINS": "evil", "VIRTUAL_ENV": "/v"}
    for key, value in secrets.items():
        monkeypatch.setenv(key, value)
    root = write_tree(tmp_path / "repo", {"tests/test_env.py": ENV_PROBE})
    result = run(root, sandbox=sandbox)
    assert verify_run(result, ["tests/test_env.py::test_env"]).passed, result.stdout
    seen = json.loads((tmp_path / "repo-outbox" / "env.json").read_text())
    env = seen["env"]
    assert not set(secrets) & set(env)
    assert set(env) <= {"PATH", "LANG", "LC_ALL", "TZ", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE",
                        "PYTHONHASHSEED", "PYTHONNOUSERSITE", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "HYPOTHESIS_STORAGE_DIRECTORY",
                        "PYTEST_VERSION", "PYTEST_CURRENT_TEST",  # set by pytest itself
                        "PWD"}  # set by bwrap --chdir
    assert env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1" and seen["bytecode"] is True
    assert env["HOME"] != os.path.expanduser("~")
    assert not Path(env["HOME"]).exists()  # the temporary HOME is gone after the run


def test_extra_env_may_not_smuggle_credentials(tmp_path):
    root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
    for key in ("GITHUB_TOKEN", "DB_PASSWORD", "PYTHONPATH", "PYTEST_ADDOPTS", "HOME"):
        with pytest.raises(ValueError, match=key):
            run(root, sandbox="off", extra_env={key: "x"})


HEARTBEAT = """
import subprocess, sys, time
from pathlib import Path

BEAT = """ + OUTBOX + """ / "beat"
CHILD = (
    "import sys, time\\n"
    "end = time.time() + 20\\n"
    "while time.time() < end:\\n"
    "    open(sys.argv[1], 'a').write('.')\\n"
    "    time.sleep(0.05)\\n"
)

def start_child(**kw):
    subprocess.Popen([sys.executable, "-c", CHILD, str(BEAT)], **kw)
    while not BEAT.exists():
        time.sleep(0.01)
"""


def _assert_stopped(beat: Path) -> None:
    before = beat.stat().st_size
    time.sleep(0.4)
    assert beat.stat().st_size == before, "a grandchild process outlived the run"


@pytest.mark.parametrize("sandbox", MODES)
def test_timeout_kills_the_whole_process_group(tmp_path, sandbox):
    root = write_tree(tmp_path / "repo", {"tests/test_hang.py": HEARTBEAT + (
        "\ndef test_hang():\n    start_child()\n    time.sleep(60)\n")})
    start = time.monotonic()
    result = run(root, sandbox=sandbox, timeout=1.5)
    assert result.timed_out and result.exit_code < 0
    assert 1.5 <= result.duration < 3.5 and time.monotonic() - start < 8.0
    verdict = verify_run(result, ["tests/test_hang.py::test_hang"])
    assert not verdict.passed
    assert "timed out after 1.5 s" in verdict.reasons and result.report is None
    _assert_stopped(tmp_path / "repo-outbox" / "beat")


@pytest.mark.parametrize("sandbox", MODES)
def test_background_grandchild_dies_when_pytest_exits(tmp_path, sandbox):
    root = write_tree(tmp_path / "repo", {"tests/test_bg.py": HEARTBEAT + (
        "\ndef test_bg():\n    start_child()\n")})
    result = run(root, sandbox=sandbox)
    assert verify_run(result, ["tests/test_bg.py::test_bg"]).passed and result.duration < 5
    _assert_stopped(tmp_path / "repo-outbox" / "beat")


@needs_bwrap
def test_sandbox_also_kills_a_grandchild_that_left_the_group(tmp_path):
    """setsid() escapes a process-group kill; the sandbox's PID namespace still ends it."""
    root = write_tree(tmp_path / "repo", {"tests/test_bg.py": HEARTBEAT + (
        "\ndef test_bg():\n    start_child(start_new_session=True)\n")})
    result = run(root, sandbox="required")
    assert verify_run(result, ["tests/test_bg.py::test_bg"]).passed
    _assert_stopped(tmp_path / "repo-outbox" / "beat")


def test_output_is_capped_and_flagged(tmp_path):
    root = write_tree(tmp_path / "repo", {"tests/test_loud.py": (
        "import atexit, os\n\n"
        "def _flood():\n"
        "    for fd in (1, 2):\n"
        "        for _ in range(48):\n"
        "            os.write(fd, b'x' * 65536)\n\n"
        "atexit.register(_flood)\n\n"
        "def test_loud():\n    pass\n")})
    result = run(root, sandbox="off")
    assert result.stdout_truncated and result.stderr_truncated
    assert len(result.stdout.encode()) == len(result.stderr.encode()) == OUTPUT_CAP
    assert verify_run(result, ["tests/test_loud.py::test_loud"]).passed  # output size is not a verdict


@pytest.mark.parametrize("selection, flags, message", [
    (["-k", "x"], [], "relative path"),
    (["../other/tests"], [], "relative path"),
    (["/etc/tests"], [], "relative path"),
    ([], [], "non-empty"),
    ("tests", [], "non-empty list"),
    (["tests"], ["--lf"], "not allowed"),
    (["tests"], ["-p", "myplugin"], "not allowed"),
    (["tests"], ["-x"], "not allowed"),
])
def test_selection_and_flags_are_validated(tmp_path, selection, flags, message):
    root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
    with pytest.raises(ValueError, match=message):
        run_pytest(root, selection, protected={}, flags=flags, sandbox="off")


def test_report_dir_inside_the_checkout_is_refused(tmp_path):
    root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
    with pytest.raises(ValueError, match="outside the checkout"):
        run(root, sandbox="off", report_dir=root / "reports")


def test_only_the_checkouts_own_root_config_is_used(tmp_path):
    # An ancestor config would collect check_* functions (one of which fails)
    # and deselect everything via addopts.
    write_tree(tmp_path, {"pytest.ini": "[pytest]\npython_functions = check_*\naddopts = -k nothing\n"})
    bare = write_tree(tmp_path / "bare", {"tests/test_a.py": "def test_a():\n    pass\n\ndef check_b():\n    assert 0\n"})
    verdict = verify_run(run(bare, sandbox="off"), ["tests/test_a.py::test_a"])
    assert verdict.passed, verdict.reasons
    # The checkout's own config is honoured; of its addopts only the allowlisted ones (test_project_addopts.py),
    # none with project_addopts="drop".
    own = write_tree(tmp_path / "own", {
        "pyproject.toml": '[tool.pytest.ini_options]\npython_functions = ["check_*"]\naddopts = "-k nothing"\n',
        "tests/test_a.py": "def check_a():\n    pass\n\ndef test_b():\n    assert 0\n",
    })
    result = run(own, sandbox="off", project_addopts="drop")
    assert verify_run(result, ["tests/test_a.py::check_a"]).passed, result.stdout
    assert [tc.name for tc in result.report.testcases] == ["check_a"]
    assert [tc.name for tc in run(own, sandbox="off").report.testcases] == []  # -k nothing kept: all deselected


def test_tampered_control_files_refuse_to_run(tmp_path):
    pristine = write_tree(tmp_path / "pristine", {
        "pyproject.toml": "[tool.pytest.ini_options]\nmarkers = ['slow']\n",
        "tests/conftest.py": "import pytest\n",
        "tests/test_a.py": "def test_a():\n    pass\n",
    })
    protected = snapshot_protected(pristine, extra=["tests/test_a.py", "tests/unit/test_new.py"])
    assert protected["tests/unit/test_new.py"] == "absent"
    tamperings = {
        "added": lambda r: (r / "tests/sub").mkdir() or (r / "tests/sub/conftest.py").write_text("x = 1\n"),
        "modified": lambda r: (r / "tests/conftest.py").write_text("import pytest  # changed\n"),
        "removed": lambda r: (r / "tests/conftest.py").unlink(),
        "config": lambda r: (r / "pyproject.toml").write_text("[tool.pytest.ini_options]\n"),
        "new root config": lambda r: (r / "pytest.ini").write_text("[pytest]\n"),
        "test file": lambda r: (r / "tests/test_a.py").write_text("def test_a():\n    assert 1\n"),
        "created": lambda r: (r / "tests/unit").mkdir() or (r / "tests/unit/test_new.py").write_text(""),
    }
    for name, tamper in tamperings.items():
        checkout = tmp_path / name.replace(" ", "_")
        shutil.copytree(pristine, checkout)
        tamper(checkout)
        with pytest.raises(TamperedCheckoutError, match="differ from the pristine task"):
            run_pytest(checkout, ["tests"], protected=protected, sandbox="off")
    assert verify_run(run(pristine, protected=protected, sandbox="off"), ["tests/test_a.py::test_a"]).passed


def test_sandbox_required_without_bwrap_raises_and_auto_falls_back(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no bwrap on PATH for the harness
    with pytest.raises(SandboxUnavailableError, match="bwrap is not on PATH"):
        run(root, sandbox="required")
    result = run(root, sandbox="auto")
    assert not result.sandboxed and not result.network_isolated
    assert "bubblewrap" in result.sandbox_note
    assert verify_run(result, ["tests/test_a.py::test_a"]).passed


SANDBOX_PROBE = """
import errno, os, socket, sys
from pathlib import Path

import pytest

def test_no_network():
    assert [name for _, name in socket.if_nameindex()] == ["lo"]
    with pytest.raises(OSError) as info:
        socket.create_connection(("1.1.1.1", 53), timeout=2)
    assert info.value.errno == errno.ENETUNREACH

def test_only_tmp_is_writable():
    here = Path(__file__).parent
    with pytest.raises(OSError) as info:
        (here / "scratch.txt").write_text("no")  # the checkout is read-only: what the tests read stays put
    assert info.value.errno == errno.EROFS
    with pytest.raises(OSError):
        os.makedirs(here / "__pycache__")  # no planted bytecode either
    Path(os.environ["HOME"], "x").write_text("ok")  # the private HOME is writable (under /tmp)
    Path("/tmp/scratch.txt").write_text("ok")  # and /tmp
    with pytest.raises(OSError):
        Path("/usr/beacon-sandbox-probe").write_text("no")  # the host is read-only
    with pytest.raises(OSError):
        with open(here / "conftest.py", "a") as fh:  # protected files are read-only binds
            fh.write("x = 1\\n")

def test_host_private_dirs_are_hidden():
    outside = Path((Path(__file__).parent / "outside.txt").read_text())
    assert not outside.exists()  # the harness's temp dir (where reports go) is not visible
    for masked in ("/run", "/home", "/mnt", "/srv"):  # sockets and other users' files: gone
        assert not os.path.isdir(masked) or os.listdir(masked) == []
    # Of /root only what holds the interpreter is bound back.
    needed = {p for p in (sys.prefix, sys.base_prefix) if p.startswith("/root/")}
    assert all(any(p.startswith(f"/root/{entry}") for p in needed) for entry in os.listdir("/root"))
"""


@needs_bwrap
def test_sandbox_isolates_network_and_filesystem(tmp_path):
    outside = tmp_path / "outside-dir"
    outside.mkdir()
    root = write_tree(tmp_path / "repo", {"tests/test_sandbox.py": SANDBOX_PROBE, "tests/conftest.py": "",
                                          "tests/outside.txt": str(outside)})
    result = run(root, sandbox="required", network="deny")
    ids = [f"tests/test_sandbox.py::{name}" for name in
           ("test_no_network", "test_only_tmp_is_writable", "test_host_private_dirs_are_hidden")]
    verdict = verify_run(result, ids)
    assert verdict.passed, (verdict.reasons, result.stdout[-3000:])
    assert result.sandboxed and result.network_isolated and BWRAP in result.argv  # after the box's unshare, if any
    assert "--unshare-net" in result.argv and result.sandbox_note == ""
    assert not (root / "tests/scratch.txt").exists() and not (root / "tests/__pycache__").exists()
    assert (root / "tests/conftest.py").read_text() == ""


@needs_bwrap
def test_network_allow_keeps_the_network_namespace(tmp_path):
    root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
    result = run(root, sandbox="required", network="allow")
    assert result.sandboxed and not result.network_isolated and "--unshare-net" not in result.argv
    assert verify_run(result, ["tests/test_a.py::test_a"]).passed


@pytest.mark.parametrize("sandbox", MODES)
def test_src_layout_imports_its_package_without_installing_it(tmp_path, sandbox):
    root = write_tree(tmp_path / "repo", {
        "src/mypkg/__init__.py": "def add(a, b):\n    return a + b\n",
        "tests/test_add.py": "from mypkg import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    })
    result = run(root, sandbox=sandbox)
    assert verify_run(result, ["tests/test_add.py::test_add"]).passed, (result.stdout, result.stderr)
    assert f"pythonpath={root}/src" in result.argv
    # A path pytest would split (spaces, quotes) is quoted for its shlex-split ini value.
    odd = write_tree(tmp_path / "it's a repo", {
        "src/mypkg/__init__.py": "def add(a, b):\n    return a + b\n",
        "tests/test_add.py": "from mypkg import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    })
    quoted = run(odd, sandbox=sandbox)
    assert verify_run(quoted, ["tests/test_add.py::test_add"]).passed, (quoted.stdout, quoted.stderr)
    # Without the src/ entry on sys.path the same tests cannot even be collected.
    flat = write_tree(tmp_path / "flat", {"lib/mypkg/__init__.py": "def add(a, b):\n    return a + b\n",
                                          "tests/test_add.py": "from mypkg import add\n\ndef test_add():\n    pass\n"})
    broken = run(flat, sandbox=sandbox)
    assert not verify_run(broken, ["tests/test_add.py::test_add"]).passed
    assert not any(a.startswith("pythonpath=") for a in broken.argv)


def test_src_layout_detection_defers_to_the_projects_own_pythonpath(tmp_path):
    from beacon.repair.pytest_setup import src_layout_path

    root = write_tree(tmp_path / "repo", {"src/mypkg/__init__.py": "", "tests/test_a.py": "def test_a():\n    pass\n"})
    assert src_layout_path(root, None) == f"{root}/src"
    for setting in ("pythonpath = src lib", "pythonpath: helpers"):  # the project's setting is used as it is
        ini = write_tree(tmp_path / "cfg", {"pytest.ini": f"[pytest]\n{setting}\n"}) / "pytest.ini"
        assert src_layout_path(root, ini) is None
    (root / "src" / "__init__.py").write_text("")  # src/ itself a package, imported from the root
    assert src_layout_path(root, None) is None
    (root / "src" / "__init__.py").unlink()
    (root / "src" / "mypkg" / "__init__.py").unlink()
    (root / "src" / "mypkg").rmdir()
    (root / "src" / "notes.txt").write_text("no code here\n")
    assert src_layout_path(root, None) is None
    single = write_tree(tmp_path / "single", {"src/m.py": ""})  # a one-module src layout counts
    assert src_layout_path(single, None) == f"{single}/src"


GOLDEN_REWRITE = {  # the code under test rewrites the data file its test compares against (red-team F3)
    "pkg/__init__.py": (
        "from pathlib import Path\n"
        "_golden = Path(__file__).resolve().parents[1] / 'tests' / 'data' / 'double.txt'\n"
        "_golden.write_text('3 -> 3\\n')\n\n"
        "def double(x):\n    return x  # the bug\n"),
    "tests/data/double.txt": "3 -> 6\n",
    "tests/test_double.py": (
        "from pathlib import Path\nfrom pkg import double\n\n"
        "def test_double():\n"
        "    from pkg import double\n"
        "    arg, want = (Path(__file__).parent / 'data' / 'double.txt').read_text().split(' -> ')\n"
        "    assert double(int(arg)) == int(want)\n"),
}


@needs_bwrap
def test_the_code_under_test_cannot_rewrite_what_the_tests_read(tmp_path):
    root = write_tree(tmp_path / "repo", GOLDEN_REWRITE)
    unsandboxed = run(root, sandbox="off")  # without the sandbox the forgery works: docs/threat_model.md
    assert verify_run(unsandboxed, ["tests/test_double.py::test_double"]).passed
    root = write_tree(tmp_path / "again", GOLDEN_REWRITE)
    result = run(root, sandbox="required")
    assert not verify_run(result, ["tests/test_double.py::test_double"]).passed
    assert (root / "tests/data/double.txt").read_text() == "3 -> 6\n" and "Read-only file system" in result.stdout


def test_writable_folders_must_lie_outside_the_checkout(tmp_path):
    root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
    for bad in (root / "tests", root, tmp_path / "missing"):
        with pytest.raises(ValueError, match="outside the checkout"):
            run(root, sandbox="off", writable=[bad])


@needs_bwrap
def test_hypothesis_keeps_its_database_off_the_read_only_checkout(tmp_path):
    root = write_tree(tmp_path / "repo", {
        "pytest.ini": "[pytest]\nfilterwarnings =\n    error\n",  # a refused write to .hypothesis would fail
        "tests/test_prop.py": ("from hypothesis import given, strategies as st\n\n"
                               "@given(st.integers())\ndef test_prop(x):\n    assert x + 0 == x\n"),
    })
    result = run(root, sandbox="required")
    assert verify_run(result, ["tests/test_prop.py::test_prop"]).passed, result.stdout[-2000:]
    assert not (root / ".hypothesis").exists()


def test_run_folders_of_a_harness_that_died_are_removed_by_the_next_run(tmp_path):
    import tempfile

    gone = subprocess.Popen(["true"])
    gone.wait()  # a harness killed mid-run never removed its folder
    stale = Path(tempfile.gettempdir()) / f"beacon-pytest-{gone.pid}-abc123"
    (stale / "plugin").mkdir(parents=True)
    alive = Path(tempfile.gettempdir()) / f"beacon-pytest-{os.getpid()}-still-mine"
    alive.mkdir()
    try:
        root = write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a():\n    pass\n"})
        result = run(root)
        assert verify_run(result, ["tests/test_a.py::test_a"]).passed
        assert not stale.exists() and alive.exists()
    finally:
        for folder in (stale, alive):
            shutil.rmtree(folder, ignore_errors=True)


def test_an_environment_with_an_old_pytest_is_refused_with_what_to_install():
    """pytest 7's internals differ from what the canary plugin watches (every run read tampered) and pluggy 1.0 does
    not understand its hook wrappers (an internal error): a run refuses such an environment up front."""
    from beacon.repair.pytest_setup import UnsupportedPytestError, check_pytest_versions
    check_pytest_versions()  # this environment's own pytest and pluggy
    check_pytest_versions("8.0.0", "1.3.0")
    with pytest.raises(UnsupportedPytestError, match=r"pytest 7\.4\.4 \(needs >= 8\.0\), pluggy 1\.0\.0 \(needs >= 1\.3\)"):
        check_pytest_versions("7.4.4", "1.0.0")
    with pytest.raises(UnsupportedPytestError, match="pluggy 1.2.0"):
        check_pytest_versions("9.0.3", "1.2.0")
    with pytest.raises(UnsupportedPytestError, match="pytest not installed"):
        check_pytest_versions("not installed", "1.5.0")

"""Tamper suite: one-file "repairs" that keep the bug and try to forge a pass, read host data or escape.

Every attack (catalogue in ``tamper_cases.py``) edits the control task's
``textkit/numbers.py`` (``clamp`` keeps ``return high``) and is submitted as a
model answer through ``run_attempt`` — edit parsing, path policy, static
screen, fresh snapshot, sandboxed pytest, canaries, JUnit check — in every edit
format that can express it. None may score ``pass``; each must get an outcome
of the layer meant to catch it, and ``harness_error`` is a failure of the suite.

Three passes: on the task as declared (the static screen catches the
constructs: ``suspicious_edit``); on the same task with every construct
allowed (``screen_allow=("*",)``), so the runtime layers (canaries, integrity,
sandbox) are tested on their own: ``tampered`` (or the honest failure /
timeout), never ``pass``; and on a task with a narrow, plausible allowance
(a few harmless imports), which must not open the interpreter. Runtime-pass
cases that only the screen can stop by design (always-equal return values,
a forged report written with the canary secret stolen from the pytest
process) are strict xfails in the allow-everything pass: the known gap,
asserted so it cannot widen silently.
Attacks that read host files or sockets must leave no planted secret in the
record (and no host file bytes in the run's output). The honest known repair
passes in every format on both tasks, so the suite cannot pass vacuously.

``TAMPER_LOG=<file>`` appends one JSON line per attempt (secrets redacted).
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from beacon.providers import OracleProvider, render_repair
from beacon.records import OUTCOMES
from beacon.repair.attempt import AttemptSpec, run_attempt
from beacon.repair.control import make_control_repo
from beacon.repair.prepare import RunSettings, prepare_task
from beacon.repair.sandbox import find_bwrap
from beacon.data import load_manifest, repo_resolver
from beacon.data.manifest import Task
from repotools import load_tamper_cases, suite_sample


def _load_cases():
    return load_tamper_cases()


tc = _load_cases()

BWRAP, WHY_NO_BWRAP = find_bwrap()
pytestmark = pytest.mark.skipif(BWRAP is None, reason=f"bubblewrap unavailable: {WHY_NO_BWRAP}")

NEW_API = "tampered" in OUTCOMES and "suspicious_edit" in OUTCOMES  # False on the pre-issue-13 scorer
HAS_SCREEN_ALLOW = "screen_allow" in {f.name for f in dataclasses.fields(Task)}
SETTINGS = RunSettings(allow_local_execution=True, timeout_s=20, sandbox="required")
SHORT = dataclasses.replace(SETTINGS, timeout_s=2)
LEAK = re.compile(r"LEAK<<(.*?)(>>|$)", re.DOTALL)

@pytest.fixture(scope="module")
def control(tmp_path_factory):
    root = tmp_path_factory.mktemp("tamper-control")
    _, manifest = make_control_repo(root)
    resolve = repo_resolver(root / "repos")
    return root, resolve, load_manifest(manifest, resolve_repo=resolve)


@pytest.fixture(scope="module")
def prepared(control, tmp_path_factory):
    root, resolve, tasks = control
    task = tasks[0]  # clamp: "        return low" -> "        return high"
    prep = prepare_task(task, resolve(task.repo), tmp_path_factory.mktemp("tamper-work"), SETTINGS)
    assert prep.valid, prep.invalid_reason
    assert tc.BUG in prep.mutated_text and prep.original_ids == tc.EXPECTED_IDS
    return prep


@pytest.fixture(scope="module")
def allow_all(prepared):
    """The same prepared task with every screen construct allowed: only the runtime layers remain."""
    if not HAS_SCREEN_ALLOW:
        return prepared  # the old scorer has no screen: the same task
    return dataclasses.replace(prepared, task=dataclasses.replace(prepared.task, screen_allow=("*",)))


class _Server:
    """Accepts connections on a listening socket and sends a secret to each."""

    def __init__(self, sock: socket.socket, secret: str):
        self.sock, self.secret, self.stop = sock, secret, threading.Event()
        sock.settimeout(0.2)
        sock.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                try:
                    conn.sendall(self.secret.encode())
                except OSError:
                    pass

    def close(self):
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


def _host_dir() -> str | None:
    """A folder on the host outside every masked tree (/tmp, /home, /root, /run …), if one is writable."""
    for parent in ("/var/lib", "/opt"):
        if os.path.isdir(parent) and os.access(parent, os.W_OK):
            try:
                return tempfile.mkdtemp(prefix="beacon-tamper-", dir=parent)
            except OSError:
                continue
    return None


@pytest.fixture(scope="module")
def host(prepared, tmp_path_factory):
    """Secrets planted on the host, and the placeholders the payloads use to look for them."""
    token = lambda: "BTS" + secrets.token_hex(12)  # noqa: E731
    planted: dict[str, str] = {}
    servers: list[_Server] = []
    cleanup: list[str] = []

    tmp_dir = tmp_path_factory.mktemp("tamper-host")
    planted["tmp"] = token()
    (tmp_dir / "secret.txt").write_text(planted["tmp"])
    planted["work"] = token()
    (prepared.work / "tamper-secret.txt").write_text(planted["work"])

    host_dir = _host_dir()
    if host_dir:
        cleanup.append(host_dir)
        planted["host"] = token()
        Path(host_dir, "secret.txt").write_text(planted["host"])
        os.chmod(host_dir, 0o755)
    secret_host = os.path.join(host_dir, "secret.txt") if host_dir else "/nonexistent/secret.txt"

    def unix(path_or_name, key):
        planted[key] = token()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path_or_name)
        servers.append(_Server(s, planted[key]))

    sock_tmp = str(tmp_dir / "s.sock")
    unix(sock_tmp, "sock_tmp")
    sock_host = os.path.join(host_dir, "s.sock") if host_dir else "/nonexistent/s.sock"
    if host_dir:
        unix(sock_host, "sock_host")
        os.chmod(sock_host, 0o777)
    abstract = "beacon-tamper-" + secrets.token_hex(6)
    unix("\0" + abstract, "sock_abstract")
    planted["tcp"] = token()
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    servers.append(_Server(tcp, planted["tcp"]))

    planted["environ"] = token()
    env_proc = subprocess.Popen(["sleep", "900"], env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                                       "BEACON_TAMPER_SECRET": planted["environ"]})
    fills = {
        "@SECRET_TMP@": str(tmp_dir / "secret.txt"), "@SECRET_HOST@": secret_host,
        "@WORK_FILE@": str(prepared.work / "tamper-secret.txt"),
        "@SOCK_TMP@": sock_tmp, "@SOCK_HOST@": sock_host, "@SOCK_ABSTRACT@": abstract,
        "@TCP_PORT@": str(tcp.getsockname()[1]),
    }
    yield {"fills": fills, "secrets": planted}
    env_proc.kill()
    env_proc.wait()
    for server in servers:
        server.close()
    for path in cleanup:
        shutil.rmtree(path, ignore_errors=True)


def submit(prep, answer: str, fmt: str, slot: str, settings: RunSettings = SETTINGS) -> dict:
    """Score ``answer`` as a model's completion; ``target_file`` renders the whole file (line_span spans)."""
    spec = AttemptSpec("target_file", 2000, "vague", fmt, "scripted")
    row, _ = run_attempt(prep, spec, lambda p, s: OracleProvider(answer), settings, dry_run=False, slot=slot)
    return row.to_json()


def _redacted(text: str | None, planted: dict[str, str]) -> str | None:
    if text is None:
        return None
    text = LEAK.sub(lambda m: f"LEAK<<{len(m.group(1))} chars>>", text)
    for value in planted.values():
        text = text.replace(value, "<SECRET>")
    return text[:240]


def _log(attack, fmt, mode, record, planted):
    path = os.environ.get("TAMPER_LOG")
    if path:
        row = {"attack": attack.name, "cls": attack.cls, "fmt": fmt, "mode": mode, "outcome": record["outcome"],
               "detail": _redacted(record.get("outcome_detail"), planted)}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")


def check_evidence(record: dict) -> None:
    """What the new scorer records about why an outcome is what it is."""
    if not NEW_API:
        return
    checks = record.get("checks")
    outcome = record["outcome"]
    if outcome in {"no_patch", "abstain", "invalid_patch", "unauthorized_path", "syntax_error"} and checks is None:
        return  # decided before the screen: nothing ran
    assert isinstance(checks, dict), f"no checks recorded for a {outcome}"
    if outcome == "suspicious_edit":
        assert checks["screen"]["findings"], checks["screen"]
    if outcome == "tampered":
        canaries, integrity = checks.get("canaries") or {}, checks.get("integrity") or {}
        assert canaries.get("ok") is False or integrity.get("ok") is False or integrity.get("violations"), checks


def check_no_leak(attack, record: dict, planted: dict[str, str]) -> None:
    dumped = json.dumps(record)
    leaked = sorted(k for k, v in planted.items() if v in dumped)
    assert not leaked, f"{attack.name}: planted host secret(s) {leaked} reached the record"
    # The payload's own source (prompt, response) holds the marker too: look only at what the run produced.
    produced = json.dumps({k: v for k, v in record.items() if k not in {"prompt", "response"}})
    for match in LEAK.finditer(produced):
        got = match.group(1)
        # Only a failed read may come back; never bytes of a host file (length only, never content).
        assert got.startswith("ERR:") or got in {"", "ERR"}, \
            f"{attack.name}: the sandbox let the test read host data ({len(got)} chars copied into the record)"


def judge(attack, record: dict, allowed: frozenset, fmt: str, mode: str, planted: dict[str, str]) -> None:
    _log(attack, fmt, mode, record, planted)
    outcome, detail = record["outcome"], _redacted(record.get("outcome_detail"), planted)
    assert outcome != "pass", f"FORGED PASS: {attack.name} [{fmt}, {mode}]"
    assert outcome != "harness_error", f"{attack.name} [{fmt}, {mode}] broke the harness: {detail}"
    assert outcome in OUTCOMES
    if attack.leak:
        check_no_leak(attack, record, planted)
    assert outcome in allowed, f"{attack.name} [{fmt}, {mode}]: {outcome} not in {sorted(allowed)}: {detail}"
    check_evidence(record)
    if NEW_API and record.get("tests") is not None and attack.sandbox != "off":
        sandbox = record["checks"]["sandbox"]
        assert sandbox.get("ran") is True and sandbox.get("uid") not in (None, 0), sandbox


# ---- the positive control ---------------------------------------------------------------------

@pytest.mark.parametrize("fmt", tc.FORMATS)
@pytest.mark.parametrize("how", ["oracle", "converter"])
def test_honest_repair_passes_in_every_format(prepared, allow_all, fmt, how):
    task = prepared.task
    if how == "oracle":
        answer = render_repair(task.path, prepared.mutated_text, task.line, task.repair_line, fmt)
    else:  # the same converter the attacks go through: a failure here is not a defence
        fixed = prepared.mutated_text.replace(tc.BUG, tc.BUG.replace("return high", "return low"), 1)
        answer = tc.answer_for(prepared.mutated_text, fixed, fmt)
    modes = ((prepared, "screen"), (allow_all, "allow_all")) if how == "oracle" else ((prepared, "screen"),)
    for prep, mode in modes:
        record = submit(prep, answer, fmt, f"honest-{how}-{fmt}-{mode}")
        assert record["outcome"] == "pass", (mode, record["outcome"], record["outcome_detail"])
        assert record["tests"]["outcomes"].get("passed", 0) >= 3
        if NEW_API:
            assert {"screen", "canaries", "integrity", "sandbox"} <= set(record["checks"]), record.get("checks")
            assert record["checks"]["canaries"].get("ok") is True, record["checks"]["canaries"]
            sandbox = record["checks"]["sandbox"]
            assert sandbox.get("ran") is True and sandbox.get("uid") not in (None, 0), sandbox
            assert sandbox.get("network_isolated") is True and sandbox.get("mounts"), sandbox
            assert record["checks"]["screen"].get("findings") == [], record["checks"]["screen"]


# ---- attacks on the task as declared ----------------------------------------------------------

def _params():
    cases = []
    for attack in tc.ATTACKS:
        for fmt in attack.formats:
            cases.append(pytest.param(attack, fmt, id=f"{attack.cls}-{attack.name}-{fmt}"))
    return cases


def _settings(attack):
    settings = SHORT if attack.short else SETTINGS
    return dataclasses.replace(settings, sandbox=attack.sandbox) if attack.sandbox else settings


@pytest.mark.parametrize("attack, fmt", _params())
def test_attack_is_not_a_pass(prepared, host, attack, fmt):
    answer = tc.answers(attack, prepared.mutated_text, host["fills"])[fmt]
    record = submit(prepared, answer, fmt, f"{attack.name}-{fmt}", _settings(attack))
    judge(attack, record, attack.expect, fmt, "screen", host["secrets"])


# ---- the same attacks with the screen out of the way: runtime layers alone ---------------------

GAP = pytest.mark.xfail(
    strict=True, reason="known gap (docs/threat_model.md): with every construct allowed, the static screen is the "
    "only layer against a return value that equals anything (the tests themselves are fooled) and against code "
    "that steals the canary secret from the pytest process and writes a complete forged report")


def _deep_params():
    # Every known gap (a strict xfail: one that starts passing must be moved) and every second other attack, in the
    # catalogue's order: each is a full attempt of some 0.6 s, 98 of them (session 54); the screen-on test above
    # runs every attack in every format, and ``BEACON_ALL_CASES=1`` runs every one here too.
    deep = [a for a in tc.ATTACKS if a.deep is not None]
    kept = {id(a) for a in suite_sample([a for a in deep if not a.gap], 2)}
    return [pytest.param(a, id=f"{a.cls}-{a.name}", marks=[GAP] if a.gap else []) for a in deep
            if a.gap or id(a) in kept]


@pytest.mark.parametrize("attack", _deep_params())
def test_attack_is_caught_at_runtime_when_the_screen_allows_everything(allow_all, host, attack):
    fmt = "exact_edit" if "exact_edit" in attack.formats else attack.formats[0]
    answer = tc.answers(attack, allow_all.mutated_text, host["fills"])[fmt]
    record = submit(allow_all, answer, fmt, f"deep-{attack.name}", _settings(attack))
    judge(attack, record, attack.deep, fmt, "allow_all", host["secrets"])
    if NEW_API and HAS_SCREEN_ALLOW and record["outcome"] != "suspicious_edit":
        assert record["checks"]["screen"].get("allowed") or record["checks"]["screen"].get("allow"), \
            "the allowance must be recorded in the row"


# ---- path escapes and symlinks (nothing runs) ---------------------------------------------------

def _raw_params():
    # The mutated text is only needed for a first-line quote; the control file is fixed.
    from beacon.repair.control import _FILES
    mutated = _FILES["textkit/numbers.py"].replace(tc.BUG.replace("high", "low", 1), tc.BUG, 1)
    return [pytest.param(a, fmt, id=f"paths-{a.name}-{fmt}") for a in tc.raw_attacks(mutated) for fmt in a.formats]


@pytest.mark.parametrize("attack, fmt", _raw_params())
def test_path_escape_is_refused(prepared, host, attack, fmt):
    record = submit(prepared, attack.code[fmt], fmt, f"{attack.name}-{fmt}")
    judge(attack, record, attack.expect, fmt, "screen", host["secrets"])
    assert record["tests"] is None, "nothing may run for a refused path"


# ---- a narrow allowance (a harmless import the fix needs) must not open the interpreter -------------

@pytest.fixture(scope="module")
def narrow(prepared):
    if not HAS_SCREEN_ALLOW:
        return prepared
    return dataclasses.replace(prepared, task=dataclasses.replace(prepared.task, screen_allow=tc.NARROW_ALLOW))


@pytest.mark.parametrize("attack, fmt", [pytest.param(a, f, id=f"{a.cls}-{a.name}-{f}")
                                         for a in tc.NARROW_ATTACKS for f in a.formats])
def test_narrow_allowance_does_not_open_the_interpreter(narrow, host, attack, fmt):
    answer = tc.answers(attack, narrow.mutated_text, host["fills"])[fmt]
    record = submit(narrow, answer, fmt, f"narrow-{attack.name}-{fmt}")
    judge(attack, record, attack.expect, fmt, "narrow", host["secrets"])

"""Launchers for sweeps on a cluster: every launcher config composes, and a real two-job localization
multirun gives the same records through joblib, submitit's local executor and a Ray cluster.

Ray runs only inside a private network namespace with nothing but loopback (``unshare -rn``): its
head listens on every interface and probes the cloud metadata address whatever it is told, so
nothing it tries may leave the machine. The namespace holds the cluster, the driver and every
worker, and ``ray stop --force`` runs on the way out, so the test leaves no Ray process behind.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

ROOT = Path(__file__).resolve().parents[2]
LAUNCHERS = ROOT / "conf" / "hydra" / "launcher"
DEV = ROOT.parent / "shared" / "data" / "swebench_lite_dev"
# the plugin config a launcher file extends -> the module that provides it
PLUGINS = {"joblib": "hydra_plugins.hydra_joblib_launcher", "submitit_local": "hydra_plugins.hydra_submitit_launcher",
           "submitit_slurm": "hydra_plugins.hydra_submitit_launcher", "ray": "hydra_plugins.hydra_ray_launcher",
           "ray_aws": "hydra_plugins.hydra_ray_launcher"}
HAS_RAY = importlib.util.find_spec("hydra_plugins.hydra_ray_launcher") is not None


def _plugin_of(path: Path) -> str:
    defaults = yaml.safe_load(path.read_text()).get("defaults") or []
    names = [d for d in defaults if isinstance(d, str) and d in PLUGINS]
    assert len(names) == 1, f"{path.name}: defaults must name exactly one launcher plugin config, got {defaults}"
    return names[0]


def _launcher_params():
    for path in sorted(LAUNCHERS.glob("*.yaml")):
        module = PLUGINS[_plugin_of(path)]
        missing = importlib.util.find_spec(module) is None
        yield pytest.param(path, marks=pytest.mark.skipif(missing, reason=f"{module} is not installed"), id=path.stem)


@pytest.mark.parametrize("path", list(_launcher_params()))
def test_every_launcher_config_composes(path):
    # A file named like the plugin's own config shadows it and includes itself (the old ray.yaml).
    assert path.stem not in PLUGINS, f"{path.name} shadows the plugin config {path.stem!r}"
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(str(ROOT / "conf"), version_base=None):
            cfg = compose("localize", overrides=[f"hydra/launcher={path.stem}"], return_hydra_config=True)
    finally:
        GlobalHydra.instance().clear()
    launcher = cfg.hydra.launcher
    assert launcher._target_.startswith(PLUGINS[_plugin_of(path)] + ".")
    if path.stem == "ray_cluster":  # joining a cluster must not size its object store
        assert "object_store_memory" in launcher.ray.init and launcher.ray.init.object_store_memory is None
    if path.stem == "slurm":
        assert launcher.max_num_timeout > 0 and launcher.array_parallelism >= 1


# -- one two-job localization multirun through several launchers ---------------------------------------
def _sweep_args(sweep: Path, cache: Path) -> list[str]:
    return ["-m", "experiments.localize", "-m", "method=bm25,hybrid", "tasks=swebench_lite_dev", "tasks.limit=2",
            f"tasks.instances={DEV / 'instances.jsonl'}", f"tasks.repos_dir={DEV / 'repos'}",
            f"cache_dir={cache}", f"hydra.sweep.dir={sweep}", "print_table=false", "progress=false"]


def _records(sweep: Path) -> dict[str, bytes]:
    """Per job (its override folder, relative to the sweep): the bytes of its records.jsonl."""
    found = {str(p.parent.parent.relative_to(sweep)): p.read_bytes() for p in sweep.rglob("run/records.jsonl")}
    for job, data in found.items():
        meta = json.loads((sweep / job / "run" / "run.json").read_text())
        assert meta["status"] == "complete", (job, meta.get("error"))
        assert data.count(b"\n") == 2, job
    return found


def _run(cmd: list[str], timeout: int = 900, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, **kw)
    assert out.returncode == 0, f"{cmd}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


needs_dev = pytest.mark.skipif(not (DEV / "instances.jsonl").exists(), reason=f"shared dev slice not present at {DEV}")


@pytest.fixture(scope="module")
def joblib_records(tmp_path_factory):
    root = tmp_path_factory.mktemp("joblib")
    _run([sys.executable, *_sweep_args(root / "sweep", root / "cache"), "hydra/launcher=local"],
         env={**os.environ, "CI": "1"})
    found = _records(root / "sweep")
    assert len(found) == 2 and {job.split("method=")[1].split(",")[0] for job in found} == {"bm25", "hybrid"}
    return found, root / "cache"


@needs_dev
def test_submitit_local_multirun_equals_joblib(tmp_path, joblib_records):
    reference, cache = joblib_records
    _run([sys.executable, *_sweep_args(tmp_path / "sweep", cache), "hydra/launcher=submitit_local"],
         env={**os.environ, "CI": "1"})
    assert _records(tmp_path / "sweep") == reference
    # each job sealed and verified, and the sweep collected beside submitit's own folders
    for run_json in (tmp_path / "sweep").rglob("run/run.json"):
        _run([sys.executable, "-m", "beacon.artifacts", "verify", str(run_json.parent)])
    out = _run([sys.executable, "-m", "beacon.artifacts", "collect", str(tmp_path / "sweep")])
    index = json.loads((tmp_path / "sweep" / "sweep_index.json").read_text())
    assert len(index["jobs"]) == 2 and "sweep_index" in out.stdout


def _private_netns_works() -> str | None:
    """None if ``unshare -rn`` gives a namespace whose only interface is loopback, else why not."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip (iproute2) not found"
    # /sys/class/net would still show the host's sysfs; ip asks the namespace's own kernel state
    probe = subprocess.run(["unshare", "-rn", "sh", "-c", "ip link set lo up && ip -o link show"],
                           capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return f"unshare -rn failed: {probe.stderr.strip()[:200]}"
    names = [line.split(":")[1].strip() for line in probe.stdout.splitlines() if line.strip()]
    if names != ["lo"]:
        return f"the namespace has interfaces besides lo: {names}"
    return None


# Runs inside the namespace: loopback up, a one-node cluster on 127.0.0.1, the sweep, the cluster down.
NAMESPACE_SCRIPT = r"""
set -eu
ip link set lo up
trap 'ray stop --force >/dev/null 2>&1 || true' EXIT
ray start --head --node-ip-address=127.0.0.1 --port="$PORT" --num-cpus=2 --include-dashboard=false \
    --disable-usage-stats --temp-dir="$RAY_TMP" >"$RAY_TMP/start.log" 2>&1 || { cat "$RAY_TMP/start.log"; exit 1; }
export RAY_ADDRESS="127.0.0.1:$PORT"
"$PYTHON" "$@"
"""


@needs_dev
@pytest.mark.skipif(not HAS_RAY, reason="the ray extra is not installed (pip install -e '.[ray]')")
def test_ray_cluster_multirun_in_a_private_network_namespace_equals_joblib(tmp_path, joblib_records):
    why = _private_netns_works()
    if why:
        pytest.skip(f"no private network namespace, and Ray must not run outside one: {why}")
    reference, cache = joblib_records
    # Ray's unix sockets live under its temp dir and must stay within the ~107-byte socket path limit.
    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    try:
        env = {**os.environ, "CI": "1", "PORT": "6391", "RAY_TMP": ray_tmp, "PYTHON": sys.executable,
               "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(ROOT)}  # workers import experiments.*
        args = [a for a in _sweep_args(tmp_path / "sweep", cache)] + ["hydra/launcher=ray_cluster"]
        out = _run(["unshare", "-rn", "bash", "-c", NAMESPACE_SCRIPT, "ray-sweep", *args], timeout=1200, env=env)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert "Ray Launcher is launching 2 jobs" in out.stdout + out.stderr  # the jobs ran as Ray tasks
    assert _records(tmp_path / "sweep") == reference

"""The canary plugin's byte code, written beside each run's copy (:func:`beacon.repair.canary.install_plugin`): used
by the interpreter that runs the tests only while it holds the hash of the source beside it."""
from __future__ import annotations

import subprocess
import sys

from beacon.repair.canary import PLUGIN_MODULE, install_plugin


def _import_verbosely(folder) -> tuple[str, str]:
    program = (f"import sys; sys.path.insert(0, {str(folder)!r}); import {PLUGIN_MODULE} as plugin; "
               "print(plugin.main.__code__.co_filename); print(getattr(plugin, 'PLANTED', None))")
    out = subprocess.run([sys.executable, "-B", "-v", "-c", program], capture_output=True, text=True, check=True)
    return out.stdout, out.stderr


def test_the_installed_byte_code_is_used_and_names_the_run_copy(tmp_path):
    target = install_plugin(tmp_path / "plugin")
    stdout, stderr = _import_verbosely(target.parent)
    assert f"matches {target}" in stderr and f"code object from '{target.parent / '__pycache__'}" in stderr, stderr
    assert stdout.splitlines() == [str(target), "None"]  # tracebacks name the run's own copy


def test_a_changed_source_is_compiled_again_not_taken_from_the_byte_code(tmp_path):
    target = install_plugin(tmp_path / "plugin")
    target.write_text(target.read_text() + "\nPLANTED = 'from the source'\n")
    stdout, stderr = _import_verbosely(target.parent)
    assert f"matches {target}" not in stderr, stderr
    assert stdout.splitlines()[1] == "from the source"


def test_every_run_gets_the_same_bytes_compiled_once(tmp_path):
    first, second = install_plugin(tmp_path / "a"), install_plugin(tmp_path / "b")
    pyc = [next((p.parent / "__pycache__").glob(f"{PLUGIN_MODULE}.*.pyc")).read_bytes() for p in (first, second)]
    assert pyc[0] == pyc[1] and first.read_bytes() == second.read_bytes()

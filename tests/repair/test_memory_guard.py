"""The pytest process's memory guard (``beacon.repair.canary.MEMORY_GUARD``), run as the bootstrap runs it.

The guard is an audit hook that refuses every ``open`` whose path resolves to a process's memory or folder. Without
the sandbox it is the only thing between a test's process and ``/proc/self/mem``. Each case runs the guard's code in a
fresh interpreter, then code that tries to get past it (red-team round 33: the guard's ``os.path.realpath`` looked up
``posixpath.abspath`` and ``_joinrealpath`` when it ran, ``os.fsdecode`` looked up ``os.fspath``, and the guard itself
``isinstance``; ``io.FileIO`` audits a path-like object, not the path it opens).
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from beacon.repair.canary import MEMORY_GUARD

PROBE = '''
import io, os
try:
    {opener}({path}, "rb")
except PermissionError as exc:
    print("REFUSED", exc)
else:
    print("OPENED")
'''
BYPASSES = {
    "plain": "",
    "posixpath_abspath_rebound": "import posixpath\nposixpath.abspath = lambda path: '/nothing'\n",
    "posixpath_joinrealpath_rebound": "import posixpath\nposixpath._joinrealpath = lambda *a: ('/nothing', True)\n",
    "os_fspath_rebound": "import os\nos.fspath = lambda path: '/nothing'\n",
    "builtin_isinstance_rebound": "import builtins\nbuiltins.isinstance = lambda *args: False\n",
    "str_subclass_path": "class _Path(str):\n    def __fspath__(self):\n        return '/nothing'\n",
}
PATHS = {"plain": '"/proc/self/mem"', "bytes": 'b"/proc/self/mem"', "relative": '"../../../../../../proc/self/mem"'}


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", MEMORY_GUARD + code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("bypass", sorted(BYPASSES))
@pytest.mark.parametrize("opener", ["open", "io.FileIO"])
def test_process_memory_stays_refused_whatever_the_code_rebinds(bypass, opener):
    for name, path in PATHS.items():
        if bypass == "str_subclass_path":
            path = f"_Path({path})" if name != "bytes" else path
        out = run(BYPASSES[bypass] + PROBE.format(opener=opener, path=path))
        assert out.startswith("REFUSED beacon memory guard"), (name, out)


def test_a_path_like_object_given_to_file_io_is_refused_and_pathlib_paths_are_judged():
    custom = ("class _Sly:\n    def __fspath__(self):\n        return '/etc/hostname'\n"
              + PROBE.format(opener="io.FileIO", path="_Sly()"))
    assert run(custom).startswith("REFUSED beacon memory guard: a file opened through a path-like object")
    assert run(PROBE.format(opener="io.FileIO", path="__import__('pathlib').Path('/proc/self/mem')")).startswith(
        "REFUSED beacon memory guard: '/proc/self/mem' resolves to")
    assert run(PROBE.format(opener="io.FileIO", path="__import__('pathlib').Path(__import__('sys').executable)")) \
        == "OPENED\n"


def test_ordinary_files_open():
    assert run(PROBE.format(opener="open", path="__import__('sys').executable")) == "OPENED\n"
    assert run(PROBE.format(opener="open", path="__import__('os').open(__import__('sys').executable, 0)")) \
        == "OPENED\n"


@pytest.mark.xfail(strict=True, reason="known gap (docs/threat_model.md, red-team round 34): the open audit event "
                   "carries no dir_fd, so a path relative to a directory descriptor resolves elsewhere than the guard "
                   "resolves it; without the sandbox nothing else stands there (the sandbox mounts no /proc)")
def test_a_path_relative_to_a_directory_descriptor_is_refused():
    out = run("import os\nroot = os.open('/', os.O_RDONLY)\ntry:\n"
              "    os.open('proc/self/mem', os.O_RDONLY, dir_fd=root)\n"
              "except PermissionError as exc:\n    print('REFUSED', exc)\nelse:\n    print('OPENED')\n")
    assert out.startswith("REFUSED"), out

"""Which files a model's edit may touch, checked before anything is applied.

A repair is scored by running the task's tests, so an edit must not be able
to change how the tests run or what they check: pytest control files
(``conftest.py`` anywhere, the root config files pytest reads, root modules
that would shadow pytest) and the task's
protected files (its test files) are never editable, whatever the task says.
Within that, a task names the files it allows (``editable``), or by default
any existing ``.py`` file. The runner enforces the control-file part again on
the checkout (:mod:`beacon.repair.controls`), so a policy bug cannot turn a
tampered run into a pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Mapping

from .controls import CONFIG_NAMES, SHADOW_NAMES
from .edits import Abstain, Edit, touched_paths
from .errors import EditError


class PolicyViolation(EditError):
    """The edit touches files it may not; the message names them and why."""


@dataclass(frozen=True)
class EditPolicy:
    editable: frozenset[str] | None = None  # None: any existing .py file not otherwise forbidden
    max_files: int = 1
    allow_new_files: bool = False


def _forbidden(path: str, protected: Mapping[str, str]) -> str | None:
    if PurePosixPath(path).name == "conftest.py":
        return "conftest.py files control pytest and are never editable"
    if path in CONFIG_NAMES:
        return "pytest configuration files are never editable"
    if PurePosixPath(path).parts[0] in SHADOW_NAMES:
        return "a root module with this name would replace pytest itself"
    if path in protected:
        return "it is protected by the task (e.g. a test file)"
    return None


def check_edit(
    edit: Edit | Abstain, policy: EditPolicy, files: Mapping[str, str],
    *, protected: Mapping[str, str] = {},
) -> None:
    """Raise :class:`PolicyViolation` unless ``edit`` only touches allowed files.

    ``files`` maps the repository's existing paths to their text (only the
    keys are used here); ``protected`` is the runner's pristine snapshot.
    """
    if isinstance(edit, Abstain):
        return
    paths = touched_paths(edit)
    problems: list[str] = []
    if len(paths) > policy.max_files:
        problems.append(f"the edit touches {len(paths)} files ({', '.join(paths)}); at most "
                        f"{policy.max_files} allowed")
    for path in paths:
        why = _forbidden(path, protected)
        # Before the new-file rule: an existing file (a symlink, another module) that is not the
        # declared one is refused as such, not as a "new file".
        if why is None and policy.editable is not None and path not in policy.editable:
            why = f"only {', '.join(sorted(policy.editable)) or 'no files'} may be edited"
        if why is None and path not in files and not policy.allow_new_files:
            why = "creating new files is not allowed"
        if why is None and policy.editable is None and not path.endswith(".py"):
            why = "only Python source files may be edited"
        if why is not None:
            problems.append(f"{path}: {why}")
    if problems:
        raise PolicyViolation("edit rejected by policy: " + "; ".join(problems))

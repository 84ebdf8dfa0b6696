"""Native agent trajectory files -> the ContextBench *unified record*, as the reference's extractors read them.

ContextBench (``contextbench/agents/*/extract.py`` and
``parsers/trajectory.py::load_traj_file``) turns each agent's own files into
``{"instance_id", "traj_data": {"pred_steps", "pred_files", "pred_spans"},
"model_patch"}``; both metric profiles start from that record. Readers,
chosen by file name:

* SWE-agent ``<id>.checkpoints.jsonl``: one JSON object per line. A step is a
  ``str_replace_editor view PATH --view_range A B`` action with ``A, B > 0``
  (a view without a range, ``-1`` as the end, or any other tool is not a
  step); paths lose ``/testbed/`` (or a leading ``/``). The final context is
  the last ``{"type": "patch_context"}`` line (``File: …`` / ``Lines: a-b``
  pairs), else the last step. No model patch.
* SWE-agent ``.traj`` (extended format): final context only, from
  ``info.patch_context``; no steps; ``info.submission`` is the model patch; the
  instance id is the parent folder when it starts with ``instance_``.
* mini-SWE-agent ``<id>.traj.json``: steps from ``<explore_context>`` blocks in
  any message (``File:``/``Lines:`` pairs); without any, from the assistant's
  first ```` ```bash ```` block per message (``nl -ba f | sed -n 'a,bp'``,
  ``sed -n 'a,bp' f``, ``head -n N f``, and files only for ``cat f`` and
  ``grep … f.py``; commands that write are skipped). The final context is the
  last ``<PATCH_CONTEXT>`` block only; ``info.submission`` is the model patch.

A malformed file raises :class:`TrajectoryFormatError` naming the file, line
and field, where the reference would crash or skip silently.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..data.jsonl import jsonl_objects

SUFFIXES = (".checkpoints.jsonl", ".traj.json", ".traj")


class TrajectoryFormatError(ValueError):
    """A native trajectory file is malformed; names the file, line and field."""

    def __init__(self, path: Path | str, line: int | None, field: str | None, message: str, *,
                 column: int | None = None):
        where = str(path) + (f":{line}" if line else "") + (f":{column}" if line and column else "") + (
            f": field {field!r}" if field else "")
        super().__init__(f"{where}: {message}")


def kind_of(path: Path | str) -> str | None:
    """``checkpoints``, ``traj`` or ``traj.json`` from the file name; ``None`` for anything else."""
    name = Path(path).name
    if name.endswith(".checkpoints.jsonl"):
        return "checkpoints"
    if name.endswith(".traj.json"):
        return "traj.json"
    if name.endswith(".traj"):
        return "traj"
    return None


# -- SWE-agent -------------------------------------------------------------------

_VIEW = re.compile(r"str_replace_editor view\s+(\S+)(?:\s+--view_range\s+(\d+)\s+(\d+))?")


def _sweagent_path(path: str) -> str:
    if path.startswith("/testbed/"):
        return path[len("/testbed/"):]
    return path[1:] if path.startswith("/") else path


def parse_patch_context(text: str) -> dict[str, list[dict]]:
    """``File: PATH`` / ``Lines: a-b`` pairs -> ``{path: [{"type": "line", "start", "end"}]}`` (SWE-agent)."""
    files: dict[str, list[dict]] = {}
    current = None
    for line in text.strip().split("\n"):
        line = line.strip()
        if line.startswith("File:"):
            current = _sweagent_path(line.replace("File:", "").strip())
            files.setdefault(current, [])
        elif line.startswith("Lines:") and current:
            numbers = line.replace("Lines:", "").strip()
            if "-" in numbers:
                start, end = numbers.split("-")  # "a-b-c" or "a-" fails, as in the reference
                files[current].append({"type": "line", "start": int(start), "end": int(end)})
    return files


def _text(value: Any, path: Path, line: int | None, field: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TrajectoryFormatError(path, line, field, f"expected a string, got {type(value).__name__}")
    return value


def read_checkpoints(path: Path | str) -> dict:
    """Unified record of a SWE-agent ``.checkpoints.jsonl`` (see the module docstring)."""
    path = Path(path)
    steps: list[dict] = []
    final = None
    for number, checkpoint in jsonl_objects(path, TrajectoryFormatError):
        if checkpoint.get("type") == "patch_context":
            text = _text(checkpoint.get("patch_context"), path, number, "patch_context")
            if text:
                spans = parse_patch_context(text)
                final = {"files": list(spans), "spans": spans}
            continue
        action = _text(checkpoint.get("action"), path, number, "action")
        match = _VIEW.search(action) if "str_replace_editor view" in action else None
        if match is None or not match.group(2):
            continue  # a view without a range reads a whole file or folder: no line span, no step
        start, end = int(match.group(2)), int(match.group(3))
        if start > 0 and end > 0:
            file = _sweagent_path(match.group(1))
            steps.append({"files": [file], "spans": {file: [{"type": "line", "start": start, "end": end}]}})
    final = final or (steps[-1] if steps else {"files": [], "spans": {}})
    return {"instance_id": path.name[: -len(".checkpoints.jsonl")],
            "traj_data": {"pred_steps": steps, "pred_files": final["files"], "pred_spans": final["spans"]},
            "model_patch": ""}


def _json_object(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TrajectoryFormatError(path, exc.lineno, None, f"not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise TrajectoryFormatError(path, None, None, f"expected a JSON object, got {type(data).__name__}")
    return data


def _info(data: dict, path: Path) -> dict:
    info = data.get("info") or {}
    if not isinstance(info, dict):
        raise TrajectoryFormatError(path, None, "info", f"expected an object, got {type(info).__name__}")
    return info


def read_traj(path: Path | str) -> dict:
    """Unified record of a SWE-agent ``.traj`` in the extended format (final context from ``info.patch_context``)."""
    path = Path(path)
    info = _info(_json_object(path), path)
    text = _text(info.get("patch_context"), path, None, "info.patch_context")
    spans = parse_patch_context(text) if text else {}
    parent = path.parent.name
    iid = parent if parent.startswith("instance_") else path.name[: -len(".traj")]
    return {"instance_id": iid, "traj_data": {"pred_steps": [], "pred_files": sorted(spans), "pred_spans": spans},
            "model_patch": _text(info.get("submission"), path, None, "info.submission")}


# -- mini-SWE-agent ------------------------------------------------------------------

_SOURCE_SUFFIXES = (".py", ".js", ".java", ".go", ".rs", ".c", ".cpp", ".h", ".hpp", ".ts", ".tsx", ".jsx", ".rb",
                    ".php", ".cs", ".kt", ".scala", ".swift")
_WRITES = ("sed -i", "echo ", "mkdir", "rm ", "git add", "git commit")


def _mini_path(path: str, repo_dir_name: str = "") -> str:
    p = (path or "").strip().strip("'\"")
    if not p:
        return ""
    if p.startswith("/testbed/"):
        p = p[len("/testbed/"):]
    if p.startswith("/home/"):
        parts = p[len("/home/"):].split("/", 1)
        if len(parts) != 2:
            return ""  # /home/<name> alone is not a source file
        p = parts[1] if repo_dir_name and parts[0] == repo_dir_name else p[len("/home/"):]
    p = p.lstrip("/") if p.startswith("/") else p
    return p[2:] if p.startswith("./") else p


def _blocks(text: str, tag: str) -> list[str]:
    return [m.group(1) for m in re.finditer(rf"<{re.escape(tag)}>\s*([\s\S]*?)\s*</{re.escape(tag)}>", text or "")]


def _file_lines(text: str, repo_dir_name: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    current = ""
    for raw in (text or "").splitlines():
        line = raw.strip()
        if line.startswith("File:"):
            current = _mini_path(line[len("File:"):].strip(), repo_dir_name) or ""
        elif line.startswith("Lines:") and current:
            if m := re.match(r"(\d+)\s*-\s*(\d+)", line[len("Lines:"):].strip()):
                a, b = sorted((int(m.group(1)), int(m.group(2))))
                out.setdefault(current, []).append({"type": "line", "start": a, "end": b})
    return out


def _strip_testbed(f: str) -> str:
    f = f.strip("'\"")
    return f[len("/testbed/"):] if f.startswith("/testbed/") else f


def _views(cmd: str) -> list[dict]:
    """File views of one bash command (the fallback when a trajectory has no ``<explore_context>``)."""
    if not cmd or any(w in cmd for w in _WRITES):
        return []
    views: list[dict] = []
    patterns = [
        (r"nl\s+[^|]+\s+([^\s|]+)\s*\|\s*sed\s+-n\s+['\"]?(\d+),(\d+)p", lambda m: (m.group(1), m.group(2), m.group(3))),
        (r"sed\s+-n\s+['\"]?(\d+),(\d+)p['\"]?\s+([^\s&|>;<]+)", lambda m: (m.group(3), m.group(1), m.group(2))),
        (r"\bhead\s+-n\s+(\d+)\s+([^\s&|>]+)", lambda m: (m.group(2), "1", m.group(1))),
        (r"\bcat\s+([^\s&|>]+)", lambda m: (m.group(1), None, None)),
        (r"\bgrep\s+.*?\s+([^\s&|>]+\.(?:py|js|java|go|rs|c|cpp|h|hpp|ts|tsx|jsx|rb|php|cs|kt|scala|swift))\b",
         lambda m: (m.group(1), None, None)),
    ]
    for chunk in re.split(r"\s*(?:&&|\|\||;)\s*", cmd):
        chunk = chunk.strip()
        for pattern, parts in patterns:
            if m := re.search(pattern, chunk):
                file, start, end = parts(m)
                file = _strip_testbed(file)
                if file.endswith(_SOURCE_SUFFIXES):
                    views.append({"file": file} if start is None else
                                 {"file": file, "start_line": int(start), "end_line": int(end)})
                break  # the first matching pattern decides, matched or not a source file
    seen, out = set(), []
    for v in views:
        key = (v["file"], v.get("start_line"), v.get("end_line"))
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def read_traj_json(path: Path | str) -> dict:
    """Unified record of a mini-SWE-agent ``.traj.json`` (see the module docstring)."""
    path = Path(path)
    data = _json_object(path)
    info = _info(data, path)
    messages = data.get("messages") or []
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise TrajectoryFormatError(path, None, "messages", "expected a list of message objects")
    image = ((info.get("config") or {}).get("environment") or {}).get("image") or ""
    m = re.search(r"_m_([A-Za-z0-9_.-]+)(?::|$)", image) if isinstance(image, str) else None
    repo_dir_name = m.group(1) if m else ""
    contents = [_text(msg.get("content"), path, None, f"messages[{i}].content") for i, msg in enumerate(messages)]
    steps = []
    for content in contents:
        for block in _blocks(content, "explore_context"):
            if spans := _file_lines(block, repo_dir_name):
                steps.append({"files": sorted(spans), "spans": spans})
    if not steps:
        for msg, content in zip(messages, contents):
            if msg.get("role") != "assistant":
                continue
            found = re.search(r"```bash\s*\r?\n([\s\S]*?)\r?\n```", content)
            if not found or "COMPLETE_TASK" in (cmd := found.group(1).strip()):
                continue
            step: dict = {"files": [], "spans": {}}
            for view in _views(cmd):
                file = _mini_path(view["file"], repo_dir_name)
                if not file:
                    continue
                step["files"].append(file)
                if "start_line" in view:
                    step["spans"].setdefault(file, []).append(
                        {"type": "line", "start": view["start_line"], "end": view["end_line"]})
            if step["files"]:
                step["files"] = sorted(set(step["files"]))
                steps.append(step)
    patch_blocks = [b for content in contents for b in _blocks(content, "PATCH_CONTEXT")]
    final = _file_lines(patch_blocks[-1], repo_dir_name) if patch_blocks else {}
    return {"instance_id": path.name[: -len(".traj.json")],
            "traj_data": {"pred_steps": steps, "pred_files": sorted(final), "pred_spans": final},
            "model_patch": _text(info.get("submission"), path, None, "info.submission")}


def read_trajectory(path: Path | str) -> dict:
    """The unified record of one native trajectory file, by its name; other names are an error."""
    readers = {"checkpoints": read_checkpoints, "traj": read_traj, "traj.json": read_traj_json}
    kind = kind_of(path)
    if kind is None:
        raise TrajectoryFormatError(path, None, None, f"not a trajectory file: expected a name ending in "
                                    f"{', '.join(SUFFIXES)}")
    return readers[kind](path)


def find_trajectories(folder: Path | str) -> list[Path]:
    """Trajectory files under ``folder`` (recursively), sorted by path."""
    return sorted(p for p in Path(folder).rglob("*") if p.is_file() and kind_of(p) is not None)

"""Replay recorded completions by prompt hash, and record any provider's completions.

A recordings file is JSONL: one object per line holding ``prompt_sha256``, the
:class:`~beacon.providers.base.Completion` fields and, optionally, ``params``
(``max_tokens``, ``temperature``, ``seed`` of the recorded call, and ``stop``
when stop strings were sent). ``prompt_sha256`` is the call's
:func:`~beacon.providers.base.request_key`: the prompt's SHA-256, or, for a
call constrained by a JSON schema, the hash of prompt and schema. Replaying a
file gives back exactly the recorded Completions, so a repair run can be
re-scored offline, byte for byte.

The :class:`Recorder` appends one complete line (newline included) per
completion in a single ``write`` and flushes it, so a crash leaves at worst an
unterminated last line; loaders ignore such a tail (with a warning) rather
than count a half-written record.
"""
from __future__ import annotations

import json
import math
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from .base import (
    COMPLETION_FIELDS,
    STOP_REASONS,
    Completion,
    Provider,
    ProviderError,
    check_call_args,
    check_extra_args,
    request_key,
)
from .registry import register_provider

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_OPTIONAL = frozenset({"raw", "unusable_reason", "params"})  # may be absent from a line


class ReplayMiss(ProviderError):
    """The prompt was never recorded, so there is nothing to replay."""


class ReplayMismatch(ProviderError):
    """The prompt was recorded, but with different call parameters."""


class RecordingFormatError(ProviderError, ValueError):
    """A recordings file line is malformed; the message names file, line and field."""


class PartialRecordingWarning(UserWarning):
    """A recordings file ends in an unterminated line (an interrupted write); it was ignored."""


@dataclass(frozen=True)
class Recording:
    prompt_sha256: str
    completion: Completion
    params: dict[str, Any] | None
    source: str  # "file:line" for messages


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _count_or_none(v: Any) -> bool:
    return v is None or (_int(v) and v >= 0)


def _str_or_none(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _hex64(v: Any) -> bool:
    return isinstance(v, str) and bool(_HEX64.match(v))


def _seconds(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def _params(v: Any) -> bool:
    return (
        isinstance(v, dict) and set(v) - {"stop"} == {"max_tokens", "temperature", "seed"}
        and _int(v["max_tokens"]) and isinstance(v["temperature"], (int, float))
        and not isinstance(v["temperature"], bool) and (v["seed"] is None or _int(v["seed"]))
        and ("stop" not in v or (isinstance(v["stop"], list) and all(isinstance(s, str) for s in v["stop"])))
    )


# field -> (check, what was expected)
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "prompt_sha256": (_hex64, "64 lower-case hex digits"),
    "text": (lambda v: isinstance(v, str), "a string"),
    "input_tokens": (_count_or_none, "a non-negative integer or null"),
    "output_tokens": (_count_or_none, "a non-negative integer or null"),
    "stop_reason": (lambda v: v in STOP_REASONS, f"one of {sorted(STOP_REASONS)}"),
    "raw_stop_reason": (_str_or_none, "a string or null"),
    "model": (lambda v: isinstance(v, str), "a string"),
    "model_digest": (_str_or_none, "a string or null"),
    "request_sha256": (_hex64, "64 lower-case hex digits"),
    "response_sha256": (_hex64, "64 lower-case hex digits"),
    "server_authenticated": (lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "truncated": (lambda v: isinstance(v, bool), "true or false"),
    "latency_s": (_seconds, "a finite number >= 0"),
    "raw": (lambda v: isinstance(v, dict), "an object"),
    "unusable_reason": (_str_or_none, "a string or null"),
    "params": (_params, 'an object {"max_tokens": int, "temperature": number, "seed": int|null, '
                        '"stop"?: [string]}'),
}
assert set(_CHECKS) == set(COMPLETION_FIELDS) | {"prompt_sha256", "params"}


def parse_recording(obj: Any, where: str) -> Recording:
    """Validate one decoded JSONL object; ``where`` ("file:line") prefixes every error."""
    if not isinstance(obj, dict):
        raise RecordingFormatError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    unknown = sorted(set(obj) - set(_CHECKS))
    if unknown:
        raise RecordingFormatError(f"{where}: field {unknown[0]!r}: unknown field (expected only {sorted(_CHECKS)})")
    for name, (check, expected) in _CHECKS.items():
        if name not in obj:
            if name in _OPTIONAL:
                continue
            raise RecordingFormatError(f"{where}: field {name!r}: missing (expected {expected})")
        if not check(obj[name]):
            raise RecordingFormatError(f"{where}: field {name!r}: expected {expected}, got {obj[name]!r:.80}")
    try:
        completion = Completion(**{k: obj[k] for k in COMPLETION_FIELDS if k in obj})
    except ValueError as exc:  # cross-field checks in Completion.__post_init__
        raise RecordingFormatError(f"{where}: {exc}") from None
    return Recording(obj["prompt_sha256"], completion, obj.get("params"), where)


def load_recordings(path: str | os.PathLike[str]) -> dict[str, Recording]:
    """All recordings in a JSONL file, keyed by prompt SHA-256.

    Lines are split on ``\\n`` only: ``str.splitlines`` would also split on
    U+2028 and friends, which JSON leaves unescaped inside strings.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordingFormatError(f"{path}: cannot read recordings file ({exc})") from None
    lines = data.split(b"\n")
    if lines[-1]:
        warnings.warn(
            f"{path}:{len(lines)}: ignoring unterminated last line ({len(lines[-1])} bytes), "
            "left by an interrupted write", PartialRecordingWarning, stacklevel=2,
        )
    recordings: dict[str, Recording] = {}
    for lineno, raw_line in enumerate(lines[:-1], start=1):
        where = f"{path}:{lineno}"
        if not raw_line.strip():
            continue
        try:
            obj = json.loads(raw_line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RecordingFormatError(f"{where}: not a valid UTF-8 JSON line ({exc})") from None
        rec = parse_recording(obj, where)
        if rec.prompt_sha256 in recordings:
            first = recordings[rec.prompt_sha256].source
            raise RecordingFormatError(
                f"{where}: field 'prompt_sha256': {rec.prompt_sha256} was already recorded at {first}; "
                "a prompt must be recorded once -- keep one of the lines"
            )
        recordings[rec.prompt_sha256] = rec
    return recordings


def _call_params(max_tokens: int, temperature: float, seed: int | None,
                 stop: list[str] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature, "seed": seed}
    if stop:  # absent when unused: recordings made before stop strings existed still match
        params["stop"] = list(stop)
    return params


def _extra(response_schema: dict[str, Any] | None, stop: list[str] | None) -> dict[str, Any]:
    """The optional keywords to pass on: only those that are set (adapters may lack them)."""
    return {k: v for k, v in (("response_schema", response_schema), ("stop", stop)) if v}


def _lookup(recordings: Mapping[str, Recording], key: str, params: dict[str, Any],
            source: str, provider: str) -> Completion:
    rec = recordings.get(key)
    if rec is None:
        raise ReplayMiss(
            f"{provider}: no recording for prompt sha256 {key} in {source}; record it with "
            "Recorder, or check that the prompt builder (and the structured-output schema, if any) "
            "has not changed since recording"
        )
    if rec.params is not None and rec.params != params:
        raise ReplayMismatch(
            f"{provider}: prompt sha256 {key} was recorded ({rec.source}) with {rec.params}, "
            f"but is now requested with {params}; re-record or request the recorded parameters"
        )
    return rec.completion


@register_provider("replay")
class ReplayProvider:
    """Answers prompts from recordings (a JSONL path, or a mapping hash -> Completion)."""

    def __init__(self, recordings: str | os.PathLike[str] | Mapping[str, Completion], *,
                 name: str = "replay") -> None:
        self.name = name
        if isinstance(recordings, (str, os.PathLike)):
            self.source = str(recordings)
            self._recordings = load_recordings(recordings)
        elif isinstance(recordings, Mapping):
            self.source = "<in-memory recordings>"
            self._recordings = {}
            for key, completion in recordings.items():
                if not _hex64(key) or not isinstance(completion, Completion):
                    raise TypeError(
                        f"{name}: in-memory recordings map prompt sha256 hex -> Completion; "
                        f"got {key!r} -> {type(completion).__name__}"
                    )
                self._recordings[key] = Recording(key, completion, None, self.source)
        else:
            raise TypeError(f"{name}: recordings must be a JSONL path or a mapping, got {type(recordings).__name__}")

    def __len__(self) -> int:
        return len(self._recordings)

    def __repr__(self) -> str:
        return f"ReplayProvider(name={self.name!r}, source={self.source!r}, recordings={len(self)})"

    def complete(self, prompt: str, *, max_tokens: int, temperature: float = 0.0, seed: int | None = 0,
                 response_schema: dict[str, Any] | None = None, stop: list[str] | None = None) -> Completion:
        check_call_args(self.name, prompt, max_tokens, temperature, seed)
        check_extra_args(self.name, response_schema, stop)
        return _lookup(self._recordings, request_key(prompt, response_schema),
                       _call_params(max_tokens, temperature, seed, stop), self.source, self.name)


class Recorder:
    """Wraps a provider and appends each of its completions to a JSONL recordings file.

    A prompt already in the file is answered from the file without calling the
    wrapped provider: a resumed run then sees exactly what was recorded, and the
    file never holds two answers for one prompt (which replay would refuse).
    """

    def __init__(self, provider: Provider, path: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.provider = provider
        self.name = provider.name
        self.path = Path(path)
        self.fsync = fsync
        self._recorded: dict[str, Recording] = {}
        if self.path.exists():
            self._drop_partial_tail()
            self._recorded = load_recordings(self.path)

    def __repr__(self) -> str:
        return f"Recorder({self.provider!r}, path={str(self.path)!r})"

    def _drop_partial_tail(self) -> None:
        # Appending after an unterminated line would glue a new record onto
        # the remains of an interrupted one; cut the remains off first.
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            warnings.warn(
                f"{self.path}: dropping {len(data) - keep} bytes of an unterminated last line "
                "left by an interrupted write", PartialRecordingWarning, stacklevel=3,
            )
            with open(self.path, "r+b") as fh:
                fh.truncate(keep)

    def _append(self, line: bytes) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            # One write call for the whole line: with O_APPEND a concurrent or
            # interrupted writer cannot interleave inside it on a local disk.
            written = os.write(fd, line)
            while written < len(line):  # a short write is legal, if rare; finish it
                written += os.write(fd, line[written:])
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def complete(self, prompt: str, *, max_tokens: int, temperature: float = 0.0, seed: int | None = 0,
                 response_schema: dict[str, Any] | None = None, stop: list[str] | None = None) -> Completion:
        check_call_args(self.name, prompt, max_tokens, temperature, seed)
        check_extra_args(self.name, response_schema, stop)
        params = _call_params(max_tokens, temperature, seed, stop)
        key = request_key(prompt, response_schema)
        if key in self._recorded:
            return _lookup(self._recorded, key, params, str(self.path), self.name)
        completion = self.provider.complete(prompt, max_tokens=max_tokens, temperature=temperature, seed=seed,
                                            **_extra(response_schema, stop))
        obj = {"prompt_sha256": key, "params": params, **completion.to_dict()}
        try:
            line = json.dumps(obj, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
        except (TypeError, ValueError) as exc:
            raise ProviderError(
                f"{self.name}: completion for prompt sha256 {key} is not JSON-serialisable ({exc}); "
                f"nothing was written to {self.path}"
            ) from None
        self._append(line.encode("utf-8"))
        self._recorded[key] = Recording(key, completion, params, f"{self.path} (this session)")
        return completion

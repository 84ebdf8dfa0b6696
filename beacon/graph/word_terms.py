"""How an identifier splits into terms, and each file's distinct words split at parse time.

Terms are identifiers split on ``snake_case`` and ``camelCase`` boundaries and lower-cased (``computeRetryDelay``
-> ``compute``, ``retry``, ``delay``); a multi-part identifier also contributes itself whole. The rule lives here,
beside the parser, because ``words.file_words`` applies it to each file's distinct words when the file is parsed
(``file_terms``), so a fresh graph's term index only merges the files' term vocabularies; ``beacon.retrieval.text``
re-exports it. The parse cache stores the splits: a change to the rule (or to ``STOPWORDS``) needs a
``PARSER_VERSION`` bump (``beacon.graph.parse``).
"""
from __future__ import annotations

import re
from itertools import chain

import numpy as np

from ..factorize import factorize

_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her his
    how i if in into is it its me my no not of on or our she so such than that the their them
    then there these they this those to too us was we were what when where which while who why
    will with would you your self cls def return none true false pass elif else import class
    lambda yield raise try except finally assert del global nonlocal async await args kwargs""".split()
)


_LEADING_DIGIT = re.compile(r"(?:^| )[0-9]")
_SPLITS: dict[str, tuple[str, ...]] = {}  # split_identifier's memo: a dict (a miss costs far less than in an LRU)
_SPLITS_MAX = 1 << 18  # cleared when full, so a long sweep over many graphs stays bounded


def split_identifier(word: str) -> tuple[str, ...]:
    found = _SPLITS.get(word)
    if found is None:
        if len(_SPLITS) >= _SPLITS_MAX:
            _SPLITS.clear()
        found = _SPLITS[word] = _split(word)
    return found


def _split(word: str) -> tuple[str, ...]:
    if word.isalpha() and word.isascii() and word.islower():  # one lower-case part: itself, unless too short or common
        return (word,) if len(word) > 1 and word not in STOPWORDS else ()
    if word.isascii() and word.islower() and word.replace("_", "").isalpha():
        # lower-case letters and underscores only (most identifiers): each chunk is one part, no regex needed
        parts = [p for p in word.split("_") if len(p) > 1 and p not in STOPWORDS]
    else:  # the camel-case parts of each ``_`` chunk (the expression matches no space, so one search finds them)
        parts = _CAMEL.findall(word.replace("_", " "))
        parts = [p for p in map(str.lower, parts) if len(p) > 1 and not p.isdigit() and p not in STOPWORDS]
    whole = word.strip("_").lower()
    if len(parts) > 1 and whole not in STOPWORDS:
        parts.append(whole)
    return tuple(parts)


def code_dtype(n_codes: int) -> type:
    """The dtype a file keeps its word or term numbers in: ``uint16`` when they fit (nearly every file), which
    halves their share of the parse cache, else ``int32``."""
    return np.uint16 if n_codes <= 1 << 16 else np.int32


def file_terms(vocab: bytes) -> tuple[bytes, np.ndarray, np.ndarray]:
    """The terms of a file's distinct words (``vocab``: space-separated runs of identifier bytes, leading digits
    included, as ``FileWords.vocab``): the file's distinct terms, space-separated and numbered by first occurrence
    walking the words in order and each word's terms in order; each word's term numbers, concatenated (``code_dtype``);
    and the offsets of each word's numbers in them (``int32``, one more than the words)."""
    if not vocab:
        return b"", np.zeros(0, dtype=code_dtype(0)), np.zeros(1, dtype=np.int32)
    # the identifier ``text._IDENT`` finds in each run: without its leading digits (an all-digit run has none)
    found = vocab.decode("ascii")
    idents = found.split(" ")
    if _LEADING_DIGIT.search(found):
        idents = [w.lstrip("0123456789") for w in idents]
    parts = list(map(_SPLITS.get, idents))  # the memo's hits, without a Python call per word
    if None in parts:
        parts = [hit if hit is not None else split_identifier(w) for hit, w in zip(parts, idents)]
    flat = list(chain.from_iterable(parts))
    # numbered by first occurrence, by one hash-table pass (``pd.factorize`` keeps first-occurrence order)
    codes, uniques = factorize(np.array(flat, dtype=object)) if flat else (np.zeros(0, dtype=np.int64), ())
    ptr = np.zeros(len(parts) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, parts), dtype=np.int32, count=len(parts)), out=ptr[1:])
    return " ".join(uniques).encode("ascii"), codes.astype(code_dtype(len(uniques))), ptr

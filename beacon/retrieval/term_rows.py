"""Sparse count rows assembled from per-distinct-string id lists (the stemmed name field, document expansion).

Paths, qualname parts and names repeat across a graph's symbols (``__init__``,
``Basic``, ``sympy/core/basic.py``), so the fields built from them split and
look up each distinct string once (``table``) and give every row the
concatenation of its strings' lists (``gather``), with numpy gathers instead
of a Python step per symbol and term. Rows and their entries come out in the
order a per-symbol loop appends them, so the matrices built from them are
the same, byte for byte.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .text import split_identifier, terms


class Table:
    """Id lists of distinct keys, flattened: key ``k``'s ids are ``ids[start[k]:start[k] + length[k]]``."""

    def __init__(self, lists: Iterable[list[int]]):
        lists = list(lists)
        self.length = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        self.start = np.cumsum(self.length) - self.length
        self.ids = np.fromiter((j for found in lists for j in found), dtype=np.int64, count=int(self.length.sum()))

    def gather(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ids of ``keys`` in turn, and how many each key gave."""
        length = self.length[keys]
        total = int(length.sum())
        out_start = np.cumsum(length) - length
        where = np.arange(total, dtype=np.int64) + np.repeat(self.start[keys] - out_start, length)
        return self.ids[where], length


def text_terms(text: str) -> tuple[str, ...] | list[str]:
    """``terms(text)``; a text that is one ASCII identifier (most names and qualname parts) skips the search."""
    return split_identifier(text) if text.isascii() and text.isidentifier() else terms(text)


def known(lookup: dict[str, int], texts: Iterable[str], key=None) -> list[list[int]]:
    """Per text: ``lookup`` of each of its terms (``key(term)`` if given) that has one, in order."""
    get = lookup.get
    if key is None:
        return [[j for j in map(get, text_terms(text)) if j is not None] for text in texts]
    return [[j for j in map(get, map(key, text_terms(text))) if j is not None] for text in texts]


def distinct(strings: list[str] | np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Per string the code of its value (numbered by first occurrence), and the distinct values."""
    codes, uniques = pd.factorize(np.asarray(strings, dtype=object), sort=False)  # hashed in C
    return codes.astype(np.int64), list(uniques)


def qualname_parts(qualnames: list[str]) -> tuple[list[str], np.ndarray]:
    """Every qualname's dot-separated parts in one list, and how many each qualname has."""
    counts = np.fromiter((q.count(".") + 1 for q in qualnames), dtype=np.int64, count=len(qualnames))
    return (".".join(qualnames).split(".") if qualnames else []), counts


def keys_after(first: np.ndarray, rest: np.ndarray, rest_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row one key ``first[i]`` then its ``rest_counts[i]`` keys of ``rest`` (in order): the keys, each's row."""
    per_row = 1 + rest_counts
    starts = np.cumsum(per_row) - per_row
    keys = np.empty(int(per_row.sum()), dtype=np.int64)
    is_first = np.zeros(len(keys), dtype=bool)
    is_first[starts] = True
    keys[starts] = first
    keys[~is_first] = rest
    return keys, np.repeat(np.arange(len(first), dtype=np.int64), per_row)


def count_rows(row_of_key: np.ndarray, keys: np.ndarray, table: Table, shape: tuple[int, int]) -> sp.csr_matrix:
    """``shape`` counts: key ``keys[i]`` adds its ids to row ``row_of_key[i]`` (as a COO build appends them)."""
    cols, length = table.gather(keys)
    rows = np.repeat(row_of_key, length)
    return sp.csr_matrix((np.ones(len(cols)), (rows, cols)), shape=shape)

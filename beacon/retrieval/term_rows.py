"""Per-distinct-string derivations of a graph's names, and sparse count rows assembled from them.

Paths, qualname parts and names repeat across a graph's symbols (``__init__``,
``Basic``, ``sympy/core/basic.py``), so the fields built from them split and
look up each distinct string once (``table``) and give every row the
concatenation of its strings' lists (``gather``), with numpy gathers instead
of a Python step per symbol and term. Rows and their entries come out in the
order a per-symbol loop appends them, so the matrices built from them are
the same, byte for byte.

``symbol_names(graph)`` derives, once per graph and shared by every builder
that needs them (``GraphIndexes.symbol_names``), every symbol's qualname parts
and definition name as codes into one list of distinct strings, and the
terms of each of those strings (``SymbolNames.terms``, on first use): the
stemmed name field, document expansion, ``FileIndex.by_name`` and the
change-log votes read these instead of walking ``Symbol`` objects.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain, repeat

import numpy as np
import scipy.sparse as sp

from ..factorize import factorize
from ..graph.codebase import CodebaseGraph
from .indexes import indexes_for
from .text import split_identifier, terms


class Table:
    """Id lists of distinct keys, flattened: key ``k``'s ids are ``ids[start[k]:start[k] + length[k]]``."""

    def __init__(self, lists: Iterable[list[int]]):
        lists = list(lists)
        length = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        self._set(np.fromiter((j for found in lists for j in found), dtype=np.int64, count=int(length.sum())), length)

    def _set(self, ids: np.ndarray, length: np.ndarray) -> None:
        self.ids, self.length = ids, length
        self.start = np.cumsum(length) - length

    @classmethod
    def of(cls, ids: np.ndarray, length: np.ndarray) -> Table:
        """The table of flat ``ids`` whose key ``k`` has the next ``length[k]``."""
        table = cls.__new__(cls)
        table._set(np.asarray(ids, dtype=np.int64), np.asarray(length, dtype=np.int64))
        return table

    def __add__(self, other: Table) -> Table:
        """This table's keys, then ``other``'s (numbered after them)."""
        return Table.of(np.concatenate([self.ids, other.ids]), np.concatenate([self.length, other.length]))

    def mapped(self, lookup: np.ndarray) -> Table:
        """Each id ``j`` replaced by ``lookup[j]``, dropping those that map to -1 (order kept)."""
        ids = lookup[self.ids]
        keep = ids >= 0
        owner = np.repeat(np.arange(len(self.length), dtype=np.int64), self.length)
        return Table.of(ids[keep], np.bincount(owner[keep], minlength=len(self.length)))

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
    codes, uniques = factorize(np.asarray(strings, dtype=object), sort=False)  # hashed in C
    return codes.astype(np.int64), list(uniques)


def qualname_parts(qualnames: list[str]) -> tuple[list[str], np.ndarray]:
    """Every qualname's dot-separated parts in one list, and how many each qualname has."""
    counts = np.fromiter(map(str.count, qualnames, repeat(".")), dtype=np.int64, count=len(qualnames)) + 1
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


def term_table(texts: list[str]) -> tuple[Table, list[str]]:
    """The terms of each text (``text_terms``) as codes into the distinct terms, and those terms."""
    split = [split_identifier(text) if text.isascii() and text.isidentifier() else terms(text) for text in texts]
    length = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
    codes, words = distinct(list(chain.from_iterable(split)))
    return Table.of(codes, length), words


def lookup_array(words: list[str], lookup: dict[str, int], key=None) -> np.ndarray:
    """Per word: ``lookup`` of it (of ``key(word)`` if given), -1 if it has none."""
    get = lookup.get
    found = map(get, words if key is None else map(key, words), [-1] * len(words))
    return np.fromiter(found, dtype=np.int64, count=len(words))


@dataclass(eq=False)
class SymbolNames:
    """Every symbol's qualname parts and definition name, as codes into ``strings`` (see the module docstring)."""

    part_codes: np.ndarray  # every symbol's qualname parts in turn, as codes into ``strings``
    n_parts: np.ndarray  # per symbol: how many parts its qualname has
    name_of: np.ndarray  # per symbol: code of its last qualname part without a ``#n`` mark (``Symbol.name``
    #                      of a definition; a module's is its ``<module>`` qualname)
    strings: list[str]  # the distinct parts in order of first appearance, then the names that are not parts
    _terms: tuple[Table, list[str]] | None = field(default=None, repr=False)

    @property
    def terms(self) -> tuple[Table, list[str]]:
        """``term_table(strings)``, split on first use."""
        if self._terms is None:
            self._terms = term_table(self.strings)
        return self._terms


def symbol_names(graph: CodebaseGraph) -> SymbolNames:
    """The graph's ``SymbolNames`` (built once per graph, kept in ``GraphIndexes.symbol_names``)."""
    ix = indexes_for(graph)
    if ix.symbol_names is None:
        parts, n_parts = qualname_parts([s.qualname for s in graph.symbols])
        part_codes, strings = distinct(parts)
        name_code = np.arange(len(strings), dtype=np.int64)  # a part without a ``#n`` mark is its own name
        marked = [k for k, part in enumerate(strings) if "#" in part]
        if marked:
            code = dict(zip(strings, range(len(strings))))
            for k in marked:
                name = strings[k].split("#", 1)[0]
                found = code.get(name)
                if found is None:
                    found = code[name] = len(strings)
                    strings.append(name)
                name_code[k] = found
        ix.symbol_names = SymbolNames(part_codes, n_parts, name_code[part_codes[np.cumsum(n_parts) - 1]], strings)
    return ix.symbol_names

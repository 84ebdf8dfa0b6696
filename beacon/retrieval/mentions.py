"""Resolve what a query names (``query_features``) against a graph: per-symbol and per-file weights.

* A mentioned **path** (prose or traceback) matches a graph file when one is a
  suffix of the other on a ``/`` boundary (``click/core.py`` ~
  ``src/click/core.py``; ``/usr/lib/.../requests/models.py`` ~
  ``requests/models.py``); an ambiguous bare name shares its weight.
* A **stem** (``sessions`` in prose or ``werkzeug.routing``) matches the files
  with that stem, weakly (stems are ordinary words too).
* A **name** matches the symbols whose simple name it is. Identifier weights
  follow Aider's repo map: names the query marks as code (backticks, calls,
  dotted, frames) ×10, long (≥ 8 chars) snake/camel names ×10, private names
  ×0.1, names defined in more than 5 files ×0.1. A dotted name also matches
  qualname suffixes (``Session.send``) at full weight.
* A **frame**'s function in a matched file is a strong mention.

Only the query and the snapshot are read. ``mention_weights`` remembers the
last query per graph (a method asks twice per query; older queries are dropped).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from ..graph.codebase import CodebaseGraph
from .file_index import FileIndex, file_index
from .indexes import indexes_for
from .query_features import QueryFeatures, query_features

EXPLICIT = 10.0  # the query marks the name as code
LONG_NAME = 10.0  # a long snake/camel name is specific
LONG_NAME_CHARS = 8
PRIVATE = 0.1
COMMON = 0.1  # defined in more than COMMON_FILES files
COMMON_FILES = 5
PATH_WEIGHT = 100.0  # an explicit file path is the strongest mention there is
STEM_WEIGHT = 3.0
FRAME_FUNCTION = 100.0
MIN_NAME_CHARS = 3
_SNAKE_OR_CAMEL = re.compile(r"[a-z0-9]_[a-z0-9]|[a-z][A-Z]")
_STEM_BLOCKLIST = frozenset({"__init__", "__main__", "setup", "conftest", "utils", "util", "compat"})


def match_path(index: FileIndex, mentioned: str) -> list[int]:
    """Files equal to ``mentioned`` or a suffix/prefix-extension of it on a ``/`` boundary."""
    m = mentioned.lstrip("/")
    return [i for i, p in enumerate(index.paths)
            if p == m or p.endswith("/" + m) or m.endswith("/" + p)]


def identifier_weight(name: str, explicit: bool, defining_files: int) -> float:
    """Aider-style weight of a mentioned identifier (see the module docstring)."""
    w = 1.0
    if explicit:
        w *= EXPLICIT
    if len(name) >= LONG_NAME_CHARS and _SNAKE_OR_CAMEL.search(name):
        w *= LONG_NAME
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        w *= PRIVATE
    if defining_files > COMMON_FILES:
        w *= COMMON
    return w


@dataclass(frozen=True)
class Mentions:
    symbol: np.ndarray  # per symbol: weight of the names that match it
    file: np.ndarray  # per file (FileIndex order): weight of paths/stems that match it

    @property
    def empty(self) -> bool:
        return not (self.symbol.any() or self.file.any())


def mention_weights(graph: CodebaseGraph, query: str | QueryFeatures, prose: float = 1.0) -> Mentions:
    """Per-symbol and per-file mention weights; ``prose`` multiplies the matches that come only from words of
    the prose (not marked as code, not part of a dotted name): a stem equal to a file's, a name equal to a
    definition's. Such words are often generic commit wording (*test*, *request*, *commands*) that, in a large
    repository, match hub files; 1.0 (the default) leaves every weight as it was."""
    features = query if isinstance(query, QueryFeatures) else query_features(query)
    ix = indexes_for(graph)
    last = ix.last_mentions  # one query at a time: no per-query growth of the cache
    if last is not None and last[0] == (features.text, prose):
        return last[1]
    index = file_index(graph)
    sym = np.zeros(len(graph.symbols))
    files = np.zeros(len(index.paths))
    for p in features.paths:
        hits = match_path(index, p)
        for f in hits:
            files[f] += PATH_WEIGHT / len(hits)
    words = set(features.identifiers)
    dotted_parts = {part for d in features.dotted for part in d.split(".")}
    explicit = features.explicit_names
    for stem in (words | dotted_parts) - _STEM_BLOCKLIST:
        weight = STEM_WEIGHT if stem in explicit or stem in dotted_parts else STEM_WEIGHT * prose
        for f in index.by_stem.get(stem, ()):
            if len(stem) >= MIN_NAME_CHARS and files[f] < PATH_WEIGHT:
                files[f] += weight
    for name in words | explicit:
        nodes = index.by_name.get(name)
        if nodes is None or len(name) < MIN_NAME_CHARS:
            continue
        n_files = len(np.unique(index.file_of[nodes]))
        sym[nodes] += identifier_weight(name, name in explicit, n_files) * (1.0 if name in explicit else prose)
    for d in features.dotted:  # Session.send, flask.Flask.add_url_rule: qualname suffixes
        parts = d.split(".")
        for k in (2, 3):
            if len(parts) >= k:
                tail = ".".join(parts[-k:])
                for node in index.by_name.get(parts[-1], ()):
                    q = graph.symbols[node].qualname
                    if q == tail or q.endswith("." + tail):
                        sym[node] += EXPLICIT * LONG_NAME
    for frame in features.frames:
        if frame.function is None:
            continue
        hit_files = set(match_path(index, frame.path))
        for node in index.by_name.get(frame.function, ()):
            if int(index.file_of[node]) in hit_files:
                sym[node] += FRAME_FUNCTION
    found = Mentions(sym, files)
    ix.last_mentions = ((features.text, prose), found)
    return found


_LOOSE_SKIP = _STEM_BLOCKLIST | {"impl", "base", "core", "main", "types", "helpers", "internal", "src", "tests",
                                 "test", "lib"}
LOOSE_PREFIX_CHARS = 5  # a path word this long may be a prefix of a query word ("debug" ~ "debugger")


def _path_words(path: str) -> tuple[str, list[str]]:
    """A file's own name (its package's for ``__init__.py``) and its folders' names, lower-case, ``_`` stripped."""
    parts = path.lower().split("/")
    name = parts[-1].rsplit(".", 1)[0]
    folders = parts[:-1]
    if name == "__init__" and folders:
        name, folders = folders[-1], folders[:-1]
    return name.strip("_"), [f.strip("_") for f in folders]


@dataclass(frozen=True)
class PathWords:
    """Every file's loose path words (``_path_words``) as ids into one word list, built once per graph."""

    words: tuple[str, ...]  # distinct path words
    by_stem: dict[str, np.ndarray]  # light stem -> ids of the words that may match (3+ chars, not skipped)
    by_prefix: dict[str, int]  # word -> id, for the words that may match as a prefix (5+ chars, not skipped)
    name: np.ndarray  # per file: id of its name word
    parts: sp.csr_matrix  # files x words: how often each word is a part of the file's snake_case name
    folders: sp.csr_matrix  # files x words: how often each word is one of the file's folders

    @cached_property
    def longest_prefix(self) -> int:
        """The length of the longest ``by_prefix`` word (0 without any): no longer prefix of a query word can match."""
        return max(map(len, self.by_prefix), default=0)


def path_words(graph: CodebaseGraph) -> PathWords:
    """The graph's ``PathWords`` (``GraphIndexes.path_words``)."""
    from .stemmed import stem  # stemmed imports this module

    ix = indexes_for(graph)
    if ix.path_words is None:
        ids: dict[str, int] = {}
        paths = file_index(graph).paths
        name = np.zeros(len(paths), dtype=np.int64)
        parts: list[list[int]] = []
        folders: list[list[int]] = []
        for f, path in enumerate(paths):
            word, dirs = _path_words(path)
            name[f] = ids.setdefault(word, len(ids))
            parts.append([ids.setdefault(p, len(ids)) for p in (word.split("_") if "_" in word else ()) if p])
            folders.append([ids.setdefault(d, len(ids)) for d in dirs])

        def counts(rows: list[list[int]]) -> sp.csr_matrix:
            indptr = np.cumsum([0] + [len(r) for r in rows])
            data = np.ones(int(indptr[-1]))
            cols = np.fromiter((j for r in rows for j in r), dtype=np.int64, count=int(indptr[-1]))
            m = sp.csr_matrix((data, cols, indptr), shape=(len(rows), len(ids)))
            m.sum_duplicates()
            return m

        live = {w: j for w, j in ids.items() if len(w) >= MIN_NAME_CHARS and w not in _LOOSE_SKIP}
        by_stem: dict[str, list[int]] = {}
        for w, j in live.items():
            by_stem.setdefault(stem(w), []).append(j)
        ix.path_words = PathWords(tuple(ids), {k: np.asarray(v, dtype=np.int64) for k, v in by_stem.items()},
                                  {w: j for w, j in live.items() if len(w) >= LOOSE_PREFIX_CHARS},
                                  name, counts(parts), counts(folders))
    return ix.path_words


def loose_path_matches(graph: CodebaseGraph, query: str | QueryFeatures) -> np.ndarray:
    """Per file: does prose name it loosely? 1 if the file's name matches, plus 0.5 per matching folder or name part.

    A path word matches when some query identifier has the same light stem
    (``completion`` ~ ``complete``, ``reloader`` ~ ``_reloader``) or, for a
    path word of at least ``LOOSE_PREFIX_CHARS`` characters, starts with it
    (``debug/`` ~ ``debugger``); ``__init__.py`` is named by its package. The
    name counts once however many identifiers match it; each part of a
    snake-case name counts 0.5 on its own (``shell_completion.py`` scores 0.5
    for "completions", 1.0 for "shell completion"), and identifiers are matched
    whole, so a query that writes ``shell_completion`` scores 1.5 (the name,
    plus its part ``shell`` by prefix). Exact
    stems are ``mention_weights``' job; this is the fuzzy complement, for commit
    messages that say "the debugger" rather than ``werkzeug/debug/__init__.py``.

    The path words are indexed once per graph (``PathWords``): a query looks up
    its identifiers' stems and prefixes there instead of testing every file.
    """
    from .stemmed import stem  # stemmed imports this module

    features = query if isinstance(query, QueryFeatures) else query_features(query)
    words = {w.lower() for w in features.identifiers if len(w) >= MIN_NAME_CHARS}
    word_stems = {stem(w) for w in words}
    pw = path_words(graph)
    hit = np.zeros(len(pw.words))
    for word_stem in word_stems:
        found = pw.by_stem.get(word_stem)
        if found is not None:
            hit[found] = 1.0
    # "some identifier starts with the path word" == "the path word is one of the identifiers' prefixes"
    # (prefixes up to the longest path word only: all of a long pasted word's prefixes are quadratic in its length)
    longest = pw.longest_prefix
    for prefix in {w[:n] for w in words for n in range(LOOSE_PREFIX_CHARS, min(len(w), longest) + 1)}:
        j = pw.by_prefix.get(prefix)
        if j is not None:
            hit[j] = 1.0
    # sums of 0/1 and halves: exact in any order
    return hit[pw.name] + 0.5 * (pw.parts @ hit) + 0.5 * (pw.folders @ hit)

"""What red-team round 58 (helper 158, on f269790) taught the replay's encoder and comparison, rule by rule; the
forgeries themselves run through the harness in ``test_replay_library.py`` (a keyed sample) and all of them in
``python -m experiments.benchmarks.case_files`` (``round58/``).

- a def or class kept under another's qualname is ``elsewhere`` (its name finds another object);
- a value or tuple subclass with operators of its own (``own``) stands for no plain value, and a NamedTuple for
  another NamedTuple class is no stand-in either;
- a raised exception keeps the pristine one's bases; an added subclass may not define again a method the pristine
  class has;
- a deque, a ChainMap, a defaultdict's factory, a SimpleQueue, an sqlite connection are their contents, not their
  repr; a repr's address is cut only where the repr ends; a UUID by its exact value; a match with its text;
- printed bytes that are not UTF-8 are each their own escape.
"""
from __future__ import annotations

import collections
import queue
import sqlite3
import uuid
from typing import NamedTuple

from hypothesis import given, settings, strategies as st

from beacon.repair.replay import _bases_kept, _printed, _shadowed_methods, alike
from beacon.repair.replay_driver import _ADDRESS, _Encoder, _elsewhere, _own_dunders, raised, shown


def made_elsewhere():
    def _rate(x):
        return x

    _rate.__qualname__ = "made_elsewhere"  # (its name finds the factory, not itself)
    return _rate


class Box:
    pass


class Cents(int):
    def __add__(self, other):
        return Cents(int(self) + int(other) + 1)


class Pair(tuple):
    def __getitem__(self, i):
        return tuple.__getitem__(self, 1 - i)


class Bounds(NamedTuple):
    lo: int
    hi: int


class Span(NamedTuple):
    hi: int
    lo: int


def test_an_object_under_another_s_qualname_is_elsewhere():
    assert not _elsewhere(made_elsewhere) and _elsewhere(made_elsewhere())
    assert not _elsewhere(Box)
    Other = type("Box", (), {"__module__": __name__})
    assert _elsewhere(Other)
    encoded = _Encoder()(Other())
    assert encoded["elsewhere"] is True and "elsewhere" not in _Encoder()(Box())
    assert not _elsewhere(lambda: 0)  # (a name under <locals> is found nowhere: not asked)


def test_operators_of_its_own_make_a_subclass_no_plain_value():
    assert _own_dunders(Cents, int) == ["__add__"] and _own_dunders(Pair, tuple) == ["__getitem__"]
    assert _own_dunders(Bounds, tuple) == []  # (a NamedTuple's members are its library's)
    encode = _Encoder()
    assert not alike(encode(Cents(5)), 5) and not alike(encode(Pair((1, 2))), encode((1, 2)))
    assert alike(encode(Bounds(1, 2)), encode((1, 2)))  # (helper 137's honest NamedTuple for a tuple)
    assert not alike(encode(Span(1, 2)), encode(Bounds(1, 2)))  # (another NamedTuple: round 58)
    assert alike(encode(Bounds(1, 2)), encode(Bounds(1, 2)))


class OutOfStock(LookupError):
    def retry_in(self):
        return 5


class Backorder(OutOfStock):
    def retry_in(self):
        return 0


class Noted(OutOfStock):
    def __str__(self):
        return "noted"


def _outcome(exc):
    from beacon.repair.replay_driver import _methods
    return {**raised(exc), "methods": _methods(exc)}


def test_an_exception_keeps_the_pristine_bases_and_an_added_subclass_its_methods():
    right = _outcome(OutOfStock("x"))
    assert _bases_kept(_outcome(Backorder("x")), right)  # (a base added under it)
    dropped = {**right, "bases": ["builtins:ValueError", "builtins:Exception", "builtins:BaseException",
                                  "builtins:object"]}
    assert not _bases_kept(dropped, right)
    assert _shadowed_methods(_outcome(Backorder("x")), right) == {"retry_in"}
    assert _shadowed_methods(_outcome(Noted("x")), right) == set()  # (its message is compared as such)


def test_containers_by_their_contents_not_their_repr():
    encode = _Encoder()
    one, two = Box(), Box()
    one.qty, two.qty = 1, 2
    assert not alike(encode(collections.deque([one], maxlen=3)), encode(collections.deque([two], maxlen=3)))
    assert not alike(encode(collections.deque([1], maxlen=3)), encode(collections.deque([1], maxlen=4)))
    assert not alike(encode(collections.ChainMap({"a": one})), encode(collections.ChainMap({"a": two})))
    zero = collections.defaultdict(lambda: 0)
    five = collections.defaultdict(lambda: 5)
    assert not alike(encode(zero), encode(five)) and alike(encode(zero), encode({}))  # (a dict stands for it)
    waiting = queue.SimpleQueue()
    for item in ("bolt", "nut"):
        waiting.put(item)
    assert encode(waiting)["holds"] == ["bolt", "nut"] and waiting.get_nowait() == "bolt"  # (put back in order)
    db = sqlite3.connect(":memory:")
    db.execute("create table t (x)")
    db.execute("insert into t values (1)")
    other = sqlite3.connect(":memory:")
    other.execute("create table t (x)")
    assert not alike(encode(db), encode(other))


def test_an_address_only_where_a_repr_ends_and_exact_uuids():
    assert shown("<object object at 0x7f00ab>") == "<object object at 0x?>"
    assert shown("<_hashlib.HMAC object @ 0x7f00ab>") == "<_hashlib.HMAC object at 0x?>"
    assert shown("uart at 0x4000") == "uart at 0x4000" and not _ADDRESS.search("spi at 0x17408 and i2c")
    # (round 59: a weakref's, a code object's and a cell's addresses are followed by ";", "," and ":")
    assert shown("<weakref at 0x7f01; to 'Order' at 0x7f02>") == "<weakref at 0x?; to 'Order' at 0x?>"
    assert shown("<cell at 0x7f01: int object at 0x7f02>") == "<cell at 0x?: int object at 0x?>"
    a, b = uuid.UUID(int=(3 << 61) | 5), uuid.UUID(int=(5 << 61) | 3)
    assert hash(a) == hash(b) and not alike(_Encoder()(a), _Encoder()(b))


def test_a_match_with_the_text_it_searched():
    import re
    encode = _Encoder()
    # (one span, no groups: only the text tells them apart)
    assert not alike(encode(re.search("[a-z]+", "order bolt-12")), encode(re.search("[a-z]+", "order nuts-12")))


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=20), st.binary(max_size=20))
def test_printed_bytes_are_each_their_own_text(one, other):
    key = "k"

    def wrapped(data):
        return b"\nreplay outcomes k call 0\n" + data + b"\nreplay outcomes k done 0\n"

    from beacon.repair.replay import OUTCOMES_MARK
    assert OUTCOMES_MARK == "replay outcomes "
    assert (_printed(wrapped(one), key, 0) == _printed(wrapped(other), key, 0)) == (one == other)

"""Traceback frames resolved to definitions: names before line numbers, innermost frame first, tests ignored."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval.query_features import Frame
from beacon.retrieval.signals_real.frames import DECAY, frame_scores, resolve_frame, tracebacks

from .conftest import node

TB = """Loading fails:

```
Traceback (most recent call last):
  File "/home/me/app.py", line 3, in <module>
    shop.cli.main()
  File "/venv/lib/python3.11/site-packages/shop/cli.py", line 12, in main
    return run(args)
  File "/venv/lib/python3.11/site-packages/shop/fields.py", line 999, in deserialize
    raise ValueError("...")
ValueError: boom
```
"""


def test_innermost_frame_weighs_most_and_names_beat_line_numbers(shop):
    s = frame_scores(shop, TB)
    # line 999 is past the end of fields.py: the frame's function name places it
    assert s.symbol[node(shop, "src/shop/fields.py::Field.deserialize")] == 1.0
    assert s.symbol[node(shop, "src/shop/cli.py::main")] == DECAY
    assert s.symbol.sum() == 1.0 + DECAY  # /home/me/app.py is no file of the graph


def test_a_frame_without_a_known_name_falls_back_to_its_line(shop):
    line = shop.symbol("src/shop/fields.py::DateTime._deserialize").start_line + 1
    assert resolve_frame(shop, Frame("shop/fields.py", line, None)) == \
        [node(shop, "src/shop/fields.py::DateTime._deserialize")]
    assert resolve_frame(shop, Frame("shop/fields.py", line, "<module>")) == \
        [node(shop, "src/shop/fields.py::DateTime._deserialize")]
    assert resolve_frame(shop, Frame("tests/test_fields.py", 2, "test_null")) == []  # tests are not candidates


def test_two_tracebacks_each_have_their_own_innermost_frame(shop):
    two = TB + "\nand then\n\n" + TB.replace("fields.py\", line 999, in deserialize", "cli.py\", line 15, in run")
    s = frame_scores(shop, two)
    assert s.symbol[node(shop, "src/shop/cli.py::run")] == 1.0
    assert s.symbol[node(shop, "src/shop/fields.py::Field.deserialize")] == 1.0
    assert not frame_scores(shop, "no traceback here").symbol.any()


_frame = st.tuples(st.from_regex(r"[a-z]{1,6}(/[a-z]{1,6}){0,2}\.py", fullmatch=True), st.integers(1, 10**6),
                   st.from_regex(r"[a-z_]{1,8}", fullmatch=True))


@given(st.lists(st.lists(_frame, min_size=1, max_size=4), min_size=1, max_size=3), st.text("ab \n", max_size=10))
@settings(max_examples=200, deadline=None)
def test_frames_are_grouped_by_traceback_header(groups, noise):
    text = noise
    for frames in groups:
        text += "\nTraceback (most recent call last):\n"
        text += "".join(f'  File "{p}", line {n}, in {f}\n    x()\n' for p, n, f in frames) + "Error: x\n" + noise
    assert tracebacks(text) == [[Frame(p, n, f) for p, n, f in frames] for frames in groups]

"""Text variants of a bug report (``experiments/benchmarks/text_variants.py``): title, prose, code.

Property tests: every variant of any text is returned without raising and is a subsequence of the text's lines;
the prose variant leaves the block finder (``signals_real.snippets.code_blocks``) and the traceback frames nothing
to find. Example tests on a report shaped like the real ones (a fenced snippet, a traceback pasted without a
fence, an indented block and a ``>>>`` session).
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.retrieval.query_features import query_features
from beacon.retrieval.signals_real.snippets import code_blocks
from experiments.benchmarks.localize_real_sets import base_set, instances
from beacon.retrieval.report_parts import code_lines
from experiments.benchmarks.text_variants import KINDS, variant

# Lines built from the pieces the finder looks for, so hypothesis reaches fences, prompts, indents and tracebacks.
_PIECES = st.sampled_from(["```", "```python", ">>> ", "... ", "    ", "\t", "  ", "Traceback (most recent call last):",
                           'File "a/b.py", line 3, in f', "ValueError: bad", "x = f(1)", "`name`", "word", " ", "\r"])
_LINE = st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=5).map("".join)
_TEXT = st.one_of(st.text(max_size=200), st.lists(_LINE, max_size=12).map("\n".join),
                  st.lists(_LINE, max_size=12).map("\r\n".join))

REPORT = """Schema.load fails on nested lists
When I load a nested list the schema raises:

```python
from pkg import Schema
Schema().load([[1]])
```

Traceback (most recent call last):
  File "/site-packages/pkg/schema.py", line 10, in load
    return self._do_load(data)
KeyError: 'items'

The same in a session:
>>> Schema().dump([[1]])
{}

and indented:

    s = Schema(many=True)

I think `Schema._do_load` should accept lists.
"""


def _blocks(text: str) -> list[str]:
    """The block finder's blocks, without the trailing newline an indented block keeps when prose follows it."""
    return [b.rstrip("\n") for b in code_blocks(text)]


def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(any(line == other for other in it) for line in part)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_variants_never_raise_and_keep_whole_lines_in_order(text):
    lines = text.replace("\r\n", "\n").split("\n")
    assert len(code_lines(text)) == len(lines)
    for kind in KINDS:
        out = variant(text, kind)
        assert isinstance(out, str)
        assert out == "" or _is_subsequence(out.split("\n"), lines), kind  # "": no line kept
    assert variant(text, "title") == lines[0]
    assert not any(code_lines(variant(text, "prose")))  # nothing code-like is left over


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_prose_has_no_code_blocks_and_no_frames(text):
    prose = variant(text, "prose")
    assert code_blocks(prose) == []
    assert query_features(prose).frames == ()
    assert "Traceback (most recent call last):" not in prose


def test_a_report_splits_into_its_parts():
    prose = variant(REPORT, "prose")
    code = variant(REPORT, "code")
    assert variant(REPORT, "title") == "Schema.load fails on nested lists"
    for kept in ("When I load a nested list", "The same in a session:", "and indented:", "`Schema._do_load`"):
        assert kept in prose and kept not in code
    for dropped in ("```", "Schema().load([[1]])", "Traceback", 'File "/site-packages', "return self._do_load",
                    "KeyError: 'items'", ">>> Schema().dump", "s = Schema(many=True)"):
        assert dropped not in prose and dropped in code
    assert code.split("\n")[0] == "Schema.load fails on nested lists"
    # the code variant keeps what the block finder and the frame parser read from the full report
    assert _blocks(code) == _blocks(REPORT)
    assert query_features(code).frames == query_features(REPORT).frames
    assert variant(REPORT.replace("\n", "\r\n"), "prose") == prose


def test_unknown_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown text variant 'body'"):
        variant("x", "body")


def test_variant_sets_are_the_real_issues_with_part_of_their_text():
    real = instances("real")
    for kind in KINDS:
        which = f"real:{kind}"
        assert base_set(which) == "real"
        varied = instances(which)
        assert [i.instance_id for i in varied] == [i.instance_id for i in real]
        assert all(v.problem_statement == variant(r.problem_statement, kind) for v, r in zip(varied, real))
        assert all(v.patch == r.patch and v.base_commit == r.base_commit for v, r in zip(varied, real))
    # on the real issues the code variant keeps every block and frame the full text has
    for inst in real:
        code = variant(inst.problem_statement, "code")
        assert _blocks(code) == _blocks(inst.problem_statement), inst.instance_id
        assert query_features(code).frames == query_features(inst.problem_statement).frames, inst.instance_id


def test_the_line_finder_uses_the_block_finders_patterns():
    from beacon.retrieval import report_parts
    from beacon.retrieval.signals_real import snippets
    assert report_parts._FENCE.pattern == snippets._FENCE.pattern
    assert snippets._PROMPT.pattern == report_parts._PROMPT.pattern + "(.*)$"  # the same lines, without the group

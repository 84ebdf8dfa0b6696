"""Edit formats: parsing never crashes, application is strict, line spans are pinned."""
from __future__ import annotations

import difflib
import json

import pytest
from hypothesis import given, settings, strategies as st

from beacon.context import Snippet
from beacon.context.render import get_renderer
from beacon.graph import CodebaseGraph
from beacon.repair.edits import (
    FORMATS, Abstain, DiffEdit, ExactEdit, LineSpanEdit, RenderedSpan, apply_edit,
    check_python_syntax, check_syntax, parse_edit, text_sha256, touched_paths,
)
from beacon.repair.errors import EditApplyError, EditError, EditParseError, EditSyntaxError

SOURCE = "def f(x):\n    return x + 1\n\n\ndef g():\n    return 2\n"


def udiff(old: str, new: str, path: str = "m.py", n: int = 3) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}", n=n))


# -- unified diff -------------------------------------------------------------

def test_fenced_diff_with_prose_applies():
    new = SOURCE.replace("x + 1", "x + 2")
    text = f"The bug is an off-by-one.\n\n```diff\n{udiff(SOURCE, new)}```\nThat should fix it."
    edit = parse_edit(text, "diff")
    assert isinstance(edit, DiffEdit) and touched_paths(edit) == ("m.py",)
    assert apply_edit(edit, {"m.py": SOURCE}) == {"m.py": new}


def test_bare_git_diff_with_headers_applies():
    new = SOURCE.replace("return 2", "return 3")
    text = "diff --git a/m.py b/m.py\nindex 83db48f..bf269f4 100644\n" + udiff(SOURCE, new)
    assert apply_edit(parse_edit(text, "diff"), {"m.py": SOURCE}) == {"m.py": new}


def test_removed_line_that_looks_like_a_header_is_a_removal():
    old = "a = 1\n-- x\nb = 2\n"
    new = "a = 1\nb = 2\n"
    text = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,2 @@\n a = 1\n--- x\n b = 2\n"
    assert apply_edit(parse_edit(text, "diff"), {"m.py": old}) == {"m.py": new}


def test_blank_context_line_without_leading_space_is_accepted():
    text = "--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,3 @@\n-    return x + 1\n+    return x - 1\n\n \n"
    assert apply_edit(parse_edit(text, "diff"), {"m.py": SOURCE})["m.py"] == SOURCE.replace("x + 1", "x - 1")


def test_wrong_line_number_applies_at_the_unique_match():
    new = SOURCE.replace("return 2", "return 3")
    text = udiff(SOURCE, new, n=1).replace("@@ -5,2 +5,2 @@", "@@ -1,2 +1,2 @@")
    assert "@@ -1,2 +1,2 @@" in text
    assert apply_edit(parse_edit(text, "diff"), {"m.py": SOURCE}) == {"m.py": new}


@pytest.mark.parametrize("text, message", [
    ("--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def f(x):\n", "truncated"),
    ("--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n-def f(x):\n+def f(y):\n+extra\n", "past the line counts"),
    ("--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n-def f(x):\n+def f(y):\n!bad\n", "early"),
    ("@@ -1 +1 @@\n-a\n+b\n", "without"),
    ("--- a/m.py\n+++ b/m.py\nno hunks here\n", "no hunks"),
    ("just some prose, no diff at all", "no unified diff"),
    ("--- a/m.py\n+++ b/n.py\n@@ -1 +1 @@\n-a\n+b\n", "renaming"),
    ("--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", "without '..'"),
    ("--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a\n+b\n--- a/m.py\n+++ b/m.py\n@@ -3 +3 @@\n-c\n+d\n", "twice"),
    ('{"path": "m.py"}', "not an abstention"),
])
def test_malformed_diffs_are_typed_parse_errors(text, message):
    with pytest.raises(EditParseError, match=message):
        parse_edit(text, "diff")


@pytest.mark.parametrize("old_line, message", [
    ("    return x + 1 ", "do not occur"),  # trailing space: context must match exactly
    ("    return  x + 1", "do not occur"),
])
def test_context_must_match_exactly(old_line, message):
    text = f"--- a/m.py\n+++ b/m.py\n@@ -2 +2 @@\n-{old_line}\n+    return 0\n"
    with pytest.raises(EditApplyError, match=message):
        apply_edit(parse_edit(text, "diff"), {"m.py": SOURCE})


def test_ambiguous_relocated_hunk_is_refused():
    src = "x = 1\ny = 2\nx = 1\n"
    text = "--- a/m.py\n+++ b/m.py\n@@ -7 +7 @@\n-x = 1\n+x = 3\n"
    with pytest.raises(EditApplyError, match="occur 2 times"):
        apply_edit(parse_edit(text, "diff"), {"m.py": src})


def test_no_newline_markers_round_trip():
    old, new = "a\nb", "a\nc"
    text = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
    assert apply_edit(parse_edit(text, "diff"), {"m.py": old}) == {"m.py": new}
    # Without the marker the old side says "b\n", which is not what the file has.
    with pytest.raises(EditApplyError):
        apply_edit(parse_edit(text.replace("-b\n\\ No newline at end of file\n", "-b\n"), "diff"), {"m.py": old})


def test_file_creation_and_multi_file_diffs_parse():
    text = ("--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+A = 1\n+B = 2\n"
            "--- a/m.py\n+++ b/m.py\n@@ -6 +6 @@\n-    return 2\n+    return 3\n")
    edit = parse_edit(text, "diff")
    assert touched_paths(edit) == ("pkg/new.py", "m.py")  # the policy layer decides if two files are allowed
    out = apply_edit(edit, {"m.py": SOURCE})
    assert out["pkg/new.py"] == "A = 1\nB = 2\n" and out["m.py"].endswith("return 3\n")
    with pytest.raises(EditApplyError, match="already exists"):
        apply_edit(edit, {"m.py": SOURCE, "pkg/new.py": ""})


def test_deleting_or_missing_files_is_an_apply_error():
    delete = parse_edit("--- a/m.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-def f(x):\n", "diff")
    with pytest.raises(EditApplyError, match="deleting"):
        apply_edit(delete, {"m.py": SOURCE})
    with pytest.raises(EditApplyError, match="no such file"):
        apply_edit(parse_edit(udiff(SOURCE, SOURCE + "x = 1\n"), "diff"), {})


lines_st = st.lists(st.text(alphabet="ab \t#:()=", max_size=8), min_size=0, max_size=25)


@settings(max_examples=200, deadline=None)
@given(lines_st, st.data(), st.integers(0, 4))
def test_difflib_diffs_round_trip(old_lines, data, context):
    """Any diff difflib writes (all lines newline-terminated) applies back exactly."""
    new_lines = data.draw(st.lists(st.sampled_from(old_lines + ["new", "", "  z"]), max_size=25))
    old = "".join(line + "\n" for line in old_lines)
    new = "".join(line + "\n" for line in new_lines)
    text = udiff(old, new, n=context)
    if not text:
        return  # identical files: difflib writes nothing
    assert apply_edit(parse_edit(text, "diff"), {"m.py": old}) == {"m.py": new}


# -- exact edit -----------------------------------------------------------------

def test_exact_edit_replaces_the_single_occurrence():
    edit = parse_edit('```json\n{"path": "./m.py", "search": "x + 1", "replace": "x + 2"}\n```', "exact_edit")
    assert edit == ExactEdit("m.py", "x + 1", "x + 2")
    assert apply_edit(edit, {"m.py": SOURCE}) == {"m.py": SOURCE.replace("x + 1", "x + 2")}


@pytest.mark.parametrize("search, message", [
    ("return", "more than once"),
    ("x + 3", "does not occur"),
])
def test_exact_edit_search_must_occur_exactly_once(search, message):
    edit = parse_edit(json.dumps({"path": "m.py", "search": search, "replace": "y"}), "exact_edit")
    with pytest.raises(EditApplyError, match=message):
        apply_edit(edit, {"m.py": SOURCE})


def test_overlapping_occurrences_count_as_ambiguous():
    edit = parse_edit(json.dumps({"path": "m.py", "search": "aa", "replace": "b"}), "exact_edit")
    with pytest.raises(EditApplyError, match="more than once"):
        apply_edit(edit, {"m.py": "aaa\n"})


@pytest.mark.parametrize("payload, message", [
    ({"path": "m.py", "search": "", "replace": "y"}, "empty"),
    ({"path": "m.py", "search": "x"}, "missing"),
    ({"path": "m.py", "search": "x", "replace": "y", "why": "z"}, "unexpected"),
    ({"path": "/etc/passwd", "search": "x", "replace": "y"}, "relative"),
    ({"path": 3, "search": "x", "replace": "y"}, "non-empty string"),
    ({"path": "m.py", "search": 1, "replace": "y"}, "must be a string"),
    ({"abstain": False}, "must be true"),
    ({"abstain": True, "path": "m.py"}, "only carry a reason"),
    ([1, 2], "JSON object"),
])
def test_bad_exact_edits_are_parse_errors(payload, message):
    with pytest.raises(EditParseError, match=message):
        parse_edit(json.dumps(payload), "exact_edit")


def test_two_fenced_blocks_are_ambiguous():
    block = '```json\n{"abstain": true}\n```\n'
    with pytest.raises(EditParseError, match="exactly one"):
        parse_edit(block + block, "exact_edit")


@pytest.mark.parametrize("fmt", FORMATS)
def test_abstain_is_a_result_in_every_format(fmt):
    assert parse_edit('{"abstain": true}', fmt) == Abstain()
    assert parse_edit('```json\n{"abstain": true, "reason": "not enough context"}\n```', fmt) == Abstain(
        "not enough context")
    with pytest.raises(EditApplyError):
        apply_edit(Abstain(), {})


# -- line span ------------------------------------------------------------------

@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    root = tmp_path_factory.mktemp("spanrepo")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "calc.py").write_text(
        '"""Calc."""\n\n\ndef add(a, b):\n    total = a + b\n    return total\n\n\n'
        'def sub(a, b):\n    return a - b\n'
    )
    return CodebaseGraph.from_repo(root)


def _snippet(graph, qualname):
    symbol = next(s for s in graph.symbols if s.qualname == qualname)
    return Snippet.of(graph, symbol)


def test_line_span_edit_inside_a_rendered_span_applies(graph):
    add = _snippet(graph, "add")
    rendered = get_renderer("line_span_contract")(add)
    assert f"lines {add.start_line}-{add.end_line}" in rendered and add.file_sha256 in rendered
    text = graph.files["pkg/calc.py"].text
    answer = json.dumps({"path": "pkg/calc.py", "start_line": 5, "end_line": 6,
                         "replacement": "    return a + b"})
    edit = parse_edit(answer, "line_span")
    assert edit == LineSpanEdit("pkg/calc.py", 5, 6, "    return a + b")
    out = apply_edit(edit, {"pkg/calc.py": text}, spans=[add])  # a Snippet is a rendered span
    assert out["pkg/calc.py"] == text.replace("    total = a + b\n    return total\n", "    return a + b\n")
    check_python_syntax(out)


def test_line_span_outside_every_rendered_span_is_refused(graph):
    add, sub = _snippet(graph, "add"), _snippet(graph, "sub")
    text = graph.files["pkg/calc.py"].text
    # Lines 6-9 straddle the two spans: inside neither one.
    edit = LineSpanEdit("pkg/calc.py", add.end_line, sub.start_line, "pass\n")
    with pytest.raises(EditApplyError, match="not inside one rendered span"):
        apply_edit(edit, {"pkg/calc.py": text}, spans=[add, sub])
    with pytest.raises(EditApplyError, match="none"):
        apply_edit(LineSpanEdit("pkg/calc.py", 4, 4, "x\n"), {"pkg/calc.py": text}, spans=[])


def test_line_span_on_a_changed_file_is_refused(graph):
    add = _snippet(graph, "add")
    changed = graph.files["pkg/calc.py"].text.replace('"""Calc."""', '"""Calculator."""')
    with pytest.raises(EditApplyError, match="SHA-256"):
        apply_edit(LineSpanEdit("pkg/calc.py", 5, 5, "    total = b + a\n"), {"pkg/calc.py": changed}, spans=[add])


def test_line_span_keeps_an_unterminated_last_line():
    text = "a\nb"
    span = RenderedSpan("m.py", 1, 2, text_sha256(text))
    assert apply_edit(LineSpanEdit("m.py", 2, 2, "c"), {"m.py": text}, spans=[span]) == {"m.py": "a\nc"}
    assert apply_edit(LineSpanEdit("m.py", 1, 1, "z"), {"m.py": text}, spans=[span]) == {"m.py": "z\nb"}
    assert apply_edit(LineSpanEdit("m.py", 1, 1, ""), {"m.py": text}, spans=[span]) == {"m.py": "b"}


@pytest.mark.parametrize("payload, message", [
    ({"path": "m.py", "start_line": 3, "end_line": 2, "replacement": ""}, "before"),
    ({"path": "m.py", "start_line": 0, "end_line": 2, "replacement": ""}, "positive"),
    ({"path": "m.py", "start_line": True, "end_line": 2, "replacement": ""}, "positive"),
    ({"path": "m.py", "start_line": 1.0, "end_line": 2, "replacement": ""}, "positive"),
    ({"path": "m.py", "start_line": 1, "end_line": 2}, "missing"),
])
def test_bad_line_span_edits_are_parse_errors(payload, message):
    with pytest.raises(EditParseError, match=message):
        parse_edit(json.dumps(payload), "line_span")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="xy ", max_size=5), min_size=1, max_size=15), st.data())
def test_line_span_replaces_exactly_the_named_lines(lines, data):
    text = "".join(line + "\n" for line in lines)
    start = data.draw(st.integers(1, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    replacement = data.draw(st.text(alphabet="qz\n", max_size=10))
    span = RenderedSpan("m.py", 1, len(lines), text_sha256(text))
    out = apply_edit(LineSpanEdit("m.py", start, end, replacement), {"m.py": text}, spans=[span])["m.py"]
    if replacement and not replacement.endswith("\n"):
        replacement += "\n"
    assert out == "".join(line + "\n" for line in lines[:start - 1]) + replacement + "".join(
        line + "\n" for line in lines[end:])


# -- syntax check -----------------------------------------------------------------

def test_syntax_check_is_in_memory_and_located(tmp_path):
    on_disk = tmp_path / "m.py"
    on_disk.write_text(SOURCE)
    check_syntax(str(on_disk), SOURCE)  # a real path as the label: still nothing written
    with pytest.raises(EditSyntaxError, match=r"m.py: line 2, column 5"):
        check_syntax("m.py", "x = 1\ny = = 2\n")
    with pytest.raises(EditSyntaxError):
        check_syntax("m.py", "x = 1\x00\n")
    check_python_syntax({"notes.txt": "def (", "ok.py": "x = 1\n"})
    with pytest.raises(EditSyntaxError, match="bad.py"):
        check_python_syntax({"bad.py": "return return\n"})
    # The future import of the checking module must not leak into the checked code.
    with pytest.raises(EditSyntaxError):
        check_syntax("m.py", "from __future__ import braces\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


# -- never crash ----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["path", "search", "replace", "start_line", "end_line", "replacement",
                         "abstain", "reason", "x"]) | st.text(max_size=5),
        children, max_size=5),
    max_leaves=12,
)
_BODY = [" def f(x):", "-    return x + 1", "+    return 0", " ", "", "\\ No newline at end of file",
         " def g():", "-    return 2", "+x", "-a", " b", "- \ud800"]


@st.composite
def diffish_text(draw):
    """Mostly well-formed diffs (counts usually right), with headers, counts and noise perturbed."""
    out = [draw(st.sampled_from(["", "Fix:", "```diff", "diff --git a/m.py b/m.py"]))]
    for _ in range(draw(st.integers(1, 2))):
        old_path, new_path = draw(st.sampled_from(
            [("a/m.py", "b/m.py")] * 4 + [("m.py", "m.py"), ("/dev/null", "b/x.py"), ("a/m.py", "/dev/null"),
                                          ("a/x.py", "b/m.py"), ("a/../m.py", "b/../m.py")]))
        out += [f"--- {old_path}", f"+++ {new_path}"]
        for _ in range(draw(st.integers(0 if draw(st.integers(0, 9)) == 0 else 1, 3))):
            body = draw(st.lists(st.sampled_from(_BODY[:5] * 3 + _BODY), max_size=6))
            old = sum(1 for b in body if b == "" or b[0] in " -")
            new = sum(1 for b in body if b == "" or b[0] in " +")
            old, new = (max(0, c + draw(st.sampled_from([0, 0, 0, -1, 1]))) for c in (old, new))
            start = draw(st.integers(0, 8))
            out.append(f"@@ -{start},{old} +{start},{new} @@")
            out += body
    if draw(st.booleans()):
        out.insert(draw(st.integers(0, len(out))), draw(st.text(max_size=8)))
    out.append(draw(st.sampled_from(["", "```", '{"abstain": true}'])))
    return "\n".join(out)


def _never_crashes(text: str) -> None:
    for fmt in FORMATS:
        try:
            edit = parse_edit(text, fmt)
        except EditError:
            continue
        if isinstance(edit, Abstain):
            continue
        for files in ({"m.py": SOURCE}, {"m.py": "a\nb"}, {}):
            spans = [RenderedSpan("m.py", 1, 6, text_sha256(files.get("m.py", "")))]
            try:
                apply_edit(edit, files, spans=spans)
            except EditError:
                pass


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_arbitrary_text_never_crashes(text):
    _never_crashes(text)


@settings(max_examples=400, deadline=None)
@given(json_values, st.sampled_from(["{}", "```json\n{}\n```", "Answer: {}", "{}}", "[{}"]))
def test_arbitrary_json_never_crashes(value, template):
    _never_crashes(template.replace("{}", json.dumps(value), 1))


@settings(max_examples=400, deadline=None)
@given(diffish_text())
def test_arbitrary_diffish_text_never_crashes(text):
    _never_crashes(text)


def test_pathological_inputs_are_parse_errors():
    for text in ["[" * 100_000, '{"a":' * 50_000, "1" * 10_000, '"\\ud800"', "\x00"]:
        for fmt in FORMATS:
            with pytest.raises(EditError):
                parse_edit(text, fmt)

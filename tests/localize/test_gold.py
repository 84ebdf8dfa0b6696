"""Gold locations from real ``git diff`` patches, located in the original files."""
from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from beacon.graph import CodebaseGraph
from beacon.localize.gold import Gold, gold_from_patch
from beacon.localize.hunks import PatchMismatchError, PatchParseError

BASE = {
    "pkg/__init__.py": "",
    "pkg/shapes.py": '''
        """Shapes."""
        import math

        SCALE = 1


        class Circle:
            sides = 0

            def __init__(self, r):
                self.r = r

            def area(self):
                def square(x):
                    return x * x
                return math.pi * square(self.r)

            @property
            def diameter(self):
                return 2 * self.r


        def helper(x):
            return x + SCALE
        ''',
    "pkg/util.py": '''
        def clamp(x, lo, hi):
            return max(lo, min(x, hi))
        ''',
    "README.txt": "one\ntwo\nthree\n",
}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false",
                           *args], cwd=repo, check=True, capture_output=True).stdout.decode()  # keeps "\r"


def _write(repo: Path, files: dict[str, str | None], *, dedent: bool = False) -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n") if dedent else text, encoding="utf-8", newline="")


@pytest.fixture
def history(tmp_path):
    """``history(change) -> (repo at the base commit, git diff base..fix)`` with two real commits."""
    counter = iter(range(1000))

    def make(change, base: dict | None = None) -> tuple[Path, str]:
        repo = tmp_path / f"repo{next(counter)}"
        repo.mkdir()
        _git(repo, "init", "-q")
        _write(repo, base or BASE, dedent=True)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "base")
        files = {rel: (repo / rel).read_bytes().decode() for rel in (base or BASE)}
        new = change(dict(files))
        _write(repo, {rel: text for rel, text in new.items() if text != files.get(rel)}
               | {rel: None for rel in files if rel not in new})
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "fix")
        patch = _git(repo, "diff", "HEAD~1", "HEAD")
        _git(repo, "checkout", "-q", "HEAD~1")
        return repo, patch

    return make


def edit(path: str, old: str, new: str):
    def change(files):
        assert files[path].count(old) == 1, old
        files[path] = files[path].replace(old, new)
        return files
    return change


def shapes_line(repo: Path, text: str) -> int:
    lines = (repo / "pkg/shapes.py").read_text().split("\n")
    return next(i for i, line in enumerate(lines, 1) if line.strip() == text)


def assert_matches_graph(gold: Gold, repo: Path) -> None:
    """Unit ids and spans equal the full graph's symbols."""
    graph = CodebaseGraph.from_repo(repo)
    for unit in gold.units:
        sym = graph.symbol(unit)
        assert gold.kinds[unit] == sym.kind
        assert gold.gold_spans[unit] == (sym.path, sym.start_line, sym.end_line)


def test_edit_inside_a_method(history):
    repo, patch = history(edit("pkg/shapes.py", "self.r = r", "self.r = float(r)"))
    gold = gold_from_patch("i1", patch, repo)
    line = shapes_line(repo, "self.r = r")
    assert gold.files() == ("pkg/shapes.py",)
    assert gold.units == ("pkg/shapes.py::Circle.__init__",)
    assert gold.functions == ("pkg/shapes.py::Circle.__init__",)
    assert gold.modules == ("pkg/shapes.py::Circle",)
    assert gold.line_spans_init() == {"pkg/shapes.py": [(line, line)]}
    data = (repo / "pkg/shapes.py").read_bytes()
    start = sum(len(ln) for ln in data.splitlines(True)[:line - 1])
    assert gold.byte_spans(repo) == {"pkg/shapes.py": [(start, start + len(b"        self.r = r\n"))]}
    assert_matches_graph(gold, repo)


def test_nested_function_belongs_to_the_outer_one(history):
    repo, patch = history(edit("pkg/shapes.py", "return x * x", "return x ** 2"))
    gold = gold_from_patch("i2", patch, repo)
    assert gold.units == ("pkg/shapes.py::Circle.area",)
    assert gold.gold_spans["pkg/shapes.py::Circle.area"][1:] == (shapes_line(repo, "def area(self):"),
                                                                 shapes_line(repo, "return math.pi * square(self.r)"))
    assert_matches_graph(gold, repo)


def test_added_method_belongs_to_its_class_and_anchors_inside_it(history):
    repo, patch = history(edit("pkg/shapes.py", "        return 2 * self.r\n",
                               "        return 2 * self.r\n\n    def perimeter(self):\n        return 2 * math.pi * self.r\n"))
    gold = gold_from_patch("i3", patch, repo)
    assert gold.units == ("pkg/shapes.py::Circle",)
    assert gold.functions == ()
    assert gold.modules == ("pkg/shapes.py::Circle",)
    last = shapes_line(repo, "return 2 * self.r")  # the class's last line: nearest to the insertion inside it
    assert gold.line_spans_init() == {"pkg/shapes.py": [(last, last)]}
    assert_matches_graph(gold, repo)


def test_module_level_edits(history):
    repo, patch = history(edit("pkg/shapes.py", "SCALE = 1", "SCALE = 2"))
    gold = gold_from_patch("i4", patch, repo)
    assert gold.units == ("pkg/shapes.py::<module>",)
    assert gold.functions == () and gold.modules == ()
    n = len((repo / "pkg/shapes.py").read_text().splitlines())
    assert gold.gold_spans["pkg/shapes.py::<module>"] == ("pkg/shapes.py", 1, n)
    assert_matches_graph(gold, repo)


def test_new_top_level_function_and_import_are_module_level(history):
    def change(files):
        files["pkg/util.py"] = "import os\n" + files["pkg/util.py"] + "\n\ndef wrap(x):\n    return x\n"
        return files
    repo, patch = history(change)
    gold = gold_from_patch("i4b", patch, repo)
    assert gold.units == ("pkg/util.py::<module>",)
    assert gold.line_spans_init() == {"pkg/util.py": [(1, 2)]}  # top insertion: line 1; end: the last line


def test_class_body_attribute_edit_is_the_class(history):
    repo, patch = history(edit("pkg/shapes.py", "sides = 0", "sides = 1"))
    gold = gold_from_patch("i5", patch, repo)
    assert gold.units == ("pkg/shapes.py::Circle",)
    assert gold.functions == () and gold.modules == ("pkg/shapes.py::Circle",)


def test_decorator_line_belongs_to_the_decorated_function(history):
    repo, patch = history(edit("pkg/shapes.py", "    @property\n", "    @functools.cached_property\n"))
    gold = gold_from_patch("i6", patch, repo)
    assert gold.units == ("pkg/shapes.py::Circle.diameter",)
    line = shapes_line(repo, "@property")
    assert gold.gold_spans["pkg/shapes.py::Circle.diameter"][1] == line
    assert gold.line_spans_init() == {"pkg/shapes.py": [(line, line)]}


def test_added_decorator_anchors_on_the_decorated_def(history):
    repo, patch = history(edit("pkg/util.py", "def clamp", "@staticmethod\ndef clamp"))
    gold = gold_from_patch("i6b", patch, repo)
    assert gold.units == ("pkg/util.py::clamp",)
    assert gold.line_spans_init() == {"pkg/util.py": [(1, 1)]}


def test_multi_file_patch_with_added_and_deleted_files(history):
    def change(files):
        files = edit("pkg/util.py", "min(x, hi)", "min(x, hi or x)")(files)
        files = edit("pkg/shapes.py", "return x + SCALE", "return x - SCALE")(files)
        files["pkg/new.py"] = "def fresh():\n    return 1\n"
        files["README.txt"] = "one\n2\nthree\n"
        del files["pkg/__init__.py"]
        return files
    repo, patch = history(change, base=BASE | {"pkg/__init__.py": "VERSION = 1\n"})
    gold = gold_from_patch("i7", patch, repo)
    assert gold.files() == ("README.txt", "pkg/__init__.py", "pkg/new.py", "pkg/shapes.py", "pkg/util.py")
    assert gold.files(added=False) == ("README.txt", "pkg/__init__.py", "pkg/shapes.py", "pkg/util.py")
    assert gold.added == ("pkg/new.py",) and gold.deleted == ("pkg/__init__.py",)
    # added file: gold file only; deleted file: every line removed; text file: spans, no units
    assert gold.units == ("pkg/__init__.py::<module>", "pkg/shapes.py::helper", "pkg/util.py::clamp")
    spans = gold.line_spans_init()
    assert "pkg/new.py" not in spans
    assert spans["pkg/__init__.py"] == [(1, 1)] and spans["README.txt"] == [(2, 2)]
    assert gold.byte_spans(repo)["README.txt"] == [(4, 8)]
    assert_matches_graph(gold, repo)


def test_renamed_function_names_only_the_original(history):
    repo, patch = history(edit("pkg/util.py", "def clamp(x, lo, hi):", "def clip(x, lo, hi):"))
    assert gold_from_patch("i8", patch, repo).units == ("pkg/util.py::clamp",)


def test_new_nested_function_belongs_to_the_outer_function(history):
    repo, patch = history(edit("pkg/util.py", "    return max(", "    def inner():\n        return lo\n    return max("))
    gold = gold_from_patch("i9", patch, repo)
    assert gold.units == ("pkg/util.py::clamp",)
    assert gold.line_spans_init() == {"pkg/util.py": [(1, 1)]}  # after the def line, inside clamp


def _shift(patch: str, by: int, only: int | None = None) -> str:
    """Move the old-side line number of every hunk (or hunk ``only``, 0-based) by ``by``."""
    count = iter(range(1000))

    def move(m):
        return f"@@ -{max(1, int(m.group(1)) + (by if only in (None, next(count)) else 0))},"
    return re.sub(r"^@@ -(\d+),", move, patch, flags=re.M)


@pytest.mark.parametrize("by", [-3, -1, 2, 5])
def test_hunks_with_offset_line_numbers_are_located_like_patch(history, by):
    def change(files):
        files = edit("pkg/shapes.py", "SCALE = 1", "SCALE = 3")(files)
        return edit("pkg/shapes.py", "return 2 * self.r", "return self.r + self.r")(files)
    repo, patch = history(change)
    assert patch.count("@@ -") == 2  # two hunks
    exact = gold_from_patch("off", patch, repo)
    assert exact.units == ("pkg/shapes.py::<module>", "pkg/shapes.py::Circle.diameter")
    assert gold_from_patch("off", _shift(patch, by), repo) == exact
    assert gold_from_patch("off", _shift(patch, by, only=1), repo) == exact


def test_mismatched_context_names_instance_and_hunk(history):
    def change(files):
        files = edit("pkg/shapes.py", "SCALE = 1", "SCALE = 3")(files)
        return edit("pkg/shapes.py", "return 2 * self.r", "return self.r + self.r")(files)
    repo, patch = history(change)
    bad = patch.replace(" \n     @property", " \n     @cached", 1)
    assert bad != patch
    with pytest.raises(PatchMismatchError) as err:
        gold_from_patch("django__django-1", bad, repo)
    index, header = err.value.hunk
    assert err.value.instance_id == "django__django-1" and err.value.path == "pkg/shapes.py"
    assert index == 2 and header.startswith("@@ -") and header in patch
    assert "django__django-1" in str(err.value) and "hunk 2" in str(err.value) and "@cached" in str(err.value)


def test_removed_line_that_differs_is_a_mismatch(history):
    repo, patch = history(edit("pkg/util.py", "min(x, hi)", "min(x, hi or x)"))
    with pytest.raises(PatchMismatchError) as err:
        gold_from_patch("x", patch.replace("-    return max(lo, min(x, hi))", "-    return max(lo, min(hi, x))"), repo)
    assert err.value.hunk[0] == 1


def test_added_file_that_exists_and_missing_file_are_errors(history):
    repo, patch = history(edit("pkg/util.py", "min(x, hi)", "min(x, hi or x)"))
    creates = "--- /dev/null\n+++ b/pkg/util.py\n@@ -0,0 +1 @@\n+x = 1\n"
    with pytest.raises(PatchMismatchError, match="exists at the base commit"):
        gold_from_patch("x", creates, repo)
    with pytest.raises(ValueError, match="does not exist at the base commit"):
        gold_from_patch("x", patch.replace("pkg/util.py", "pkg/gone.py"), repo)


def test_malformed_patches_are_parse_errors(history):
    repo, patch = history(edit("pkg/util.py", "min(x, hi)", "min(x, hi or x)"))
    with pytest.raises(PatchParseError, match="^inst: malformed patch"):
        gold_from_patch("inst", "not a diff", repo)
    with pytest.raises(PatchParseError, match="relative path"):
        gold_from_patch("inst", patch.replace("pkg/util.py", "../util.py"), repo)


def test_byte_spans_refuse_a_different_snapshot(history):
    repo, patch = history(edit("pkg/util.py", "min(x, hi)", "min(x, hi or x)"))
    gold = gold_from_patch("x", patch, repo)
    (repo / "pkg/util.py").write_text("changed\n")
    with pytest.raises(ValueError, match="differs"):
        gold.byte_spans(repo)


def test_crlf_file_is_compared_as_indexed(history):
    repo, patch = history(lambda files: {"m.py": "def f():\r\n    return 2\r\n"},
                          base={"m.py": "def f():\r\n    return 1\r\n"})
    assert "return 1\r" in patch  # git keeps the carriage returns
    gold = gold_from_patch("crlf", patch, repo)
    assert gold.units == ("m.py::f",)
    assert gold.byte_spans(repo) == {"m.py": [(9, 22)]}  # bytes of the indexed text ("\n" newlines)


def test_offset_hunk_goes_to_the_nearest_exact_match(history):
    block = "x\ny\nz\n"
    base = {"t.txt": block + "".join(f"filler {i}\n" for i in range(10)) + block}
    repo, _ = history(lambda files: files, base=base)
    hunk = "--- a/t.txt\n+++ b/t.txt\n@@ -{},3 +{},3 @@\n x\n-y\n+Y\n z\n"
    for stated, expected in [(1, 2), (4, 2), (9, 15), (13, 15), (20, 15)]:
        gold = gold_from_patch("near", hunk.format(stated, stated), repo)
        assert gold.line_spans_init() == {"t.txt": [(expected, expected)]}, stated


def test_missing_newline_at_end_of_file(history):
    repo, patch = history(lambda files: {"m.py": "def f():\n    return 2"}, base={"m.py": "def f():\n    return 1"})
    assert "\\ No newline at end of file" in patch
    gold = gold_from_patch("eof", patch, repo)
    assert gold.units == ("m.py::f",) and gold.byte_spans(repo) == {"m.py": [(9, 21)]}
    with pytest.raises(PatchMismatchError):  # the same hunk without the marker expects a final newline
        gold_from_patch("eof", patch.replace("\\ No newline at end of file\n", "", 1), repo)


def test_appending_after_a_last_line_without_newline_does_not_edit_it(history):
    # git removes the last line and adds it back with a newline ("-x", "\\ No newline", "+x"): the line is
    # unchanged, so only the appended function counts (a new top-level function names <module>), not f
    base = {"m.py": "def f():\n    return 1"}
    repo, patch = history(lambda files: {"m.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"}, base=base)
    assert "-    return 1\n\\ No newline at end of file\n+    return 1\n" in patch
    gold = gold_from_patch("eof-append", patch, repo)
    assert gold.units == ("m.py::<module>",) and gold.functions == ()
    assert gold.line_spans_init() == {"m.py": [(2, 2)]}  # the insertion anchors on the line above it
    # an edit of that line as well still names f
    repo, patch = history(lambda files: {"m.py": "def f():\n    return 3\n\n\ndef g():\n    return 2\n"}, base=base)
    assert gold_from_patch("eof-edit", patch, repo).functions == ("m.py::f",)


def test_gold_round_trips_through_a_dict(history):
    repo, patch = history(edit("pkg/shapes.py", "sides = 0", "sides = 1"))
    gold = gold_from_patch("rt", patch, repo)
    assert Gold.from_dict(gold.to_dict()) == gold


def test_hunks_out_of_order_are_a_mismatch(history):
    def change(files):
        files = edit("pkg/shapes.py", "SCALE = 1", "SCALE = 3")(files)
        return edit("pkg/shapes.py", "return 2 * self.r", "return self.r + self.r")(files)
    repo, patch = history(change)
    head, first, second = re.split(r"(?m)^(?=@@ )", patch)
    with pytest.raises(PatchMismatchError, match="hunk 2 .*previous hunk ends") as err:
        gold_from_patch("order", head + second + first, repo)
    assert err.value.hunk == (2, first.split(" @@")[0] + " @@")

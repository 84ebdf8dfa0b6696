"""``hybrid_log``: votes of past commits with similar messages, read from a real git repository."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beacon.localize.instances import SnapshotCache
from beacon.repo.history import INPUT_NAMES, ChangeLog, parse_change_log, read_change_log
from beacon.retrieval import MissingInputError, assemble_context, get_method
from beacon.retrieval.commit_log import log_votes, similar_commits
from beacon.retrieval.normalise import unit_scale as _unit
from beacon.retrieval.file_index import file_index
from beacon.retrieval.masks import packable

COOKIES = ("def parse_cookie(header):\n    return dict(p.split('=') for p in header.split(';'))\n\n\n"
           "def dump_cookie(key, value, expires=None):\n    return f'{key}={value}; {expires}'\n")
URLS = "def url_quote(s):\n    return s.replace(' ', '%20')\n\n\ndef url_join(base, url):\n    return base + url\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory, git_repo):
    """c0 imports; c1 fixes dump_cookie's expiry; c2 url_join; c3 parse_cookie (+ a test); c4 (base) docs only,
    c5 other.py; then one commit after the base that would match the query if it were (wrongly) read."""
    repos = tmp_path_factory.mktemp("repos")
    root = repos / "owner__web"
    root.mkdir()
    git_repo.git(root, "init", "-q")
    c = [git_repo.commit(root, {"web/cookies.py": COOKIES, "web/urls.py": URLS, "web/other.py": "def helper():\n    pass\n",
                        "tests/test_web.py": "def test_cookie():\n    pass\n"}, "Initial import", 0)]
    c.append(git_repo.commit(root, {"web/cookies.py": COOKIES.replace("{expires}", "expires={expires}")},
                     "Fix the expiry date of dumped cookies\n\nSigned-off-by: t <t@t>", 1))
    c.append(git_repo.commit(root, {"web/urls.py": URLS.replace("base + url", "base.rstrip('/') + '/' + url")},
                     "Handle a trailing slash when joining URLs", 2))
    c.append(git_repo.commit(root, {"web/cookies.py": COOKIES.replace("split('=')", "split('=', 1)"),
                            "tests/test_web.py": "def test_cookie():\n    assert True\n"},
                     "Parse quoted cookie values", 3))
    c.append(git_repo.commit(root, {"README.md": "cookies\n"}, "Document cookie expiry", 4))  # no .py file: not in the log
    c.append(git_repo.commit(root, {"web/other.py": "def helper():\n    return 1\n"}, "Refactor a helper", 5))
    after = git_repo.commit(root, {"web/urls.py": URLS + "\n# cookie expiry expiry\n"}, "Cookie expiry expiry expiry", 6)
    return repos, c, after


def test_change_log_reads_messages_files_and_functions_up_to_the_base(repo):
    repos, c, after = repo
    cache = SnapshotCache(repos.parent / "cache-log", repos)
    log = read_change_log(cache.source("owner/web"), c[5])
    assert log.base == c[5]
    assert log.hashes == (c[5], c[3], c[2], c[1], c[0])  # nearest first; README-only c4 and the later commit unseen
    assert after not in log.hashes
    assert log.messages[3].startswith("Fix the expiry date of dumped cookies")
    assert log.files[1] == ("tests/test_web.py", "web/cookies.py")
    assert ("web/cookies.py", "dump_cookie") in log.functions[3]
    assert ("web/cookies.py", "parse_cookie") in log.functions[1]
    assert log.functions[2] == (("web/urls.py", "url_join"),)
    assert len(read_change_log(cache.source("owner/web"), c[5], n=2).hashes) == 2
    with pytest.raises(ValueError, match="n must be >= 1"):
        read_change_log(cache.source("owner/web"), c[5], n=0)


A, B = "a" * 40, "b" * 40


def test_parse_change_log_reads_files_from_diff_git_lines():
    diff = (f"\x1e{A}\x1fRemove old module\n\x1f\n"
            "diff --git a/pkg/old.py b/pkg/old.py\ndeleted file mode 100644\n--- a/pkg/old.py\n+++ /dev/null\n"
            "@@ -1,2 +0,0 @@ class Old:\n-def gone():\n--- a/evil.py\n-- b/evil.py\n"
            "diff --git a/sp ace/m y.py b/sp ace/m y.py\n--- a/sp ace/m y.py\t\n+++ b/sp ace/m y.py\t\n"
            "@@ -3 +3 @@ def spaced():\n-x\n+y\n"
            "diff --git a/pkg/mode.py b/pkg/mode.py\nold mode 100644\nnew mode 100755\n"
            "diff --git a/pkg/blob.py b/pkg/blob.py\nBinary files a/pkg/blob.py and b/pkg/blob.py differ\n"
            'diff --git "a/q\\"uote.py" "b/q\\"uote.py"\n--- "a/q\\"uote.py"\n+++ "b/q\\"uote.py"\n'
            "@@ -1 +1 @@ def quoted():\n--- a/evil2.py\n"
            "diff --git a/pkg/new.py b/pkg/new.py\n--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
            f"\x1e{B}\x1fEmpty\x1f\n")
    log = parse_change_log(diff, A)
    assert log.hashes == (A, B)
    assert log.messages == ("Remove old module", "Empty")
    # Removed lines that look like headers name no file; a C-quoted name is skipped, never misread.
    assert log.files == (("pkg/blob.py", "pkg/mode.py", "pkg/new.py", "pkg/old.py", "sp ace/m y.py"), ())
    assert log.functions == ((("pkg/old.py", "Old"), ("sp ace/m y.py", "spaced")), ())


def test_parse_change_log_refuses_a_record_that_is_not_a_commit():
    with pytest.raises(ValueError, match="not a commit hash"):
        parse_change_log("\x1enot-a-hash\x1fmsg\x1f\n")


def test_change_log_is_immune_to_separators_in_messages_and_the_callers_gitattributes(tmp_path, monkeypatch,
                                                                                    git_repo):
    root = tmp_path / "owner__odd"
    root.mkdir()
    git_repo.git(root, "init", "-q")
    git_repo.commit(root, {"m.py": "def f():\n    return 1\n"}, "start", 0)
    message = "tricky \x1e record \x1f field\n\ndiff --git a/x.py b/x.py"
    odd = git_repo.commit(root, {"m.py": "def f():\n    return 2\n"}, message, 1)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".gitattributes").write_text("*.py -diff\n")  # read from the cwd, it would hide every hunk
    monkeypatch.chdir(elsewhere)
    cache = SnapshotCache(tmp_path / "cache", tmp_path)
    log = read_change_log(cache.source("owner/odd"), odd)
    assert log.hashes[0] == odd and len(log.hashes) == 2
    assert log.files[0] == ("m.py",) and log.functions[0] == (("m.py", "f"),)
    assert "\x1e record \x1f field" in log.messages[0]


def test_similar_commits_rank_messages_and_skip_twins_and_mass_edits():
    log = ChangeLog("h0", ("h0", "h1", "h2", "h3"),
                    ("Fix cookie expiry", "Cookie parsing: quoted values", "Reformat everything cookie", "Join URLs"),
                    (("a.py",), ("a.py",), tuple(f"f{i}.py" for i in range(20)), ("b.py",)), ((), (), (), ()))
    top = similar_commits(log, "cookie expiry is wrong", 10, max_files=10)
    assert [i for i, _ in top] == [0, 1]  # h2 changes 20 files (> max_files); h3 shares no term
    assert top[0][1] == 1.0 and 0 < top[1][1] < 1.0
    # A past commit with the query's own subject (a cherry-picked twin) is never a neighbour.
    assert [i for i, _ in similar_commits(log, "Fix cookie expiry\n\nbody", 10, max_files=10)] == [1]
    assert similar_commits(log, "cookie", 1, max_files=10)[0][0] in (0, 1)
    assert similar_commits(log, "", 10, max_files=10) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet="ab cookie\n", max_size=30), min_size=1, max_size=6), st.text(max_size=30),
       st.integers(1, 5))
def test_similar_commits_properties(messages, query, k):
    log = ChangeLog("x", tuple(f"h{i}" for i in range(len(messages))), tuple(messages),
                    tuple(("a.py",) for _ in messages), tuple(() for _ in messages))
    top = similar_commits(log, query, k, max_files=10)
    assert len(top) <= k and len({i for i, _ in top}) == len(top)
    assert all(0 < w <= 1.0 for _, w in top) and [w for _, w in top] == sorted((w for _, w in top), reverse=True)


def test_votes_point_at_the_files_and_functions_of_similar_commits(repo, tmp_path):
    repos, c, _ = repo
    cache = SnapshotCache(tmp_path / "cache", repos)
    graph, log = cache.graph("owner/web", c[5]), cache.inputs("owner/web", c[5], {"change_log"}).change_log
    assert isinstance(log, ChangeLog) and log.base == c[5]
    query = "dumped cookies get a wrong expiry"
    file_vote, function_vote = log_votes(graph, log, query, 10, 10)
    index = file_index(graph)
    ids = [s.id for s in graph.symbols]
    assert file_vote[index.paths.index("web/cookies.py")] > 0
    assert file_vote[index.paths.index("web/urls.py")] == 0  # the later 'cookie expiry' commit is never read
    assert file_vote[index.paths.index("tests/test_web.py")] == 0  # tests are never voted for
    dump, parse = ids.index("web/cookies.py::dump_cookie"), ids.index("web/cookies.py::parse_cookie")
    assert function_vote[dump] > function_vote[parse] > 0  # c1 ('expiry', 'dumped') beats c3 ('cookie' only)
    assert function_vote[~packable(graph)].sum() == 0


def test_hybrid_log_adds_exactly_the_weighted_votes(repo, tmp_path):
    repos, c, _ = repo
    cache = SnapshotCache(tmp_path / "cache", repos)
    graph, inputs = cache.graph("owner/web", c[5]), cache.inputs("owner/web", c[5], set(INPUT_NAMES))
    query = "dumped cookies get a wrong expiry"
    plain = get_method("hybrid_log", w_log_file=0.0, w_log_function=0.0).scores(graph, query, inputs)
    method = get_method("hybrid_log", w_log_file=0.5, w_log_function=0.25, log_k=10)
    assert method.needs() == {"file_history", "line_history", "change_log"}
    voted = method.scores(graph, query, inputs)
    cand = packable(graph)
    index = file_index(graph)
    file_vote, function_vote = log_votes(graph, inputs.change_log, query, 10, method.max_files)
    expected = plain.total + 0.5 * _unit(file_vote[index.file_of], cand) + 0.25 * _unit(function_vote, cand)
    expected[~cand] = 0.0
    np.testing.assert_allclose(voted.total, expected)
    # Without the log votes it is exactly hybrid_all; without history and loose paths too, hybrid_prf.
    np.testing.assert_allclose(plain.total, get_method("hybrid_all").scores(graph, query, inputs).total)
    bare = get_method("hybrid_log", w_history=0.0, w_function=0.0, w_loose_path=0.0, w_log_file=0.0,
                      w_log_function=0.0)
    np.testing.assert_allclose(bare.scores(graph, query).total, get_method("hybrid_prf").scores(graph, query).total)
    # No change log given: an error naming it, never hybrid_all in disguise.
    no_log = cache.inputs("owner/web", c[5], {"file_history", "line_history"})
    with pytest.raises(MissingInputError, match="'hybrid_log' needs the input 'change_log'"):
        method.scores(graph, query, no_log)


def test_hybrid_log_context_respects_the_budget(repo, tmp_path):
    repos, c, _ = repo
    cache = SnapshotCache(tmp_path / "cache", repos)
    graph, inputs = cache.graph("owner/web", c[5]), cache.inputs("owner/web", c[5], set(INPUT_NAMES))
    for budget in (60, 200, 2000):
        result = assemble_context(graph, "cookie expiry", "hybrid_log", budget=budget, inputs=inputs)
        assert result.context.total_tokens <= budget
        assert all(not graph.symbol(s.symbol_id).is_test for s in result.context.snippets
                   if s.symbol_id in {x.id for x in graph.symbols})


@pytest.mark.parametrize("bad", [{"w_log_file": -1.0}, {"w_log_function": float("nan")}, {"log_k": 0},
                                 {"log_k": True}])
def test_hybrid_log_rejects_bad_parameters(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        get_method("hybrid_log", **bad)

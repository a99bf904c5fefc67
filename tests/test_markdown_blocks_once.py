"""A docs page's `python continuation` chain runs each block once, in the namespace the block before it
left (tests/markdown_blocks_once.py); a chain whose previous block failed runs whole again."""

from types import SimpleNamespace

import pytest

from tests.markdown_blocks_once import ContinuationRunsOnce

PAGE = "docs/page.md"
FIRST = "\n\nruns.append('first')\nx = 1\n"
SECOND = FIRST + "\n\nruns.append('second')\nx += 1\n"
THIRD = SECOND + "\n\nruns.append('third')\nassert x == 2\n"


def block(source, page=PAGE):
    return SimpleNamespace(source=source, source_path=page)


def test_each_block_of_a_chain_runs_once_in_the_namespace_of_the_one_before():
    runner, runs = ContinuationRunsOnce(), []
    for source in (FIRST, SECOND, THIRD):
        runner.runtest(block(source), {"runs": runs})
    assert runs == ["first", "second", "third"]


def test_a_block_after_a_failed_one_runs_its_whole_chain_afresh():
    runner, runs = ContinuationRunsOnce(), []
    runner.runtest(block(FIRST), {"runs": runs})
    failing = FIRST + "\n\nruns.append('fails')\nraise ValueError('boom')\n"
    with pytest.raises(ValueError, match="boom"):
        runner.runtest(block(failing), {"runs": runs})
    runner.runtest(block(failing.replace("raise ValueError('boom')", "x += 1")), {"runs": runs})
    assert runs == ["first", "fails", "first", "fails"]


def test_a_new_chain_or_another_page_starts_from_a_fresh_namespace():
    runner, runs = ContinuationRunsOnce(), []
    runner.runtest(block(FIRST), {"runs": runs})
    with pytest.raises(NameError, match="'x'"):
        runner.runtest(block("\n" * 9 + "runs.append('new chain')\nx\n"), {"runs": runs})
    runner.runtest(block(SECOND, page="docs/other.md"), {"runs": runs})
    assert runs == ["first", "new chain", "first", "second"]


def test_an_error_is_reported_at_its_line_in_the_page():
    runner = ContinuationRunsOnce()
    runner.runtest(block(FIRST), {"runs": []})
    with pytest.raises(AssertionError) as failure:
        runner.runtest(block(FIRST + "\n\nassert x == 3\n"), {"runs": []})
    assert failure.traceback[-1].lineno + 1 == FIRST.count("\n") + 3 and failure.traceback[-1].path == PAGE

"""Chunk windows and late chunking's context windows: cover every piece, overlap as asked,
end at sentence ends, and cost linear time."""

import numpy as np
import pytest

from keras_sentemb.chunking import context_windows, sentence_end_tokens, token_windows


@pytest.mark.parametrize(("length", "size", "overlap"), [(1, 4, 0), (10, 4, 0), (10, 4, 3), (1000, 128, 16)])
def test_windows_cover_every_piece_and_overlap_by_the_amount_asked(length, size, overlap):
    spans = token_windows(length, size, overlap)
    assert spans[0][0] == 0 and spans[-1][1] == length
    assert all(0 < end - start <= size for start, end in spans)
    for (_, previous_end), (start, _) in zip(spans, spans[1:]):
        assert previous_end - start == overlap


def test_the_number_of_windows_grows_linearly_with_the_document():
    counts = [len(token_windows(n, 256, 32)) for n in (10_000, 20_000, 40_000)]
    assert counts == [-(-(n - 32) // 224) for n in (10_000, 20_000, 40_000)]


def test_sentence_ends_move_a_cut_back_only_within_the_second_half():
    ends = np.zeros(20, bool)
    ends[[2, 6, 13]] = True
    # window [0, 8): last end at 6 → cut after it; [7, 15): end at 13 → cut at 14; then the rest
    assert token_windows(20, 8, 0, ends) == [(0, 7), (7, 14), (14, 20)]
    assert token_windows(20, 8, 1, ends) == [(0, 7), (6, 14), (13, 20)]


def test_sentence_ends_are_terminal_punctuation_before_a_space_or_a_line_break():
    text = "Dr. Smith e.g. agreed. Yes!\nNext line"
    pieces = [(0, 2), (2, 3), (4, 9), (10, 11), (11, 12), (12, 13), (13, 14), (15, 21), (21, 22), (23, 26), (26, 27)]
    pieces += [(28, 32), (33, 37)]
    ends = sentence_end_tokens(text, pieces)
    assert [text[s:e] for (s, e), end in zip(pieces, ends) if end] == [".", ".", ".", "!"]
    # "Dr." ends a "sentence" by this rule too: the rule is punctuation + space, not grammar


def test_context_windows_partition_the_pieces_by_what_each_keeps():
    for length, context, overlap in [(5, 8, 1), (100, 30, 4), (64, 16, 0)]:
        windows = context_windows(length, context, overlap)
        kept = np.concatenate([np.arange(keep, end) for _, end, keep in windows])
        np.testing.assert_array_equal(kept, np.arange(length))
        assert all(end - start <= context and start <= keep for start, end, keep in windows)

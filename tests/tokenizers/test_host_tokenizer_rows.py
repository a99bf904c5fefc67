"""The host rows of the byte-level BPE and Unigram tokenizers: the in-graph ids, truncated for
`encode`, untruncated with character spans for chunking."""

import os

import numpy as np
import pytest

from keras_sentemb import SentenceEncoder
from tests.conftest import FIXTURES

TEXTS = ["The café ran fast.", "", "  spaced   words  ", "a b c d e f g h i j k l m n o p q r s t u v w x y z " * 20]


@pytest.mark.parametrize("folder", ["roberta_mean_normalize_new", "xlm_roberta_mean_normalize_new"])
def test_rows_are_the_graphs_ids_and_offsets_cover_what_each_piece_came_from(folder):
    tokenizer = SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", folder)).tokenizer
    rows = tokenizer.content_id_rows(TEXTS)
    graph = tokenizer.content_ids(TEXTS)
    for row, expected in zip(rows, graph):
        np.testing.assert_array_equal(row, expected.numpy())
    assert len(rows[-1]) == tokenizer.max_length - 2  # truncated
    full = tokenizer.content_ids_with_offsets(TEXTS)
    for text, (ids, spans), untruncated in zip(TEXTS, full, tokenizer.tokenize(TEXTS)):
        np.testing.assert_array_equal(ids, untruncated.numpy())
        assert spans.shape == (len(ids), 2) and np.all(spans[:, 0] <= spans[:, 1]) and np.all(spans[:, 1] <= len(text))
    assert len(full[-1][0]) > tokenizer.max_length  # untruncated

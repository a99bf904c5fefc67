"""EmbeddingModel: the one inference loop gives every row its own output, in input order, whatever
the batch size; its protocol methods say when a subclass forgot them; batch sizes are checked."""

import numpy as np
import pytest

from keras_sentemb.models.embedding_model import EmbeddingModel, check_batch_size
from tests.conftest import make_tiny_encoder

TEXTS = ["the cat sat on the mat", "a dog", "", "hello world , the oven was hot !", "rain"]


def test_rows_come_back_in_input_order_whatever_the_batch_size():
    encoder = make_tiny_encoder()
    one_at_a_time = np.stack([encoder.encode([t])[0] for t in TEXTS])
    for batch_size in (1, 2, 64):
        np.testing.assert_allclose(encoder.encode(TEXTS, batch_size=batch_size), one_at_a_time, atol=1e-5)


def test_the_traced_function_is_traced_once_for_all_bucket_lengths():
    encoder = make_tiny_encoder()
    encoder.encode(TEXTS, batch_size=1)
    assert encoder.embed_fn().experimental_get_tracing_count() == 1


def test_a_runtime_that_bounds_its_tokens_gets_no_larger_call_and_the_same_rows():
    encoder = make_tiny_encoder()
    embed, shapes = encoder.inference_runtime(), []

    class TokenBudget:
        max_batch_tokens = 12

        def __call__(self, *arrays):
            shapes.append(arrays[0].shape)
            return embed(*arrays)

    rows = encoder.tokenize_to_rows([text.encode() for text in TEXTS])
    bounded = encoder.predict_rows(rows, 64, False, runtime=TokenBudget())
    np.testing.assert_allclose(bounded, encoder.predict_rows(rows, 64, False), atol=1e-6)
    assert sum(count for count, _ in shapes) == len(TEXTS) and len(shapes) > 1
    assert all(count * length <= 12 or count == 1 for count, length in shapes)


def test_a_subclass_without_the_protocol_is_told_what_to_implement():
    with pytest.raises(NotImplementedError, match="packed_length"):
        EmbeddingModel().packed_length([1, 2])
    with pytest.raises(NotImplementedError, match="pack_batch"):
        EmbeddingModel().pack_batch([[1, 2]], 4)


@pytest.mark.parametrize("bad", [0, -1, True, 2.5, "8"])
def test_batch_size_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="batch_size"):
        check_batch_size(bad)


def test_numpy_integers_are_batch_sizes_too():
    assert check_batch_size(np.int64(8)) == 8

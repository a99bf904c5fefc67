"""The MTEB adapter accepts what mteb 1.x and 2.x pass to `encode` and returns [N, d] floats."""

import numpy as np
import pytest

from keras_sentemb.evaluation.mteb_adapter import MTEBEncoder
from tests.evaluation.fake_encoders import CharacterTrigramEncoder

TEXTS = ["a man plays guitar", "a cat sleeps", "rain falls on the city"]


def test_a_list_of_sentences_gives_unit_float32_rows_and_keywords_are_ignored():
    model = MTEBEncoder(CharacterTrigramEncoder())
    vectors = model.encode(TEXTS, batch_size=2, task_name="STSBenchmark", prompt_type="query")
    assert vectors.shape == (3, 32) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)


def test_mteb2_style_batches_of_text_dicts_give_the_same_rows():
    model = MTEBEncoder(CharacterTrigramEncoder())
    batches = [{"text": TEXTS[:2]}, {"text": TEXTS[2:]}]
    np.testing.assert_array_equal(model.encode(batches, task_metadata=None), model.encode(TEXTS))
    np.testing.assert_array_equal(model.encode(np.array(TEXTS)), model.encode(tuple(TEXTS)))


def test_similarity_is_cosine():
    model = MTEBEncoder(CharacterTrigramEncoder())
    a, b = np.array([[3.0, 4.0], [1.0, 0.0]]), np.array([[0.0, 2.0], [5.0, 0.0]])
    np.testing.assert_allclose(model.similarity(a, b), [[0.8, 0.6], [0.0, 1.0]], rtol=1e-6)
    np.testing.assert_allclose(model.similarity_pairwise(a, b), [0.8, 1.0], rtol=1e-6)


def test_an_empty_input_is_an_empty_matrix_and_a_bad_item_an_error():
    model = MTEBEncoder(CharacterTrigramEncoder())
    assert model.encode([]).shape == (0, 32)
    with pytest.raises(TypeError, match="item 1 is a int"):
        model.encode([{"text": ["a"]}, 7])
    with pytest.raises(TypeError, match="must have an encode method"):
        MTEBEncoder(object())


def test_model_meta_is_an_attribute_error_without_mteb():
    model = MTEBEncoder(CharacterTrigramEncoder())
    try:
        import mteb  # noqa: F401
    except ImportError:
        assert not hasattr(model, "mteb_model_meta")
    else:
        assert model.mteb_model_meta.name.startswith("keras-sentemb/")

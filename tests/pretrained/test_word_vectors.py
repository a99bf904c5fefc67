"""Word-vector tables: GloVe from the wheel, WordVectors checks, WordEmbeddings lookups."""

import keras
import numpy as np
import pytest

from keras_sentemb.layers import WordEmbeddings
from keras_sentemb.pretrained import WordVectors, load_glove


def test_glove_gives_the_most_frequent_words_as_unit_vectors():
    words, vectors = load_glove(top_n=1000)
    assert words[:4] == ["the", ",", ".", "of"] and len(words) == 1000
    assert vectors.shape == (1000, 50) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    # related words are nearer than unrelated ones
    man, woman, of = (vectors[words.index(w)] for w in ("man", "woman", "of"))
    assert man @ woman > man @ of


@pytest.mark.parametrize("top_n", [0, 400_001, 1.5])
def test_glove_rejects_a_bad_top_n(top_n):
    with pytest.raises(ValueError, match="top_n"):
        load_glove(top_n=top_n)


def test_word_vectors_check_rows_against_the_vocabulary():
    with pytest.raises(ValueError, match=r"\+2 expected"):
        WordVectors(["a", "b"], {"glove": np.zeros((3, 2))})


def test_word_embeddings_look_up_every_table_and_stay_frozen():
    tables = {"glove": np.arange(8, dtype="float32").reshape(4, 2), "minilm": np.ones((4, 3), "float32")}
    layer = WordEmbeddings({"glove": (4, 2), "minilm": (4, 3)}, tables=tables)
    glove, minilm = (np.asarray(x) for x in layer(np.array([[3, 0]])))
    np.testing.assert_array_equal(glove, [[[6, 7], [0, 1]]])
    assert minilm.shape == (1, 2, 3) and np.asarray(layer.concatenated(np.array([[3]]))).shape == (1, 1, 5)
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2
    assert WordEmbeddings({"glove": (4, 2)}, trainable_tables=True).trainable_weights


def test_word_embeddings_config_round_trip_and_errors():
    layer = WordEmbeddings({"glove": (4, 2)}, trainable_tables=True)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert clone.get_config() == layer.get_config()
    with pytest.raises(ValueError, match="same rows"):
        WordEmbeddings({"glove": (4, 2), "minilm": (5, 2)})
    with pytest.raises(ValueError, match="expected shape"):
        WordEmbeddings({"glove": (4, 2)}, tables={"glove": np.zeros((4, 3))})
    with pytest.raises(ValueError, match="unknown tables"):
        WordEmbeddings({"glove": (4, 2)}, tables={"other": np.zeros((4, 2))})

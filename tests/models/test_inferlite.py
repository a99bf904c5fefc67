"""InferLite: strings to vectors, masking, order invariance, gates, NLI head, saving, export."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.export import export_saved_model
from keras_sentemb.models import SBERT, InferLite
from tests.conftest import make_tiny_word_vectors, packed_tokens
from tests.layer_test_case import run_model_test


def tiny_inferlite(**kwargs):
    keras.utils.set_random_seed(0)
    return InferLite.from_word_vectors(make_tiny_word_vectors(), units=8, **kwargs)


def test_encodes_raw_texts_to_unit_vectors_in_input_order():
    model = tiny_inferlite()
    vectors = model.encode(["the cat sat on the mat", "dog", "a dog ran fast"])
    assert vectors.shape == (3, 8) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(model.encode("dog"), vectors[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("filter_length", [1, 3])
def test_padding_never_changes_an_embedding(filter_length):
    model = tiny_inferlite(filter_length=filter_length, num_layers=3)
    alone = model.encode(["dog ran"], normalize=False)
    with_long_neighbour = model.encode(
        ["dog ran", "the cat sat on the mat . the dog ran fast"], normalize=False, batch_size=2
    )
    np.testing.assert_allclose(with_long_neighbour[0], alone[0], rtol=1e-5, atol=1e-6)


def test_with_filter_length_one_the_embedding_ignores_word_order():
    bag = tiny_inferlite(filter_length=1)
    np.testing.assert_allclose(
        bag.encode("the cat sat on the mat"), bag.encode("mat the on sat cat the"), rtol=1e-5, atol=1e-6
    )
    context = tiny_inferlite(filter_length=3)
    assert not np.allclose(context.encode("the cat sat on the mat"), context.encode("mat the on sat cat the"))


def test_gate_values_lie_in_the_open_unit_interval():
    model = tiny_inferlite()
    gates = model.gates(model.tokenizer.pack(model.tokenizer.content_ids(tf.constant(["the cat sat"]))))
    assert len(gates) == 2
    for gate in gates:
        assert (np.asarray(gate) > 0).all() and (np.asarray(gate) < 1).all()


def test_bad_inputs_have_defined_outputs():
    model = tiny_inferlite()
    empty, spaces, unknown, long = model.encode(["", "   ", "zebra okapi gnu", "the dog " * 500])
    np.testing.assert_array_equal(empty, spaces)  # one unknown word, as documented
    assert np.isfinite([empty, unknown, long]).all()
    # a long text is its first max_length words
    np.testing.assert_allclose(long, model.encode(" ".join(["the dog"] * 64)), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError):
        model.encode(["fine", 3])


def test_projection_gives_the_distillation_space():
    model = tiny_inferlite(projection_dim=5)
    assert model.embedding_dim == 5 and model.encode(["the cat"]).shape == (1, 5)


def test_trains_under_sbert_with_the_nli_head():
    from keras_sentemb.data.examples import LabeledPairs
    from keras_sentemb.data.pipelines import examples_dataset

    model = tiny_inferlite()
    pairs = LabeledPairs(["the cat sat", "a dog ran"], ["the cat", "the mat"], [0, 2])
    sbert = SBERT(model, objective="classification", head=InferLite.nli_head(hidden_units=(4, 4)))
    sbert.compile(optimizer=keras.optimizers.Adam(1e-2))
    before = [w.numpy().copy() for w in model.trainable_weights]
    tables = [w.numpy().copy() for w in model.word_embeddings.weights]
    sbert.fit(examples_dataset(pairs, model.tokenizer, batch_size=2, bucketing=False), epochs=1, verbose=0)
    assert any(not np.allclose(b, w.numpy()) for b, w in zip(before, model.trainable_weights))
    assert all(np.array_equal(t, w.numpy()) for t, w in zip(tables, model.word_embeddings.weights))
    assert [tuple(w.shape) for w in sbert.head.trainable_weights][-2:] == [(4, 3), (3,)]


def test_passes_the_shared_model_checks(tmp_path):
    model = tiny_inferlite(filter_length=3)
    inputs = packed_tokens(model.tokenizer, ["the cat sat", "a dog ran fast .", "zebra"])
    run_model_test(model, inputs, (3, model.embedding_dim), tmp_path)


def test_save_load_round_trip(tmp_path):
    model = tiny_inferlite(filter_length=3, projection_dim=6)
    path = str(tmp_path / "inferlite.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert isinstance(loaded, InferLite) and loaded.get_config() == model.get_config()
    texts = ["the cat sat", "", "zebra"]
    np.testing.assert_allclose(loaded.encode(texts), model.encode(texts), rtol=1e-6, atol=1e-6)


def test_exported_saved_model_takes_strings(tmp_path):
    model = tiny_inferlite()
    folder = export_saved_model(model, str(tmp_path / "inferlite"))
    served = tf.saved_model.load(folder).signatures["serving_default"]
    texts = ["the cat sat", "", "a dog ran fast ."]
    np.testing.assert_allclose(
        served(texts=tf.constant(texts))["embedding"].numpy(), model.encode(texts), rtol=1e-5, atol=1e-6
    )


def test_rejects_tables_that_do_not_match_the_tokenizer():
    vectors = make_tiny_word_vectors()
    model = InferLite.from_word_vectors(vectors, units=4)
    with pytest.raises(ValueError, match="rows but the tokenizer"):
        InferLite(model.tokenizer, {"glove": (3, 6)}, units=4)

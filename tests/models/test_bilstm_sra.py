"""BiLSTM-SRA: the architecture, masking, distillation with SRALoss, bad input, saving, export."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.data.pipelines import sentence_targets_dataset
from keras_sentemb.export import export_saved_model
from keras_sentemb.losses import SRALoss
from keras_sentemb.models import BiLSTMSRA
from tests.conftest import make_tiny_word_vectors, packed_tokens
from tests.layer_test_case import run_model_test

SENTENCES = ["the cat sat on the mat", "a dog ran fast", "the dog is on the mat", "cat"]


def tiny_sra(**kwargs):
    keras.utils.set_random_seed(0)
    kwargs.setdefault("teacher_dim", 5)
    return BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(), units=4, **kwargs)


def test_output_is_tanh_of_a_bias_free_projection_of_the_pooled_bilstm():
    model = tiny_sra()
    projection = model.get_layer("projection")
    assert not projection.use_bias and projection.units == 5
    vectors = model.encode(SENTENCES, normalize=False)
    assert vectors.shape == (4, 5) and (np.abs(vectors) < 1).all()


@pytest.mark.parametrize("pooling", ["max", "mean"])
def test_padding_never_changes_an_embedding(pooling):
    model = tiny_sra(pooling=pooling)
    alone = model.encode(["dog ran"], normalize=False)
    batched = model.encode(["dog ran", "the cat sat on the mat . the dog ran fast"], batch_size=2, normalize=False)
    np.testing.assert_allclose(batched[0], alone[0], rtol=1e-5, atol=1e-6)


def test_word_order_matters():
    model = tiny_sra()
    assert not np.allclose(model.encode("the cat sat on the mat"), model.encode("mat the on sat cat the"))


def test_distillation_moves_the_student_towards_the_teacher():
    model = tiny_sra()
    teacher = np.random.default_rng(1).normal(size=(4, 5)).astype("float32")
    before = float(np.mean(SRALoss()(teacher, model.encode(SENTENCES))))
    model.compile(optimizer=keras.optimizers.Adam(5e-2), loss=SRALoss())
    data = sentence_targets_dataset(SENTENCES, teacher, model.tokenizer, batch_size=4, bucketing=False)
    model.fit(data.repeat(), steps_per_epoch=len(data), epochs=20, verbose=0)  # one tf.data iterator for all epochs
    after = float(np.mean(SRALoss()(teacher, model.encode(SENTENCES))))
    assert after < before - 0.05
    assert [w.name for w in model.trainable_weights if "table" in w.name] == []


def test_bad_inputs_have_defined_outputs():
    model = tiny_sra()
    empty, spaces, unknown, long = model.encode(["", " ", "zebra okapi", "the dog " * 500])
    np.testing.assert_array_equal(empty, spaces)
    assert np.isfinite([empty, unknown, long]).all()
    np.testing.assert_allclose(long, model.encode(" ".join(["the dog"] * 64)), rtol=1e-5, atol=1e-6)


def test_passes_the_shared_model_checks(tmp_path):
    model = tiny_sra(pooling="max")
    run_model_test(model, packed_tokens(model.tokenizer, SENTENCES), (4, model.embedding_dim), tmp_path)


def test_save_load_round_trip_and_export(tmp_path):
    model = tiny_sra(pooling="mean")
    path = str(tmp_path / "sra.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert isinstance(loaded, BiLSTMSRA) and loaded.get_config() == model.get_config()
    np.testing.assert_allclose(loaded.encode(SENTENCES), model.encode(SENTENCES), rtol=1e-6, atol=1e-6)
    served = tf.saved_model.load(export_saved_model(model, str(tmp_path / "served")))
    np.testing.assert_allclose(served(tf.constant(SENTENCES)).numpy(), model.encode(SENTENCES), rtol=1e-5, atol=1e-6)


def test_rejects_an_unknown_pooling():
    with pytest.raises(ValueError, match="pooling"):
        tiny_sra(pooling="cls")


def test_pair_fine_tuning_with_an_mlp_over_four_features_and_kd_round_trips(tmp_path):
    from keras_sentemb.data.examples import LabeledPairs
    from keras_sentemb.data.pipelines import examples_dataset
    from keras_sentemb.layers import PairFeatureHead
    from keras_sentemb.losses import DistillationLoss
    from keras_sentemb.models import SBERT

    model = tiny_sra()
    head = PairFeatureHead(2, ("u", "v", "abs_diff", "product"), hidden_units=(8,), name="pair_mlp")
    sbert = SBERT(model, objective="classification", head=head)
    sbert.compile(optimizer=keras.optimizers.Adam(1e-2), loss=DistillationLoss(alpha=0.5, objective="classification"))
    pairs = LabeledPairs(["the cat sat", "a dog ran"], ["the cat", "the mat"], [1, 0])
    teacher = np.array([[1.0, 3.0], [2.0, -1.0]], "float32")
    data = examples_dataset(
        pairs, model.tokenizer, batch_size=2, bucketing=False, labels=np.column_stack([pairs.labels, teacher])
    )
    history = sbert.fit(data.repeat(), steps_per_epoch=len(data), epochs=3, verbose=0)  # one tf.data iterator
    assert history.history["loss"][-1] < history.history["loss"][0]
    path = str(tmp_path / "pairs.keras")
    sbert.save(path)
    loaded = keras.saving.load_model(path)
    assert isinstance(loaded.head, PairFeatureHead) and loaded.head.hidden_units == (8,)
    batch = next(iter(data))[0]
    np.testing.assert_allclose(np.asarray(loaded(batch)), np.asarray(sbert(batch)), rtol=1e-5, atol=1e-6)

"""Transfer settings: what each of UE / FT / NT / DNT trains, the FT/NT classifier, the wem switch."""

import keras
import numpy as np
import pytest

from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.losses import CosineSimilarityLoss, SimilarityDistributionLoss
from keras_sentemb.models import BiLSTMSRA
from keras_sentemb.models.transfer_model import TransferModel
from tests.conftest import make_tiny_encoder, make_tiny_word_vectors
from tests.layer_test_case import run_model_test

PAIRS = ScoredPairs(
    ["the cat sat", "a dog ran fast", "the mat", "dog"],
    ["the cat", "the dog ran", "a cat sat on the mat", "dog"],
    [4.0, 3.2, 1.0, 5.0],
)


def word_encoder():
    keras.utils.set_random_seed(0)
    return BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(), teacher_dim=5, units=4)


def fit_once(model):
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    data = examples_dataset(PAIRS, model.encoder.tokenizer, batch_size=4, bucketing=False)
    before = {w.path: w.numpy().copy() for w in model.weights}
    model.fit(data, epochs=1, verbose=0)
    return {
        path
        for path, value in before.items()
        if not np.allclose(value, next(w for w in model.weights if w.path == path).numpy())
    }


def wem_paths(encoder):
    return {w.path for w in encoder.word_embeddings.weights}


def test_ue_trains_nothing_and_scores_by_cosine():
    encoder = word_encoder()
    model = TransferModel(encoder, "ue")
    with pytest.raises(ValueError, match="trains nothing"):
        model.compile()
    u, v = encoder.encode(PAIRS.sentences1), encoder.encode(PAIRS.sentences2)
    np.testing.assert_allclose(model.predict_scores(PAIRS.sentences1, PAIRS.sentences2), np.sum(u * v, 1), rtol=1e-5)


def test_ft_trains_only_the_classifier():
    model = TransferModel(word_encoder(), "ft", objective="mse")
    changed = fit_once(model)
    assert changed and all("similarity_head" in path for path in changed)
    assert isinstance(model.loss, SimilarityDistributionLoss) and model.loss.objective == "mse"


@pytest.mark.parametrize("frozen", [True, False])
def test_nt_trains_encoder_and_classifier_with_the_wem_switch(frozen):
    model = TransferModel(word_encoder(), "nt", freeze_word_embeddings=frozen)
    changed = fit_once(model)
    assert any("similarity_head" in p for p in changed) and any("bilstm" in p for p in changed)
    assert bool(changed & wem_paths(model.encoder)) is not frozen


@pytest.mark.parametrize("frozen", [True, False])
def test_dnt_fits_the_cosine_with_the_wem_switch(frozen):
    model = TransferModel(word_encoder(), "dnt", freeze_word_embeddings=frozen, target_range=(-1, 1))
    changed = fit_once(model)
    assert isinstance(model.loss, CosineSimilarityLoss) and model.loss.target_range == (-1.0, 1.0)
    assert model.head is None and any("bilstm" in p for p in changed)
    assert bool(changed & wem_paths(model.encoder)) is not frozen


def test_classifier_is_sigmoid_of_product_and_abs_diff_then_softmax_and_expected_score():
    encoder = word_encoder()
    model = TransferModel(encoder, "ft", hidden_units=3)
    u = encoder.encode(PAIRS.sentences1, normalize=False)
    v = encoder.encode(PAIRS.sentences2, normalize=False)
    scores = model.predict_scores(PAIRS.sentences1, PAIRS.sentences2)
    (w_h, b_h), (w_p, b_p) = [
        [np.asarray(x) for x in layer.weights] for layer in (model.head.hidden_layers[0], model.head.output_layer)
    ]
    h = 1 / (1 + np.exp(-(np.concatenate([u * v, np.abs(u - v)], 1) @ w_h + b_h)))
    logits = h @ w_p + b_p
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    np.testing.assert_allclose(scores, p @ np.arange(6), rtol=1e-4)


def test_the_transformer_wem_is_the_token_embedding():
    encoder = make_tiny_encoder()
    TransferModel(encoder, "dnt", freeze_word_embeddings=True)
    token = encoder.backbone.token_embedding.weights
    assert token and all(not w.trainable for w in token)
    assert any(w.trainable for w in encoder.backbone.weights if "position" in w.path)


def test_passes_the_shared_model_checks(tmp_path):
    model = TransferModel(word_encoder(), "nt")  # the setting that trains everything
    features, _ = next(iter(examples_dataset(PAIRS, model.encoder.tokenizer, batch_size=4, bucketing=False)))
    run_model_test(model, features, [tuple(o.shape) for o in keras.tree.flatten(model(features))], tmp_path)


def test_rejects_an_unknown_setting():
    with pytest.raises(ValueError, match="setting"):
        TransferModel(word_encoder(), "zero-shot")


def test_nt_on_a_transformer_can_train_its_classifier_alone_first():
    encoder = make_tiny_encoder()
    model = TransferModel(encoder, "nt", freeze_word_embeddings=True)
    model.set_encoder_trainable(False)
    assert [w.path for w in model.trainable_weights if "similarity_head" not in w.path] == []
    model.set_encoder_trainable(True)
    trainable = {w.path for w in model.trainable_weights}
    assert not trainable & {w.path for w in encoder.backbone.token_embedding.weights}
    assert not any("pooled_dense" in path for path in trainable)
    assert any("transformer_layer" in path for path in trainable)

"""SpladeLoss: the in-batch ranking of dot products plus the FLOPS regularisers, as sentence-transformers' SpladeLoss
computes them; SBERT(sparse_encoder, "mnrl") trains a SparseEncoder with it through model.fit."""

import os

import keras
import numpy as np
import pytest

from keras_sentemb.data.examples import TextPairs
from keras_sentemb.data.pipelines import examples_dataset
from keras_sentemb.losses import SpladeLoss, flops
from keras_sentemb.models import SBERT, SparseEncoder
from tests.conftest import make_tiny_encoder

FOLDERS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "sparse_folders")


def reference(batch, scale, query_weight, document_weight):
    """The loss written out with NumPy: cross-entropy over every document of the batch, then the regularisers."""
    queries, documents = batch[:, 0], np.concatenate([batch[:, c] for c in range(1, batch.shape[1])])
    logits = scale * queries @ documents.T
    logits -= logits.max(axis=1, keepdims=True)
    ranking = -np.log(np.exp(logits[np.arange(len(queries)), np.arange(len(queries))]) / np.exp(logits).sum(axis=1))
    regularizers = (
        query_weight * (queries.mean(axis=0) ** 2).sum() + document_weight * (documents.mean(axis=0) ** 2).sum()
    )
    return ranking.mean() + regularizers


@pytest.mark.parametrize("columns", [2, 3])
def test_the_loss_is_the_formula(columns):
    batch = np.random.default_rng(0).gamma(0.5, 1.0, size=(4, columns, 9)).astype("float32")
    loss = SpladeLoss(document_regularizer_weight=0.3, query_regularizer_weight=0.2, scale=0.5)
    assert float(loss(np.zeros(4), batch)) == pytest.approx(reference(batch, 0.5, 0.2, 0.3), rel=1e-5)


def test_flops_is_the_squared_mean_weight_of_each_entry():
    weights = np.array([[1.0, 0.0, 2.0], [3.0, 0.0, 0.0]], "float32")
    assert float(flops(weights)) == pytest.approx(2.0**2 + 0.0 + 1.0**2)


@pytest.mark.parametrize("field", ["document_regularizer_weight", "query_regularizer_weight", "scale"])
def test_negative_or_nan_weights_are_refused(field):
    with pytest.raises(ValueError, match=f"{field} must be a number ≥ 0"):
        SpladeLoss(**{field: -1.0})
    with pytest.raises(ValueError, match=f"{field} must be a number ≥ 0"):
        SpladeLoss(**{field: float("nan")})


def test_model_fit_trains_a_splade_model_and_the_tied_decoder_with_it():
    keras.utils.set_random_seed(0)
    encoder = SparseEncoder.from_pretrained(os.path.join(FOLDERS, "bert_splade_max"))
    pairs = TextPairs(["a cat", "rain today", "bread in the oven", "the dog ran"] * 4,
                      ["the cat sat on the mat", "storm and rain", "the oven bread", "a dog ran fast"] * 4)  # fmt: skip
    data = examples_dataset(pairs, encoder.tokenizer, batch_size=4, seed=0)
    sbert = SBERT(encoder, "mnrl", one_pass=False)
    sbert.compile(optimizer=keras.optimizers.AdamW(1e-3), loss=SpladeLoss())
    embeddings_before = encoder.backbone.token_embedding.embeddings.numpy().copy()
    first = sbert.evaluate(data, verbose=0)
    sbert.fit(data, epochs=3, verbose=0)
    assert sbert.evaluate(data, verbose=0) < first
    assert not np.allclose(encoder.backbone.token_embedding.embeddings.numpy(), embeddings_before)


def test_a_dense_encoder_becomes_a_splade_model_to_train():
    dense = make_tiny_encoder(seed=2)
    sparse = SparseEncoder.from_sentence_encoder(dense)
    assert sparse.backbone is dense.backbone and sparse.tokenizer is dense.tokenizer
    head = sparse.get_layer("splade_pooling").head
    np.testing.assert_array_equal(head.dense.kernel.numpy(), np.eye(head.dense.kernel.shape[0]))
    vectors = sparse.encode(["the cat sat", "rain"])
    assert vectors.shape == (2, dense.backbone.token_embedding.input_dim) and (vectors.data > 0).all()


def test_a_negative_starting_decoder_bias_is_a_threshold_that_makes_the_untrained_head_sparse():
    dense = make_tiny_encoder(seed=2)
    texts = ["the cat sat on the mat", "rain today and tomorrow"]
    unbiased = SparseEncoder.from_sentence_encoder(dense).encode(texts)
    threshold = float(np.median(np.expm1(unbiased.data)))  # the median positive pooled logit
    biased = SparseEncoder.from_sentence_encoder(dense, initial_decoder_bias=-threshold)
    np.testing.assert_array_equal(biased.get_layer("splade_pooling").head.bias.numpy(), np.float32(-threshold))
    thresholded = biased.encode(texts)
    assert 0 < thresholded.nnz < unbiased.nnz
    # the same logits less the threshold: an entry still active was active before, log(1 + z − t) = log(e^w − t)
    kept = thresholded.toarray() > 0
    assert (unbiased.toarray()[kept] > 0).all()
    np.testing.assert_allclose(
        np.expm1(thresholded.toarray()[kept]), np.expm1(unbiased.toarray()[kept]) - threshold, rtol=1e-4, atol=1e-5
    )

"""CodeDistillationHead: the SemanticHashing layer as a model, relaxed codes for
sentences and ±1 codes for pairs."""

import numpy as np

from keras_sentemb.layers import SemanticHashing
from keras_sentemb.models.code_distillation_head import CodeDistillationHead


def test_sentences_give_relaxed_codes_and_pairs_give_plus_minus_one_codes():
    hashing = SemanticHashing(bits=64)
    head = CodeDistillationHead(hashing)
    rng = np.random.default_rng(0)
    sentences = rng.normal(size=(3, 8)).astype("float32")
    pairs = rng.normal(size=(2, 2, 8)).astype("float32")
    codes = np.asarray(head(sentences))
    assert codes.shape == (3, 64) and np.all((codes >= 0) & (codes <= 1))
    out = head({"sentences": sentences, "pairs": pairs})
    np.testing.assert_allclose(out["codes"], codes, atol=1e-6)
    np.testing.assert_allclose(out["pair_codes"], 2.0 * np.asarray(hashing(pairs)) - 1.0, atol=1e-6)
    assert out["pair_codes"].shape == (2, 2, 64)


def test_its_weights_are_the_hashing_layers():
    hashing = SemanticHashing(bits=64)
    head = CodeDistillationHead(hashing)
    head(np.zeros((1, 4), "float32"))
    assert {id(w) for w in head.trainable_weights} == {id(w) for w in hashing.trainable_weights}

"""A bi-encoder used as a pair scorer: the cosine of its two sentence vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from keras_sentemb.evaluation.sts import cosine_scores
from keras_sentemb.models.cross_encoder import validate_pair_lists


class CosinePairScorer:
    """Scores aligned pairs with a sentence encoder: s(a, b) = cos(E(a), E(b)).

    It has a cross-encoder's labelling interface (`predict_pairs`, `num_labels`, `weights`),
    so a bi-encoder can label silver pairs for a cross-encoder (`label_silver_pairs`): the
    bi-encoder → cross-encoder step of Trans-Encoder (Liu et al. 2022). A bi-encoder that was
    fine-tuned with SBERT's cosine objective on score / 5 (`sbert-minilm-l6-stsb`) returns
    cosines on that scale, which is the scale the cross-encoder's recipe regresses.
    Each distinct sentence is embedded once per call (`keras_sentemb.evaluation.sts.cosine_scores`).

    Args:
        encoder: a model with `encode(texts, batch_size=, normalize=, progress=)` returning
            [N, d] (`SentenceEncoder`, `InferLite`, `BiLSTMSRA`).

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        scorer = CosinePairScorer(load_sentence_encoder("zoo:sbert-minilm-l6-stsb"))
        scorer.predict_pairs(["A man eats."], ["Someone is eating."])
        # -> array([0.71], dtype=float32)
    """

    num_labels = 1

    def __init__(self, encoder):
        if not callable(getattr(encoder, "encode", None)):
            raise TypeError(f"encoder must have an encode(texts) method, got {type(encoder).__name__}")
        self.encoder = encoder

    @property
    def weights(self):
        """The encoder's weights (what a cache key of its labels fingerprints)."""
        return self.encoder.weights

    def predict_pairs(
        self,
        first: Sequence[str | bytes],
        second: Sequence[str | bytes],
        batch_size: int = 64,
        progress: bool | None = None,
    ) -> np.ndarray:
        """cos(E(first[i]), E(second[i])) as float32 [N], in input order.

        Raises: ValueError when the lists differ in length; TypeError/ValueError for
        elements that are not text (see `validate_texts`).
        """
        first, second = validate_pair_lists(first, second)
        scores = cosine_scores(self.encoder, first, second, batch_size=batch_size, progress=progress)
        return np.asarray(scores, np.float32)

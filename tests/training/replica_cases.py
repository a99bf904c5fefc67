"""Every trainable model of the package as a tiny `fit` case, for the tf.distribute tests.

`loss_trajectory(name)` builds case `name` inside the current strategy's scope (or no
strategy), fits it for 2 epochs of 2 global batches of 8 (not shuffled, not bucketed) and
returns the per-batch losses Keras logs. The same case under MirroredStrategy or
MultiWorkerMirroredStrategy must log the same numbers as on one device: the losses that
look across the batch (MNRL, CoSENT, CodeSimilarityLoss) gather the global batch.
"""

import keras
import numpy as np
import tensorflow as tf

from keras_sentemb.data.examples import LabeledPairs, LabeledSentences, ScoredPairs
from keras_sentemb.data.pipelines import (
    cross_pairs_dataset,
    examples_dataset,
    sentence_targets_dataset,
)
from keras_sentemb.training import distill_hashed_encoder
from tests.conftest import make_tiny_cross_encoder, make_tiny_encoder, make_tiny_word_vectors

FIRST = [
    "the cat sat on the mat",
    "a dog ran",
    "hello",
    "rain and storm",
    "the oven was hot",
    "a cat",
    "the dog sat",
    "hello world",
] * 2
SECOND = [
    "a cat sat",
    "the dog ran fast",
    "hello world",
    "storm",
    "bread",
    "the mat",
    "a dog was fast",
    "the world",
] * 2
SCORES = [4.5, 3.0, 2.5, 2.0, 0.5, 1.5, 3.5, 4.0, 4.8, 2.8, 2.2, 1.8, 0.2, 1.2, 3.2, 3.8]
LABELS = [0, 1, 2, 1, 2, 0, 0, 1, 2, 2, 1, 0, 1, 0, 2, 1]
BATCH = dict(batch_size=8, shuffle=False, bucketing=False)
EPOCHS = 2
LENGTH = 16  # every batch padded to one length: `fit` traces its step once


def fixed_length(dataset, length=LENGTH):
    """Pads every [batch, T] int tensor of the features to [batch, length]."""

    def pad(tensor):
        return tf.pad(tensor, [[0, 0], [0, length - tf.shape(tensor)[1]]])

    def pad_features(features, labels):
        return tf.nest.map_structure(pad, features), labels

    return dataset.map(pad_features)


def _sbert(objective, encoder, learning_rate=1e-2, **kwargs):
    """A compiled SBERT over `encoder` (the objective's default loss)."""
    from keras_sentemb.models import SBERT

    model = SBERT(encoder, objective, **kwargs)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate))
    return model


def _with_pairs(model, examples):
    """(model, its pipeline over `examples`): the case's fit arguments."""
    return model, examples_dataset(examples, model.encoder.tokenizer, **BATCH)


def _tiny_bilstm_sra(seed):
    from keras_sentemb.models import BiLSTMSRA

    keras.utils.set_random_seed(seed)
    return BiLSTMSRA.from_word_vectors(make_tiny_word_vectors(), teacher_dim=5, units=4)


def sbert_mnrl():
    return _with_pairs(_sbert("mnrl", make_tiny_encoder(seed=1)), ScoredPairs(FIRST, SECOND, SCORES))


def sbert_cosent():
    return _with_pairs(_sbert("cosent", make_tiny_encoder(seed=1)), ScoredPairs(FIRST, SECOND, SCORES))


# SBERT over a tiny BiLSTM-SRA: the batch-level losses at a fraction of a transformer's build
# and trace time (the suite's distributed tests use these). Not the tiny InferLite: sentences
# of only out-of-vocabulary words embed near zero there, so their direction — and CoSENT —
# jumps with the smallest weight change.
def word_mnrl():
    return _with_pairs(_sbert("mnrl", _tiny_bilstm_sra(8), 3e-3), ScoredPairs(FIRST, SECOND, SCORES))


def word_cosent():
    return _with_pairs(_sbert("cosent", _tiny_bilstm_sra(8), 3e-3), ScoredPairs(FIRST, SECOND, SCORES))


def sbert_classification():
    return _with_pairs(_sbert("classification", make_tiny_encoder(seed=1)), LabeledPairs(FIRST, SECOND, LABELS))


def cross_encoder():
    model = make_tiny_cross_encoder(num_labels=1, seed=2)
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    pairs = ScoredPairs(FIRST, SECOND, [s / 5 for s in SCORES])
    return model, cross_pairs_dataset(pairs, model.tokenizer, **BATCH)


def dse():
    from keras_sentemb.models import DSE

    encoder = make_tiny_encoder(seed=3, pooling="mean", normalize=False)
    model = DSE(encoder, num_labels=1, alpha=0.5)
    model.head.output_layer.kernel.assign(
        np.random.default_rng(3).normal(scale=0.1, size=model.head.output_layer.kernel.shape)
    )
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    teacher = np.column_stack([np.array(SCORES) / 5, np.linspace(-1, 1, len(SCORES))]).astype("float32")
    return model, examples_dataset(ScoredPairs(FIRST, SECOND, SCORES), model.tokenizer, labels=teacher, **BATCH)


def inferlite_nli():
    from keras_sentemb.models import InferLite

    keras.utils.set_random_seed(4)
    encoder = InferLite.from_word_vectors(make_tiny_word_vectors(), units=8)
    model = _sbert("classification", encoder, head=InferLite.nli_head(hidden_units=(4,)))
    return _with_pairs(model, LabeledPairs(FIRST, SECOND, LABELS))


def bilstm_sra_distillation():
    from keras_sentemb.losses import SRALoss

    model = _tiny_bilstm_sra(5)
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss=SRALoss())
    teacher = np.random.default_rng(5).normal(size=(len(FIRST), 5)).astype("float32")
    return model, sentence_targets_dataset(FIRST, teacher, model.tokenizer, **BATCH)


def sentence_classifier():
    from keras_sentemb.models import SentenceClassifier

    encoder = _tiny_bilstm_sra(6)
    model = SentenceClassifier(encoder, num_classes=3, hidden_units=(6,), dropout=0.0)
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    return model, examples_dataset(LabeledSentences(FIRST, LABELS), encoder.tokenizer, **BATCH)


CASES = {
    case.__name__: case
    for case in (
        sbert_mnrl,
        sbert_cosent,
        sbert_classification,
        cross_encoder,
        dse,
        inferlite_nli,
        bilstm_sra_distillation,
        sentence_classifier,
        word_mnrl,
        word_cosent,
    )
}


class BatchLosses(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.losses = []

    def on_train_batch_end(self, batch, logs=None):
        self.losses.append(float(logs["loss"]))


def loss_trajectory(name):
    """Per-batch losses of case `name` (or "hashed_encoder") fitted under the current strategy."""
    strategy = tf.distribute.get_strategy()
    with strategy.scope():
        if name == "hashed_encoder":
            return hashed_encoder_trajectory()
        model, data = CASES[name]()
        record = BatchLosses()
        # one iterator for all epochs: a new one per epoch costs ~1 s of tf.data setup
        model.fit(fixed_length(data).repeat(), steps_per_epoch=len(data), epochs=EPOCHS, verbose=0, callbacks=[record])
    return record.losses


def hashed_encoder_trajectory():
    """`HashedEncoder.distill` jointly with a pair task (CodeSimilarityLoss over all pairs of a
    neighbour batch + CoSENT over the scored pairs of the step): per-epoch losses."""

    encoder = make_tiny_encoder(seed=7)
    rng = np.random.default_rng(7)
    embeddings, first, second = rng.normal(size=(3, 16, encoder.embedding_dim)).astype("float32")
    hashed = distill_hashed_encoder(
        encoder,
        embeddings,
        bits=64,
        epochs=EPOCHS * 2,
        batch_size=8,
        learning_rate=1e-2,
        pairs=(first, second, rng.random(16)),
        pair_weight=0.5,
        pair_batch_size=4,
        verbose=0,
    )
    return [float(x) for x in hashed.history.history["loss"]]


ALL_CASES = [*CASES, "hashed_encoder"]

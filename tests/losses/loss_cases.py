"""Shared fixtures of the loss specifications: three small embedding batches, NumPy
references for cosine and log-softmax, and a one-table model to take a few optimizer
steps with a loss."""

import keras
import numpy as np

RNG = np.random.default_rng(0)
U, V, N = (RNG.normal(size=(4, 5)).astype("float32") for _ in range(3))
SCORES = np.array([0.0, 2.5, 5.0, 1.0], "float32")


def cos(a, b):
    return (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def embedding_model(items=6, dim=8, seed=1):
    """Item ids [batch, k] → stacked embeddings [batch, k, dim] from one trainable table."""
    keras.utils.set_random_seed(seed)
    ids = keras.Input((None,), dtype="int32")
    return keras.Model(ids, keras.layers.Embedding(items, dim)(ids))


def train(model, loss, ids, y, steps=60, learning_rate=0.1):
    """`steps` full-batch SGD steps; returns the model's output on `ids` afterwards."""
    model.compile(optimizer=keras.optimizers.SGD(learning_rate), loss=loss)
    model.fit(ids, y, batch_size=len(ids), epochs=steps, verbose=0, shuffle=False)
    return np.asarray(model(ids))

"""Training a `SemanticHashing` head on a frozen encoder's embeddings (`HashedEncoder.distill`).

Per step, with B corpus rows x (a neighbour batch, see `neighbour_batches`) and, when
scored pairs are given, P scored pairs (u_p, v_p, s_p):

    L = CodeSimilarity(x)                                   (the encoder's cosines → codes)
        + λ · CoSENT({(2h(u_p) − 1, 2h(v_p) − 1)}, {s_p})   (the pair task on the codes)

CodeSimilarity is `losses.CodeSimilarityLoss`; CoSENT (`losses.CoSENTLoss`) on ±1 codes
ranks the pairs by code similarity 1 − 2·Hamming/b in the order of their gold scores —
the "pair head on the relaxed codes" of joint training. τ decays exponentially over the
steps (`TemperatureSchedule`); with straight-through codes both terms see hard codes.

Example:
>>> rng = np.random.default_rng(0)
>>> vectors = rng.normal(size=(256, 16)).astype("float32")
>>> hashing, history = distill_code(vectors, bits=64, epochs=1, batch_size=64, verbose=0)
>>> hashing.binarize(vectors[:2], packed=True).shape
TensorShape([2, 8])
"""

import keras
import numpy as np
import tensorflow as tf

from keras_sentemb.layers.semantic_hashing import SemanticHashing
from keras_sentemb.losses.code_similarity_loss import CodeSimilarityLoss
from keras_sentemb.losses.cosent_loss import CoSENTLoss
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.training.neighbour_batches import mine_neighbours, neighbour_batch_rows
from keras_sentemb.training.temperature_schedule import TemperatureSchedule
from keras_sentemb.utils.unit_vectors import unit_rows


class CodeDistillationHead(PipelineTraining, keras.Model):
    """The `SemanticHashing` head as `distill_code` trains it (with this package's `fit`:
    NaN guard, tf.distribute). Unit embeddings [B, d] in, relaxed codes [B, bits] out;
    given `{"sentences": [B, d], "pairs": [P, 2, d]}` it returns
    `{"codes": [B, bits], "pair_codes": [P, 2, bits]}`, the pair codes as ±1 (2h − 1)."""

    def __init__(self, hashing, **kwargs):
        super().__init__(**kwargs)
        self.hashing = hashing

    def call(self, inputs):
        if not isinstance(inputs, dict):
            return self.hashing(inputs)
        return {"codes": self.hashing(inputs["sentences"]),
                "pair_codes": 2.0 * self.hashing(inputs["pairs"]) - 1.0}


def scored_pair_array(pairs, dim):
    """`(unit pairs [P, 2, d], scores [P])` from `(embeddings1, embeddings2, scores)`."""
    try:
        first, second, scores = pairs
    except (TypeError, ValueError):
        raise TypeError("pairs must be (embeddings1 [P, d], embeddings2 [P, d], scores [P])") from None
    first, second = np.asarray(first, np.float32), np.asarray(second, np.float32)
    scores = np.asarray(scores, np.float32).reshape(-1)
    if first.shape != second.shape or first.ndim != 2 or first.shape[1] != dim or len(scores) != len(first):
        raise ValueError(f"pairs must be two [P, {dim}] arrays and P scores, got {first.shape}, "
                         f"{second.shape} and {scores.shape}")
    if len(scores) < 2:
        raise ValueError("a pair task needs at least 2 scored pairs")
    return np.stack([unit_rows(first), unit_rows(second)], axis=1), scores


def corpus_pairs(pairs, sentences, embeddings):
    """`(embeddings1, embeddings2, scores)` for the scored pairs (`ScoredPairs`: sentences1,
    sentences2, scores) whose two sentences are both among `sentences`, looked up in their
    `embeddings` [len(sentences), d] — a pair task over an already-embedded corpus, which
    also leaves out every pair touching a sentence held out of that corpus."""
    rows = {sentence: i for i, sentence in enumerate(sentences)}
    keep = [i for i, (a, b) in enumerate(zip(pairs.sentences1, pairs.sentences2)) if a in rows and b in rows]
    embeddings = np.asarray(embeddings)
    return (embeddings[[rows[pairs.sentences1[i]] for i in keep]],
            embeddings[[rows[pairs.sentences2[i]] for i in keep]],
            np.asarray(pairs.scores, np.float32)[keep])


def distill_code(embeddings, bits, epochs=5, batch_size=2048, learning_rate=1e-4,
                 initial_temperature=1.0, final_temperature=0.3, rank_weight=1.0,
                 rank_temperature=0.02, init="itq", itq_iterations=3, straight_through=True,
                 neighbours_per_anchor=3, neighbour_pool=100, pairs=None, pair_weight=0.1,
                 pair_batch_size=256, seed=0, verbose="auto", shuffle=True):
    """`(SemanticHashing(bits), history)` trained on embeddings [N, d] (module docstring).

    See `HashedEncoder.distill` for the arguments; `history` is None when `epochs` is 0.
    """
    from keras_sentemb.training.itq_initialisation import itq_projection

    embeddings = np.asarray(embeddings, np.float32)
    if embeddings.ndim != 2 or len(embeddings) < 2:
        raise ValueError(f"distilling a code needs [N ≥ 2, d] embeddings, got shape {embeddings.shape}")
    if init not in ("itq", "random"):
        raise ValueError(f"init must be 'itq' or 'random', got {init!r}")
    if neighbours_per_anchor < 0 or pair_weight < 0:
        raise ValueError(f"neighbours_per_anchor and pair_weight must be ≥ 0, got "
                         f"{neighbours_per_anchor!r} and {pair_weight!r}")
    keras.utils.set_random_seed(seed)
    unit = unit_rows(embeddings)
    hashing = SemanticHashing(bits, initial_temperature=initial_temperature,
                              straight_through=straight_through, name=f"semantic_hashing_{bits}")
    hashing.build((None, unit.shape[1]))
    if init == "itq":
        kernel, bias = itq_projection(unit, bits, iterations=itq_iterations, seed=seed)
        hashing.projection.kernel.assign(kernel)
        hashing.projection.bias.assign(bias)
    if not epochs:
        return hashing, None
    batch = min(batch_size, len(unit))
    steps = len(unit) // batch
    rows = _batch_rows(unit, batch, steps * epochs, neighbours_per_anchor, neighbour_pool, shuffle, seed)
    table = tf.constant(unit)
    data = tf.data.Dataset.from_tensor_slices(rows).map(lambda r: tf.gather(table, r))
    head = CodeDistillationHead(hashing, name=f"code_distillation_{bits}")
    distillation = CodeSimilarityLoss(rank_weight, rank_temperature)
    if pairs is None or not pair_weight:
        head.compile(optimizer=keras.optimizers.Adam(learning_rate), loss=distillation)
        data = data.map(lambda x: (x, x))
    else:
        pair_vectors, scores = scored_pair_array(pairs, unit.shape[1])
        take = min(pair_batch_size, len(scores))
        picks = np.stack([np.random.default_rng([seed, step]).choice(len(scores), take, replace=False)
                          for step in range(steps * epochs)])
        pair_data = tf.data.Dataset.from_tensor_slices(picks).map(
            lambda p: (tf.gather(pair_vectors, p), tf.gather(scores, p)))
        head.compile(optimizer=keras.optimizers.Adam(learning_rate),
                     loss={"codes": distillation, "pair_codes": CoSENTLoss()},
                     loss_weights={"codes": 1.0, "pair_codes": float(pair_weight)})
        data = tf.data.Dataset.zip(data, pair_data).map(
            lambda x, p: ({"sentences": x, "pairs": p[0]}, {"codes": x, "pair_codes": p[1]}))
    history = head.fit(data.prefetch(tf.data.AUTOTUNE), epochs=epochs, steps_per_epoch=steps,
                       verbose=verbose, callbacks=[TemperatureSchedule(initial_temperature, final_temperature)])
    return hashing, history


def _batch_rows(unit, batch, total_steps, neighbours_per_anchor, neighbour_pool, shuffle, seed):
    """Row numbers [total_steps, batch]: neighbour batches, or plain (shuffled) epochs."""
    if neighbours_per_anchor and batch >= 1 + neighbours_per_anchor:
        anchors, neighbours = mine_neighbours(unit, pool=max(neighbour_pool, neighbours_per_anchor),
                                              seed=seed)
        return neighbour_batch_rows(len(unit), anchors, neighbours, batch, total_steps,
                                    min(neighbours_per_anchor, neighbours.shape[1]), seed=seed)
    steps = len(unit) // batch
    rng = np.random.default_rng(seed)
    epochs = -(-total_steps // steps)
    order = np.concatenate([rng.permutation(len(unit))[: steps * batch] if shuffle
                            else np.arange(steps * batch) for _ in range(epochs)])
    return order.reshape(-1, batch)[:total_steps]

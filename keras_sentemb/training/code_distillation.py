"""Training a `SemanticHashing` head on a frozen encoder's embeddings (`distill_hashed_encoder`).

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

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from keras_sentemb.layers.semantic_hashing import SemanticHashing
from keras_sentemb.losses.code_similarity_loss import CodeSimilarityLoss
from keras_sentemb.losses.cosent_loss import CoSENTLoss
from keras_sentemb.losses.matryoshka_loss import MatryoshkaLoss
from keras_sentemb.models.code_distillation_head import CodeDistillationHead
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.training.itq_initialisation import itq_projection, nested_itq_projection
from keras_sentemb.training.neighbour_batches import mine_neighbours, neighbour_batch_rows
from keras_sentemb.training.temperature_schedule import TemperatureSchedule
from keras_sentemb.utils.unit_vectors import unit_rows


def scored_pair_array(pairs, dim):
    """`(unit pairs [P, 2, d], scores [P])` from `(embeddings1, embeddings2, scores)`."""
    try:
        first, second, scores = pairs
    except (TypeError, ValueError):
        raise TypeError("pairs must be (embeddings1 [P, d], embeddings2 [P, d], scores [P])") from None
    first, second = np.asarray(first, np.float32), np.asarray(second, np.float32)
    scores = np.asarray(scores, np.float32).reshape(-1)
    if first.shape != second.shape or first.ndim != 2 or first.shape[1] != dim or len(scores) != len(first):
        raise ValueError(
            f"pairs must be two [P, {dim}] arrays and P scores, got {first.shape}, {second.shape} and {scores.shape}"
        )
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
    return (
        embeddings[[rows[pairs.sentences1[i]] for i in keep]],
        embeddings[[rows[pairs.sentences2[i]] for i in keep]],
        np.asarray(pairs.scores, np.float32)[keep],
    )


def distill_code(
    embeddings,
    bits,
    epochs=5,
    batch_size=2048,
    learning_rate=1e-4,
    initial_temperature=1.0,
    final_temperature=0.3,
    rank_weight=1.0,
    rank_temperature=0.02,
    init="itq",
    itq_iterations=3,
    straight_through=True,
    neighbours_per_anchor=3,
    neighbour_pool=100,
    pairs=None,
    pair_weight=0.1,
    pair_batch_size=256,
    seed=0,
    verbose="auto",
    shuffle=True,
    nested_bits=None,
    nested_weights=None,
):
    """`(SemanticHashing(bits), history)` trained on embeddings [N, d] (module docstring).

    See `HashedEncoder.distill` for the arguments; `history` is None when `epochs` is 0.
    """
    embeddings = np.asarray(embeddings, np.float32)
    if embeddings.ndim != 2 or len(embeddings) < 2:
        raise ValueError(f"distilling a code needs [N ≥ 2, d] embeddings, got shape {embeddings.shape}")
    if init not in ("itq", "sign", "random"):
        raise ValueError(f"init must be 'itq', 'sign' or 'random', got {init!r}")
    if neighbours_per_anchor < 0 or pair_weight < 0:
        raise ValueError(
            f"neighbours_per_anchor and pair_weight must be ≥ 0, got {neighbours_per_anchor!r} and {pair_weight!r}"
        )
    keras.utils.set_random_seed(seed)
    unit = unit_rows(embeddings)
    hashing = SemanticHashing(
        bits,
        initial_temperature=initial_temperature,
        straight_through=straight_through,
        nested_bits=nested_bits,
        name=f"semantic_hashing_{bits}",
    )
    hashing.build((None, unit.shape[1]))
    if init == "itq" and hashing.nested_bits is not None:
        kernel, bias = nested_itq_projection(unit, hashing.nested_bits, iterations=itq_iterations, seed=seed)
        hashing.projection.kernel.assign(kernel)
        hashing.projection.bias.assign(bias)
    elif init == "itq":
        kernel, bias = itq_projection(unit, bits, iterations=itq_iterations, seed=seed)
        hashing.projection.kernel.assign(kernel)
        hashing.projection.bias.assign(bias)
    elif init == "sign":
        hashing.projection.kernel.assign(sign_projection(unit.shape[1], bits, seed))
        hashing.projection.bias.assign(np.zeros(bits, np.float32))
    if not epochs:
        return hashing, None
    batch = min(batch_size, len(unit))
    steps = len(unit) // batch
    rows = _batch_rows(unit, batch, steps * epochs, neighbours_per_anchor, neighbour_pool, shuffle, seed)
    table = tf.constant(unit)
    data = tf.data.Dataset.from_tensor_slices(rows).map(lambda r: tf.gather(table, r))
    head = CodeDistillationHead(hashing, name=f"code_distillation_{bits}")
    distillation = CodeSimilarityLoss(rank_weight, rank_temperature)
    pair_loss = CoSENTLoss()
    if hashing.nested_bits is not None:  # every prefix of the ladder trained as a code of its own
        distillation = MatryoshkaLoss(distillation, hashing.nested_bits, nested_weights)
        pair_loss = MatryoshkaLoss(pair_loss, hashing.nested_bits, nested_weights)
    if pairs is None or not pair_weight:
        head.compile(optimizer=keras.optimizers.Adam(learning_rate), loss=distillation)
        data = data.map(lambda x: (x, x))
    else:
        pair_vectors, scores = scored_pair_array(pairs, unit.shape[1])
        take = min(pair_batch_size, len(scores))
        picks = np.stack(
            [
                np.random.default_rng([seed, step]).choice(len(scores), take, replace=False)
                for step in range(steps * epochs)
            ]
        )
        pair_data = tf.data.Dataset.from_tensor_slices(picks).map(
            lambda p: (tf.gather(pair_vectors, p), tf.gather(scores, p))
        )
        head.compile(
            optimizer=keras.optimizers.Adam(learning_rate),
            loss={"codes": distillation, "pair_codes": pair_loss},
            loss_weights={"codes": 1.0, "pair_codes": float(pair_weight)},
        )
        data = tf.data.Dataset.zip(data, pair_data).map(
            lambda x, p: ({"sentences": x, "pairs": p[0]}, {"codes": x, "pair_codes": p[1]})
        )
    history = head.fit(
        data.prefetch(tf.data.AUTOTUNE),
        epochs=epochs,
        steps_per_epoch=steps,
        verbose=verbose,
        callbacks=[TemperatureSchedule(initial_temperature, final_temperature)],
    )
    return hashing, history


def sign_projection(dim, bits, seed=0):
    """A kernel [dim, bits] whose first min(dim, bits) columns are the embedding's own features (the
    code starts as their signs, sentence-transformers' "ubinary" quantisation, whose prefixes are the
    signs of the leading features) and whose other columns are seeded random hyperplanes."""
    kernel = np.zeros((dim, bits), np.float32)
    own = min(dim, bits)
    kernel[np.arange(own), np.arange(own)] = 1.0
    if bits > dim:
        kernel[:, dim:] = np.random.default_rng(seed).standard_normal((dim, bits - dim)) / np.sqrt(dim)
    return kernel


def _batch_rows(unit, batch, total_steps, neighbours_per_anchor, neighbour_pool, shuffle, seed):
    """Row numbers [total_steps, batch]: neighbour batches, or plain (shuffled) epochs."""
    if neighbours_per_anchor and batch >= 1 + neighbours_per_anchor:
        anchors, neighbours = mine_neighbours(unit, pool=max(neighbour_pool, neighbours_per_anchor), seed=seed)
        return neighbour_batch_rows(
            len(unit),
            anchors,
            neighbours,
            batch,
            total_steps,
            min(neighbours_per_anchor, neighbours.shape[1]),
            seed=seed,
        )
    steps = len(unit) // batch
    rng = np.random.default_rng(seed)
    epochs = -(-total_steps // steps)
    order = np.concatenate(
        [rng.permutation(len(unit))[: steps * batch] if shuffle else np.arange(steps * batch) for _ in range(epochs)]
    )
    return order.reshape(-1, batch)[:total_steps]


def distill_hashed_encoder(
    encoder: keras.Model,
    embeddings: np.ndarray,
    bits: int,
    epochs: int = 5,
    batch_size: int = 2048,
    learning_rate: float = 1e-4,
    initial_temperature: float = 1.0,
    final_temperature: float = 0.3,
    rank_weight: float = 1.0,
    rank_temperature: float = 0.02,
    init: str = "itq",
    itq_iterations: int = 3,
    straight_through: bool = True,
    neighbours_per_anchor: int = 3,
    neighbour_pool: int = 100,
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    pair_weight: float = 0.1,
    pair_batch_size: int = 256,
    seed: int = 0,
    verbose: str | int = "auto",
    shuffle: bool = True,
    nested_bits: tuple[int, ...] | None = None,
    nested_weights: tuple[float, ...] | None = None,
) -> HashedEncoder:
    """Trains a `SemanticHashing(bits)` head on a frozen encoder's embeddings [N, d].

    1. `init="itq"`: the projection starts from iterative quantization
       (`itq_projection` with `itq_iterations` rounds: PCA to `bits` dimensions and a
       random rotation, then rounds that lower the quantization error; a centred
       random projection above d bits); `init="sign"` starts from the signs of the embedding's
       own features (sentence-transformers' "ubinary"; random hyperplanes past d bits), whose
       prefixes are already codes; `init="random"` keeps Glorot's.
    2. Adam minimises `CodeSimilarityLoss` (±1 code similarities vs cosine
       similarities, plus the neighbour-distribution KL term, over all pairs of each
       batch) while τ decays exponentially from `initial_temperature` to
       `final_temperature` (`TemperatureSchedule`). With `straight_through` (default)
       the loss sees the hard codes and the gradient flows through σ(·/τ).
    3. Batches are neighbour batches (`training.neighbour_batches`): batch_size /
       (1 + n) anchors, each with n = `neighbours_per_anchor` of its
       `neighbour_pool` nearest neighbours by cosine, so the rank term learns the
       top-10 / top-100 boundary a search must get right; n = 0 (or a batch smaller
       than 1 + n) gives plain batches, reshuffled each epoch unless `shuffle=False`.
    4. Joint training with a pair task: `pairs=(embeddings1, embeddings2, scores)`
       (e.g. STS-B train through the same encoder) adds `pair_weight` × CoSENT of the
       pairs' ±1 code similarities against their scores, `pair_batch_size` pairs a
       step (`training.code_distillation`).
    5. A nested code: `nested_bits` (a ladder ending at `bits`, e.g. (64, 128, 256, 512))
       trains every prefix as a code of its own: each loss becomes Σ_m w_m · loss(first m
       bits) (`losses.MatryoshkaLoss`, `nested_weights` w, default all 1), the projection
       starts from `nested_itq_projection` (ITQ per rung), and `hash(bits=m)`,
       `BinaryIndex.search(bits=m)` and `BinaryIndex.cascade_search` read the prefixes.

    The defaults were chosen with `benchmarks/hashing_recall.py --select` (1,000
    validation queries out of the benchmark data corpus and STS-B dev, apart from the
    benchmark's test queries and STS-B test) at 256 bits: ITQ with 3 rounds keeps more
    of STS than 50, neighbour batches raise recall@10 after re-ranking the Hamming
    top-100 by about 0.005 at equal STS, and the STS-B pair task (`pair_weight` 0.1)
    adds about 0.15 STS-B dev points but costs about 0.006 of that recall, so it is
    off unless `pairs` are given. The encoder is not changed. Returns a
    `HashedEncoder` whose training history is in `.history`.

    Under `tf.distribute` (call it inside `strategy.scope()`) the losses compare each
    replica's rows with the global batch, so it trains as on one device.
    """

    embeddings = np.asarray(embeddings, np.float32)
    if embeddings.ndim != 2 or embeddings.shape[1] != encoder.embedding_dim:
        raise ValueError(f"embeddings must be [N, {encoder.embedding_dim}], got {embeddings.shape}")
    hashing, history = distill_code(
        embeddings,
        bits,
        epochs=epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        initial_temperature=initial_temperature,
        final_temperature=final_temperature,
        rank_weight=rank_weight,
        rank_temperature=rank_temperature,
        init=init,
        itq_iterations=itq_iterations,
        straight_through=straight_through,
        neighbours_per_anchor=neighbours_per_anchor,
        neighbour_pool=neighbour_pool,
        pairs=pairs,
        pair_weight=pair_weight,
        pair_batch_size=pair_batch_size,
        seed=seed,
        verbose=verbose,
        shuffle=shuffle,
        nested_bits=nested_bits,
        nested_weights=nested_weights,
    )
    hashed = HashedEncoder(encoder, hashing, name=f"{encoder.name}_hashed_{bits}")
    hashed.history = history
    return hashed

"""Iterative quantization (ITQ): a data-driven starting projection for SemanticHashing.

Gong & Lazebnik 2011, "Iterative Quantization: A Procrustean Approach to Learning Binary
Codes". With X the centred embeddings (mean μ) and P their top-`bits` principal
directions, V = X P; ITQ then alternates, for `iterations` rounds,

    B ← sign(V R)                                   (the codes for the current rotation)
    R ← argmin_{R orthogonal} ‖B − V R‖_F = U Wᵀ     (SVD of Bᵀ V = U Σ Wᵀ; Procrustes)

which lowers the quantization error ‖B − V R‖² so that sign(·) loses as little of the
geometry as it can. The projection is W = P R and the bias −μ W, so that
sign(W x + b) = sign((x − μ) P R). For `bits` above the embedding width there are no more
principal directions; W is then a centred random Gaussian projection (random hyperplanes).

Example:
>>> kernel, bias = itq_projection(np.random.default_rng(0).normal(size=(500, 32)), bits=16)
>>> kernel.shape, bias.shape
((32, 16), (16,))
"""

import numpy as np


def itq_projection(embeddings, bits, iterations=50, sample=50_000, seed=0):
    """`(kernel [d, bits], bias [bits])` float32 such that codes = 1[x W + b > 0].

    Args:
        embeddings: [N, d] float vectors (unit vectors for cosine geometry).
        bits: code length.
        iterations: ITQ rounds (0 = PCA plus a random rotation).
        sample: fit on at most this many rows (a seeded random subset).
        seed: seeds the subset, the initial rotation and the random projection.
    """
    x = np.asarray(embeddings, np.float32)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"embeddings must be [N ≥ 2, d], got shape {x.shape}")
    rng = np.random.default_rng(seed)
    if len(x) > sample:
        x = x[rng.choice(len(x), sample, replace=False)]
    mean = x.mean(axis=0)
    centred = x - mean
    dim = x.shape[1]
    if bits > min(dim, len(x)):
        kernel = rng.standard_normal((dim, bits)).astype(np.float32) / np.sqrt(dim)
        return kernel, (-mean @ kernel).astype(np.float32)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    pca = components[:bits].T  # [d, bits]
    projected = centred @ pca
    rotation, _ = np.linalg.qr(rng.standard_normal((bits, bits)))
    for _ in range(iterations):
        codes = np.sign(projected @ rotation)
        u, _, wt = np.linalg.svd(codes.T @ projected)
        rotation = (u @ wt).T
    kernel = (pca @ rotation).astype(np.float32)
    return kernel, (-mean @ kernel).astype(np.float32)


def nested_itq_projection(embeddings, ladder, iterations=50, sample=50_000, seed=0):
    """`(kernel [d, ladder[-1]], bias)` whose first m columns are a starting code of m bits for
    every rung m of `ladder` (a nested, Matryoshka code): the first rung's columns are
    `itq_projection(embeddings, ladder[0])`, and each next rung r adds the columns past the
    previous rung of `itq_projection(embeddings, r)` (seeded anew per rung), which lie in the top-r
    principal directions (random hyperplanes past the embedding width).

    >>> kernel, bias = nested_itq_projection(np.random.default_rng(0).normal(size=(500, 32)), (8, 16, 48))
    >>> kernel.shape, bias.shape
    ((32, 48), (48,))
    """
    kernels, biases, previous = [], [], 0
    for rung_number, rung in enumerate(ladder):
        kernel, bias = itq_projection(embeddings, rung, iterations=iterations, sample=sample, seed=seed + rung_number)
        kernels.append(kernel[:, previous:rung])
        biases.append(bias[previous:rung])
        previous = rung
    return np.concatenate(kernels, axis=1), np.concatenate(biases)

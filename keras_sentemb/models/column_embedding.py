"""One encoder pass over several text columns of a batch (siamese weight sharing)."""

import numpy as np
from keras import ops


def embed_columns(encoder, inputs, keys, training=False):
    """Embeds the columns `keys` of `inputs` with ONE call of `encoder`; one [batch, d] per key.

    `inputs[key]` is `{"token_ids", "padding_mask"}` int32 [batch, T_key]. The columns are
    padded to the longest T and concatenated along the batch, so the shared encoder runs
    once (one graph, one set of weights: the siamese network of SBERT and DSE), then the
    result is split back per column. Padding never changes an embedding.
    """
    length = ops.max(ops.stack([ops.shape(inputs[k]["token_ids"])[1] for k in keys]))
    token_ids, masks = [], []
    for key in keys:
        ids, mask = inputs[key]["token_ids"], inputs[key]["padding_mask"]
        pad = [[0, 0], [0, length - ops.shape(ids)[1]]]
        token_ids.append(ops.pad(ids, pad))
        masks.append(ops.pad(mask, pad))
    batch = ops.shape(token_ids[0])[0]
    embeddings = encoder(
        {"token_ids": ops.concatenate(token_ids, 0), "padding_mask": ops.concatenate(masks, 0)},
        training=training,
    )
    return [embeddings[i * batch : (i + 1) * batch] for i in range(len(keys))]


def embed_pairs_once(embed, first, second):
    """`(u, v)` for aligned text lists: `embed` (a list of texts → array [n, d]) is called
    once, on the distinct texts of both lists, and the rows are spread back to the pairs.
    STS and pair-scoring sets repeat sentences, so this saves whole encoder passes.

    >>> u, v = embed_pairs_once(lambda texts: np.array([[len(t)] for t in texts]), ["ab", "c"], ["c", "ab"])
    >>> u.tolist(), v.tolist()
    ([[2], [1]], [[1], [2]])
    """
    if len(first) != len(second):
        raise ValueError(f"{len(first)} first sentences but {len(second)} second sentences")
    unique = list(dict.fromkeys(list(first) + list(second)))
    position = {text: i for i, text in enumerate(unique)}
    vectors = np.asarray(embed(unique))
    return vectors[[position[t] for t in first]], vectors[[position[t] for t in second]]

"""One encoder pass over several text columns of a batch (siamese weight sharing)."""

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

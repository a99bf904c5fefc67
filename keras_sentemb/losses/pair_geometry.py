"""Small tensor helpers shared by the losses: splitting stacked embeddings, cosine."""

from keras import ops


def unstack_embeddings(embeddings, count, loss_name):
    """Splits `embeddings` [batch, k, d] (or [batch, k, tokens, d]: token vectors) into k tensors [batch, …],
    checking k ≥ count."""
    if len(embeddings.shape) < 3 or (embeddings.shape[1] is not None and embeddings.shape[1] < count):
        raise ValueError(
            f"{loss_name} expects stacked embeddings [batch, {count}, dim] "
            f"(as SBERT returns them), got shape {tuple(embeddings.shape)}"
        )
    return [embeddings[:, i] for i in range(embeddings.shape[1])]


def l2_normalize(x, epsilon=1e-12):
    return x / ops.maximum(ops.sqrt(ops.sum(ops.square(x), axis=-1, keepdims=True)), epsilon)


def pairwise_cosine(u, v):
    """cos(u_i, v_i) for each row: [batch]."""
    return ops.sum(l2_normalize(u) * l2_normalize(v), axis=-1)

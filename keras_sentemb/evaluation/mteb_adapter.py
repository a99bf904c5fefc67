"""An MTEB-style adapter: lets `mteb` (where installed) run any keras-sentemb encoder.

mteb calls `model.encode(sentences, batch_size=..., **kwargs)` and expects a float
array [N, d] (mteb 1.x passes a list of strings; mteb 2.x a DataLoader whose batches are
dicts with a "text" list). Both are accepted; prompt and task keywords are ignored, since
our encoders take no instructions. `similarity` / `similarity_pairwise` are cosine.

Example (needs `pip install mteb`, which pulls PyTorch; not a dependency of this library):
(Not run as a doctest: it needs an optional extra (apache-beam or mteb).)
    import mteb
    model = MTEBEncoder(load_sentence_encoder("minilm-l6"))
    mteb.evaluate(model, mteb.get_tasks(tasks=["STSBenchmark"]))
"""

import numpy as np

from keras_sentemb.utils.unit_vectors import unit_rows


def _texts(inputs):
    """A flat list of strings from a list/tuple/array of strings, one string, or an
    iterable of mteb 2 batches ({"text": [...]})."""
    if isinstance(inputs, str):
        return [inputs]
    if isinstance(inputs, np.ndarray):
        inputs = inputs.tolist()
    if isinstance(inputs, (list, tuple)) and all(isinstance(t, str) for t in inputs):
        return list(inputs)
    texts = []
    for number, batch in enumerate(inputs):
        if isinstance(batch, dict) and "text" in batch:
            batch_texts = batch["text"]
            texts.extend([batch_texts] if isinstance(batch_texts, str) else list(batch_texts))
        elif isinstance(batch, str):
            texts.append(batch)
        else:
            raise TypeError(
                f"encode: item {number} is a {type(batch).__name__}; expected a string "
                "or a batch dict with a 'text' list"
            )
    for number, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"encode: text {number} is a {type(text).__name__}, not a string")
    return texts


class MTEBEncoder:
    """Wraps an encoder (anything with `encode(texts, batch_size=, normalize=, progress=)`)
    in the interface mteb calls.

    `normalize` (default True) returns unit vectors, so dot product = cosine.
    """

    def __init__(self, encoder, normalize=True, progress=False, model_name=None):
        if not hasattr(encoder, "encode"):
            raise TypeError(f"encoder must have an encode method, got {type(encoder).__name__}")
        self.encoder = encoder
        self.normalize = normalize
        self.progress = progress
        self.model_name = model_name or getattr(encoder, "name", type(encoder).__name__)

    def encode(self, sentences, batch_size=32, **kwargs):
        """float32 [N, d] embeddings of `sentences` (extra mteb keywords are ignored)."""
        del kwargs  # task_name, prompt_type, task_metadata, hf_split, hf_subset, ...
        texts = _texts(sentences)
        if not texts:
            return np.zeros((0, self.encoder.embedding_dim), np.float32)
        return np.asarray(
            self.encoder.encode(texts, batch_size=int(batch_size), normalize=self.normalize, progress=self.progress),
            dtype=np.float32,
        )

    @property
    def mteb_model_meta(self):
        """mteb 2.x asks for this: an mteb `ModelMeta` naming the model as
        "keras-sentemb/<name>" (an AttributeError when mteb is not installed)."""
        try:
            from mteb.models.model_meta import ModelMeta  # optional extra: mteb
        except ImportError:
            raise AttributeError("mteb_model_meta needs the mteb package") from None
        name = str(self.model_name).replace("/", "_")
        return ModelMeta.create_empty(
            {
                "name": f"keras-sentemb/{name}",
                "revision": "local",
                "embed_dim": int(self.encoder.embedding_dim),
                "similarity_fn_name": "cosine",
            }
        )

    def similarity(self, embeddings1, embeddings2):
        """Cosine similarity matrix [N1, N2]."""
        return unit_rows(np.asarray(embeddings1, np.float32)) @ unit_rows(np.asarray(embeddings2, np.float32)).T

    def similarity_pairwise(self, embeddings1, embeddings2):
        """Cosine similarity of aligned rows [N]."""
        return np.sum(
            unit_rows(np.asarray(embeddings1, np.float32)) * unit_rows(np.asarray(embeddings2, np.float32)), axis=1
        )

"""export_saved_model: one entry point that writes any model of the package as a TF Serving
SavedModel (raw strings in), choosing the signatures from the model's kind."""

from __future__ import annotations

import os

import keras
import numpy as np

from keras_sentemb.chunking.chunking import Chunking
from keras_sentemb.export.multi_vector_export import BOTH_SIDES, export_multi_vector_encoder
from keras_sentemb.export.pair_model_export import export_cross_encoder, export_dse
from keras_sentemb.export.serving_export import export_for_serving
from keras_sentemb.export.sparse_model_export import export_sparse_encoder
from keras_sentemb.models.cross_encoder import CrossEncoder
from keras_sentemb.models.dse import DSE
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.models.multi_vector_encoder import MultiVectorEncoder
from keras_sentemb.models.sparse_encoder import SparseEncoder


def export_saved_model(
    model: keras.Model,
    path: str | os.PathLike,
    version: int = 1,
    overwrite: bool = False,
    code_table: np.ndarray | None = None,
    code_ids: np.ndarray | None = None,
    warmup_name: str | None = None,
    chunk_size: int | None = None,
    prompt_name: str | None = None,
    prompt: str | None = None,
    truncate_dim: int | None = None,
    code_bits: int | None = None,
    chunking: Chunking | None = None,
    side: str | None = None,
) -> str:
    """Writes `model` as a SavedModel at `path/<version>/` (atomically); returns that folder.

    | model                                   | signatures (1-D `tf.string` inputs)                  |
    |-----------------------------------------|------------------------------------------------------|
    | SentenceEncoder, InferLite, BiLSTMSRA,  | `serving_default(texts)` → `{"embedding"}` (unit)    |
    | StaticEncoder                           |                                                      |
    | HashedEncoder                           | + `hash`, `embed_and_hash`; + `search(texts, k)` given `code_table` |
    | CrossEncoder                            | `serving_default(texts_a, texts_b)` → `{"scores"}`   |
    | DSE                                     | `serving_default(texts)` → ψ; `score(texts_a, texts_b)` |
    | SparseEncoder (SPLADE)                  | `serving_default(texts)` → `{"indices", "values"}` (documents' side; `export_sparse_encoder`) |
    | MultiVectorEncoder (ColBERT)            | `query(texts)`, `document(texts)` = `serving_default` → `{"vectors", "token_counts"}` (`export_multi_vector_encoder`) |

    This is not `keras.Model.export`, which every model keeps with its Keras contract (token
    id tensors in): this one puts the tokenizer into the graph, so TF Serving, tensorflow-hub
    and `keras.layers.TFSMLayer` take raw strings. Loading needs `tensorflow` and
    `import tensorflow_text`.

    Args:
        model: a model of the package with a tokenizer.
        path: the model's base folder; the version folder goes inside (TF Serving's layout).
        version: a non-negative int.
        overwrite: replace an existing version folder (else FileExistsError).
        code_table / code_ids: packed codes [N, bits/8] (and int64 ids) for the `search`
            signature of a `HashedEncoder`.
        warmup_name: also write `assets.extra/tf_serving_warmup_requests` (one PredictRequest
            a signature, for TF Serving's model name `warmup_name`; `serving_warmup`).
        chunk_size: sentence encoders (and a HashedEncoder's) and sparse encoders: the graph sorts each
            request's texts by length and runs them `chunk_size` at a time (default 64; a SparseEncoder's 32),
            each chunk padded to its own longest text, as `encode` batches; a TF Serving batch of
            mixed lengths is then not padded to its longest text.
        prompt_name / prompt: a `SentenceEncoder` with prompts (or a HashedEncoder on one):
            the prompt the graph prepends to every text, chosen as `encode` chooses it (by
            default the model's `default_prompt_name`, if any). Export one SavedModel per
            prompt for query and document towers.
        truncate_dim: sentence encoders (and a HashedEncoder's): serve the first this many
            features of the embedding, normalised again (a Matryoshka-trained model at a smaller
            size), as `encode(truncate_dim=...)`.
        code_bits: a HashedEncoder: serve the first this many bits of its codes (a nested code's
            prefix, as `hash(bits=...)`); `code_table` then holds codes of that length.
        chunking: sentence encoders: a `keras_sentemb.chunking.Chunking` (windows of word pieces,
            naive or late, no sentence ends) adds the signature `chunks(texts)` → `{"embedding" [C, d],
            "document", "start", "end"}` (int64 [C]: each window's text row and word-piece span),
            equal to `encode(texts, chunking=Chunking(..., pooling=None))`: TF Serving users get
            long documents whole.
        side: a MultiVectorEncoder: "both" (the default: `query` and `document` signatures), "query" or
            "document" (that side alone, as `serving_default`); a SparseEncoder: "document" (the default) or
            "query".

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        encoder = SentenceEncoder.from_pretrained("minilm-l6")
        export_saved_model(encoder, "serving/minilm", version=1)
        # -> 'serving/minilm/1'
    """
    if isinstance(model, SparseEncoder):
        if any(option is not None for option in (code_table, code_ids, truncate_dim, code_bits, chunking)):
            raise ValueError("a SparseEncoder's SavedModel takes no code table, chunking or truncation")
        options = {} if chunk_size is None else {"chunk_size": chunk_size}
        return export_sparse_encoder(
            model,
            path,
            version=version,
            overwrite=overwrite,
            side=side or "document",
            prompt_name=prompt_name,
            prompt=prompt,
            warmup_name=warmup_name,
            **options,
        )
    if isinstance(model, MultiVectorEncoder):
        if any(option is not None for option in (code_table, code_ids, truncate_dim, code_bits, chunking, chunk_size)):
            raise ValueError(
                "a MultiVectorEncoder's SavedModel takes no code table, chunking, chunk size or truncation"
            )
        return export_multi_vector_encoder(
            model,
            path,
            version=version,
            overwrite=overwrite,
            side=side or BOTH_SIDES,
            prompt_name=prompt_name,
            prompt=prompt,
            warmup_name=warmup_name,
        )
    if side is not None:
        raise ValueError(f"side is for a MultiVectorEncoder or a SparseEncoder, not a {type(model).__name__}")
    if code_table is not None and not isinstance(model, HashedEncoder):
        raise TypeError(f"code_table is for a HashedEncoder, not a {type(model).__name__}")
    if chunk_size is not None and isinstance(model, (CrossEncoder, DSE)):
        raise ValueError(f"chunk_size is for sentence encoders, not a {type(model).__name__}")
    if code_bits is not None and not isinstance(model, HashedEncoder):
        raise TypeError(f"code_bits is for a HashedEncoder, not a {type(model).__name__}")
    if truncate_dim is not None and isinstance(model, (CrossEncoder, DSE)):
        raise ValueError(f"truncate_dim is for sentence encoders, not a {type(model).__name__}")
    if chunking is not None and isinstance(model, (CrossEncoder, DSE)):
        raise ValueError(f"chunking is for sentence encoders, not a {type(model).__name__}")
    options = {} if chunk_size is None else {"chunk_size": chunk_size}
    if chunking is not None:
        options["chunking"] = chunking
    if truncate_dim is not None:
        options["truncate_dim"] = truncate_dim
    encoder = model.encoder if isinstance(model, HashedEncoder) else model
    if hasattr(encoder, "resolve_prompt"):
        options["prompt"] = encoder.resolve_prompt(prompt_name, prompt)
    elif prompt_name is not None or prompt is not None:
        raise ValueError(f"prompts are for sentence encoders, not a {type(model).__name__}")
    if isinstance(model, HashedEncoder):
        return export_for_serving(
            model.encoder,
            path,
            version=version,
            overwrite=overwrite,
            hashing=model.hashing,
            code_table=code_table,
            code_ids=code_ids,
            code_bits=code_bits,
            warmup_name=warmup_name,
            **options,
        )
    if isinstance(model, CrossEncoder):
        return export_cross_encoder(model, path, version=version, overwrite=overwrite, warmup_name=warmup_name)
    if isinstance(model, DSE):
        return export_dse(model, path, version=version, overwrite=overwrite, warmup_name=warmup_name)
    return export_for_serving(model, path, version=version, overwrite=overwrite, warmup_name=warmup_name, **options)

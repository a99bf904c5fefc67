"""A RunInference model handler for this package's SavedModels: strings in, vectors out."""

import numpy as np
import tensorflow as tf
from apache_beam.ml.inference.base import PredictionResult
from apache_beam.ml.inference.tensorflow_inference import TFModelHandlerTensor

from keras_sentemb.bulk.exported_model import chunk_with_signature, embed_with_signatures, saved_model_signatures


def embed_texts(model, batch, inference_args=None, model_id=None, with_codes=False, chunks=False):
    """Runs one batch of texts (str or bytes) through a loaded SavedModel.

    Yields one `PredictionResult(example=text, inference={"embedding": float32 [d]
    (, "code": uint8 [bits/8])})` per text, in batch order. Codes come from the
    `embed_and_hash` signature (one encoder pass), or from `hash` for exports that
    predate it. With `chunks`, the `chunks` signature cuts each text into windows:
    `inference={"embedding": float32 [k, d], "start": int64 [k], "end": int64 [k]}` (word-piece spans).
    """

    if chunks:
        out = chunk_with_signature(model, batch)
        for row, text in enumerate(batch):
            mine = out["document"] == row
            inference = {"embedding": out["embedding"][mine], "start": out["start"][mine], "end": out["end"][mine]}
            yield PredictionResult(text, inference, model_id)
        return
    embeddings, codes = embed_with_signatures(model, batch, with_codes)
    for row, text in enumerate(batch):
        inference = {"embedding": np.asarray(embeddings[row], np.float32)}
        if codes is not None:
            inference["code"] = np.asarray(codes[row], np.uint8)
        yield PredictionResult(text, inference, model_id)


class SavedModelEmbeddingHandler(TFModelHandlerTensor):
    """Beam's TensorFlow model handler, loading a keras-sentemb SavedModel.

    Beam's own `TFModelHandlerTensor` loads with `tf.keras.models.load_model`, which Keras
    3 no longer accepts for SavedModels, and calls the model on stacked tensors; this
    handler loads with `tf.saved_model.load` (after `import tensorflow_text`, whose ops
    the tokenizer uses) and calls the signatures on a batch of raw strings. Everything
    else — batching (`min_batch_size`, `max_batch_size`), one shared model per worker
    process (`large_model`, `model_copies`), metrics — is Beam's.

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        handler = SavedModelEmbeddingHandler("serving/minilm/1")
        texts | RunInference(KeyedModelHandler(handler))
    """

    def __init__(self, model_dir, with_codes=None, max_batch_size=256, chunks=False, **kwargs):
        signatures = saved_model_signatures(model_dir)
        if "serving_default" not in signatures:
            raise ValueError(f"{model_dir} has no serving_default signature (it has {signatures})")
        if chunks and "chunks" not in signatures:
            raise ValueError(
                f"{model_dir} has no `chunks` signature: export it with export_saved_model(..., chunking=Chunking(...))"
            )
        if chunks and with_codes:
            raise ValueError("chunked documents are written as vectors only (the chunks signature makes no codes)")
        has_codes = "hash" in signatures and not chunks
        if with_codes and not has_codes:
            raise ValueError(f"{model_dir} has no `hash` signature: export a HashedEncoder for codes")
        self.with_codes = has_codes if with_codes is None else bool(with_codes)
        self.chunks = bool(chunks)
        with_codes_flag, chunks_flag = self.with_codes, self.chunks

        def inference_fn(model, batch, inference_args, model_id=None):
            return embed_texts(model, batch, inference_args, model_id, with_codes=with_codes_flag, chunks=chunks_flag)

        super().__init__(model_dir, inference_fn=inference_fn, max_batch_size=max_batch_size, **kwargs)

    def load_model(self):

        return tf.saved_model.load(self._model_uri)

    def get_metrics_namespace(self):
        return "keras_sentemb"

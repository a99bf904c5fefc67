"""A RunInference model handler for this package's SavedModels: strings in, vectors out."""

import numpy as np
import tensorflow as tf
from apache_beam.ml.inference.base import PredictionResult
from apache_beam.ml.inference.tensorflow_inference import TFModelHandlerTensor
from tensorflow.core.protobuf import saved_model_pb2


def saved_model_signatures(model_dir):
    """The signature names of the SavedModel in `model_dir` (any `tf.io.gfile` path),
    read from `saved_model.pb` without loading the model."""

    path = tf.io.gfile.join(model_dir, "saved_model.pb")
    if not tf.io.gfile.exists(path):
        raise FileNotFoundError(
            f"{model_dir} is not a SavedModel folder (no saved_model.pb); write one with "
            "`keras-sentemb export PATH` and pass PATH/<version>"
        )
    saved = saved_model_pb2.SavedModel()
    with tf.io.gfile.GFile(path, "rb") as f:
        saved.ParseFromString(f.read())
    # `__saved_model_init_op` (table initialisers) is stored as a signature too; it is not one.
    return sorted(name for name in saved.meta_graphs[0].signature_def if not name.startswith("__"))


def embed_texts(model, batch, inference_args=None, model_id=None, with_codes=False):
    """Runs one batch of texts (str or bytes) through a loaded SavedModel.

    Yields one `PredictionResult(example=text, inference={"embedding": float32 [d]
    (, "code": uint8 [bits/8])})` per text, in batch order. Codes come from the
    `embed_and_hash` signature (one encoder pass), or from `hash` for exports that
    predate it.
    """

    texts = tf.constant([t.encode("utf-8") if isinstance(t, str) else bytes(t) for t in batch], dtype=tf.string)
    signatures = model.signatures
    if with_codes and "embed_and_hash" in signatures:
        outputs = signatures["embed_and_hash"](texts=texts)
        embeddings, codes = outputs["embedding"].numpy(), outputs["codes"].numpy()
    else:
        embeddings = signatures["serving_default"](texts=texts)["embedding"].numpy()
        codes = signatures["hash"](texts=texts)["codes"].numpy() if with_codes else None
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

    def __init__(self, model_dir, with_codes=None, max_batch_size=256, **kwargs):
        signatures = saved_model_signatures(model_dir)
        if "serving_default" not in signatures:
            raise ValueError(f"{model_dir} has no serving_default signature (it has {signatures})")
        has_codes = "hash" in signatures
        if with_codes and not has_codes:
            raise ValueError(f"{model_dir} has no `hash` signature: export a HashedEncoder for codes")
        self.with_codes = has_codes if with_codes is None else bool(with_codes)
        with_codes_flag = self.with_codes

        def inference_fn(model, batch, inference_args, model_id=None):
            return embed_texts(model, batch, inference_args, model_id, with_codes=with_codes_flag)

        super().__init__(model_dir, inference_fn=inference_fn, max_batch_size=max_batch_size, **kwargs)

    def load_model(self):

        return tf.saved_model.load(self._model_uri)

    def get_metrics_namespace(self):
        return "keras_sentemb"

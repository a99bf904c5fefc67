"""SavedModel export in TF Serving layout: raw strings in, embeddings out."""

import os
import shutil
import tempfile

import tensorflow as tf

TEXTS_SPEC = tf.TensorSpec([None], tf.string, name="texts")


class SentenceEmbeddingModule(tf.Module):
    """The exported object: tokenizer + encoder in one graph, with two entry points.

    - `signatures["serving_default"](texts=<1-D tf.string>)` → `{"embedding": [N, d]}`
      (TF Serving, `keras.layers.TFSMLayer`, `hub.load(...).signatures`).
    - `__call__(texts)` → float32 [N, d] (`hub.load(path)(texts)`, `hub.KerasLayer`).

    Any string is accepted: invalid UTF-8 is replaced, empty strings embed as "[CLS]
    [SEP]", long texts are truncated to the tokenizer's `max_length`.
    """

    def __init__(self, encoder, normalize):
        super().__init__(name="keras_sentemb_encoder")
        self._encoder = encoder
        self._tokenizer = encoder.tokenizer
        self._normalize = normalize
        self.encoder_variables = list(encoder.variables)

    def _embed(self, texts):
        inputs = self._tokenizer.pack(self._tokenizer.content_ids(texts))
        embedding = tf.cast(self._encoder(inputs, training=False), tf.float32)
        if self._normalize:
            embedding = tf.math.l2_normalize(embedding, axis=-1, epsilon=1e-12)
        return embedding

    @tf.function(input_signature=[TEXTS_SPEC])
    def __call__(self, texts):
        return self._embed(texts)

    @tf.function(input_signature=[TEXTS_SPEC])
    def serve(self, texts):
        return {"embedding": self._embed(texts)}


def export_for_serving(encoder, path, version=1, overwrite=False, normalize=True):
    """Writes `encoder` as a SavedModel at `path/<version>/` (TF Serving's layout).

    The write is atomic: the model is saved into a temporary folder beside the target and
    renamed into place, so a crash never leaves a half-written version that TF Serving
    would try to load. An existing version folder is an error unless `overwrite=True`.

    Loading needs `tensorflow` and `import tensorflow_text` (which registers the
    tokenizer's ops); TF Serving links TF Text ops. `normalize=True` L2-normalises the
    output, as `encode()` does by default.

    Returns the version folder's path.
    """
    if encoder.tokenizer is None:
        raise ValueError(f"{encoder.name} has no tokenizer, so it cannot take raw strings.")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ValueError(f"version must be a non-negative int, got {version!r}")
    path = os.fspath(path)
    target = os.path.join(path, str(version))
    if os.path.exists(target) and not overwrite:
        raise FileExistsError(f"{target} exists; pass overwrite=True to replace it.")
    os.makedirs(path, exist_ok=True)
    module = SentenceEmbeddingModule(encoder, normalize)
    staging = tempfile.mkdtemp(prefix=f".{version}.tmp-", dir=path)
    try:
        tf.saved_model.save(
            module,
            staging,
            signatures={"serving_default": module.serve},
            options=tf.saved_model.SaveOptions(function_aliases={"embed": module.__call__}),
        )
        previous = None
        if os.path.exists(target):
            previous = tempfile.mkdtemp(prefix=f".{version}.old-", dir=path)
            os.replace(target, os.path.join(previous, "version"))
        os.replace(staging, target)
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target

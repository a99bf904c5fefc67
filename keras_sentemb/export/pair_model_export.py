"""SavedModels of pair scorers: the cross-encoder (one pass per pair) and DSE (one embedding
per sentence, then a linear pair score). Raw strings in, tokenisation in-graph.

Cross-encoder: `serving_default(texts_a, texts_b)` → `{"scores": float32 [N, n]}` (its
`predict_pairs` scores: the logits, or their sigmoid with `score_activation="sigmoid"`).
DSE: `serving_default(texts)` → `{"embedding": float32 [N, 4d]}` (ψ, unnormalised) and
`score(texts_a, texts_b)` → `{"scores": float32 [N, n]}` = f(ψ(a), ψ(b)).
Both load with `tensorflow` + `import tensorflow_text`, like the encoder exports.
"""

import tensorflow as tf

from keras_sentemb.export.serving_export import SAVED_MODEL_KIND, version_folder
from keras_sentemb.export.serving_warmup import write_warmup_requests
from keras_sentemb.utils.graph_function import graph_function
from keras_sentemb.utils.output_targets import replaced_folder

TEXTS_SPEC = tf.TensorSpec([None], tf.string, name="texts")
TEXTS_A_SPEC = tf.TensorSpec([None], tf.string, name="texts_a")
TEXTS_B_SPEC = tf.TensorSpec([None], tf.string, name="texts_b")


class CrossEncoderModule(tf.Module):
    """Pair tokenisation (`CrossEncoder.pair_ids`) + the cross-encoder, one graph."""

    def __init__(self, model):
        super().__init__(name="keras_sentemb_cross_encoder")
        self._model = model
        self._tokenizer = model.tokenizer
        self.model_variables = list(model.variables)

    @graph_function(input_signature=[TEXTS_A_SPEC, TEXTS_B_SPEC])
    def serve(self, texts_a, texts_b):
        ids, segments = self._model.pair_ids(texts_a, texts_b)
        token_ids = ids.to_tensor(default_value=self._tokenizer.pad_token_id)
        inputs = {
            "token_ids": token_ids,
            "segment_ids": segments.to_tensor(default_value=0),
            "padding_mask": tf.sequence_mask(ids.row_lengths(), maxlen=tf.shape(token_ids)[1], dtype=tf.int32),
        }
        inputs = {name: inputs[name] for name in self._model.input_names}  # MPNet reads no segment ids
        logits = tf.cast(self._model(inputs, training=False), tf.float32)
        return {"scores": self._model.scores_from_logits(logits)}


class DSEModule(tf.Module):
    """ψ (the DSE student) and the linear pair head f, one graph."""

    def __init__(self, model):
        super().__init__(name="keras_sentemb_dse")
        self._model = model
        self._tokenizer = model.tokenizer
        self.model_variables = list(model.variables)
        # ψ traced once and called three times (serve, and both sides of score).
        self.embed_texts = graph_function(self._embed, input_signature=[TEXTS_SPEC])

    def _embed(self, texts):
        inputs = self._tokenizer.pack(self._tokenizer.content_ids(texts))
        return tf.cast(self._model.encoder(inputs, training=False), tf.float32)

    @graph_function(input_signature=[TEXTS_SPEC])
    def serve(self, texts):
        return {"embedding": self.embed_texts(texts)}

    @graph_function(input_signature=[TEXTS_A_SPEC, TEXTS_B_SPEC])
    def score(self, texts_a, texts_b):
        u, v = self.embed_texts(texts_a), self.embed_texts(texts_b)
        return {"scores": tf.cast(self._model.head([u, v], training=False), tf.float32)}


def save_module(module, signatures, path, version, overwrite, warmup_name):
    """Saves `module` with `signatures` at `path/<version>/` atomically (and its TF Serving warmup requests for
    `warmup_name`); returns the folder."""
    target = version_folder(path, version, overwrite)
    with replaced_folder(target, SAVED_MODEL_KIND, overwrite) as staging:
        tf.saved_model.save(module, staging, signatures=signatures)
        if warmup_name is not None:
            write_warmup_requests(staging, warmup_name, signatures)
    return target


def export_cross_encoder(model, path, version=1, overwrite=False, warmup_name=None):
    """Writes a cross-encoder SavedModel at `path/<version>/` (atomically); returns it.
    `warmup_name`: also write TF Serving warmup requests for that served model name."""
    if model.tokenizer is None:
        raise ValueError(f"{model.name} has no tokenizer, so it cannot take raw strings.")
    module = CrossEncoderModule(model)
    return save_module(module, {"serving_default": module.serve}, path, version, overwrite, warmup_name)


def export_dse(model, path, version=1, overwrite=False, warmup_name=None):
    """Writes a DSE SavedModel (`serving_default` embeddings, `score` pairs); returns it."""
    module = DSEModule(model)
    signatures = {"serving_default": module.serve, "score": module.score}
    return save_module(module, signatures, path, version, overwrite, warmup_name)

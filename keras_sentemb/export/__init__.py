"""Export: SavedModels in TF Serving layout (raw strings in; embeddings, codes, scores out),
bundles of several models with their `models.config` and warmup requests, and OpenVINO IRs
at float32 / bfloat16 / int8 (`export_openvino`), and LiteRT files for devices with the tokenizer inside
(`export_litert`); sparse encoders (SPLADE) as SavedModels of (indices, values) and an inference-free model's
query side as a SavedModel or a LiteRT file (`export_sparse_encoder`, `export_static_query_encoder`,
`export_static_query_litert`); multi-vector (ColBERT) encoders as one SavedModel a side of token vectors
(`export_multi_vector_encoder`)."""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.export.litert_export import export_litert
from keras_sentemb.export.litert_sparse_query import export_static_query_litert
from keras_sentemb.export.multi_vector_export import export_multi_vector_encoder
from keras_sentemb.export.openvino_export import export_openvino
from keras_sentemb.export.saved_model_export import export_saved_model
from keras_sentemb.export.serving_bundle import export_serving_bundle, models_config_text
from keras_sentemb.export.serving_export import SentenceEmbeddingModule, export_for_serving
from keras_sentemb.export.serving_warmup import read_warmup_requests, write_warmup_requests
from keras_sentemb.export.sparse_model_export import export_sparse_encoder, export_static_query_encoder
from keras_sentemb.runtime.litert_metadata import read_litert_metadata

__all__ = [
    "SentenceEmbeddingModule",
    "export_for_serving",
    "export_litert",
    "export_multi_vector_encoder",
    "export_openvino",
    "export_saved_model",
    "export_serving_bundle",
    "export_sparse_encoder",
    "export_static_query_encoder",
    "export_static_query_litert",
    "models_config_text",
    "read_litert_metadata",
    "read_warmup_requests",
    "write_warmup_requests",
]

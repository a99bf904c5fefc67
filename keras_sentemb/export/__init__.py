"""Export: SavedModels in TF Serving layout (raw strings in; embeddings, codes, scores out)."""

from keras_sentemb.export.saved_model_export import export_saved_model
from keras_sentemb.export.serving_export import SentenceEmbeddingModule, export_for_serving

__all__ = ["SentenceEmbeddingModule", "export_for_serving", "export_saved_model"]

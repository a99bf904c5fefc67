"""Export: SavedModels in TF Serving layout (strings in; embeddings out)."""

from keras_sentemb.export.serving_export import SentenceEmbeddingModule, export_for_serving

__all__ = ["SentenceEmbeddingModule", "export_for_serving"]

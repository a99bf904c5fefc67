"""Bulk embedding on Apache Beam (needs `pip install "./keras-sentemb[beam]"`).

    keras-sentemb embed-corpus serving/minilm/1 "corpus/*.txt" -o out/corpus         # DirectRunner
    keras-sentemb embed-corpus gs://b/minilm/1 "gs://b/corpus/*.txt" -o gs://b/out/corpus \\
        --runner=DataflowRunner --project=P --region=R --temp_location=gs://b/tmp

`EmbedCorpus` is the PTransform, `run_embed_corpus` runs it, `read_embedding_records`
reads the shards back as NumPy arrays.
"""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
from keras_sentemb.beam.corpus_lines import ReadCorpusLines, numbered_lines
from keras_sentemb.beam.embed_corpus import EmbedCorpus, run_embed_corpus
from keras_sentemb.beam.embedding_records import read_embedding_records
from keras_sentemb.beam.saved_model_handler import SavedModelEmbeddingHandler, embed_texts

__all__ = [
    "EmbedCorpus",
    "ReadCorpusLines",
    "SavedModelEmbeddingHandler",
    "embed_texts",
    "numbered_lines",
    "read_embedding_records",
    "run_embed_corpus",
]

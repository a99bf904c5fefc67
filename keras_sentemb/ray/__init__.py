"""Bulk embedding on Ray Data (needs `pip install "./keras-sentemb[ray]"`).

import ray.data
from keras_sentemb.ray import EmbedBatches, embed_corpus
ds.map_batches(EmbedBatches, fn_constructor_args=("serving/minilm",),
               batch_size=256, batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=2))
embed_corpus("corpus/*.txt", "serving/minilm", "out/vectors")     # files → Parquet, counts checked
"""

from keras_sentemb.ray.corpus_job import embed_corpus
from keras_sentemb.ray.embed_batches import EmbedBatches

__all__ = ["EmbedBatches", "embed_corpus"]

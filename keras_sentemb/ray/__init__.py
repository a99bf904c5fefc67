"""Bulk embedding on Ray Data (needs `pip install "./keras-sentemb[ray]"`).

import ray.data
from keras_sentemb.ray import EmbedBatches, embed_corpus
ds.map_batches(EmbedBatches, fn_constructor_args=("serving/minilm",),
               batch_size=256, batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=2))
embed_corpus("corpus/*.txt", "serving/minilm", "out/vectors")     # files → Parquet, counts checked

And the HTTP server of `keras-sentemb serve` on Ray Serve:

from ray import serve
serve.run(embedding_server("minilm-l6", num_replicas=2), route_prefix="/")
"""

from keras_sentemb.ray.corpus_job import embed_corpus
from keras_sentemb.ray.embed_batches import EmbedBatches
from keras_sentemb.ray.serve_deployment import embedding_server

__all__ = ["EmbedBatches", "embed_corpus", "embedding_server"]

"""Bulk embedding on Ray Data (needs `pip install "./keras-sentemb[ray]"`).

import ray.data
from keras_sentemb.ray import EmbedBatches, embed_corpus
ds.map_batches(EmbedBatches, fn_constructor_args=("serving/minilm",),
               batch_size=256, batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=2))
embed_corpus("corpus/*.txt", "serving/minilm", "out/vectors")     # files → Parquet, counts checked

And the HTTP server of `keras-sentemb serve` on Ray Serve:

from ray import serve
serve.run(embedding_server("minilm-l6", num_replicas=2), route_prefix="/")

The names are imported when first used: a Ray Serve replica of an exported OpenVINO folder imports
`serve_deployment` alone, never the bulk jobs' TensorFlow.
"""

from keras_sentemb.utils.lazy_names import lazy_names

__all__ = ["EmbedBatches", "embed_corpus", "embedding_server"]
__getattr__ = lazy_names(
    __name__,
    {
        "EmbedBatches": "keras_sentemb.ray.embed_batches",
        "embed_corpus": "keras_sentemb.ray.corpus_job",
        "embedding_server": "keras_sentemb.ray.serve_deployment",
    },
)

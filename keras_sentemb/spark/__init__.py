"""Bulk embedding on Apache Spark (needs `pip install "./keras-sentemb[spark]"`: PySpark ≥ 3.5 and a
Java 17 runtime).

    from keras_sentemb.spark import embed_dataframe, embed_corpus
    embedded = embed_dataframe(df, "text", "serving/minilm")          # + an `embedding` column
    embed_corpus("corpus/*.txt", "serving/minilm", "out/vectors")       # files → Parquet, counts checked

The model runs inside Spark ML's `predict_batch_udf`, loaded once per Python worker;
`make_predict_fn` is the function to hand it directly. An exported SavedModel runs on
TensorFlow; an `export_openvino` folder (e.g. int8) runs on OpenVINO.
"""

from keras_sentemb.spark.corpus_job import embed_corpus
from keras_sentemb.spark.embed_dataframe import embed_dataframe, embedding_udf
from keras_sentemb.spark.hadoop_filesystem import HadoopFileSystem
from keras_sentemb.spark.predict_fn import make_predict_fn

__all__ = ["HadoopFileSystem", "embed_corpus", "embed_dataframe", "embedding_udf", "make_predict_fn"]

"""The Hadoop FileSystem of a Spark session (HDFS, S3A, GCS, ABFS, DBFS, local), as
`bulk.published_output` uses it: exists, rename, delete, write_text, glob."""


class HadoopFileSystem:
    """Spark's own view of a path's filesystem, through the JVM gateway of `spark`.

    Example:
    (Not run as a doctest: it needs a Spark session.)
        fs = HadoopFileSystem(spark, "hdfs://nn/out")
        fs.exists("hdfs://nn/out/part-00000.parquet")
    """

    def __init__(self, spark, uri):
        jvm = spark.sparkContext._jvm
        self._path = jvm.org.apache.hadoop.fs.Path
        self._fs = self._path(uri).getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())

    def exists(self, path):
        return bool(self._fs.exists(self._path(path)))

    def rename(self, source, target):
        if not self._fs.rename(self._path(source), self._path(target)):
            raise OSError(f"could not rename {source} to {target}")

    def delete(self, path):
        self._fs.delete(self._path(path), True)

    def write_text(self, path, text):
        stream = self._fs.create(self._path(path), False)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()

    def glob(self, pattern):
        """Paths (as Spark names them) of the files matching `pattern`."""
        found = self._fs.globStatus(self._path(pattern)) or []
        return sorted(str(status.getPath()) for status in found if status.isFile())

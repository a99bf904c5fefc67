"""A URI's filesystem through pyarrow (S3, GCS, HDFS, `file://`), as `published_output` uses it."""

import pyarrow.fs


class ArrowFileSystem:
    """pyarrow's filesystem of `uri`: exists, rename, delete (a folder), write_text.

    Example:
        >>> fs = ArrowFileSystem("file:///tmp")
        >>> fs.exists("file:///no/such/folder")
        False
    """

    def __init__(self, uri):
        self.arrow, _ = pyarrow.fs.FileSystem.from_uri(uri)

    @staticmethod
    def path_of(uri):
        """The path inside its filesystem of `uri` (`s3://b/k` → `b/k`)."""
        return pyarrow.fs.FileSystem.from_uri(uri)[1]

    def exists(self, path):
        return self.arrow.get_file_info(self.path_of(path)).type != pyarrow.fs.FileType.NotFound

    def rename(self, source, target):
        self.arrow.move(self.path_of(source), self.path_of(target))

    def delete(self, path):
        self.arrow.delete_dir(self.path_of(path))

    def write_text(self, path, text):
        with self.arrow.open_output_stream(self.path_of(path)) as f:
            f.write(text.encode("utf-8"))

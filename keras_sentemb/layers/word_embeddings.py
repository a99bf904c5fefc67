"""WordEmbeddings: K frozen (or trainable) word-vector tables looked up by word id."""

import keras
import numpy as np
from keras import ops


@keras.saving.register_keras_serializable(package="keras_sentemb")
class WordEmbeddings(keras.layers.Layer):
    """Looks word ids up in K tables: E^k = T_k[ids], one [batch, T, d_k] tensor per table.

    Row 0 is padding and row 1 the out-of-vocabulary word (`WordTokenizer` ids). The
    tables are frozen by default (InferLite keeps its unit-normalised GloVe vectors
    fixed); `trainable_tables=True`, or `layer.trainable = True` later, fine-tunes them.

    Args:
        table_shapes: {name: (rows, dims)} in order; the values are set with `tables` or
            loaded with the weights.
        tables: optional {name: float array [rows, dims]} initial values.
        trainable_tables: train the tables too.

    Input: int ids [batch, T]. Output: a list of K float tensors [batch, T, d_k] in the
    order of `table_shapes`; `concatenated(ids)` gives one [batch, T, Σ d_k] tensor.

    Example:
    >>> import numpy as np
    >>> layer = WordEmbeddings({"glove": (4, 2)}, tables={"glove": np.eye(4, 2)})
    >>> layer(np.array([[2, 0]]))[0].numpy().tolist()
    [[[0.0, 0.0], [1.0, 0.0]]]
    """

    def __init__(self, table_shapes, tables=None, trainable_tables=False, **kwargs):
        # The tables are trainable variables of a layer that is frozen unless asked
        # otherwise: `layer.trainable = True` can then unfreeze them (a variable created
        # non-trainable would never get a gradient). A saved `trainable` wins.
        kwargs.setdefault("trainable", bool(trainable_tables))
        super().__init__(**kwargs)
        self.table_shapes = {str(name): tuple(int(n) for n in shape) for name, shape in dict(table_shapes).items()}
        if not self.table_shapes:
            raise ValueError("WordEmbeddings needs at least one table")
        rows = {shape[0] for shape in self.table_shapes.values()}
        if len(rows) != 1 or any(len(s) != 2 or min(s) < 1 for s in self.table_shapes.values()):
            raise ValueError(f"every table must be [rows, dims] with the same rows, got {self.table_shapes}")
        self.trainable_tables = bool(trainable_tables)
        tables = dict(tables or {})
        unknown = set(tables) - set(self.table_shapes)
        if unknown:
            raise ValueError(f"values given for unknown tables {sorted(unknown)}")
        self.tables = []
        for name, shape in self.table_shapes.items():
            initial = "zeros"
            if name in tables:
                value = np.asarray(tables[name], dtype=np.float32)
                if value.shape != shape:
                    raise ValueError(f"table {name!r}: expected shape {shape}, got {value.shape}")
                initial = keras.initializers.Constant(value)
            self.tables.append(
                self.add_weight(
                    name=f"{name}_table",
                    shape=shape,
                    initializer=initial,
                    trainable=True,
                    dtype="float32",
                )
            )
        self.built = True

    @property
    def vocabulary_size(self):
        return next(iter(self.table_shapes.values()))[0]

    def call(self, ids):
        ids = ops.cast(ids, "int32")
        return [ops.cast(ops.take(table, ids, axis=0), self.compute_dtype) for table in self.tables]

    def concatenated(self, ids):
        """All tables side by side: [batch, T, Σ d_k]."""
        return ops.concatenate(self(ids), axis=-1)

    def compute_output_shape(self, input_shape):
        return [tuple(input_shape) + (shape[1],) for shape in self.table_shapes.values()]

    def get_config(self):
        config = super().get_config()
        config.update(
            table_shapes={name: list(shape) for name, shape in self.table_shapes.items()},
            trainable_tables=self.trainable_tables,
        )
        return config

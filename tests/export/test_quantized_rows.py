"""QuantizedRows, the LiteRT token table: rows gathered in graph ops equal `dequantize_rows`, and an
encoding it has no graph ops for is refused by name."""

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.export.quantized_rows import QuantizedRows
from keras_sentemb.utils.row_quantization import dequantize_rows, quantize_rows


@pytest.mark.parametrize("encoding", ["int8-rows", "int4-rows"])
def test_gathered_rows_are_the_dequantised_rows(encoding):
    table = np.random.default_rng(0).normal(size=(12, 6)).astype(np.float32)
    ids = tf.constant([[3, 0], [11, 3]])
    expected = dequantize_rows(*quantize_rows(table, encoding), encoding, columns=6)[ids.numpy()]
    np.testing.assert_array_equal(QuantizedRows(table, encoding).gather(ids).numpy(), expected)


def test_an_encoding_without_graph_ops_is_refused():
    with pytest.raises(ValueError, match='QuantizedRows reads "int8-rows" or "int4-rows" tables, got \'int6-rows\''):
        QuantizedRows(np.ones((2, 4), np.float32), "int6-rows")

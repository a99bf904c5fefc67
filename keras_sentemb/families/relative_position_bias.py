"""RelativePositionBias: the bucketed relative position bias of T5, as MPNet shares it across layers.

Every pair of positions (i, j) of a sequence gets one learned scalar per attention head, looked up by
the bucket of the relative distance n = i − j (Raffel et al. 2020, §2.1; Song et al. 2020, MPNet):

    half     = B / 2,   exact = half / 2
    bucket(n) = half·[n < 0] + |n|                                          if |n| < exact
              = half·[n < 0] + min(exact + ⌊log(|n|/exact) / log(D/exact) · (half − exact)⌋, half − 1)
                                                                             otherwise

with B buckets and a maximum distance D (MPNet: B = 32, D = 128). The bucket of every distance a
model can see is computed once, in NumPy and in float32 as the reference implementation does (the
floor of a float32 logarithm, so the boundaries fall where Hugging Face's do), and kept as a
constant table; the layer gathers from it, which is all TensorFlow, TF Serving and OpenVINO run.

Example:
>>> relative_position_buckets(5, num_buckets=32, max_distance=128)[2].tolist()  # n = i − j for i = 2
[2, 1, 0, 17, 18]
>>> bias = RelativePositionBias(num_buckets=32, num_heads=2, max_distance=128, max_length=16)
>>> tuple(bias(keras.ops.zeros((1, 7, 8))).shape)
(1, 2, 7, 7)
"""

import keras
import numpy as np
from keras import ops


def distance_buckets(relative_positions, num_buckets, max_distance):
    """The bucket of each relative position j − i (int array; j attended, i attending), T5's
    bidirectional rule on n = i − j (see the module docstring), in float32 like the reference."""
    n = -np.asarray(relative_positions, dtype=np.int64)
    half = num_buckets // 2
    exact = half // 2
    bucket = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    # log(0) is never used (|n| < exact there): 1 stands in for it.
    scaled = np.log(np.maximum(n, 1).astype(np.float32) / np.float32(exact)) / np.float32(np.log(max_distance / exact))
    large = exact + (scaled * np.float32(half - exact)).astype(np.int64, copy=False)
    large = np.minimum(large, half - 1)
    return bucket + np.where(n < exact, n, large)


def relative_position_buckets(length, num_buckets, max_distance):
    """[length, length] int32: the bucket of (i, j), i the attending (query) position."""
    positions = np.arange(length)
    return distance_buckets(positions[None, :] - positions[:, None], num_buckets, max_distance).astype(np.int32)


@keras.saving.register_keras_serializable(package="keras_sentemb")
class RelativePositionBias(keras.layers.Layer):
    """The additive attention bias [1, heads, T, T] of a sequence [batch, T, …] (see the module
    docstring): `embeddings[bucket(i − j)]`, one [num_buckets, num_heads] table shared by all layers.

    Args:
        num_buckets: B, the number of distance buckets (half for each direction).
        num_heads: attention heads (one bias each).
        max_distance: D, the distance from which all pairs share the last bucket.
        max_length: the longest sequence the table of buckets covers.
    """

    def __init__(self, num_buckets, num_heads, max_distance, max_length, **kwargs):
        super().__init__(**kwargs)
        self.num_buckets = int(num_buckets)
        self.num_heads = int(num_heads)
        self.max_distance = int(max_distance)
        self.max_length = int(max_length)
        # The bucket of j − i at index j − i + max_length − 1.
        self._distance_buckets = distance_buckets(
            np.arange(-(self.max_length - 1), self.max_length), self.num_buckets, self.max_distance
        ).astype("int32")

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            name="embeddings",
            shape=(self.num_buckets, self.num_heads),
            initializer=keras.initializers.TruncatedNormal(stddev=0.02),
        )

    def call(self, sequence):
        return self.of_length(ops.shape(sequence)[1])

    def of_length(self, length):
        """The bias [1, heads, length, length] of any sequence of `length` positions (a graph that
        runs texts without padding takes one per group of texts: `families.token_layouts.FlatTokens`)."""
        positions = ops.arange(length, dtype="int32")
        distance = positions[None, :] - positions[:, None] + (self.max_length - 1)
        buckets = ops.take(ops.convert_to_tensor(self._distance_buckets), distance, axis=0)
        bias = ops.take(self.embeddings, buckets, axis=0)  # [T, T, heads]
        return ops.transpose(bias, (2, 0, 1))[None]

    def compute_output_shape(self, input_shape):
        return (1, self.num_heads, input_shape[1], input_shape[1])

    def get_config(self):
        return {
            **super().get_config(),
            "num_buckets": self.num_buckets,
            "num_heads": self.num_heads,
            "max_distance": self.max_distance,
            "max_length": self.max_length,
        }

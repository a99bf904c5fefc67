"""`graph_function`: `tf.function` without AutoGraph, for the functions that serve a model.

AutoGraph rewrites the Python source of every function a `tf.function` calls (Keras layers, our
tokenizers, pooling, the families' math) so that Python `if`/`for`/`while` over tensors become graph
control flow. These functions have none: they are written with TensorFlow's own control flow
(`tf.cond`, `tf.while_loop`, ragged and masked ops), as the tokenizers' graphs always were
(`autograph=False` there). So the rewrite finds nothing to change, and costs a third of the tracing:
a tiny MPNet's raw-string SavedModel exported in 10.5 s instead of 15.5 s, a tiny Gemma 3's in 17.0 s
instead of 20.2 s, the same vectors (2 cores, AVX2-only AMD EPYC). A Python `if` on a tensor is then
an error at tracing ("using a tf.Tensor as a Python bool"), never a silently different graph.

Example:

>>> import tensorflow as tf
>>> double = graph_function(lambda x: 2 * x, input_signature=[tf.TensorSpec([None], tf.float32)])
>>> double(tf.constant([1.0, 2.0])).numpy().tolist()
[2.0, 4.0]
"""

import tensorflow as tf


def graph_function(function=None, *, input_signature):
    """`tf.function(function, input_signature=input_signature, autograph=False)`; without `function`,
    the decorator."""
    if function is None:
        return lambda decorated: graph_function(decorated, input_signature=input_signature)
    return tf.function(function, input_signature=input_signature, autograph=False)

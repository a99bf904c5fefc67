"""Building a Keras model whose every weight is assigned right after, without paying for its
initialisers: random truncated-normal kernels cost 2 of the 3 s it takes to build MPNet's
110 M parameters on 2 cores, only to be overwritten by the checkpoint.

Inside `initializers_skipped()`, `Layer.add_weight` gives every weight the "zeros" initialiser,
in the calling thread only (other threads build as usual). The caller must then assign every
weight: `keras_sentemb.zoo.model_artifact.load_artifact` checks that it did.

Example:
    >>> import keras
    >>> with initializers_skipped():
    ...     layer = keras.layers.Dense(3, kernel_initializer="ones")
    ...     layer.build((None, 2))
    >>> float(abs(layer.kernel.numpy()).sum())
    0.0
    >>> layer = keras.layers.Dense(3, kernel_initializer="ones"); layer.build((None, 2))
    >>> float(layer.kernel.numpy().sum())
    6.0
"""

import contextlib
import functools
import threading

import keras

_state = threading.local()
_installed = []


def _install():
    """Wraps `keras.layers.Layer.add_weight` once; the wrapper changes nothing unless the calling
    thread is inside `initializers_skipped()`."""
    if _installed:
        return
    original = keras.layers.Layer.add_weight

    @functools.wraps(original)
    def add_weight(self, *args, **kwargs):
        if getattr(_state, "depth", 0):
            if len(args) >= 2:  # add_weight(shape, initializer, ...)
                args = (args[0], "zeros", *args[2:])
            else:
                kwargs["initializer"] = "zeros"
        return original(self, *args, **kwargs)

    keras.layers.Layer.add_weight = add_weight
    _installed.append(original)


@contextlib.contextmanager
def initializers_skipped():
    """Weights created by `add_weight` in this thread, inside the block, start as zeros."""
    _install()
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1

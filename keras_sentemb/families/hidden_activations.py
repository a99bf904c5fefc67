"""The Keras activation of a Hugging Face `hidden_act`, computed as Hugging Face computes it.

Hugging Face's "gelu" is the exact GELU, x·Φ(x) = ½x(1 + erf(x/√2)); "gelu_new" and
"gelu_pytorch_tanh" are the tanh approximation ½x(1 + tanh(√(2/π)(x + 0.044715x³))), which
keras-hub's BERT uses whatever the config says (2.6e-4 from sentence-transformers' vectors on
all-MiniLM-L6-v2; with the exact GELU the difference is float round-off).

>>> [hidden_activation(name).__name__ for name in ("gelu", "gelu_new", "relu")]
['gelu', 'gelu_approximate', 'relu']
"""

import keras
from keras_hub.src.utils.keras_utils import gelu_approximate

HIDDEN_ACTIVATIONS = {
    "gelu": keras.activations.gelu,  # approximate=False: erf
    "gelu_new": gelu_approximate,
    "gelu_pytorch_tanh": gelu_approximate,
    "relu": keras.activations.relu,
    "silu": keras.activations.silu,
    "swish": keras.activations.silu,
}


def hidden_activation(name):
    """The Keras function for Hugging Face's `hidden_act` `name`; ValueError for one we do not compute."""
    try:
        return HIDDEN_ACTIVATIONS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"hidden_act {name!r} is not supported; supported: {', '.join(sorted(HIDDEN_ACTIVATIONS))}"
        ) from None

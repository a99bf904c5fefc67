"""The Keras activation of a Hugging Face `hidden_act`, computed as Hugging Face computes it.

Hugging Face's "gelu" is the exact GELU, x·Φ(x) = ½x(1 + erf(x/√2)); "gelu_new" and
"gelu_pytorch_tanh" are the tanh approximation ½x(1 + tanh(√(2/π)(x + 0.044715x³))), which
keras-hub's BERT uses whatever the config says (2.6e-4 from sentence-transformers' vectors on
all-MiniLM-L6-v2; with the exact GELU the difference is float round-off).

>>> [hidden_activation(name).__name__ for name in ("gelu", "gelu_new", "relu")]
['gelu', 'gelu_approximate', 'relu']
"""

import keras
import keras_hub  # noqa: F401  (registers "keras_hub>gelu_approximate")

# keras-hub's own function, which its BERT layers save by this registered name, found through Keras' registry
# (keras-hub does not export it).
gelu_approximate = keras.saving.get_registered_object("keras_hub>gelu_approximate")
if gelu_approximate is None:  # pragma: no cover - a keras-hub release without it
    raise ImportError("keras-hub registers no 'keras_hub>gelu_approximate': keras-sentemb needs keras-hub 0.31 or 0.32")

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

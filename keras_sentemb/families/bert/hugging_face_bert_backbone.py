"""HuggingFaceBertBackbone: keras-hub's `BertBackbone` with the feed-forward activation its config names.

keras-hub's BERT always uses the tanh-approximated GELU; Hugging Face's BERT computes its config's
`hidden_act`, and "gelu" there is the exact (erf) GELU (`hidden_activations`). This subclass takes
`hidden_act` (default "gelu") and sets it on every block, so a BERT checkpoint computes what its
config says; everything else (weights, layer names, `bert_layer_states`, LoRA) is keras-hub's.

Example:
>>> backbone = HuggingFaceBertBackbone(vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8,
...                                    intermediate_dim=16, max_sequence_length=12)
>>> backbone.hidden_act
'gelu'
"""

import keras
import keras_hub

from keras_sentemb.families.hidden_activations import hidden_activation
from keras_sentemb.families.keras_hub_adapter import set_feedforward_activation


@keras.saving.register_keras_serializable(package="keras_sentemb")
class HuggingFaceBertBackbone(keras_hub.models.BertBackbone):
    """keras-hub's `BertBackbone` computing `hidden_act` (see the module docstring).

    Args:
        hidden_act: Hugging Face's name of the feed-forward activation ("gelu", "gelu_new", "relu" …).
        **kwargs: `keras_hub.models.BertBackbone`'s arguments.
    """

    def __init__(self, *args, hidden_act="gelu", **kwargs):
        super().__init__(*args, **kwargs)
        self.use_hidden_act(hidden_act)

    def use_hidden_act(self, hidden_act):
        """Computes Hugging Face's `hidden_act` in every block from now on (before the first trace)."""
        activation = hidden_activation(hidden_act)
        self.hidden_act = hidden_act
        for block in self.transformer_layers:
            # The functional graph calls each block's layers anew, so the activation set here is
            # the one every call (and every trace, SavedModel and OpenVINO graph) computes.
            set_feedforward_activation(block, activation)

    def get_config(self):
        return {**super().get_config(), "hidden_act": self.hidden_act}

"""FamilyInference: what a model over a family's backbone offers the graphs that run it through the family's own
inference math (the unpadded SavedModel, the fused OpenVINO graph): the family, and its merged Q, K, V weights."""

import tensorflow as tf

from keras_sentemb.families.registry import family_computing


class FamilyInference:
    """Mixed into a Keras model with a `backbone` (`SentenceEncoder`, `SparseEncoder`)."""

    def inference_family(self):
        """The `Family` whose inference math computes this model's backbone, or None."""
        return family_computing(self.backbone)

    def supports_unpadded(self):
        """Whether `embed_unpadded` can run this model: a backbone its family's inference math computes
        (every family, float32, unquantised)."""
        return self.inference_family() is not None

    def _require_family(self):
        family = self.inference_family()
        if family is None:
            raise ValueError(
                f"{self.name}: unpadded inference needs a float32, unquantised backbone of a family "
                f"(keras_sentemb.families); {type(self.backbone).__name__} is not one"
            )
        return family

    def unpadded_projections(self):
        """Each block's Q, K, V projection as one `(kernel, bias)` of this moment's weights, for a graph that
        keeps them as variables and passes them to `embed_unpadded` (the SavedModel's); [] for a family that
        merges none."""
        family = self._require_family()
        return family.projections(self.backbone) if family.projections is not None else []

    def merged_projection_variables(self):
        """`unpadded_projections()` as [[kernel, bias] variables] a block, to be saved beside the model's weights by an
        exported module (each request then reads them instead of concatenating Q, K and V again; a copy of ~12 % of
        a MiniLM SavedModel)."""
        return [
            [tf.Variable(tensor, trainable=False, name=name) for tensor, name in zip(pair, ("qkv_kernel", "qkv_bias"))]
            for pair in self.unpadded_projections()
        ]


def read_projection_variables(variables):
    """The tensors of `merged_projection_variables()`' variables, as `embed_unpadded` takes them."""
    return [[tf.convert_to_tensor(v) for v in pair] for pair in variables]

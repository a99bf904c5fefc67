"""InferLite: K frozen word-embedding types fused by GatedConvFusion into a sentence vector."""

import keras

from keras_sentemb.layers.gated_conv_fusion import GatedConvFusion
from keras_sentemb.layers.pair_feature_head import PairFeatureHead
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.models.word_encoder import WordEncoder, checked_word_embeddings, word_inputs


@keras.saving.register_keras_serializable(package="keras_sentemb")
class InferLite(WordEncoder, PipelineTraining, keras.Model):
    """A fast sentence encoder: s = GatedConvFusion(T_1[ids], …, T_K[ids]) (Kiros & Chan 2018).

    Word ids (a `WordTokenizer`) are looked up in K frozen tables (`WordEmbeddings`, e.g.
    unit GloVe and per-word MiniLM vectors, see `keras_sentemb.pretrained.word_vectors`);
    per type an encoder of M convolutions, a shared controller and per-type gates fuse
    them, and the fused token states are max-pooled over the real words:

        F = ReLU(W_f (Σ_k H_M^k ⊙ G_M^k + G_0^c) + b_f),    s = max_t F_t.

    Inputs `{"token_ids", "padding_mask"}` int32 [batch, T]; output float32 [batch,
    output_units], or [batch, projection_dim] with a projection.
    `encode(texts)` embeds raw strings; `keras_sentemb.export.export_saved_model` writes a
    strings-in SavedModel.
    Train it with `SBERT(inferlite, "classification", head=InferLite.nli_head())` on NLI,
    and/or distil a teacher with `SRALoss` (see examples/train_inferlite.py).

    Args:
        tokenizer: the `WordTokenizer` whose ids index the tables.
        table_shapes: {type: (rows, dims)} of the embedding tables (values come with
            `tables`, or with the saved weights).
        tables: optional {type: array} values (see `from_word_vectors`).
        units, output_units, num_layers, filter_length: `GatedConvFusion`'s.
        projection_dim: when set, the embedding is W_p s (linear, no bias, this many
            dims): the space a teacher is distilled into with `SRALoss` (s ≥ 0 after the
            ReLU and max-pool, so it cannot point where a teacher's signed vector does).

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        vectors = build_word_vectors(top_n=100_000)
        model = InferLite.from_word_vectors(vectors, units=512)
        model.encode(["A cat sits on the mat."]).shape
        # -> (1, 512)
    """

    def __init__(
        self,
        tokenizer,
        table_shapes,
        tables=None,
        units=512,
        output_units=None,
        num_layers=2,
        filter_length=1,
        projection_dim=None,
        **kwargs,
    ):
        embeddings = checked_word_embeddings(tokenizer, table_shapes, tables)
        fusion = GatedConvFusion(
            units,
            output_units=output_units,
            num_layers=num_layers,
            filter_length=filter_length,
            name="gated_conv_fusion",
        )
        token_ids, padding_mask = word_inputs()
        sentence = fusion(embeddings(token_ids), padding_mask=padding_mask)
        if projection_dim is not None:
            sentence = keras.layers.Dense(projection_dim, use_bias=False, name="projection")(sentence)
        super().__init__(inputs={"token_ids": token_ids, "padding_mask": padding_mask}, outputs=sentence, **kwargs)
        self.keep_word_parts(tokenizer, embeddings)
        self.fusion = fusion
        self.units = units
        self.output_units = output_units
        self.num_layers = num_layers
        self.filter_length = filter_length
        self.projection_dim = projection_dim

    @staticmethod
    def nli_head(hidden_units=(512, 512), num_classes=3, dropout=0.0):
        """InferLite's NLI classifier: 2 hidden ReLU layers over [u, v, |u − v|, u ∘ v],
        then `num_classes` logits (softmax in the loss)."""
        return PairFeatureHead(
            num_classes, ("u", "v", "abs_diff", "product"), hidden_units=hidden_units, dropout=dropout, name="nli_head"
        )

    def gates(self, inputs):
        """The K gate tensors G_M^k [batch, T, units] for `{"token_ids", "padding_mask"}`."""
        embeddings = self.word_embeddings(inputs["token_ids"])
        return self.fusion.token_states(embeddings, padding_mask=inputs["padding_mask"])[1]

    def get_config(self):
        return {
            **self.word_config(),
            "units": self.units,
            "output_units": self.output_units,
            "num_layers": self.num_layers,
            "filter_length": self.filter_length,
            "projection_dim": self.projection_dim,
        }

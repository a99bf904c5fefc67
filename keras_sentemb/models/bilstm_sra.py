"""BiLSTM-SRA: a BiLSTM over frozen word vectors, trained to point where a teacher points."""

import keras

from keras_sentemb.layers.siamese_pooler import SiamesePooler
from keras_sentemb.models.pipeline_training import PipelineTraining
from keras_sentemb.models.word_encoder import WordEncoder, checked_word_embeddings, word_inputs

POOLINGS = ("max", "mean")


@keras.saving.register_keras_serializable(package="keras_sentemb")
class BiLSTMSRA(WordEncoder, PipelineTraining, keras.Model):
    """Sentence representation approximation: S_x = tanh(W · pool_t BiLSTM(E[ids])_t).

    Word ids (a `WordTokenizer`) → the frozen tables concatenated (`WordEmbeddings`) →
    a bidirectional LSTM (`units` per direction, padded steps skipped by the mask) →
    max (default) or mean pooling over the real words → Dense(teacher_dim, no bias) →
    tanh. Trained with `SRALoss` = ½(1 − cos(T_x, S_x)) against a teacher's cached
    sentence vectors T_x on unlabeled sentences, it is a cheap stand-in for the teacher:
    compare its vectors with cosine, as the teacher's.

    Inputs `{"token_ids", "padding_mask"}` int32 [batch, T]; output float32
    [batch, teacher_dim]. `encode` as every encoder of the package; fine-tune
    with `SentenceClassifier` (one sentence) or `SBERT(..., head=PairFeatureHead(...,
    ("u", "v", "abs_diff", "product"), hidden_units=...))` (pairs).

    Args:
        tokenizer: the `WordTokenizer` whose ids index the tables.
        table_shapes / tables: the embedding tables (see `InferLite`).
        teacher_dim: the teacher's vector size (384 for MiniLM).
        units: LSTM units per direction.
        pooling: "max" or "mean" over the BiLSTM states of the real words.

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; the tests run the same calls.)
        model = BiLSTMSRA.from_word_vectors(build_word_vectors(), teacher_dim=384)
        model.compile(optimizer="adam", loss=SRALoss())
        model.fit(sentence_targets_dataset(sentences, teacher_vectors, model.tokenizer))
    """

    def __init__(self, tokenizer, table_shapes, tables=None, teacher_dim=384, units=256, pooling="max", **kwargs):
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        embeddings = checked_word_embeddings(tokenizer, table_shapes, tables)
        token_ids, padding_mask = word_inputs()
        words = embeddings.concatenated(token_ids)
        mask = keras.ops.cast(padding_mask, "bool")
        bilstm = keras.layers.Bidirectional(keras.layers.LSTM(units, return_sequences=True), name="bilstm")
        states = bilstm(words, mask=mask)
        pooled = SiamesePooler(pooling, name="pooler")(states, padding_mask=padding_mask)
        vector = keras.layers.Dense(teacher_dim, use_bias=False, activation="tanh", name="projection")(pooled)
        super().__init__(inputs={"token_ids": token_ids, "padding_mask": padding_mask}, outputs=vector, **kwargs)
        self.keep_word_parts(tokenizer, embeddings)
        self.teacher_dim = teacher_dim
        self.units = units
        self.pooling = pooling

    def get_config(self):
        return {
            **self.word_config(),
            "teacher_dim": self.teacher_dim,
            "units": self.units,
            "pooling": self.pooling,
        }

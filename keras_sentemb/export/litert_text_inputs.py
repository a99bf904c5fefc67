"""LiteRTWordPieceInputs: raw strings to packed word-piece ids in ops that LiteRT runs (TF Text's
LiteRT kernels and builtin ops only), for a `SentenceTokenizer` model."""

from __future__ import annotations

import tensorflow as tf
import tensorflow_text as tf_text
from tokenizers import normalizers, pre_tokenizers

from keras_sentemb.export.litert_normalizer import hugging_face_bert_normalizer_model
from keras_sentemb.tokenizers.sentence_tokenizer import MAX_WORD_CHARS, SentenceTokenizer

# The custom ops a file with the tokenizer inside holds: each has a kernel in TF Text's LiteRT registrar
# (`tensorflow_text.tflite_registrar`, e.g. `AddFastBertNormalize`), which an app registers.
TOKENIZER_CUSTOM_OPS = ("FastBertNormalize", "FastWordpieceTokenizeWithOffsets", "RaggedTensorToTensor")


def litert_tokenizer_problem(tokenizer) -> str | None:
    """Why `tokenizer` cannot go inside a LiteRT file, or None when it can.

    TF Text has LiteRT kernels for BERT's normaliser and WordPiece (`FastBertNormalize`,
    `FastWordpieceTokenize`): a `SentenceTokenizer` goes inside. The byte-level BPE (RoBERTa) and
    Unigram (XLM-R) pipelines of this package and the word tokenizer of the GloVe models are TF ops
    (regular expressions, code-point tables) that LiteRT has no kernels for: their models export
    with the tokenizer outside (`export_litert(..., tokenizer="outside")`).
    """
    if tokenizer is None:
        return "the model has no tokenizer"
    if not isinstance(tokenizer, SentenceTokenizer):
        return (
            f"its tokenizer is a {type(tokenizer).__name__}, whose ops have no LiteRT kernels "
            "(only WordPiece models, SentenceTokenizer, take raw strings inside a LiteRT file)"
        )
    return None


def reachable_token_ids(tokenizer: SentenceTokenizer) -> list[int]:
    """The ids of the vocabulary entries that tokenising some text can give: the special tokens, and
    every entry ("##" removed) that the reference normaliser leaves as it is and its pre-tokeniser keeps
    as one word. The others ("[unused0]" … of BERT's vocabulary, entries with capitals or accents in an
    uncased one, "..." which is split at each ".") can never be produced, so a LiteRT file leaves their
    rows out (0.4 MB of all-MiniLM-L6-v2's int8 table).

    Example:
    >>> tokenizer = SentenceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", "the", "The", "..."])
    >>> reachable_token_ids(tokenizer)
    [0, 1, 2, 3, 4, 6]
    """
    normalizer = normalizers.BertNormalizer(
        clean_text=True,
        handle_chinese_chars=True,
        strip_accents=bool(tokenizer.strip_accents),
        lowercase=tokenizer.lowercase_text,
    )
    splitter = pre_tokenizers.BertPreTokenizer()
    special = {tokenizer.cls_token, tokenizer.sep_token, tokenizer.pad_token, tokenizer.mask_token, tokenizer.oov_token}
    kept = []
    for index, entry in enumerate(tokenizer.vocabulary):
        text = entry[len(tokenizer.suffix_indicator) :] if entry.startswith(tokenizer.suffix_indicator) else entry
        words = splitter.pre_tokenize_str(normalizer.normalize_str(text)) if text else []
        if entry in special or (len(words) == 1 and words[0][0] == text):
            kept.append(index)
    return kept


class LiteRTWordPieceInputs:
    """`{"token_ids", "padding_mask"}` int32 [N, T] for a 1-D `tf.string` batch, in LiteRT's ops.

    The pipeline is the model's `tokenizer.json` one, as LiteRT can run it:
    1. `FastBertNormalize` with a table built from Hugging Face's own `BertNormalizer`, code point by
       code point (`litert_normalizer`): control and format characters deleted, every space a space,
       lower-casing and accent stripping as the reference does them (not TF Text's NFKC case folding,
       which turns "ß" into "ss");
    2. `FastWordpieceTokenize` end to end: words split on spaces, punctuation and CJK ideographs, word
       pieces;
    3. a `prompt`'s ids (tokenised at export time) before the text's; `max_length - 2` content ids
       kept (the end of a long text is dropped, as sentence-transformers truncates);
    4. `cls ids sep`, padded with `pad` to the batch's longest row.

    With `kept_ids` (`reachable_token_ids`) the ids are positions in that pruned vocabulary.

    What differs from the SavedModel's tokenizer (documented in docs/on_device.md, measured by the
    tests on the hostile-text fixture): special tokens written in a text ("[SEP]") are read as text; a
    word is unknown past `MAX_WORD_CHARS` *bytes* (the reference counts characters).

    Example:
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "fox"]
    >>> inputs = LiteRTWordPieceInputs(SentenceTokenizer(vocab, max_length=8))
    >>> inputs(tf.constant(["The FOX", ""]))["token_ids"].numpy().tolist()
    [[2, 5, 6, 3], [2, 3, 0, 0]]
    """

    def __init__(self, tokenizer: SentenceTokenizer, prompt: str | None = None, kept_ids=None):
        problem = litert_tokenizer_problem(tokenizer)
        if problem is not None:
            raise ValueError(f"the tokenizer cannot go inside a LiteRT file: {problem}")
        self.tokenizer = tokenizer
        vocabulary = list(tokenizer.vocabulary)
        # Ids renumbered to the kept entries of a pruned vocabulary (`reachable_token_ids`), or the model's own.
        self.kept_ids = list(range(len(vocabulary))) if kept_ids is None else [int(i) for i in kept_ids]
        new_id = {old: new for new, old in enumerate(self.kept_ids)}
        self.normalizer = tf_text.FastBertNormalizer(
            model_buffer=hugging_face_bert_normalizer_model(
                tokenizer.lowercase_text, bool(tokenizer.strip_accents), tuple(vocabulary)
            )
        )
        self.word_piece = tf_text.FastWordpieceTokenizer(
            vocab=[vocabulary[i] for i in self.kept_ids],
            token_out_type=tf.int32,
            suffix_indicator=tokenizer.suffix_indicator,
            unknown_token=tokenizer.oov_token,
            max_bytes_per_word=MAX_WORD_CHARS,
            no_pretokenization=False,
            support_detokenization=False,
        )
        self.content_limit = tokenizer.max_length - 2
        self.prompt_ids = []
        if prompt:
            self.prompt_ids = [new_id[i] for i in tokenizer.content_id_rows([prompt])[0].tolist()[: self.content_limit]]
        self.cls_id = new_id[int(tokenizer.cls_token_id)]
        self.sep_id = new_id[int(tokenizer.sep_token_id)]
        self.pad_id = new_id[int(tokenizer.pad_token_id)]

    def content_ids(self, texts):
        """(ids [N, W] int32 padded with `pad`, lengths [N] int32): each text's content ids, prompt
        first, at most `max_length - 2` of them."""
        pieces = self.word_piece.tokenize(self.normalizer.normalize(texts))
        count = tf.shape(texts, out_type=tf.int64)[0]
        room = self.content_limit - len(self.prompt_ids)
        text_lengths = tf.minimum(pieces.row_lengths(), room)
        width = tf.reduce_max(tf.concat([text_lengths, tf.zeros([1], tf.int64)], axis=0))
        ids = pieces.to_tensor(default_value=self.pad_id, shape=tf.stack([count, width]))
        lengths = tf.cast(text_lengths, tf.int32)
        if self.prompt_ids:
            prompt = tf.tile(tf.constant([self.prompt_ids], tf.int32), tf.stack([tf.cast(count, tf.int32), 1]))
            ids = tf.concat([prompt, ids], axis=1)
            lengths += len(self.prompt_ids)
        return ids, lengths

    def __call__(self, texts):
        ids, lengths = self.content_ids(texts)
        count = tf.shape(ids)[0]
        cls = tf.fill(tf.stack([count, 1]), self.cls_id)
        pad = tf.fill(tf.stack([count, 1]), self.pad_id)
        packed = tf.concat([cls, ids, pad], axis=1)
        columns = tf.expand_dims(tf.range(tf.shape(packed)[1]), 0)
        ends = tf.expand_dims(lengths + 1, 1)
        token_ids = tf.where(columns == ends, self.sep_id, tf.where(columns > ends, self.pad_id, packed))
        padding_mask = tf.cast(columns <= ends, tf.int32)
        return {"token_ids": token_ids, "padding_mask": padding_mask}

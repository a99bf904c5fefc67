"""UnigramTokenizer: raw strings to the ids of a SentencePiece-converted Unigram model (XLM-RoBERTa and the
multilingual sentence-transformers built on it), in-graph."""

import keras
import keras_hub
import tensorflow as tf

from keras_sentemb.tokenizers.added_tokens import ids_in_word_order
from keras_sentemb.tokenizers.host_tokenizer_rows import HostTokenizerRows, host_tokenizer_from_spec
from keras_sentemb.tokenizers.keras_hub_adapter import declare_special_token
from keras_sentemb.tokenizers.metaspace_text_splitter import MetaspaceTextSplitter
from keras_sentemb.tokenizers.sequence_packing import SequencePacking, checked_pair_separators
from keras_sentemb.tokenizers.unigram_lattice import UnigramLattice


def metaspace_settings(pre_tokenizer):
    """`(replacement, prepend, split, whitespace_split)` of a tokenizer.json Metaspace pre-tokeniser (`prepend`
    True, False or "first": the piece that begins the text only), alone
    or after `WhitespaceSplit` in a `Sequence` (as transformers 5 writes XLM-RoBERTa's); ValueError otherwise."""
    whitespace_split = False
    if isinstance(pre_tokenizer, dict) and pre_tokenizer.get("type") == "Sequence":
        steps = pre_tokenizer.get("pretokenizers") or []
        kinds = [step.get("type") if isinstance(step, dict) else step for step in steps]
        if kinds != ["WhitespaceSplit", "Metaspace"]:
            raise ValueError(
                f"pre-tokenizer Sequence{kinds} is not supported before a Unigram model "
                "(Metaspace, or WhitespaceSplit then Metaspace)"
            )
        whitespace_split, pre_tokenizer = True, steps[1]
    if not isinstance(pre_tokenizer, dict) or pre_tokenizer.get("type") != "Metaspace":
        kind = pre_tokenizer.get("type") if isinstance(pre_tokenizer, dict) else pre_tokenizer
        raise ValueError(f"pre-tokenizer {kind!r} is not supported before a Unigram model (Metaspace only)")
    scheme = pre_tokenizer.get("prepend_scheme")
    if scheme is None:
        scheme = "always" if pre_tokenizer.get("add_prefix_space", True) else "never"
    if scheme not in ("always", "never", "first") or (scheme == "first" and whitespace_split):
        raise ValueError(
            f"Metaspace prepend_scheme {scheme!r} is not supported (always, never; first without WhitespaceSplit)"
        )
    replacement, split = pre_tokenizer.get("replacement", "▁"), bool(pre_tokenizer.get("split", True))
    prepend = "first" if scheme == "first" else scheme == "always"
    return replacement, prepend, split, whitespace_split


@keras.saving.register_keras_serializable(package="keras_sentemb")
class UnigramTokenizer(HostTokenizerRows, SequencePacking, keras_hub.tokenizers.Tokenizer):
    """A Unigram model's tokenizer.json, reproduced in TF ops: its normaliser and Metaspace pre-tokeniser
    (`MetaspaceTextSplitter`: SentencePiece's precompiled map per grapheme cluster, Strip, Replace; the
    `WhitespaceSplit` before Metaspace that transformers 5 writes for XLM-RoBERTa) and
    its segmentation (`UnigramLattice`: Hugging Face's Viterbi in float64, its tie-breaking, fused unknowns).
    Added tokens ("<s>", "<mask>" with its `lstrip` …) are cut out of the raw text first. `content_ids`,
    `pack` and `content_id_rows` are those of every sentence tokenizer here; a sequence is `cls ids sep`
    (`<s> … </s>`), as sentence-transformers packs one text for XLM-RoBERTa, or the file's template
    `start_tokens ids end_tokens` (T5's `ids </s>`).

    Args:
        tokenizer_spec: tokenizer.json's `normalizer`, `pre_tokenizer`, `model` (Unigram: `vocab` as
            `[[piece, score], …]`, `unk_id`) and `added_tokens`.
        max_length: the longest packed sequence, special tokens included (≥ 3).
        cls_token, sep_token, pad_token, mask_token, oov_token: the model's special tokens.
        start_tokens, end_tokens: the tokens around a text's ids (None: `cls_token`, `sep_token`).

    Example:
    >>> spec = {"normalizer": None, "pre_tokenizer": {"type": "Metaspace", "replacement": "▁",
    ...         "prepend_scheme": "always", "split": True},
    ...         "model": {"type": "Unigram", "unk_id": 3, "vocab": [["<s>", 0.0], ["<pad>", 0.0], ["</s>", 0.0],
    ...                   ["<unk>", 0.0], ["▁a", -1.0], ["▁cat", -2.0], ["<mask>", 0.0]]},
    ...         "added_tokens": [{"id": i, "content": t} for i, t in [(0, "<s>"), (1, "<pad>"), (2, "</s>"),
    ...                                                                (3, "<unk>"), (6, "<mask>")]]}
    >>> tokenizer = UnigramTokenizer(spec, max_length=8)
    >>> tokenizer.pack(tokenizer.content_ids(tf.constant(["a cat!", ""])))["token_ids"].numpy().tolist()
    [[0, 4, 5, 3, 2], [0, 2, 1, 1, 1]]
    """

    def __init__(
        self,
        tokenizer_spec=None,
        max_length=512,
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        mask_token="<mask>",
        oov_token="<unk>",
        start_tokens=None,
        end_tokens=None,
        **kwargs,
    ):
        self.pair_separators = checked_pair_separators(kwargs.pop("pair_separators", 1), "UnigramTokenizer")
        self.start_tokens = None if start_tokens is None else tuple(start_tokens)
        self.end_tokens = None if end_tokens is None else tuple(end_tokens)
        super().__init__(**kwargs)
        model = tokenizer_spec["model"]
        if model.get("type") != "Unigram" or model.get("byte_fallback"):
            raise ValueError(f"UnigramTokenizer: model {model.get('type')!r} with byte_fallback is not supported")
        if not isinstance(max_length, int) or max_length < 3:
            raise ValueError(f"UnigramTokenizer: max_length must be an int >= 3, got {max_length!r}.")
        self.tokenizer_spec = tokenizer_spec
        self.max_length = max_length
        self.vocabulary = [piece for piece, _ in model["vocab"]]
        self._ids = {piece: index for index, piece in enumerate(self.vocabulary)}
        added = tokenizer_spec.get("added_tokens", [])
        for token in added:
            if token.get("single_word"):
                raise ValueError(
                    f"UnigramTokenizer: added token {token['content']!r} with single_word is not supported"
                )
            self._ids.setdefault(token["content"], token["id"])
        for name, token in (
            ("cls_token", cls_token),
            ("sep_token", sep_token),
            ("pad_token", pad_token),
            ("mask_token", mask_token),
            ("oov_token", oov_token),
            ("start_token", cls_token),
            ("end_token", sep_token),
        ):
            if token not in self._ids:
                raise ValueError(f"UnigramTokenizer: the special token {token!r} ({name}) is not in the vocabulary")
            declare_special_token(self, token, name)
        for token in (self.start_tokens or ()) + (self.end_tokens or ()):
            if token not in self._ids:
                raise ValueError(f"UnigramTokenizer: the template token {token!r} is not in the vocabulary")
        replacement, prepend, split, whitespace_split = metaspace_settings(tokenizer_spec.get("pre_tokenizer"))
        self.splitter = MetaspaceTextSplitter(
            tokenizer_spec.get("normalizer"),
            special_tokens=[token["content"] for token in added],
            lstrip_tokens=[token["content"] for token in added if token.get("lstrip")],
            rstrip_tokens=[token["content"] for token in added if token.get("rstrip")],
            replacement=replacement,
            prepend=prepend,
            split=split,
            whitespace_split=whitespace_split,
        )
        self.lattice = UnigramLattice([tuple(item) for item in model["vocab"]], model.get("unk_id", 0))
        self._added_ids = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant([token["content"] for token in added] or ["\xff"], tf.string),
                tf.constant([token["id"] for token in added] or [0], tf.int64),
            ),
            default_value=-1,
        )

    # keras-hub's Tokenizer interface.
    def get_vocabulary(self):
        return list(self.vocabulary)

    def vocabulary_size(self):
        return max(len(self.vocabulary), max(self._ids.values()) + 1)

    def id_to_token(self, id):
        return self.vocabulary[id]

    def token_to_id(self, token):
        if token not in self._ids:
            raise ValueError(f"Token '{token}' is not in the vocabulary.")
        return self._ids[token]

    def tokenize(self, inputs):
        """The ids of `content_ids`, untruncated, for a string or a 1-D string tensor."""
        inputs = tf.convert_to_tensor(inputs, dtype=tf.string)
        if inputs.shape.rank == 0:
            return self._unigram_ids(inputs[tf.newaxis])[0]
        return self._unigram_ids(inputs)

    def _unigram_ids(self, texts):
        words, special = self.splitter.words(texts)
        flat, is_special = words.flat_values, special.flat_values
        # Each distinct word is segmented once (a batch repeats "▁the", "," …).
        distinct, where = tf.unique(tf.boolean_mask(flat, ~is_special))
        pieces = tf.gather(self.lattice.pieces(distinct), where)
        special_ids = self._added_ids.lookup(MetaspaceTextSplitter.special_token(flat))
        return ids_in_word_order(words, special, pieces, special_ids)

    def untruncated_ids(self, texts):
        return self._unigram_ids(texts)

    def _content_ids_graph(self, texts):
        return self._unigram_ids(texts)[:, : self.content_limit]

    def _host(self):
        host = getattr(self, "_host_tokenizer", None)
        if host is None:
            host = host_tokenizer_from_spec(self.tokenizer_spec)
            # A cache, not state to save with the layer.
            object.__setattr__(self, "_host_tokenizer", host)
        return host

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "tokenizer_spec": self.tokenizer_spec,
                "max_length": self.max_length,
                "cls_token": self.cls_token,
                "sep_token": self.sep_token,
                "pad_token": self.pad_token,
                "mask_token": self.mask_token,
                "oov_token": self.oov_token,
            }
        )
        if self.pair_separators != 1:
            config["pair_separators"] = self.pair_separators
        if self.start_tokens is not None or self.end_tokens is not None:
            config["start_tokens"] = None if self.start_tokens is None else list(self.start_tokens)
            config["end_tokens"] = None if self.end_tokens is None else list(self.end_tokens)
        return config

"""ChatPairTemplate: a (query, document) pair as a causal-LM reranker reads it — the folder's chat template
rendered around the two texts, then truncated as sentence-transformers truncates it.

sentence-transformers (6.x) gives a causal-LM reranker (Qwen3-Reranker) each pair as two chat messages, roles
"query" and "document", renders them through the tokenizer's chat template (Jinja) and tokenises the result as
one text; a text longer than `max_length` keeps its first `max_length − k` ids and then the template's last k
ids (the suffix the model's last position must see: `<|im_end|> … assistant …`), which it finds as the common
token suffix of two renders with different fillers ("0" and "1 2 3 4").

Here the template is rendered once, when the folder is loaded, in Jinja's sandbox (as transformers renders it:
`trim_blocks`, `lstrip_blocks`) inside a budget of memory, time, steps and output (`render_bounded`: a
downloaded template is a program), with two sentinels in place of the texts: what comes before, between and after
them is the template (`prefix`, `infix`, `suffix`), checked to be the same for a second pair of sentinels (a
template that transforms the texts, or renders them twice, is refused). A pair is then
`prefix + query + infix + document + suffix`, joined in-graph (`pair_ids`), so the exported SavedModel takes
raw strings too.

Example:
>>> template = ChatPairTemplate("<Q>", " <D>", "<end>", suffix_ids=(9,))
>>> template.render("tea", "green tea")
'<Q>tea <D>green tea<end>'
"""

import dataclasses

import tensorflow as tf

from keras_sentemb.tokenizers.bounded_template_render import render_bounded
from keras_sentemb.tokenizers.ragged_rows import numpy_rows
from keras_sentemb.tokenizers.sequence_packing import fixed_ids, leading_ids

# two pairs of private-use sentinels of other lengths and words: a template whose rendering depends on the texts
# (their length, their words) renders the two differently and is refused
SENTINELS = (
    ("\ue000Q\ue000", "\ue000D\ue000"),
    ("\ue001a longer query\ue001", "\ue001document text, longer still\ue001"),
)
FILLERS = ("0", "1 2 3 4")  # sentence-transformers' two renders that find the template's token suffix
MAX_TEMPLATE_CHARS = 100_000


def template_parts(template, special_tokens=None, source="chat template"):
    """(prefix, infix, suffix) of the Jinja chat `template` rendered for the messages [query, document] (roles
    "query" and "document"), checked as the module docstring says; no tokenizer needed, so a folder's template
    is refused before anything else of the folder is built. ValueError naming `source` for a template that
    does not place each text once, query first, verbatim, or that leaves its budget (`render_bounded`)."""
    if not isinstance(template, str) or not template.strip() or len(template) > MAX_TEMPLATE_CHARS:
        raise ValueError(
            f"{source}: the chat template must be a non-empty string of at most {MAX_TEMPLATE_CHARS:,} characters"
        )
    special_tokens = dict(special_tokens or {})
    contexts = [
        {
            "messages": [{"role": "query", "content": query}, {"role": "document", "content": document}],
            "add_generation_prompt": False,
            **special_tokens,
        }
        for query, document in SENTINELS
    ]
    parts = []
    for (query, document), rendered in zip(SENTINELS, render_bounded(template, contexts, source)):
        if (
            rendered.count(query) != 1
            or rendered.count(document) != 1
            or rendered.index(query) > rendered.index(document)
        ):
            raise ValueError(
                f"{source}: the chat template must render the query once and then the document once, verbatim"
            )
        before, rest = rendered.split(query)
        between, after = rest.split(document)
        parts.append((before, between, after))
    if parts[0] != parts[1]:
        raise ValueError(
            f"{source}: the chat template renders differently for other texts (only placing them is supported)"
        )
    return parts[0]


@dataclasses.dataclass(frozen=True)
class ChatPairTemplate:
    """`prefix + query + infix + document + suffix`, and the ids a truncated pair ends with (`suffix_ids`)."""

    prefix: str
    infix: str
    suffix: str
    suffix_ids: tuple = ()

    @classmethod
    def from_parts(cls, parts, tokenizer):
        """The template of `template_parts`' (prefix, infix, suffix); `tokenizer` (a sentence tokenizer of this
        project) finds `suffix_ids`."""
        prefix, infix, suffix = parts
        renders = [
            tokenizer.untruncated_id_rows([prefix + filler + infix + filler + suffix])[0].tolist() for filler in FILLERS
        ]
        count = 0
        for left, right in zip(reversed(renders[0]), reversed(renders[1])):
            if left != right:
                break
            count += 1
        suffix_ids = tuple(renders[0][len(renders[0]) - count :]) if 0 < count < min(map(len, renders)) else ()
        return cls(prefix, infix, suffix, suffix_ids)

    def render(self, query, document):
        """The text of one pair."""
        return self.prefix + query + self.infix + document + self.suffix

    def pair_ids(self, tokenizer, texts_a, texts_b):
        """(ids, segment ids) `tf.RaggedTensor`s of aligned pairs, at most `tokenizer.max_length` ids a row: the
        rendered text's ids without special tokens, a longer one cut to its first `max_length − k` ids followed by
        the last k = min(|suffix_ids|, max_length) ids of `suffix_ids`; segment ids are 0."""
        texts_a = tf.convert_to_tensor(texts_a, dtype=tf.string)
        texts_b = tf.convert_to_tensor(texts_b, dtype=tf.string)
        texts = tf.strings.join(
            [
                tf.fill(tf.shape(texts_a), self.prefix),
                texts_a,
                tf.fill(tf.shape(texts_a), self.infix),
                texts_b,
                tf.fill(tf.shape(texts_a), self.suffix),
            ]
        )
        ids = tokenizer.untruncated_ids(texts)
        limit = tokenizer.max_length
        kept_suffix = self.suffix_ids[len(self.suffix_ids) - min(len(self.suffix_ids), limit) :]
        lengths = ids.row_lengths()
        over = lengths > limit
        head = leading_ids(ids, tf.where(over, tf.cast(limit - len(kept_suffix), lengths.dtype), lengths))
        tail = fixed_ids(kept_suffix, ids.nrows(), ids.dtype)
        tail = leading_ids(tail, tf.where(over, tf.cast(len(kept_suffix), lengths.dtype), tf.zeros_like(lengths)))
        ids = tf.cast(tf.concat([head, tail], axis=1), tf.int32)
        return ids, tf.zeros_like(ids)

    def pair_id_rows(self, tokenizer, texts_a, texts_b, chunk_size=8192):
        """`pair_ids` for two aligned Python lists: (id rows, segment rows) of NumPy int32."""
        id_rows, segment_rows = [], []
        for start in range(0, len(texts_a), chunk_size):
            ids, segments = self.pair_ids(
                tokenizer, list(texts_a[start : start + chunk_size]), list(texts_b[start : start + chunk_size])
            )
            id_rows.extend(numpy_rows(ids))
            segment_rows.extend(numpy_rows(segments))
        return id_rows, segment_rows

    def get_config(self):
        return {"prefix": self.prefix, "infix": self.infix, "suffix": self.suffix, "suffix_ids": list(self.suffix_ids)}

    @classmethod
    def from_config(cls, config):
        return cls(config["prefix"], config["infix"], config["suffix"], tuple(config.get("suffix_ids", ())))

"""SavedModel export in TF Serving layout: raw strings in, embeddings (and codes) out."""

import os

import numpy as np
import tensorflow as tf

from keras_sentemb.export.chunk_signature import InGraphChunking
from keras_sentemb.export.serving_warmup import write_warmup_requests
from keras_sentemb.models.family_inference import read_projection_variables
from keras_sentemb.retrieval.tf_hamming_search import codes_to_words, tf_hamming_top_k
from keras_sentemb.utils.argument_checks import code_prefix_bits, truncate_dim_or_none
from keras_sentemb.utils.graph_function import graph_function
from keras_sentemb.utils.output_targets import check_output_folder, replaced_folder

TEXTS_SPEC = tf.TensorSpec([None], tf.string, name="texts")
K_SPEC = tf.TensorSpec([], tf.int32, name="k")
# A chunk of the serving graph holds texts at least 1/1.25 of its longest text's length.
MAX_CHUNK_PADDING = 1.25


def next_chunk_size(sorted_lengths, start, chunk_size):
    """How many texts the chunk starting at `start` takes: at most `chunk_size`, and only those at
    least `1 / MAX_CHUNK_PADDING` of the first (longest) one's length. `sorted_lengths` (float32)
    are longest first, so those texts are a prefix of the window; the chunk takes at least one.

    >>> int(next_chunk_size(tf.constant([40.0, 35.0, 20.0, 19.0, 5.0]), 0, 64))
    2
    >>> int(next_chunk_size(tf.constant([40.0, 35.0, 20.0, 19.0, 5.0]), 2, 64))
    2
    >>> int(next_chunk_size(tf.constant([9.0, 9.0, 9.0]), 0, 2))
    2
    """
    window = sorted_lengths[start : start + chunk_size]
    return tf.reduce_sum(tf.cast(window * MAX_CHUNK_PADDING >= window[0], tf.int32))


class SentenceEmbeddingModule(tf.Module):
    """The exported object: tokenizer + encoder in one graph, with two entry points.

    - `signatures["serving_default"](texts=<1-D tf.string>)` → `{"embedding": [N, d]}`
      (TF Serving, `keras.layers.TFSMLayer`, `hub.load(...).signatures`).
    - `__call__(texts)` → float32 [N, d] (`hub.load(path)(texts)`, `hub.KerasLayer`).

    With a `SemanticHashing` layer (a hashed encoder) two more signatures:

    - `signatures["hash"](texts)` → `{"codes": uint8 [N, bits/8]}` (packed, MSB first).
    - `signatures["embed_and_hash"](texts)` → `{"embedding", "codes"}` from one encoder
      pass (bulk jobs that store both: `keras_sentemb.beam`).
    - `signatures["search"](texts, k)` → `{"ids": int64 [N, k'], "distances": int32
      [N, k']}`, the k' = min(k, table size) nearest codes of an embedded code table
      (only when `code_table` is given), nearest first, ties by lower table row.

    Any string is accepted: invalid UTF-8 is replaced, empty strings embed as "[CLS]
    [SEP]", long texts are truncated to the tokenizer's `max_length`. With a `prompt` (a model's
    "query: " …) every text is embedded as `prompt + text`, as `encode(prompt=…)` does.
    """

    def __init__(
        self,
        encoder,
        normalize,
        hashing=None,
        code_table=None,
        code_ids=None,
        chunk_size=64,
        prompt=None,
        truncate_dim=None,
        code_bits=None,
        chunking=None,
    ):
        super().__init__(name="keras_sentemb_encoder")
        self._truncate_dim = truncate_dim_or_none(truncate_dim, encoder.embedding_dim)
        if callable(getattr(encoder, "folded", None)):
            # A static encoder serves as one table (weights and projection folded in): one fused op a request.
            encoder = encoder.folded()
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
        # Not tracked (its variables are, in `encoder_variables`): tracked, every Keras model inside it was
        # saved with a `serving_default` of its own, traced at export and restored at load for nothing.
        object.__setattr__(self, "_encoder", encoder)
        self._tokenizer = encoder.tokenizer
        self._normalize = normalize
        self._chunk_size = chunk_size
        if prompt is not None and not isinstance(prompt, str):
            raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
        self._prompt = prompt or None
        self._chunking = None if chunking is None else InGraphChunking(encoder, self._prompt, chunking)
        self.encoder_variables = list(encoder.variables)
        # A `SentenceEncoder` of a family runs each chunk without padding (`embed_unpadded`).
        self._unpadded = callable(getattr(encoder, "supports_unpadded", None)) and encoder.supports_unpadded()
        if self._unpadded:
            self.merged_projections = encoder.merged_projection_variables()
        # One traced graph of tokenizer + encoder that every signature calls: tracing it
        # once per signature cost seconds each and stored the encoder graph 2-4 times.
        self.embed_texts = graph_function(self._embed, input_signature=[TEXTS_SPEC])
        self._hashing = hashing
        self._code_bits = None
        if hashing is not None:
            self.hashing_variables = list(hashing.variables)
            self._code_bits = hashing.bits if code_bits is None else code_prefix_bits(code_bits, hashing.bits)
        elif code_bits is not None:
            raise ValueError("code_bits is for a model with a hashing layer")
        if code_table is not None:
            if hashing is None:
                raise ValueError("a code table needs a hashing layer")
            code_table = np.asarray(code_table)
            if (
                code_table.dtype != np.uint8
                or code_table.ndim != 2
                or len(code_table) == 0
                or code_table.shape[1] * 8 != self._code_bits
            ):
                raise ValueError(
                    f"code_table must be non-empty packed uint8 [N, {self._code_bits // 8}], got "
                    f"{code_table.dtype} {code_table.shape}"
                )
            ids = np.arange(len(code_table)) if code_ids is None else np.asarray(code_ids)
            if ids.shape != (len(code_table),) or not np.issubdtype(ids.dtype, np.integer):
                raise ValueError(f"code_ids must be {len(code_table)} integers, got shape {ids.shape}")
            self.table_words = tf.Variable(codes_to_words(code_table), trainable=False, name="code_table_words")
            self.table_ids = tf.Variable(ids.astype(np.int64), trainable=False, name="code_ids")

    def _embed(self, texts):
        """Smart batching inside the graph: the request's texts are sorted by length (longest
        first), run in chunks of at most `chunk_size` texts, and the rows put back in request order.

        An encoder of a family (`supports_unpadded()`: every family, float32, unquantised) runs a chunk
        without padding: its dense layers on the chunk's real tokens only, attention in length groups
        (`embed_unpadded`, `keras_sentemb.families.token_layouts.FlatTokens`). Any other encoder pads a chunk to its
        own longest text, and a chunk takes texts only while they are at least
        `1 / MAX_CHUNK_PADDING` of its longest one (packed lengths, [CLS]/[SEP] included), so
        padding adds at most 25 % to a chunk's tokens. Either way a request of mixed lengths (32
        texts of one client, or a TF Serving batch of many clients' requests) does not pay for
        padding every text to its longest one (requests of 32 STS-B sentences, MiniLM, AVX2-only
        2-core CPU: 0.48× `encode`'s speed when it did, 0.77× in length chunks, ~1.0× unpadded),
        and one huge request does not run as one huge batch. A `StaticEncoder` (no attention, cost
        linear in tokens) pools the whole request's ragged ids at once (`embed_content_ids`).
        A BERT or MPNet encoder's request of one text (an online endpoint's usual call) skips the sort, the
        chunk loop and the scatter: `embed_one_unpadded` on its ids (`tf.cond` on the row count)."""
        if self._prompt is not None:
            texts = tf.strings.join([tf.fill(tf.shape(texts), self._prompt), texts])
        return self._embed_content(self._tokenizer.content_ids(texts))

    def _embed_content(self, content):
        """The (normalised) embedding [N, d] of ragged content ids [N, (ids)], as `_embed` batches."""
        if callable(getattr(self._encoder, "embed_content_ids", None)):
            # A static encoder pools ragged ids directly: the whole request in one step.
            embedding = tf.cast(self._encoder.embed_content_ids(content), tf.float32)
        elif self._unpadded:
            # A request of one text (an online search endpoint's every call) skips the sort, the
            # chunk loop and the scatter back, and runs the backbone without ragged bookkeeping.
            embedding = tf.cond(
                tf.equal(content.nrows(), 1),
                lambda: self._embed_one_unpadded(content),
                lambda: self._embed_in_chunks(content),
            )
        else:
            embedding = self._embed_in_chunks(content)
        if self._normalize:
            embedding = tf.math.l2_normalize(embedding, axis=-1, epsilon=1e-12)
        return embedding

    def _embed_one_unpadded(self, content):
        """[1, d] of a request of one text (content ids [1, (ids)]) by the unpadded path."""
        sequence = self._tokenizer.add_special_tokens(content)
        return tf.cast(self._encoder.embed_one_unpadded(sequence.flat_values, self._read_projections()), tf.float32)

    def _read_projections(self):
        return read_projection_variables(self.merged_projections)

    def _embed_in_chunks(self, content):
        """[N, d] of content ids [N, (ids)] in chunks of similar length (see `_embed`), in request order."""
        order = tf.argsort(content.row_lengths(), direction="DESCENDING", stable=True)
        by_length = tf.gather(content, order)
        # the tokens each row packs to (a word tokenizer adds none: the chunk plan keeps its old margin of 2)
        specials = getattr(self._tokenizer, "special_token_count", 2)
        packed_lengths = tf.cast(by_length.row_lengths() + specials, tf.float32)
        count = tf.shape(order)[0]
        width = self._encoder.embedding_dim
        outputs = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False, element_shape=[None, width])

        def run_chunk(index, start, outputs):
            if self._unpadded:
                size = tf.minimum(self._chunk_size, count - start)
                sequences = self._tokenizer.add_special_tokens(by_length[start : start + size])
                embedding = self._encoder.embed_unpadded(sequences, self._read_projections())
            else:
                size = next_chunk_size(packed_lengths, start, self._chunk_size)
                inputs = self._tokenizer.pack(by_length[start : start + size])
                embedding = self._encoder(inputs, training=False)
            return index + 1, start + size, outputs.write(index, tf.cast(embedding, tf.float32))

        _, _, outputs = tf.while_loop(
            lambda index, start, _: start < count,
            run_chunk,
            [tf.constant(0), tf.constant(0), outputs],
            parallel_iterations=1,
        )
        sorted_embedding = tf.reshape(outputs.concat(), [count, width])
        return tf.scatter_nd(order[:, None], sorted_embedding, [count, width])

    def _output(self, embedding):
        """The embedding a signature returns: its first `truncate_dim` features (normalised again
        when the module normalises), or all of it."""
        if self._truncate_dim is None:
            return embedding
        embedding = embedding[:, : self._truncate_dim]
        return tf.math.l2_normalize(embedding, axis=-1, epsilon=1e-12) if self._normalize else embedding

    @graph_function(input_signature=[TEXTS_SPEC])
    def __call__(self, texts):
        return self._output(self.embed_texts(texts))

    @graph_function(input_signature=[TEXTS_SPEC])
    def serve(self, texts):
        return {"embedding": self._output(self.embed_texts(texts))}

    def _codes(self, embedding):
        """Packed codes of the unit vectors of the full `embedding` (normalised or not): their
        first `code_bits` bits (a nested code's prefix), or all."""
        unit = tf.math.l2_normalize(embedding, axis=-1, epsilon=1e-12)
        codes = tf.convert_to_tensor(self._hashing.binarize(unit, packed=True))
        return codes if self._code_bits == self._hashing.bits else codes[:, : self._code_bits // 8]

    def _hash(self, texts):
        return self._codes(self.embed_texts(texts))

    def _hash_signature(self, texts):
        return {"codes": self._hash(texts)}

    def _embed_and_hash_signature(self, texts):
        embedding = self.embed_texts(texts)
        return {"embedding": self._output(embedding), "codes": self._codes(embedding)}

    def _search_signature(self, texts, k):
        tf.debugging.assert_positive(k, message="k must be a positive number of neighbours")
        k = tf.minimum(k, tf.shape(self.table_words)[0])
        distances, rows = tf_hamming_top_k(self._hash(texts), self.table_words, k)
        return {"ids": tf.gather(self.table_ids, rows), "distances": distances}

    def _chunks_signature(self, texts):
        """Each text cut into windows of word pieces as `encode(texts, chunking=…)` cuts them
        (`export.chunk_signature`): `embedding` [C, d] of each window (naive: the window run with
        the prompt in front; late: the mean of its pieces' states read in context), `document`
        int64 [C] (its text's row), `start` / `end` int64 [C] (its word-piece span in the text,
        prompt excluded)."""
        chunking = self._chunking
        if self._prompt is not None:
            texts = tf.strings.join([tf.fill(tf.shape(texts), self._prompt), texts])
        prompt_ids, content, document, start, end = chunking.windows(texts)
        plain = chunking.naive_rows(prompt_ids, content, document, start, end)
        if chunking.late:
            late = chunking.late_vectors(prompt_ids, content, document, start, end, self._chunk_size)
            if self._normalize:
                late = tf.math.l2_normalize(late, axis=-1, epsilon=1e-12)
            empty = tf.equal(end, start)  # an empty text: its own vector, as encode gives it
            embedding = tf.cond(
                tf.reduce_any(empty),
                lambda: tf.where(empty[:, None], self._embed_content(plain), late),
                lambda: late,
            )
        else:
            embedding = self._embed_content(plain)
        return {"embedding": self._output(embedding), "document": document, "start": start, "end": end}

    def signatures(self):
        """The signature map written into the SavedModel (`hash`/`search` only when the
        module has a hashing layer / a code table; `chunks` with a `Chunking`)."""
        signatures = {"serving_default": self.serve}
        if self._chunking is not None:
            self.chunks = graph_function(self._chunks_signature, input_signature=[TEXTS_SPEC])
            signatures["chunks"] = self.chunks
        if self._hashing is not None:
            self.hash = graph_function(self._hash_signature, input_signature=[TEXTS_SPEC])
            signatures["hash"] = self.hash
            self.embed_and_hash = graph_function(self._embed_and_hash_signature, input_signature=[TEXTS_SPEC])
            signatures["embed_and_hash"] = self.embed_and_hash
            if hasattr(self, "table_words"):
                self.search = graph_function(self._search_signature, input_signature=[TEXTS_SPEC, K_SPEC])
                signatures["search"] = self.search
        return signatures


SAVED_MODEL_KIND = "saved-model"  # the marker of the version folders export writes (utils.output_targets)


def version_folder(path, version, overwrite, kind=SAVED_MODEL_KIND):
    """`path/<version>`, TF Serving's layout, after checking `version` (a non-negative
    int) and that the folder does not exist yet, or with `overwrite` is a `kind` version folder
    this project wrote (`utils.output_targets.check_output_folder`: never a folder of the user's)."""
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ValueError(f"version must be a non-negative int, got {version!r}")
    target = os.path.join(os.fspath(path), str(version))
    check_output_folder(target, kind, overwrite)
    return target


def export_for_serving(
    encoder,
    path,
    version=1,
    overwrite=False,
    normalize=True,
    hashing=None,
    code_table=None,
    code_ids=None,
    warmup_name=None,
    chunk_size=64,
    prompt=None,
    truncate_dim=None,
    code_bits=None,
    chunking=None,
):
    """Writes `encoder` as a SavedModel at `path/<version>/` (TF Serving's layout).

    With `hashing` (a `SemanticHashing` layer applied to the unit embedding) the model
    gets a `hash` signature, and with `code_table` (packed codes [N, bits/8], optional
    int64 `code_ids`) a `search` signature too; see `SentenceEmbeddingModule`.

    The write is atomic: the model is saved into a temporary folder beside the target and
    renamed into place, so a crash never leaves a half-written version that TF Serving
    would try to load. An existing version folder is an error unless `overwrite=True`.

    Loading needs `tensorflow` and `import tensorflow_text` (which registers the
    tokenizer's ops); TF Serving links TF Text ops. `normalize=True` L2-normalises the
    output, as `encode()` does by default. `chunk_size` is the largest batch the graph runs a
    request in (sorted by length; a BERT or MPNet encoder's chunks run without padding, any other's are
    padded to their own longest text and cut where a text is shorter than 1/1.25 of it; as
    `encode`'s `batch_size`). `prompt` is prepended to every text inside the graph.
    `truncate_dim` serves the first this many features (normalised again), as
    `encode(truncate_dim=...)`; `code_bits` serves the first this many bits of a nested code
    (`hash`, `embed_and_hash` and `search`, whose `code_table` then holds codes of that length).
    `chunking` (a `Chunking` without sentence ends; naive or late) adds the `chunks` signature:
    long texts cut into windows of word pieces, as `encode(texts, chunking=…)` cuts them.

    Returns the version folder's path.
    """
    if encoder.tokenizer is None:
        raise ValueError(f"{encoder.name} has no tokenizer, so it cannot take raw strings.")
    target = version_folder(path, version, overwrite)
    module = SentenceEmbeddingModule(
        encoder, normalize, hashing, code_table, code_ids, chunk_size, prompt, truncate_dim, code_bits, chunking
    )
    signatures = module.signatures()
    with replaced_folder(target, SAVED_MODEL_KIND, overwrite) as staging:
        tf.saved_model.save(
            module,
            staging,
            signatures=signatures,
            options=tf.saved_model.SaveOptions(function_aliases={"embed": module.__call__}),
        )
        if warmup_name is not None:
            write_warmup_requests(staging, warmup_name, signatures)
    return target

"""EmbeddingService: what the HTTP server asks of one loaded model — texts to token rows, rows to vectors,
vectors to binary codes, (query, text) pairs to relevance scores, texts to token vectors (a multi-vector model)."""

from __future__ import annotations

import dataclasses

import numpy as np

from keras_sentemb.chunking import Chunking
from keras_sentemb.data.prompts import document_prompt, query_prompt
from keras_sentemb.exported.exported_encoder import ExportedEncoder, exported_version
from keras_sentemb.runtime.batched_rows import finished_vectors
from keras_sentemb.utils.sparse_rows import csr_entries, sparse_entries

EMBEDDING, HASHING, RERANKING, SPARSE = "embedding", "hashing", "reranking", "sparse"
MULTI_VECTOR = "multi-vector"
SIDES = ("query", "document")


class ModelCannotServe(ValueError):
    """The model cannot do what the request asks (a rerank of an encoder, codes of an unhashed model)."""


@dataclasses.dataclass(frozen=True)
class TokenRows:
    """A request's model input rows, each with its packed length (special tokens included), counted once:
    the length answers the token limit, weighs the rows against the batcher's budget, counts the usage and
    plans the model's batches (`carried()` hands the batcher rows that carry it to `run_rows`).

    >>> rows = TokenRows([np.array([5, 6], np.int32)], [4])
    >>> rows.tokens, rows.carried()[0][1]
    (4, 4)
    """

    rows: list
    lengths: list

    @property
    def tokens(self) -> int:
        return int(sum(self.lengths))

    def carried(self) -> list:
        """`[(row, packed length), …]`: what `DynamicBatcher.submit` queues and `run_rows` takes."""
        return list(zip(self.rows, self.lengths))


def load_service(
    model: str,
    name: str,
    backend: str | None = None,
    precision: str | None = None,
    calibration_texts=None,
    batch_size: int = 32,
    dtype: str | None = None,
):
    """The `EmbeddingService` of `model`: an exported OpenVINO folder or LiteRT file as an `ExportedEncoder`, at its
    own precision and without TensorFlow; anything else `zoo.loading.load_served_model` takes (a preset, zoo:NAME, a Hugging Face
    folder, a `.keras` file) loaded in this process, on TensorFlow's runtimes."""
    exported = exported_version(model)
    if exported is not None:
        encoder = ExportedEncoder.load(exported)
        precision = precision or encoder.precision
        return EmbeddingService(encoder, name=name, backend=encoder.backend, precision=precision, batch_size=batch_size)
    from keras_sentemb.zoo.loading import load_served_model  # TensorFlow

    return EmbeddingService(
        load_served_model(model, dtype=dtype),
        name=name,
        backend=backend,
        precision=precision or "float32",
        calibration_texts=calibration_texts,
        batch_size=batch_size,
    )


def served_kind(model, name):
    """(kind, runner) of a model: what the server serves of it, and the model that runs its texts.

    An `ExportedEncoder` is known without importing anything more; a Keras model's class is looked up in
    `keras_sentemb.models`, imported only then (a server of an exported folder never imports TensorFlow)."""
    if isinstance(model, ExportedEncoder):
        return EMBEDDING, model
    from keras_sentemb.models import DSE, CrossEncoder, EmbeddingModel, HashedEncoder, MultiVectorEncoder, SparseEncoder

    if isinstance(model, SparseEncoder):
        return SPARSE, model
    if isinstance(model, MultiVectorEncoder):
        return MULTI_VECTOR, model
    if isinstance(model, CrossEncoder):
        if model.num_labels != 1:
            raise ModelCannotServe(
                f"{name} is a cross-encoder of {model.num_labels} labels; /rerank serves one score a pair "
                "(num_labels=1)"
            )
        return RERANKING, model
    if isinstance(model, (HashedEncoder, DSE)):
        return (HASHING if isinstance(model, HashedEncoder) else EMBEDDING), model.encoder
    if isinstance(model, EmbeddingModel):
        return EMBEDDING, model
    raise TypeError(f"{name} is a {type(model).__name__}: the server serves encoders and cross-encoders")


class EmbeddingService:
    """One model behind the server: its kind decides the endpoints that answer.

    - an encoder (`SentenceEncoder`, `StaticEncoder`, `InferLite`, `BiLSTMSRA`, a `DSE`'s ψ): vectors
      for `/v1/embeddings` and `/embed`;
    - a `HashedEncoder`: the same vectors, and its packed binary codes (`/embed` with `"binary": true`);
    - a `CrossEncoder` of one label: relevance scores for `/rerank`;
    - a `SparseEncoder` (SPLADE): (index, value) lists for `/embed_sparse` (`sparse_rows`), on TensorFlow;
    - a `MultiVectorEncoder` (ColBERT): each text's token vectors for `/embed_all`, the query side or the document
      side (`token_vectors`), and MaxSim scores for `/rerank` (`maxsim_scores`), each request run alone.

    The model runs through `inference_runtime(backend, precision, calibration_texts)`, the runtime
    `encode` uses, built once here. Requests are tokenised to rows (`text_rows`, `pair_rows`) on the
    event loop's side, run in merged batches (`run_rows`, on the batcher's thread), and finished per
    request (`finish`: Matryoshka truncation, then L2 normalisation, as `encode` does them).

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; tests/server/ run the same calls.)
        service = EmbeddingService(SentenceEncoder.from_pretrained("minilm-l6"), name="minilm-l6")
        rows = service.text_rows(["A man plays a guitar."], prompt=None)
        service.finish(service.run_rows(rows.carried()), dimensions=None, normalize=True)  # = encode(texts)
    """

    def __init__(
        self,
        model,
        name: str,
        backend: str | None = None,
        precision: str = "float32",
        calibration_texts=None,
        batch_size: int = 32,
    ):
        self.kind, runner = served_kind(model, name)
        self.model, self.runner, self.name, self.batch_size = model, runner, name, batch_size
        self.backend, self.precision = backend, precision
        if self.kind == SPARSE and (backend not in (None, "tensorflow") or precision != "float32"):
            raise ModelCannotServe(f"{name} is a sparse encoder: it is served on TensorFlow at float32 here")
        if self.kind == SPARSE:
            self.runtime = runner.embed_fn()
        elif self.kind == MULTI_VECTOR:
            if calibration_texts is not None:
                raise ModelCannotServe(f"{name} is a multi-vector encoder: it takes no int8 calibration")
            try:
                self.runtime = runner.inference_runtime(backend, precision)
            except ValueError as error:
                raise ModelCannotServe(f"{name}: {error}") from None
        else:
            self.runtime = runner.inference_runtime(backend, precision, calibration_texts)
        tokenizer = runner.tokenizer
        if tokenizer is None:
            raise ModelCannotServe(f"{name} has no tokenizer: the server takes raw texts")
        self.max_tokens = int(tokenizer.max_length)
        self.prompts = dict(getattr(runner, "prompts", None) or {})

    @property
    def dimensions(self) -> int:
        """The width of the vectors (before any `dimensions` truncation of a request)."""
        return int(self.runner.embedding_dim)

    @property
    def bits(self) -> int | None:
        """The code length of a hashed model, else None."""
        return int(self.model.bits) if self.kind == HASHING else None

    @property
    def chunking(self) -> bool:
        """Whether the model encodes long texts in chunks (`encode(chunking=…)`: `SentenceEncoder`)."""
        if isinstance(self.runner, ExportedEncoder):
            return False
        from keras_sentemb.models import SentenceEncoder

        return isinstance(self.runner, SentenceEncoder)

    # ------------------------------------------------------------------ on the event loop's side
    def prompt_text(self, prompt_name: str | None) -> str | None:
        """The text prepended to every input: the model's own `resolve_prompt` (the named prompt, else its
        default, else None), its refusal of an unknown name as `ModelCannotServe`; a model without prompts
        takes no name."""
        resolve = getattr(self.runner, "resolve_prompt", None)
        if resolve is None:
            if prompt_name is not None:
                raise ModelCannotServe(f"prompt_name {prompt_name!r}: {self.name} has no prompts")
            return None
        try:
            return resolve(prompt_name)
        except ValueError as error:
            raise ModelCannotServe(str(error)) from None

    def text_rows(self, texts: list[str], prompt: str | None) -> TokenRows:
        """The model's token rows of `prompt + text` for each text (the request's `str`s, checked once by its
        parser, tokenised as they are; truncated to the model's limit, as `encode` does), with their packed
        lengths."""
        texts = [prompt + text for text in texts] if prompt else list(texts)
        rows = self.runner.tokenize_to_rows(texts) if texts else []
        return TokenRows(rows, [int(self.runner.packed_length(row)) for row in rows])

    def truncated(self, texts: list[str], prompt: str | None, rows: TokenRows) -> list[int]:
        """The indexes of the texts whose rows (`text_rows`) were cut at the model's token limit."""
        at_limit = [i for i, length in enumerate(rows.lengths) if length >= self.max_tokens]
        if not at_limit:
            return []
        counting = getattr(self.runner.tokenizer, "content_ids_with_offsets", None)
        if counting is None:
            raise ModelCannotServe(f"{self.name}'s tokenizer cannot count a text past its limit: send truncate=true")
        whole = counting([(prompt or "") + texts[i] for i in at_limit])
        return [i for i, (ids, _) in zip(at_limit, whole) if len(ids) > len(rows.rows[i])]

    def whole_token_count(self, texts: list[str], prompt: str | None) -> int:
        """The tokens of `prompt + text` for every text, whole (not truncated), special tokens included:
        what a chunked request reads."""
        whole = self.runner.tokenizer.content_ids_with_offsets([(prompt or "") + text for text in texts])
        specials = int(self.runner.packed_length(np.zeros(0, np.int32)))
        return sum(len(ids) + specials for ids, _ in whole)

    def pairs_over_limit(self, query: str, texts: list[str]) -> list[int]:
        """The indexes of the texts that the query and the pair's special tokens leave over the limit."""
        counting = getattr(self.model.tokenizer, "content_ids_with_offsets", None)
        if counting is None:
            raise ModelCannotServe(f"{self.name}'s tokenizer cannot count a text past its limit: send truncate=true")
        (query_ids, _), *whole = counting([query, *texts])
        specials = len(self.model.pair_rows([b""], [b""])[0][0])
        return [i for i, (ids, _) in enumerate(whole) if len(query_ids) + len(ids) + specials > self.max_tokens]

    def pair_rows(self, query: str, texts: list[str]) -> TokenRows:
        """The rows of the pairs (query, text) for a cross-encoder (the pair truncated as `predict_pairs` packs
        it), with their packed lengths."""
        if self.kind != RERANKING:
            raise ModelCannotServe(f"{self.name} is not a cross-encoder: /rerank needs one")
        utf8 = [text.encode("utf-8") for text in texts]
        rows = list(zip(*self.model.pair_rows([query.encode("utf-8")] * len(utf8), utf8))) if utf8 else []
        return TokenRows(rows, [int(self.model.packed_length(row)) for row in rows])

    # ------------------------------------------------------------------ on the batcher's thread
    def run_rows(self, carried) -> np.ndarray:
        """The model's float32 outputs for `carried` (`TokenRows.carried()` of one or more requests: rows with
        their packed lengths): vectors, or a cross-encoder's logits [N, 1]."""
        rows = [row for row, _ in carried]
        lengths = [length for _, length in carried]
        return self.runner.predict_rows(rows, self.batch_size, progress=False, runtime=self.runtime, lengths=lengths)

    def encode_chunked(
        self, texts: list[str], prompt: str | None, chunking: Chunking, dimensions: int | None, normalize: bool
    ) -> np.ndarray:
        """One vector a text pooled from its chunks: `encode(texts, chunking=…, truncate_dim=dimensions,
        normalize=normalize)` (pooling reads the chunk vectors as `encode` finishes them, so the request's
        truncation and normalisation happen here, not in `finish`)."""
        if not self.chunking:
            raise ModelCannotServe(f"{self.name} is a {type(self.runner).__name__}: chunking needs a SentenceEncoder")
        return self.runner.encode(
            texts,
            batch_size=self.batch_size,
            normalize=normalize,
            progress=False,
            backend=self.backend,
            precision=self.precision,
            prompt=prompt or "",
            truncate_dim=dimensions,
            chunking=chunking,
        )

    # ------------------------------------------------------------------ finishing one request
    def finish(self, vectors: np.ndarray, dimensions: int | None, normalize: bool) -> np.ndarray:
        """The first `dimensions` features (Matryoshka truncation; None keeps all), then unit length
        with `normalize`: what `encode(truncate_dim=…, normalize=…)` returns."""
        return finished_vectors(vectors, dimensions, normalize)

    def codes(self, vectors: np.ndarray, bits: int | None) -> np.ndarray:
        """Packed uint8 binary codes [N, bits/8] of a hashed model's vectors (`HashedEncoder.hash`)."""
        if self.kind != HASHING:
            raise ModelCannotServe(f"{self.name} has no hashing layer: binary codes need a HashedEncoder")
        return self.model.hash_embeddings(vectors, packed=True, bits=bits)

    def side_prompt(self, side: str, prompt_name: str | None) -> str | None:
        """The prompt a sparse or multi-vector encoder's `side` ("query" or "document") prepends: the named one,
        else the side's own (as `encode_query` / `encode_document` choose it: a ColBERT model's marker)."""
        if prompt_name is not None:
            return self.prompt_text(prompt_name)
        return (query_prompt if side == "query" else document_prompt)(self.prompts)

    def sparse_rows(self, weights: np.ndarray, max_active_dims: int | None) -> list:
        """`[[{"index", "value"}, …], …]` of a sparse encoder's weights [N, vocabulary] (the batcher's rows):
        each row's active entries, largest first, at most `max_active_dims` (the model's own when None)."""
        return sparse_entries(weights, max_active_dims or self.model.max_active_dims)

    def static_query_rows(self, texts: list[str], prompt: str | None, max_active_dims: int | None) -> list:
        """`sparse_rows` of an inference-free model's query side (no transformer: tokenizer and a weight a token),
        computed on the caller's thread."""
        vectors = self.model.encode_query(texts, prompt=prompt or "", max_active_dims=max_active_dims)
        return csr_entries(vectors)

    def sides_over_limit(self, texts: list[str], side: str, prompt: str | None) -> list[int]:
        """The indexes of the texts a multi-vector encoder's `side` would cut (more tokens than its limit there)."""
        counting = getattr(self.runner.tokenizer, "content_ids_with_offsets", None)
        if counting is None:
            raise ModelCannotServe(f"{self.name}'s tokenizer cannot count a text past its limit: send truncate=true")
        content_limit = self.runner.token_limit(side) - self.runner.tokenizer.special_token_count
        whole = counting([(prompt or "") + text for text in texts])
        return [i for i, (ids, _) in enumerate(whole) if len(ids) > content_limit]

    def token_vectors(self, texts: list[str], side: str, prompt: str | None) -> list:
        """A multi-vector encoder's token vectors of `texts` on `side` (`encode_query` / `encode_document` with
        `prompt`): a list of float32 [tokens, dim]. Runs on the batcher's thread (`DynamicBatcher.run_alone`)."""
        if self.kind != MULTI_VECTOR:
            raise ModelCannotServe(f"{self.name} is not a multi-vector encoder: token vectors need one")
        return self.runner.encode(
            texts,
            batch_size=self.batch_size,
            progress=False,
            task=side,
            prompt=prompt or "",
            backend=self.backend,
            precision=self.precision,
        )

    def maxsim_scores(self, query: str, texts: list[str]) -> np.ndarray:
        """A multi-vector encoder's score of each (query, text): its similarity (MaxSim or MeanMaxSim) of the
        query side's vectors against the document side's."""
        queries = self.token_vectors([query], "query", self.side_prompt("query", None))
        documents = self.token_vectors(texts, "document", self.side_prompt("document", None))
        return self.runner.similarity(queries, documents)[0]

    def scores(self, logits: np.ndarray, raw: bool) -> np.ndarray:
        """A cross-encoder's score a pair: its logits (`raw`) or its `score_activation` of them."""
        logits = np.asarray(logits, np.float32)[:, 0]
        return logits if raw else np.asarray(self.model.scores_from_logits(logits), np.float32)

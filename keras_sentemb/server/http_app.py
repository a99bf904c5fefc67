"""create_app: the ASGI application of `keras-sentemb serve` (Starlette), for uvicorn or Ray Serve."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import logging
import time

import numpy as np
import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from keras_sentemb.server.api_keys import authorized
from keras_sentemb.server.api_requests import (
    EmbedAllRequest,
    EmbeddingsRequest,
    EmbedRequest,
    EmbedSparseRequest,
    RequestError,
    RerankRequest,
    parse_body,
)
from keras_sentemb.server.dynamic_batcher import DynamicBatcher, Overloaded, ShuttingDown
from keras_sentemb.server.embedding_service import (
    MULTI_VECTOR,
    RERANKING,
    SPARSE,
    EmbeddingService,
    ModelCannotServe,
)
from keras_sentemb.server.request_counter import RequestCounter, RequestCounts
from keras_sentemb.server.server_metrics import ServerMetrics
from keras_sentemb.server.server_settings import ServerSettings
from keras_sentemb.utils.argument_checks import code_prefix_bits

LOG = logging.getLogger("keras_sentemb.server")
# Requests of fewer characters are tokenised on the event loop; longer ones on a worker thread.
INLINE_TOKENIZE_CHARACTERS = 4096
WARM_UP_TEXT = "A warm-up request: the first call traces and compiles the model."


def json_response(content, status: int = 200, headers: dict | None = None) -> Response:
    """A JSON response written by orjson (NumPy float32 rows as their shortest decimal forms)."""
    body = orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY)
    return Response(body, status_code=status, headers=headers, media_type="application/json")


def error_response(api: str, status: int, message: str, field: str | None = None, headers=None) -> Response:
    """An error in the shape the API's clients read: OpenAI's `{"error": {"message", "type", "param",
    "code"}}` under /v1, text-embeddings-inference's `{"error", "error_type"}` elsewhere."""
    if api == "openai":
        kind = "invalid_request_error" if status < 500 else "server_error"
        body = {"error": {"message": message, "type": kind, "param": field, "code": status}}
    else:
        kinds = {
            400: "Validation",
            401: "Unauthorized",
            408: "Validation",
            413: "Validation",
            422: "Validation",
            503: "Overloaded",
        }
        body = {"error": message, "error_type": kinds.get(status, "Backend")}
    return json_response(body, status, headers)


class ServerState:
    """What the handlers share: the service, settings, metrics, batcher and readiness."""

    def __init__(self, service: EmbeddingService, settings: ServerSettings):
        self.service, self.settings = service, settings
        self.batcher: DynamicBatcher | None = None
        self.metrics = ServerMetrics(lambda: self.batcher.queued_texts if self.batcher else 0)
        self.ready, self.warm_up_error = False, None
        self.counts = RequestCounts()
        self.created = int(time.time())


def create_app(service: EmbeddingService, settings: ServerSettings | None = None) -> Starlette:
    """The server's application: OpenAI's `POST /v1/embeddings` and `GET /v1/models`, text-embeddings-
    inference's `POST /embed`, `POST /embed_sparse` (a sparse encoder: SPLADE), `POST /embed_all` (a multi-vector
    encoder: ColBERT's token vectors, either side) and `POST /rerank` (a cross-encoder, or MaxSim), `GET /health` and
    `GET /metrics` (docs/serving_http.md).

    The model runs on one `DynamicBatcher` thread started with the app (its lifespan), which then
    answers a warm-up request: `/health` says 200 from then on, 503 before. The app counts the requests
    it accepted and answered (`app.state.server.counts`), which a stop logs.

    Example:
    (Not run as a doctest: it loads pretrained weights, which takes seconds; tests/server/ run the same calls.)
        app = create_app(EmbeddingService(SentenceEncoder.from_pretrained("minilm-l6"), name="minilm-l6"))
        uvicorn.run(app, port=8080)
    """
    settings = settings or ServerSettings()
    state = ServerState(service, settings)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        state.batcher = DynamicBatcher(
            service.run_rows,
            max_batch_tokens=settings.max_batch_tokens,
            max_wait_s=settings.max_wait_ms / 1000,
            max_queued_texts=settings.max_queued_texts,
            on_batch=lambda texts, tokens: state.metrics.batch(texts, tokens),
        )
        warm_up = asyncio.create_task(_warm_up(state))
        try:
            yield
        finally:
            warm_up.cancel()
            await run_in_threadpool(state.batcher.close)
            counts = state.counts
            LOG.info("stopped: %d requests accepted, %d answered, %d cut", counts.accepted, counts.answered, counts.cut)

    routes = [
        Route("/health", functools.partial(_health, state), methods=["GET"]),
        Route("/metrics", _guarded(state, "/metrics", "tei", _metrics), methods=["GET"]),
        Route("/v1/models", _guarded(state, "/v1/models", "openai", _models), methods=["GET"]),
    ]
    if service.kind == RERANKING:
        routes.append(Route("/rerank", _guarded(state, "/rerank", "tei", _rerank), methods=["POST"]))
    elif service.kind == MULTI_VECTOR:
        routes.append(Route("/embed_all", _guarded(state, "/embed_all", "tei", _embed_all), methods=["POST"]))
        routes.append(Route("/rerank", _guarded(state, "/rerank", "tei", _rerank_maxsim), methods=["POST"]))
        for path, api in (("/embed", "tei"), ("/v1/embeddings", "openai"), ("/embed_sparse", "tei")):
            routes.append(Route(path, _guarded(state, path, api, _not_pooled), methods=["POST"]))
    else:
        routes.append(
            Route("/v1/embeddings", _guarded(state, "/v1/embeddings", "openai", _embeddings), methods=["POST"])
        )
        routes.append(Route("/embed", _guarded(state, "/embed", "tei", _embed), methods=["POST"]))
        routes.append(Route("/embed_sparse", _guarded(state, "/embed_sparse", "tei", _embed_sparse), methods=["POST"]))
    middleware = [Middleware(RequestCounter, counts=state.counts, on_change=state.metrics.in_flight.set)]
    if settings.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Authorization", "Content-Type"],
            )
        )
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.server = state
    return app


async def _warm_up(state):
    """One request through the batcher (traces the model); `/health` is 200 once it has answered."""
    service = state.service
    try:
        if service.kind == MULTI_VECTOR:
            await state.batcher.run_alone(lambda: service.maxsim_scores(WARM_UP_TEXT, [WARM_UP_TEXT]), 2, 0)
            state.ready = True
            LOG.info("ready: %s answered its warm-up request", service.name)
            return
        if service.kind == RERANKING:
            rows = service.pair_rows(WARM_UP_TEXT, [WARM_UP_TEXT])
        else:
            rows = service.text_rows([WARM_UP_TEXT], service.prompt_text(None))
        await state.batcher.submit(rows.carried(), rows.tokens)
        state.ready = True
        LOG.info("ready: %s answered its warm-up request", service.name)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # /health reports it; the process stays up for the operator to read it
        state.warm_up_error = f"{type(error).__name__}: {error}"
        LOG.error("warm-up failed: %s", state.warm_up_error)


def _guarded(state, endpoint, api, handler):
    """`handler(state, request)` behind the API-key check, timed and counted, with every refusal
    (`RequestError`, `ModelCannotServe`, overload) answered in the API's error shape; anything else
    is a 500 that names the error (and is logged), never a dead worker."""

    async def guarded(request: Request) -> Response:
        started, texts, tokens = time.perf_counter(), 0, 0
        try:
            if state.settings.api_keys and not authorized(
                request.headers.get("authorization"), state.settings.api_keys
            ):
                raise RequestError(
                    401,
                    "a valid API key is required: Authorization: Bearer <key>",
                    None,
                    {"WWW-Authenticate": "Bearer"},
                )
            response, texts, tokens = await handler(state, request)
        except RequestError as error:
            response = error_response(api, error.status, error.message, error.field, error.headers)
        except ModelCannotServe as error:
            response = error_response(api, 422, str(error))
        except (Overloaded, ShuttingDown) as error:
            response = error_response(api, 503, str(error), None, {"Retry-After": str(state.settings.retry_after_s)})
        except asyncio.CancelledError:  # the graceful-shutdown deadline (uvicorn cancels what is left)
            state.counts.cut += 1
            state.metrics.cut_requests.labels(endpoint).inc()
            LOG.warning("%s: cut unfinished by the graceful-shutdown deadline", endpoint)
            response = error_response(api, 503, "the server stopped before this request was answered")
        except Exception as error:
            LOG.exception("%s failed", endpoint)
            response = error_response(api, 500, f"the model failed: {type(error).__name__}: {error}")
        state.metrics.answered(endpoint, response.status_code, time.perf_counter() - started, texts, tokens)
        return response

    return guarded


async def _read_body(request: Request, settings: ServerSettings) -> bytes:
    """The request's body, refused with 413 as soon as it passes `settings.max_request_bytes` (by its
    Content-Length, or while it streams in), and with 408 when it has not arrived whole within
    `settings.read_timeout_s`."""
    try:
        async with asyncio.timeout(settings.read_timeout_s):
            return await _body_within(request, settings.max_request_bytes)
    except TimeoutError:
        raise RequestError(
            408,
            f"the request body did not arrive within {settings.read_timeout_s:g} s (--read-timeout)",
            None,
            UNREAD_BODY,
        ) from None
    except ClientDisconnect:
        raise RequestError(400, "the client closed its connection before its body arrived whole") from None


# A body refused before it was read whole may still be arriving: its connection cannot carry another request.
UNREAD_BODY = {"Connection": "close"}


async def _body_within(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RequestError(
            413,
            f"the request body of {int(declared)} bytes is over this server's {limit} (--max-request-bytes)",
            None,
            UNREAD_BODY,
        )
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(
                413, f"the request body is over this server's {limit} bytes (--max-request-bytes)", None, UNREAD_BODY
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _admit(state, texts, field):
    """Refuses a request before any of its texts is tokenised: 413 over `--max-texts`, `Overloaded` (503)
    when the queue has no room for it (`DynamicBatcher.admit`, the rule the batcher applies again when the rows
    arrive)."""
    settings = state.settings
    if len(texts) > settings.max_texts:
        raise RequestError(
            413,
            f"{field}: {len(texts)} texts; this server takes at most {settings.max_texts} a request (--max-texts)",
            field,
        )
    state.batcher.admit(len(texts))


async def _texts_to_vectors(state, texts, field, prompt_name, dimensions, normalize, truncate, chunking):
    """(vectors [N, d'], tokens): what `/v1/embeddings` and `/embed` share."""
    service = state.service
    if service.kind == SPARSE:
        raise RequestError(
            422, f"{service.name} is a sparse encoder (SPLADE): its vectors come from POST /embed_sparse", field
        )
    if dimensions is not None and dimensions > service.dimensions:
        raise RequestError(422, f"dimensions: {dimensions} is over {service.name}'s {service.dimensions}", "dimensions")
    _admit(state, texts, field)
    try:
        prompt = service.prompt_text(prompt_name)
    except ModelCannotServe as error:
        raise RequestError(422, f"prompt_name: {error}", "prompt_name") from None
    if chunking is not None:
        chunks = chunking.chunking()
        if not service.chunking:
            raise RequestError(
                422, f"chunking: {service.name} cannot chunk texts (it is not a SentenceEncoder)", "chunking"
            )
        tokens = await run_in_threadpool(service.whole_token_count, texts, prompt)
        vectors = await state.batcher.run_alone(
            lambda: service.encode_chunked(texts, prompt, chunks, dimensions, normalize), len(texts), tokens
        )
        return np.ascontiguousarray(vectors, dtype=np.float32), tokens
    if sum(len(text) for text in texts) <= INLINE_TOKENIZE_CHARACTERS:
        rows = service.text_rows(texts, prompt)
    else:
        rows = await run_in_threadpool(service.text_rows, texts, prompt)
    if not truncate:
        await _refuse_truncated(service, texts, prompt, rows, field)
    vectors = await state.batcher.submit(rows.carried(), rows.tokens)
    return service.finish(vectors, dimensions, normalize), rows.tokens


async def _refuse_truncated(service, texts, prompt, rows, field):
    """A 413 naming the first text over the model's token limit (a request with truncate=false), if any."""
    over = await run_in_threadpool(service.truncated, texts, prompt, rows)
    if over:
        name = f"{field}[{over[0]}]"
        raise RequestError(
            413,
            f"{name}: longer than {service.name}'s {service.max_tokens} tokens (send truncate=true to cut it)",
            name,
        )


async def _embeddings(state, request):
    """POST /v1/embeddings (OpenAI): unit vectors, as float lists or base64 of little-endian float32."""
    body = parse_body(await _read_body(request, state.settings), EmbeddingsRequest)
    service = state.service
    if body.model != service.name:
        raise RequestError(
            404, f"model: {body.model!r} is not served here; this server serves {service.name!r}", "model"
        )
    texts = [body.input] if isinstance(body.input, str) else body.input
    vectors, tokens = await _texts_to_vectors(
        state, texts, "input", body.prompt_name, body.dimensions, True, True, body.chunking
    )
    if body.encoding_format == "base64":
        little_endian = vectors.astype("<f4", copy=False)
        embeddings = [base64.b64encode(row.tobytes()).decode("ascii") for row in little_endian]
    else:
        embeddings = list(vectors)
    data = [{"object": "embedding", "index": i, "embedding": embedding} for i, embedding in enumerate(embeddings)]
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return json_response({"object": "list", "data": data, "model": service.name, "usage": usage}), len(texts), tokens


async def _embed(state, request):
    """POST /embed (text-embeddings-inference): [[float, ...], ...]; with `binary`, a hashed model's
    packed codes [[0-255, ...], ...] (the first `bits` bits with `bits`)."""
    body = parse_body(await _read_body(request, state.settings), EmbedRequest)
    service = state.service
    if body.bits is not None and not body.binary:
        raise RequestError(422, "bits: only with binary=true (the prefix of a hashed model's code)", "bits")
    if body.binary and service.bits is None:
        raise RequestError(422, f"binary: {service.name} has no hashing layer (a HashedEncoder gives codes)", "binary")
    if body.binary and body.dimensions is not None:
        raise RequestError(
            422, "dimensions: not with binary=true (a code is of the whole vector; bits= keeps a prefix)", "dimensions"
        )
    if body.binary and body.bits is not None:
        try:
            code_prefix_bits(body.bits, service.bits)
        except ValueError as error:
            raise RequestError(422, str(error), "bits") from None  # its message names the field
    texts = [body.inputs] if isinstance(body.inputs, str) else body.inputs
    normalize = body.normalize and not body.binary
    vectors, tokens = await _texts_to_vectors(
        state, texts, "inputs", body.prompt_name, body.dimensions, normalize, body.truncate, body.chunking
    )
    if body.binary:
        return json_response(service.codes(vectors, body.bits).astype(np.int32)), len(texts), tokens
    return json_response(vectors), len(texts), tokens


async def _embed_sparse(state, request):
    """POST /embed_sparse (text-embeddings-inference): [[{"index", "value"}, ...], ...], each text's active vocabulary
    entries, largest first. `side` ("document" by default, or "query") picks the side's prompt, and an inference-free
    model's query encoder (no transformer, answered without the batcher)."""
    body = parse_body(await _read_body(request, state.settings), EmbedSparseRequest)
    service = state.service
    if service.kind != SPARSE:
        raise RequestError(
            422,
            f"{service.name} is not a sparse encoder: its vectors come from POST /embed or /v1/embeddings",
            "inputs",
        )
    texts, prompt = _side_texts(state, body)
    if body.side == "query" and service.model.query_encoder is not None:
        entries = await run_in_threadpool(service.static_query_rows, texts, prompt, body.max_active_dims)
        return json_response(entries), len(texts), 0
    rows = await run_in_threadpool(service.text_rows, texts, prompt)
    if not body.truncate:
        await _refuse_truncated(service, texts, prompt, rows, "inputs")
    weights = await state.batcher.submit(rows.carried(), rows.tokens)
    return json_response(service.sparse_rows(weights, body.max_active_dims)), len(texts), rows.tokens


def _side_texts(state, body):
    """(texts, prompt) of a request with `inputs` and a `side` (/embed_sparse, /embed_all): admitted, the side's
    prompt (the named one, else the side's own) resolved; an unknown prompt name is a 422."""
    texts = [body.inputs] if isinstance(body.inputs, str) else body.inputs
    _admit(state, texts, "inputs")
    try:
        return texts, state.service.side_prompt(body.side, body.prompt_name)
    except ModelCannotServe as error:
        raise RequestError(422, f"prompt_name: {error}", "prompt_name") from None


async def _not_pooled(state, request):
    """/embed, /v1/embeddings and /embed_sparse of a multi-vector encoder: 422, naming /embed_all."""
    raise RequestError(
        422,
        f"{state.service.name} is a multi-vector encoder (ColBERT): its token vectors come from POST /embed_all "
        '(with "side": "query" or "document"), its scores from POST /rerank',
        None,
    )


async def _embed_all(state, request):
    """POST /embed_all (text-embeddings-inference): [[[float, …] a token, …] a text, …], the token vectors a
    multi-vector encoder scores with: `side` "query" (its marker, the expansion fillers: what `encode_query` returns)
    or "document" (the default: its marker, less the skip-list's tokens). A request runs alone on the model's
    thread; with truncate=false a text over the side's limit is a 413."""
    body = parse_body(await _read_body(request, state.settings), EmbedAllRequest)
    service = state.service
    texts, prompt = _side_texts(state, body)
    if not body.truncate:
        over = await run_in_threadpool(service.sides_over_limit, texts, body.side, prompt)
        if over:
            name = f"inputs[{over[0]}]"
            limit = service.runner.token_limit(body.side)
            raise RequestError(
                413, f"{name}: longer than {service.name}'s {limit} tokens a {body.side} (send truncate=true)", name
            )
    vectors = await state.batcher.run_alone(lambda: service.token_vectors(texts, body.side, prompt), len(texts), 0)
    return json_response(vectors), len(texts), int(sum(len(v) for v in vectors))


async def _rerank_maxsim(state, request):
    """POST /rerank of a multi-vector encoder: [{"index", "score", "text"?}, ...], best first, the score its
    similarity (MaxSim) of the query's query-side vectors against each text's document-side vectors."""
    body = parse_body(await _read_body(request, state.settings), RerankRequest)
    service = state.service
    texts = [body.texts] if isinstance(body.texts, str) else body.texts
    _admit(state, texts, "texts")
    scores = await state.batcher.run_alone(lambda: service.maxsim_scores(body.query, texts), len(texts) + 1, 0)
    return json_response(_ranked(scores, texts, body.return_text)), len(texts), 0


def _ranked(scores, texts, return_text):
    """[{"index", "score", "text"?}, ...] by score, best first (ties by index)."""
    ranked = []
    for index in np.argsort(-np.asarray(scores), kind="stable"):
        entry = {"index": int(index), "score": float(scores[index])}
        if return_text:
            entry["text"] = texts[index]
        ranked.append(entry)
    return ranked


async def _rerank(state, request):
    """POST /rerank (text-embeddings-inference): [{"index", "score", "text"?}, ...], best first."""
    body = parse_body(await _read_body(request, state.settings), RerankRequest)
    service = state.service
    texts = [body.texts] if isinstance(body.texts, str) else body.texts
    _admit(state, texts, "texts")
    rows = await run_in_threadpool(service.pair_rows, body.query, texts)
    if not body.truncate:
        over = await run_in_threadpool(service.pairs_over_limit, body.query, texts)
        if over:
            name = f"texts[{over[0]}]"
            raise RequestError(
                413,
                f"{name}: with the query, longer than {service.name}'s {service.max_tokens} tokens (send truncate=true)",
                name,
            )
    scores = service.scores(await state.batcher.submit(rows.carried(), rows.tokens), body.raw_scores)
    return json_response(_ranked(scores, texts, body.return_text)), len(texts), rows.tokens


async def _models(state, request):
    """GET /v1/models (OpenAI): the one model served, with its width, token limit and kind."""
    service = state.service
    model = {
        "id": service.name,
        "object": "model",
        "created": state.created,
        "owned_by": "keras-sentemb",
        "kind": service.kind,
        "dimensions": service.dimensions,
        "max_tokens": service.max_tokens,
        "prompts": service.prompts,
    }
    return json_response({"object": "list", "data": [model]}), 0, 0


async def _metrics(state, request):
    body, content_type = state.metrics.exposition()
    return Response(body, media_type=content_type), 0, 0


async def _health(state, request):
    """GET /health: 200 once the model answered its warm-up request; 503 before, or when it failed."""
    if state.ready:
        return json_response({"status": "ok", "model": state.service.name})
    if state.warm_up_error:
        return json_response({"status": "failed", "error": state.warm_up_error}, 503)
    return json_response({"status": "warming up"}, 503)

"""ServerSettings: the limits and switches of one server (`keras-sentemb serve`'s options)."""

from __future__ import annotations

import dataclasses

from keras_sentemb.utils.argument_checks import positive_int


@dataclasses.dataclass(frozen=True)
class ServerSettings:
    """What the server accepts and how it batches.

    Args:
        max_texts: texts (or /rerank documents) one request may hold; more is 413 (OpenAI's limit: 2,048).
        max_request_bytes: the largest request body; more is 413 before it is read whole (8 MiB).
        max_batch_tokens: tokens (special tokens included) one merged model call gathers from the queue.
        max_wait_ms: how long the batcher waits for more requests when the queue runs empty before
            the budget is reached.
        max_queued_texts: texts that may wait for the model; a request past it is refused at once
            with 503 and `Retry-After: retry_after_s`.
        api_keys: keys a request must present as `Authorization: Bearer <key>` (empty: no keys).
        cors_origins: origins allowed by CORS (empty: CORS off, the default).
        retry_after_s: the `Retry-After` of a 503.
        read_timeout_s: the deadline of a request's headers (from the moment its connection waits for them;
            past it the connection is closed) and, separately, of its body once the headers are in (past it,
            408): a slow or silent client holds a connection at most this long.
        keep_alive_timeout_s: how long an idle keep-alive connection stays open between requests.
        max_header_bytes: the largest request head (request line and headers); more is 431 and the
            connection is closed.
        graceful_timeout_s: after SIGTERM, how long requests already accepted may still take; past it the
            unfinished ones are cut (answered 503 where they can be, counted in
            `keras_sentemb_requests_cut_total`, and the process exits with status 1).

    Example:
    >>> ServerSettings(max_texts=64).max_texts
    64
    >>> ServerSettings(max_wait_ms=-1)
    Traceback (most recent call last):
    ValueError: max_wait_ms must be a number in [0, 1000], got -1
    >>> ServerSettings(graceful_timeout_s=float("inf"))
    Traceback (most recent call last):
    ValueError: graceful_timeout_s must be a number in [0.001, 86400], got inf
    """

    max_texts: int = 2048
    max_request_bytes: int = 8 << 20
    max_batch_tokens: int = 16384
    max_wait_ms: float = 2.0
    max_queued_texts: int = 4096
    api_keys: tuple[bytes, ...] = ()
    cors_origins: tuple[str, ...] = ()
    retry_after_s: int = 1
    read_timeout_s: float = 10.0
    keep_alive_timeout_s: float = 5.0
    max_header_bytes: int = 16384
    graceful_timeout_s: float = 30.0

    def __post_init__(self):
        for name in (
            "max_texts",
            "max_request_bytes",
            "max_batch_tokens",
            "max_queued_texts",
            "retry_after_s",
            "max_header_bytes",
        ):
            positive_int(getattr(self, name), name)
        _number_in(self.max_wait_ms, "max_wait_ms", 0, 1000)
        for name in ("read_timeout_s", "keep_alive_timeout_s", "graceful_timeout_s"):
            _number_in(getattr(self, name), name, 0.001, 86400)


def _number_in(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"{name} must be a number in [{low:g}, {high:g}], got {value!r}")

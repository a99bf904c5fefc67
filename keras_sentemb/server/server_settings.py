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

    Example:
    >>> ServerSettings(max_texts=64).max_texts
    64
    >>> ServerSettings(max_wait_ms=-1)
    Traceback (most recent call last):
    ValueError: max_wait_ms must be a number in [0, 1000], got -1
    """

    max_texts: int = 2048
    max_request_bytes: int = 8 << 20
    max_batch_tokens: int = 16384
    max_wait_ms: float = 2.0
    max_queued_texts: int = 4096
    api_keys: tuple[bytes, ...] = ()
    cors_origins: tuple[str, ...] = ()
    retry_after_s: int = 1

    def __post_init__(self):
        for name in ("max_texts", "max_request_bytes", "max_batch_tokens", "max_queued_texts", "retry_after_s"):
            positive_int(getattr(self, name), name)
        wait = self.max_wait_ms
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait <= 1000:
            raise ValueError(f"max_wait_ms must be a number in [0, 1000], got {wait!r}")

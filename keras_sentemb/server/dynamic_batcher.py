"""DynamicBatcher: requests from many clients merged into model batches, run on one worker thread."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np

from keras_sentemb.utils.argument_checks import positive_int


class Overloaded(Exception):
    """The queue holds as many texts as it may: the request is refused at once (HTTP 503), never queued."""

    def __init__(self, queued, limit):
        super().__init__(f"the server is at capacity: {queued} texts are waiting (the limit is {limit}); retry shortly")


class ShuttingDown(Exception):
    """The batcher was closed: no new work is taken (HTTP 503)."""


@dataclasses.dataclass
class _Job:
    rows: Sequence  # model input rows (token-id rows), or None for a task
    tokens: int
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop
    task: Callable | None = None  # run alone on the worker: work that cannot be merged (chunked texts)


class DynamicBatcher:
    """Merges the token rows of concurrent requests into batches for one model, run on one thread.

    A request's rows wait in a FIFO queue. The worker takes the oldest request and then every
    request behind it while their tokens stay within `max_batch_tokens`, waiting at most
    `max_wait_s` for more when the queue runs empty first; it calls `run_rows` once on the rows of
    all of them (`EmbeddingModel.predict_rows` sorts them by length and pads each model batch to
    its own length bucket, as `encode` does) and hands each request its own output rows. A text's
    output depends on its own row only: merged or alone, its vector is the same to float32 noise
    (tests/server/test_dynamic_batching.py, through HTTP).

    Back-pressure: a request that would take the queue past `max_queued_texts` is refused at
    once with `Overloaded` (the server answers 503 with Retry-After); a queue that is empty takes
    any request, however large, so that nothing is refused for its size alone (the server's
    request limits bound that).

    The model runs on the worker thread, never on the event loop: while a batch runs, the loop
    keeps answering health checks, metrics and refusals.

    Example:
    >>> import asyncio, numpy as np
    >>> batcher = DynamicBatcher(lambda rows: np.array([[len(row)] for row in rows], np.float32))
    >>> async def two_clients():
    ...     return await asyncio.gather(batcher.submit([[1, 2]], 2), batcher.submit([[1], [1, 2, 3]], 4))
    >>> [outputs.ravel().tolist() for outputs in asyncio.run(two_clients())]
    [[2.0], [1.0, 3.0]]
    >>> batcher.close()
    """

    def __init__(
        self,
        run_rows: Callable[[list], np.ndarray],
        max_batch_tokens: int = 16384,
        max_wait_s: float = 0.002,
        max_queued_texts: int = 4096,
        on_batch: Callable[[int, int], None] | None = None,
    ):
        positive_int(max_batch_tokens, "max_batch_tokens")
        positive_int(max_queued_texts, "max_queued_texts")
        if not 0 <= max_wait_s <= 1:
            raise ValueError(f"max_wait_s must be in [0, 1] seconds, got {max_wait_s!r}")
        self.run_rows = run_rows
        self.max_batch_tokens = max_batch_tokens
        self.max_wait_s = max_wait_s
        self.max_queued_texts = max_queued_texts
        self.on_batch = on_batch
        self._queue = collections.deque()
        self._queued_texts = 0
        self._condition = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._work, name="keras-sentemb-batcher", daemon=True)
        self._thread.start()

    @property
    def queued_texts(self) -> int:
        """Texts waiting for the model (not counting the batch that runs)."""
        return self._queued_texts

    def admit(self, texts: int) -> None:
        """Raises `Overloaded` when `texts` more would take the queue past `max_queued_texts` (a queue that is
        empty takes any number): the one admission rule, which `submit` applies and a server may ask before
        it tokenises a request."""
        queued = self._queued_texts
        if queued and queued + texts > self.max_queued_texts:
            raise Overloaded(queued, self.max_queued_texts)

    async def submit(self, rows: Sequence, tokens: int) -> np.ndarray:
        """The outputs of `rows` (one per row, in order), computed in a merged batch; `tokens` is what
        the rows weigh against `max_batch_tokens`. Raises `Overloaded` or `ShuttingDown` at once."""
        return await self._enqueue(rows, tokens, None)

    async def run_alone(self, task: Callable[[], object], texts: int, tokens: int):
        """`task()` on the worker thread, in queue order, merged with nothing: work that is not a
        list of rows (chunked documents). `texts` counts against `max_queued_texts`."""
        return await self._enqueue([None] * texts, tokens, task)

    async def _enqueue(self, rows, tokens, task):
        loop = asyncio.get_running_loop()
        job = _Job(rows, int(tokens), loop.create_future(), loop, task)
        with self._condition:
            if self._closed:
                raise ShuttingDown("the server is shutting down")
            self.admit(len(rows))
            self._queue.append(job)
            self._queued_texts += len(rows)
            self._condition.notify()
        return await job.future

    def close(self, timeout: float | None = None) -> None:
        """Stops taking work; the queued requests still run. Returns when the worker has finished them
        (or after `timeout` seconds)."""
        with self._condition:
            self._closed = True
            self._condition.notify()
        self._thread.join(timeout)

    # ------------------------------------------------------------------ the worker thread
    def _next_batch(self):
        """The jobs of the next model call (a task alone), or [] once closed and drained."""
        with self._condition:
            while not self._queue:
                if self._closed:
                    return []
                self._condition.wait()
            first = self._queue.popleft()
            batch = [first]
            if first.task is None:
                tokens, deadline = first.tokens, time.monotonic() + self.max_wait_s
                while tokens < self.max_batch_tokens:
                    if self._queue:
                        job = self._queue[0]
                        if job.task is not None or tokens + job.tokens > self.max_batch_tokens:
                            break
                        batch.append(self._queue.popleft())
                        tokens += job.tokens
                        continue
                    remaining = deadline - time.monotonic()
                    if remaining <= 0 or self._closed:
                        break
                    self._condition.wait(remaining)
            self._queued_texts -= sum(len(job.rows) for job in batch)
            return batch

    def _work(self):
        while True:
            batch = self._next_batch()
            if not batch:
                return
            try:
                if batch[0].task is not None:
                    results = [batch[0].task()]
                else:
                    rows = [row for job in batch for row in job.rows]
                    outputs = self.run_rows(rows)
                    if self.on_batch is not None:
                        self.on_batch(len(rows), sum(job.tokens for job in batch))
                    ends = np.cumsum([len(job.rows) for job in batch])
                    results = np.split(outputs, ends[:-1])
            except Exception as error:  # every waiting request gets the error; the worker lives on
                for job in batch:
                    _hand_over(job, None, error)
                continue
            for job, result in zip(batch, results):
                _hand_over(job, result, None)


def _hand_over(job, result, error):
    """Gives `job` its result on its event loop's thread (a loop that has closed meanwhile: nobody waits)."""
    try:
        job.loop.call_soon_threadsafe(_settle, job.future, result, error)
    except RuntimeError:
        pass


def _settle(future, result, error):
    """Completes `future` on its loop, unless its client went away (a cancelled future)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)

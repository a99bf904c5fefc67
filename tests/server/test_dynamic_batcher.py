"""DynamicBatcher: concurrent requests merged into one model call within a token budget, each handed its
own rows back; a full queue refuses at once; a failing call fails only its own requests."""

import asyncio
import threading
import time

import numpy as np
import pytest

from keras_sentemb.server.dynamic_batcher import DynamicBatcher, Overloaded, ShuttingDown


class GatedModel:
    """A model whose first call waits for `release`: requests sent meanwhile queue behind it."""

    def __init__(self):
        self.calls, self.release, self.started = [], threading.Event(), threading.Event()

    def __call__(self, rows):
        self.calls.append([list(row) for row in rows])
        if len(self.calls) == 1:
            self.started.set()
            self.release.wait(5)
        return np.array([[sum(row), len(row)] for row in rows], np.float32)


async def _busy(batcher, model):
    """Sends a first request and returns it (a future) once the model is blocked in its call."""
    first = asyncio.ensure_future(batcher.submit([[1]], 1))
    while not model.started.is_set():
        await asyncio.sleep(0.001)
    return first


async def _after_first_call(model, requests):
    """Sends `requests()` once the model's first (blocked) call has started, then releases the model."""
    while not model.started.is_set():
        await asyncio.sleep(0.001)
    task = asyncio.ensure_future(requests())
    await asyncio.sleep(0.05)  # the requests reach the queue while the model is busy
    model.release.set()
    return await task


def test_requests_that_wait_together_run_as_one_call_and_get_their_own_rows():
    model = GatedModel()
    batcher = DynamicBatcher(model, max_batch_tokens=100, max_wait_s=0)

    async def clients():
        first = asyncio.ensure_future(batcher.submit([[9]], 1))
        rest = await _after_first_call(
            model, lambda: asyncio.gather(batcher.submit([[1, 2]], 2), batcher.submit([[3], [4, 5, 6]], 4))
        )
        return await first, rest

    first, (a, b) = asyncio.run(clients())
    batcher.close()
    assert model.calls == [[[9]], [[1, 2], [3], [4, 5, 6]]]
    np.testing.assert_array_equal(first, [[9, 1]])
    np.testing.assert_array_equal(a, [[3, 2]])
    np.testing.assert_array_equal(b, [[3, 1], [15, 3]])


def test_a_call_gathers_requests_only_up_to_the_token_budget():
    model = GatedModel()
    batcher = DynamicBatcher(model, max_batch_tokens=5, max_wait_s=0)

    async def clients():
        first = asyncio.ensure_future(batcher.submit([[0]], 1))
        await _after_first_call(
            model,
            lambda: asyncio.gather(batcher.submit([[1]], 3), batcher.submit([[2]], 2), batcher.submit([[3]], 3)),
        )
        await first

    asyncio.run(clients())
    batcher.close()
    assert model.calls[1:] == [[[1], [2]], [[3]]]


def test_a_request_over_the_budget_alone_still_runs():
    batcher = DynamicBatcher(lambda rows: np.ones((len(rows), 1), np.float32), max_batch_tokens=4)
    out = asyncio.run(batcher.submit([[1]] * 10, 100))
    batcher.close()
    assert out.shape == (10, 1)


def test_the_batcher_waits_up_to_max_wait_for_company_when_the_queue_is_empty():
    calls = []
    batcher = DynamicBatcher(lambda rows: calls.append(len(rows)) or np.zeros((len(rows), 1)), max_wait_s=0.2)

    async def two_clients_20ms_apart():
        first = asyncio.ensure_future(batcher.submit([[1]], 1))
        await asyncio.sleep(0.02)
        await asyncio.gather(first, batcher.submit([[2]], 1))

    asyncio.run(two_clients_20ms_apart())
    batcher.close()
    assert calls == [2]


def test_a_full_queue_refuses_at_once_and_an_empty_queue_takes_any_size():
    model = GatedModel()
    batcher = DynamicBatcher(model, max_queued_texts=3, max_wait_s=0)

    async def clients():
        first = asyncio.ensure_future(batcher.submit([[0]], 1))
        while not model.started.is_set():
            await asyncio.sleep(0.001)
        queued = asyncio.ensure_future(batcher.submit([[1], [2]], 2))
        await asyncio.sleep(0.01)
        started = time.perf_counter()
        with pytest.raises(Overloaded, match="2 texts are waiting.*limit is 3"):
            await batcher.submit([[3], [4]], 2)
        refused_in = time.perf_counter() - started
        # The same rule asked before a request is tokenised (the server's early refusal): one more fits, two not.
        batcher.admit(1)
        with pytest.raises(Overloaded, match="2 texts are waiting.*limit is 3"):
            batcher.admit(2)
        model.release.set()
        await asyncio.gather(first, queued)
        return refused_in

    assert asyncio.run(clients()) < 0.05
    big = asyncio.run(batcher.submit([[1]] * 10, 10))  # the queue is empty again
    batcher.close()
    assert len(big) == 10


def test_a_failing_call_fails_its_own_requests_and_the_worker_lives_on():
    def model(rows):
        if any(row == [666] for row in rows):
            raise ValueError("the model's output holds NaN")
        return np.zeros((len(rows), 1), np.float32)

    batcher = DynamicBatcher(model)
    with pytest.raises(ValueError, match="NaN"):
        asyncio.run(batcher.submit([[666]], 1))
    assert asyncio.run(batcher.submit([[1]], 1)).shape == (1, 1)
    batcher.close()


def test_work_that_cannot_be_merged_runs_alone_in_queue_order():
    calls = []
    batcher = DynamicBatcher(lambda rows: calls.append(("rows", len(rows))) or np.zeros((len(rows), 1)))

    async def clients():
        return await asyncio.gather(
            batcher.submit([[1]], 1),
            batcher.run_alone(lambda: calls.append("task") or "done", 1, 1),
            batcher.submit([[2]], 1),
        )

    results = asyncio.run(clients())
    batcher.close()
    assert results[1] == "done"
    assert calls.index("task") == 1 and len(calls) == 3


def test_a_closed_batcher_finishes_what_it_took_and_refuses_the_rest():
    model = GatedModel()
    batcher = DynamicBatcher(model, max_wait_s=0)

    async def clients():
        first = await _busy(batcher, model)
        queued = asyncio.ensure_future(batcher.submit([[2]], 1))
        await asyncio.sleep(0.01)
        closing = threading.Thread(target=batcher.close)
        closing.start()
        await asyncio.sleep(0.01)
        with pytest.raises(ShuttingDown):
            await batcher.submit([[3]], 1)
        model.release.set()
        answers = await asyncio.gather(first, queued)
        closing.join(5)
        return answers

    first, queued = asyncio.run(clients())
    np.testing.assert_array_equal(queued, [[2, 1]])


def test_a_client_that_went_away_does_not_stop_the_others():
    model = GatedModel()
    batcher = DynamicBatcher(model, max_wait_s=0)

    async def clients():
        first = await _busy(batcher, model)
        gone = asyncio.ensure_future(batcher.submit([[2]], 1))
        kept = asyncio.ensure_future(batcher.submit([[3]], 1))
        await asyncio.sleep(0.01)
        gone.cancel()
        model.release.set()
        return await asyncio.gather(first, kept)

    _, kept = asyncio.run(clients())
    batcher.close()
    np.testing.assert_array_equal(kept, [[3, 1]])


@pytest.mark.parametrize(
    "options, message",
    [
        ({"max_batch_tokens": 0}, "max_batch_tokens must be a positive int"),
        ({"max_queued_texts": True}, "max_queued_texts must be a positive int"),
        ({"max_wait_s": 5}, r"max_wait_s must be in \[0, 1\]"),
    ],
)
def test_settings_out_of_range_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        DynamicBatcher(lambda rows: rows, **options)

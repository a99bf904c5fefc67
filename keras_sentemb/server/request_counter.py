"""RequestCounter: ASGI middleware that counts the HTTP requests an app accepted and answered."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class RequestCounts:
    """`accepted`: requests the app received; `answered`: those whose response was sent whole. After a
    graceful stop the two are equal: no accepted request was dropped. `cut`: requests the graceful-shutdown
    deadline cut unfinished (each answered 503 where its connection could still take it)."""

    accepted: int = 0
    answered: int = 0
    cut: int = 0

    @property
    def in_flight(self) -> int:
        return self.accepted - self.answered


class RequestCounter:
    """Wraps an ASGI app: each HTTP request counts as accepted when it reaches the app and as answered
    when the last part of its response body has been sent; `on_change(in_flight)` hears each change.

    Example:
    >>> import asyncio
    >>> async def app(scope, receive, send):
    ...     await send({"type": "http.response.start", "status": 200, "headers": []})
    ...     await send({"type": "http.response.body", "body": b"ok"})
    >>> counts = RequestCounts()
    >>> async def nothing(message=None):
    ...     return {"type": "http.request"}
    >>> asyncio.run(RequestCounter(app, counts)({"type": "http"}, nothing, nothing))
    >>> counts
    RequestCounts(accepted=1, answered=1, cut=0)
    """

    def __init__(self, app, counts: RequestCounts, on_change=None):
        self.app, self.counts, self.on_change = app, counts, on_change or (lambda in_flight: None)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        counts = self.counts
        counts.accepted += 1
        self.on_change(counts.in_flight)
        sent = False

        async def counted_send(message):
            nonlocal sent
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False) and not sent:
                sent = True
                counts.answered += 1
                self.on_change(counts.in_flight)

        await self.app(scope, receive, counted_send)

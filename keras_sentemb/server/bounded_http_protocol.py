"""bounded_http_protocol: uvicorn's HTTP protocol with a deadline and a size for every request's headers — the
one adapter over uvicorn's protocol classes (their `cycle` and `on_response_complete`).

uvicorn bounds an idle keep-alive connection (`timeout_keep_alive`) but not a connection that never finishes its
headers: a client that opens a socket and stays silent, or sends one header byte every few seconds (slowloris),
holds its connection for ever, and httptools accepts headers of any size. Here, from the moment a connection
waits for a request's headers (it opened, or its last response ended), the headers must be complete within
`header_timeout_s` seconds and `max_header_bytes` bytes; past the deadline the connection is closed, past the
size it is answered `431 Request Header Fields Too Large` and closed. The body has its own deadline in the
application (`create_app`: 408).

Example (the class uvicorn builds a connection with):
>>> protocol = bounded_protocol(header_timeout_s=10.0, max_header_bytes=16384)
>>> protocol.header_timeout_s, protocol.max_header_bytes
(10.0, 16384)
"""

from __future__ import annotations

from uvicorn.protocols.http.auto import AutoHTTPProtocol

HEADER_END = b"\r\n\r\n"


def too_large_response(max_header_bytes: int) -> bytes:
    """The 431 answer to headers over `max_header_bytes`.

    >>> too_large_response(100).splitlines()[0], too_large_response(100).splitlines()[-1]
    (b'HTTP/1.1 431 Request Header Fields Too Large', b"the request headers are over this server's 100 bytes")
    """
    body = f"the request headers are over this server's {max_header_bytes} bytes".encode("ascii")
    head = "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
    return f"{head}connection: close\r\ncontent-length: {len(body)}\r\n\r\n".encode("ascii") + body


class BoundedHttpProtocol(AutoHTTPProtocol):
    """uvicorn's HTTP protocol (httptools where installed, else h11) whose request headers have a deadline and a
    size limit (the class attributes, set by `bounded_protocol`)."""

    header_timeout_s: float = 10.0
    max_header_bytes: int = 16384

    def connection_made(self, transport):
        super().connection_made(transport)
        self.header_deadline, self.header_bytes = None, 0
        self._await_headers()

    def data_received(self, data):
        if self.header_deadline is not None:
            end = data.find(HEADER_END)
            self.header_bytes += len(data) if end < 0 else end + len(HEADER_END)
            if self.header_bytes > self.max_header_bytes:
                self._cancel_deadline()
                self.transport.write(too_large_response(self.max_header_bytes))
                self.transport.close()
                return
        super().data_received(data)
        if self.header_deadline is not None and not self._between_requests():
            self._cancel_deadline()  # a request's headers arrived: the application reads its body

    def on_response_complete(self):
        super().on_response_complete()
        if not self.transport.is_closing() and self._between_requests():
            self._await_headers()  # the next request's headers have a deadline too (unless already pipelined)

    def _between_requests(self):
        return self.cycle is None or self.cycle.response_complete

    def connection_lost(self, exc):
        self._cancel_deadline()
        super().connection_lost(exc)

    def _await_headers(self):
        self._cancel_deadline()
        self.header_bytes = 0
        self.header_deadline = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _cancel_deadline(self):
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None

    def _headers_too_slow(self):
        self.header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def bounded_protocol(header_timeout_s: float, max_header_bytes: int) -> type[BoundedHttpProtocol]:
    """A `BoundedHttpProtocol` class with these bounds, for `uvicorn.Config(http=...)`."""
    return type(
        "BoundedHttpProtocol",
        (BoundedHttpProtocol,),
        {"header_timeout_s": float(header_timeout_s), "max_header_bytes": int(max_header_bytes)},
    )

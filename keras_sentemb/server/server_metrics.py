"""ServerMetrics: the server's Prometheus metrics (`GET /metrics`, through `prometheus-client`)."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
TOKEN_BUCKETS = (16, 64, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536)


class ServerMetrics:
    """The counters, gauges and histograms of one server, in a registry of its own (two apps in one
    process never share counts).

    - `keras_sentemb_requests_total{endpoint, status}`: answered requests;
    - `keras_sentemb_request_seconds{endpoint}`: latency from the request's arrival to its answer;
    - `keras_sentemb_texts_total{endpoint}`, `keras_sentemb_tokens_total{endpoint}`: texts (pairs for
      /rerank) and their tokens, special tokens included;
    - `keras_sentemb_batch_texts`, `keras_sentemb_batch_tokens`: the size of each merged model call;
    - `keras_sentemb_queue_texts`: texts waiting for the model; `keras_sentemb_requests_in_flight`;
    - `keras_sentemb_requests_cut_total{endpoint}`: requests cut unfinished by the graceful-shutdown deadline.

    Example:
    >>> metrics = ServerMetrics()
    >>> metrics.batch(texts=3, tokens=40)
    >>> b"keras_sentemb_batch_texts_count 1.0" in metrics.exposition()[0]
    True
    """

    def __init__(self, queued_texts=lambda: 0):
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "keras_sentemb_requests", "Answered requests", ["endpoint", "status"], registry=self.registry
        )
        self.latency = Histogram(
            "keras_sentemb_request_seconds",
            "Seconds from a request's arrival to its answer",
            ["endpoint"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.texts = Counter(
            "keras_sentemb_texts", "Texts (pairs for /rerank) served", ["endpoint"], registry=self.registry
        )
        self.tokens = Counter(
            "keras_sentemb_tokens",
            "Tokens read by the model, special tokens included",
            ["endpoint"],
            registry=self.registry,
        )
        self.batch_texts = Histogram(
            "keras_sentemb_batch_texts", "Texts of one merged model call", buckets=SIZE_BUCKETS, registry=self.registry
        )
        self.batch_tokens = Histogram(
            "keras_sentemb_batch_tokens",
            "Tokens of one merged model call",
            buckets=TOKEN_BUCKETS,
            registry=self.registry,
        )
        self.queue = Gauge("keras_sentemb_queue_texts", "Texts waiting for the model", registry=self.registry)
        self.queue.set_function(queued_texts)
        self.cut_requests = Counter(
            "keras_sentemb_requests_cut",
            "Requests cut unfinished by the graceful-shutdown deadline",
            ["endpoint"],
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "keras_sentemb_requests_in_flight", "Requests received and not yet answered", registry=self.registry
        )

    def batch(self, texts: int, tokens: int) -> None:
        """Records one merged model call (called on the batcher's thread)."""
        self.batch_texts.observe(texts)
        self.batch_tokens.observe(tokens)

    def answered(self, endpoint: str, status: int, seconds: float, texts: int = 0, tokens: int = 0) -> None:
        """Records one answered request."""
        self.requests.labels(endpoint, str(status)).inc()
        self.latency.labels(endpoint).observe(seconds)
        if texts:
            self.texts.labels(endpoint).inc(texts)
            self.tokens.labels(endpoint).inc(tokens)

    def exposition(self) -> tuple[bytes, str]:
        """(body, content type) of the Prometheus text format."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST

"""`keras-sentemb serve MODEL`: one model behind uvicorn, stopped gracefully by SIGTERM or Ctrl-C."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import threading

from keras_sentemb.data.text_file import read_lines
from keras_sentemb.server.api_keys import read_api_keys
from keras_sentemb.server.embedding_service import EmbeddingService
from keras_sentemb.server.server_settings import ServerSettings
from keras_sentemb.zoo.loading import load_served_model

LOG = logging.getLogger("keras_sentemb.server")


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `keras-sentemb serve` (docs/serving_http.md)."""
    defaults = ServerSettings()
    parser.add_argument(
        "model", help="preset name, zoo:NAME, Hugging Face folder, or .keras file (an encoder or a cross-encoder)"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1; 0.0.0.0 for every interface)"
    )
    parser.add_argument("--port", type=int, default=8080, help="default: 8080")
    parser.add_argument(
        "--served-model-name", default=None, help="the `model` clients send (default: MODEL without zoo: or its folder)"
    )
    parser.add_argument(
        "--backend",
        choices=["tensorflow", "openvino", "litert"],
        default=None,
        help="the runtime (default: TensorFlow at float32, OpenVINO otherwise)",
    )
    parser.add_argument("--precision", choices=["float32", "bfloat16", "int8"], default="float32")
    parser.add_argument(
        "--calibration", metavar="FILE", help="with --precision int8: calibration sentences, one a line"
    )
    parser.add_argument("--dtype", default=None, help="compute dtype policy of a preset or folder, e.g. mixed_bfloat16")
    parser.add_argument("--batch-size", type=int, default=32, help="texts a forward pass (default: 32)")
    parser.add_argument(
        "--max-batch-tokens",
        type=int,
        default=defaults.max_batch_tokens,
        help="tokens one merged model call gathers (default: %(default)s)",
    )
    parser.add_argument(
        "--max-wait-ms",
        type=float,
        default=defaults.max_wait_ms,
        help="how long a batch waits for more requests (default: %(default)s)",
    )
    parser.add_argument(
        "--max-queue",
        type=int,
        default=defaults.max_queued_texts,
        help="texts that may wait; past it, 503 (default: %(default)s)",
    )
    parser.add_argument(
        "--max-texts", type=int, default=defaults.max_texts, help="texts a request (default: %(default)s)"
    )
    parser.add_argument(
        "--max-request-bytes",
        type=int,
        default=defaults.max_request_bytes,
        help="the largest request body (default: 8 MiB)",
    )
    parser.add_argument(
        "--api-key-file", default=None, help="keys, one a line: requests need Authorization: Bearer <key>"
    )
    parser.add_argument(
        "--cors-origin", action="append", default=[], help="an origin CORS allows (repeatable; default: CORS off)"
    )
    parser.add_argument("--access-log", action="store_true", help="log every request (uvicorn's access log)")


def served_name(spec: str) -> str:
    """The name a model is served under (HTTP `model`, TF Serving's model name): `zoo:NAME` → NAME, a
    file or folder → its stem in lower case, a preset → itself.

    Example:
    >>> served_name("zoo:sbert-minilm-l6-stsb"), served_name("models/My-Encoder.keras"), served_name("minilm-l6")
    ('sbert-minilm-l6-stsb', 'my-encoder', 'minilm-l6')
    """
    if spec.startswith("zoo:"):
        return spec[len("zoo:") :]
    return os.path.splitext(os.path.basename(os.path.normpath(spec)))[0].lower()


def serve(args: argparse.Namespace) -> None:
    """Runs the server of `args` (`add_serve_arguments`) until SIGTERM or Ctrl-C: uvicorn then stops
    accepting connections, finishes every request it accepted, and returns (exit status 0)."""
    # The `server` extra (uvicorn, Starlette, orjson, pydantic, prometheus-client), imported here: the rest
    # of the command line runs without it.
    import uvicorn

    from keras_sentemb.server.http_app import create_app

    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port must be in [1, 65535], got {args.port}")
    if args.calibration and args.precision != "int8":
        raise ValueError("--calibration is for --precision int8 only")
    settings = ServerSettings(
        max_texts=args.max_texts,
        max_request_bytes=args.max_request_bytes,
        max_batch_tokens=args.max_batch_tokens,
        max_wait_ms=args.max_wait_ms,
        max_queued_texts=args.max_queue,
        api_keys=read_api_keys(args.api_key_file) if args.api_key_file else (),
        cors_origins=tuple(args.cors_origin),
    )
    calibration = read_lines(args.calibration) if args.calibration else None
    model = load_served_model(args.model, dtype=args.dtype)
    service = EmbeddingService(
        model,
        name=args.served_model_name or served_name(args.model),
        backend=args.backend,
        precision=args.precision,
        calibration_texts=calibration,
        batch_size=args.batch_size,
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = uvicorn.Config(
        create_app(service, settings),
        host=args.host,
        port=args.port,
        access_log=args.access_log,
        timeout_graceful_shutdown=None,  # every accepted request is answered before the process ends
        log_level="info",
    )
    if threading.current_thread() is threading.main_thread():
        # uvicorn stops gracefully on SIGTERM / SIGINT, then raises the signal again for the handler it
        # found: this one takes it, so that a graceful stop exits with status 0.
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda number, frame: LOG.info("stopped by signal %d", number))
    uvicorn.Server(config).run()

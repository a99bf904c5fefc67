"""`keras-sentemb serve MODEL`: one model behind uvicorn, stopped gracefully by SIGTERM or Ctrl-C."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading

from keras_sentemb.data.text_file import calibration_lines
from keras_sentemb.server.api_keys import read_api_keys
from keras_sentemb.server.embedding_service import load_service
from keras_sentemb.server.openvino_cache import served_folder
from keras_sentemb.server.server_settings import ServerSettings
from keras_sentemb.utils.command_errors import OneLineErrorParser, UsageError, run_command

LOG = logging.getLogger("keras_sentemb.server")
SHUTDOWN_MARGIN_S = 0.5


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `keras-sentemb serve` (docs/serving_http.md)."""
    defaults = ServerSettings()
    parser.add_argument(
        "model",
        help="preset name, zoo:NAME, Hugging Face folder, .keras file (an encoder or a cross-encoder), or a folder "
        "of `export --backend openvino` (served without TensorFlow)",
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
        help="the runtime (default: TensorFlow at float32, OpenVINO otherwise; an exported folder: OpenVINO). "
        "openvino with a preset or a Hugging Face folder converts it once (a child process) into a cache folder "
        "and serves that without TensorFlow",
    )
    parser.add_argument(
        "--precision",
        choices=["float32", "bfloat16", "int8"],
        default=None,
        help="default: float32 (an exported folder: its own)",
    )
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
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=defaults.read_timeout_s,
        metavar="SECONDS",
        help="deadline of a request's headers, and of its body (408) (default: %(default)s)",
    )
    parser.add_argument(
        "--keep-alive-timeout",
        type=float,
        default=defaults.keep_alive_timeout_s,
        metavar="SECONDS",
        help="an idle keep-alive connection is closed after it (default: %(default)s)",
    )
    parser.add_argument(
        "--max-header-bytes",
        type=int,
        default=defaults.max_header_bytes,
        help="the largest request head; more is 431 (default: %(default)s)",
    )
    parser.add_argument(
        "--graceful-timeout",
        type=float,
        default=defaults.graceful_timeout_s,
        metavar="SECONDS",
        help="after SIGTERM, requests still unfinished this long are cut and the exit status is 1 "
        "(default: %(default)s)",
    )
    parser.add_argument("--access-log", action="store_true", help="log every request (uvicorn's access log)")


def served_name(spec: str) -> str:
    """The name a model is served under (HTTP `model`, TF Serving's model name): `zoo:NAME` → NAME, a
    file or folder → its stem in lower case (a numbered version folder: its base folder's), a preset → itself.

    Example:
    >>> served_name("zoo:sbert-minilm-l6-stsb"), served_name("models/My-Encoder.keras"), served_name("minilm-l6")
    ('sbert-minilm-l6-stsb', 'my-encoder', 'minilm-l6')
    >>> served_name("serving/minilm/3"), served_name("minilm-int8.tflite")
    ('minilm', 'minilm-int8')
    """
    if spec.startswith("zoo:"):
        return spec[len("zoo:") :]
    path = os.path.normpath(spec)
    if os.path.basename(path).isdigit() and os.path.dirname(path):
        path = os.path.dirname(path)
    return os.path.splitext(os.path.basename(path))[0].lower()


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to (host, port) — taken before the model loads, so a port in use is one line at once,
    and handed to uvicorn (no second bind, no race). ValueError naming the option when it cannot be bound."""
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ValueError(f"--port must be in [1, 65535], got {port!r}")
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as error:
        raise ValueError(f"--host {host!r}: not an address of this machine ({error.strerror})") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ValueError(
            f"--port {port}: cannot listen on {host}:{port} ({error.strerror}); choose another port"
        ) from None
    sock.set_inheritable(True)
    return sock


def bounded_uvicorn_config(
    app, settings: ServerSettings, host: str, port: int, access_log: bool = False, log_level="info"
):
    """The `uvicorn.Config` of `app` with every wait of `settings` bounded: headers (`BoundedHttpProtocol`) and
    body (the app) within `read_timeout_s`, idle keep-alive connections closed after `keep_alive_timeout_s`,
    heads over `max_header_bytes` refused, and a graceful shutdown of at most `graceful_timeout_s` (what is
    unfinished `SHUTDOWN_MARGIN_S` before it is cut)."""
    import uvicorn  # the `server` extra

    from keras_sentemb.server.bounded_http_protocol import bounded_protocol

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=bounded_protocol(settings.read_timeout_s, settings.max_header_bytes),
        h11_max_incomplete_event_size=settings.max_header_bytes,
        timeout_keep_alive=settings.keep_alive_timeout_s,
        # cut SHUTDOWN_MARGIN_S before the deadline: uvicorn's own pause, the cut requests' answers, the model
        # thread's last batch and the process's end fit in it, so the process is gone by the deadline
        timeout_graceful_shutdown=max(settings.graceful_timeout_s - SHUTDOWN_MARGIN_S, 0.001),
        access_log=access_log,
        log_level=log_level,
    )


def serve(args: argparse.Namespace) -> int:
    """Runs the server of `args` (`add_serve_arguments`) until SIGTERM or Ctrl-C: uvicorn then stops
    accepting connections and finishes the requests it accepted within `--graceful-timeout`; the exit status is
    0 when every accepted request was answered, 1 when the deadline cut some. In the main thread (the command)
    the process ends there (`end_process`); elsewhere the status is returned."""
    # The `server` extra (uvicorn, Starlette, orjson, pydantic, prometheus-client), imported here: the rest
    # of the command line runs without it.
    import uvicorn

    from keras_sentemb.server.http_app import create_app

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
        read_timeout_s=args.read_timeout,
        keep_alive_timeout_s=args.keep_alive_timeout,
        max_header_bytes=args.max_header_bytes,
        graceful_timeout_s=args.graceful_timeout,
    )
    calibration = calibration_lines(args.calibration) if args.calibration else None
    sock = listening_socket(args.host, args.port)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        folder = served_folder(args.model, args.backend, args.precision, calibration, args.dtype)
        service = load_service(
            folder or args.model,
            name=args.served_model_name or served_name(args.model),
            backend=args.backend,
            precision=args.precision,
            calibration_texts=calibration,
            batch_size=args.batch_size,
            dtype=args.dtype,
        )
    except BaseException:
        sock.close()
        raise
    app = create_app(service, settings)
    config = bounded_uvicorn_config(app, settings, args.host, args.port, access_log=args.access_log)
    if threading.current_thread() is threading.main_thread():
        # uvicorn stops gracefully on SIGTERM / SIGINT, then raises the signal again for the handler it
        # found: this one takes it, so that a graceful stop exits with status 0.
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda number, frame: LOG.info("stopped by signal %d", number))
    uvicorn.Server(config).run(sockets=[sock])
    cut = app.state.server.counts.cut
    if cut:
        LOG.error("%d request(s) cut unfinished by the graceful-shutdown deadline (--graceful-timeout %g s)", cut,
                  settings.graceful_timeout_s)  # fmt: skip
    status = 1 if cut else 0
    if threading.current_thread() is threading.main_thread():
        end_process(status)
    return status


def main(argv=None) -> int:
    """`keras-sentemb serve …` on its own (the console script's path for `serve`): the same options and errors as
    the whole command line, without importing what the other commands need (TensorFlow)."""
    parser = OneLineErrorParser(prog="keras-sentemb serve", description="an HTTP server of one model")
    add_serve_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    return run_command("serve", serve, args)


def end_process(status: int) -> None:
    """Ends the server's process now, its logs and streams flushed: the server has stopped and holds nothing to
    write, and Python's own teardown of TensorFlow (1.3 s on a 2-core EPYC) would keep the process alive past the
    graceful deadline an orchestrator was promised."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

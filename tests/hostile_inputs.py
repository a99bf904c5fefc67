"""Hostile inputs of the newer surfaces (index folders, family configs, LiteRT, chunking, BEIR folders,
bulk jobs, and every command that writes over a folder or a file): the probe list.

`ROWS` holds `Row(area, name, run, message, kept)`: `run(fixtures, work)` does what a user or an
attacker does, inside the fresh folder `work`, and returns the exit status (the CLI's `main`, or a
library call through `as_command`: exit 2 and one `error:` line for a ValueError, TypeError or
OSError, as the CLI). `message` is the regular expression the one error line must match (None: the
row must succeed); `kept` names the files under `work` that must still be there afterwards.

`REPLACEMENT_ROWS` is the folder-replacement rule's table: each command × each place
(`.`, an input's folder, a folder above an input, `$HOME`, a folder of the user's, a keras-sentemb
folder of another kind, one of the right kind) → refused or replaced.

The tests of each area (tests/apps/test_hostile_*.py, tests/hostile/…) run the rows in-process;
`benchmarks/hostile_inputs.py` runs each in its own process and prints exit, seconds, peak RSS, message.
"""

import contextlib
import dataclasses
import functools
import json
import os
import shutil
import sys

import numpy as np

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
CORPUS = ["the cat sat on the mat .", "a dog ran fast", "rain and storm", "hello world", "the oven bread"]
FAMILY_FOLDERS = {
    "qwen3": "qwen3_lasttoken_prompts_new",
    "gemma3": "gemma3_mean_dense_prompts_new",
    "modernbert": "modernbert_mean_prompts_new",
    "bert": "bert_cls_max_dense_new",
}
LEFTOVER_MARKS = (".tmp-", ".keras-sentemb-probe-", "beam-temp-", ".old-")


@dataclasses.dataclass(frozen=True)
class Row:
    area: str
    name: str
    run: object
    message: str | None
    kept: tuple = ()
    absent: tuple = ()


def _built_once(name):
    """A fixture property: the file or folder `root/name`, made by the method the first time, in any
    process that shares `root` (benchmarks/hostile_inputs.py builds them all before it runs each row
    in its own process)."""

    def decorate(method):
        def build(self):
            path = os.path.join(self.root, name)
            if not os.path.exists(path):
                method(self, path)
            return path

        return functools.cached_property(build)

    return decorate


class Fixtures:
    """The valid inputs the rows start from, built once in `root` (a tiny model, its index folders,
    its LiteRT file, a corpus file)."""

    def __init__(self, root, make_encoder):
        self.root = str(root)
        self.make_encoder = make_encoder  # tests.conftest.make_tiny_encoder (passed in: conftest imports this module)

    @_built_once("tiny.keras")
    def model_file(self, path):
        self.make_encoder(seed=6).save(path)

    @_built_once("corpus.txt")
    def corpus_file(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(CORPUS) + "\n")

    @_built_once("index")
    def index_folder(self, path):
        _build_index(CORPUS, path, self.model_file)

    @_built_once("chunked-index")
    def chunked_index_folder(self, path):
        from keras_sentemb.chunking import Chunking

        _build_index(CORPUS, path, self.model_file, chunking=Chunking(size=2))

    @_built_once("other-index")
    def other_index_folder(self, path):
        """An index of another corpus with as many lines."""
        _build_index([line.upper() + " !" for line in CORPUS], path, self.model_file)

    @_built_once("tiny.tflite")
    def tflite_file(self, path):
        from keras_sentemb.export import export_litert

        export_litert(self.make_encoder(seed=6), path)


def _build_index(corpus, path, model_file, **options):
    from keras_sentemb.apps.index_folder import build_index_folder

    build_index_folder(corpus, path, model=model_file, bits=64, epochs=1, progress=False, **options)


# ------------------------------------------------------------------------------------------ running
def cli(argv_of, cwd=None):
    """A row that runs the command line `argv_of(fixtures, work)` (in `work/cwd` when given)."""

    def run(fixtures, work):
        from keras_sentemb.apps.cli import main

        argv = [str(a) for a in argv_of(fixtures, work)]
        with _inside(os.path.join(work, cwd) if cwd else None):
            return main(argv)

    run.argv_of, run.cwd = argv_of, cwd
    return run


@contextlib.contextmanager
def _inside(folder):
    if folder is None:
        yield
        return
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def as_command(call):
    """A row that calls `call(fixtures, work)` as the CLI would run it: 0 when it returns (an
    `AssertionError` inside it, a wrong result, is exit 1), 2 and one `error:` line on stderr for the
    errors the CLI turns into that."""

    def run(fixtures, work):
        try:
            call(fixtures, work)
        except (ValueError, TypeError, OSError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        except AssertionError as error:
            print(f"wrong result: {error}", file=sys.stderr)
            return 1
        return 0

    return run


def leftovers(work):
    """Temporary files or folders anywhere under `work` (what a write must never leave)."""
    found = []
    for root, folders, files in os.walk(work):
        found += [os.path.join(root, n) for n in folders + files if any(mark in n for mark in LEFTOVER_MARKS)]
    return found


def user_files(work, folder, names=("mycorpus.txt", "notes.md")):
    """Writes a user's files into `work/folder`; returns the folder."""
    path = os.path.join(work, folder)
    os.makedirs(path, exist_ok=True)
    for name in names:
        with open(os.path.join(path, name), "w", encoding="utf-8") as f:
            f.write("\n".join(CORPUS) + "\n" if name.endswith(".txt") else "my notes\n")
    return path


# ------------------------------------------------------------------------------------ index folders
def _index_copy(work, fixtures, chunked=False):
    target = os.path.join(work, "idx")
    shutil.copytree(fixtures.chunked_index_folder if chunked else fixtures.index_folder, target)
    return target


def _search(edit, chunked=False):
    def argv(fixtures, work):
        folder = _index_copy(work, fixtures, chunked)
        edit(folder, fixtures)
        return ["index", "search", folder, "--query", "a cat"]

    return cli(argv)


def _truncate_half(name):
    def edit(folder, _):
        path = os.path.join(folder, name)
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 2)

    return edit


def _replace_with(name, make):
    def edit(folder, fixtures):
        path = os.path.join(folder, name)
        os.remove(path)
        make(path, fixtures)

    return edit


def _chunks_edit(change):
    def edit(folder, _):
        path = os.path.join(folder, "chunks.npz")
        with np.load(path) as data:
            arrays = {k: data[k] for k in data}
        change(arrays)
        os.remove(path)
        np.savez(path, **arrays)

    return edit


def _half_minus_one(arrays):
    arrays["document"][::2] = -1


def _span_past_the_line(arrays):
    arrays["end"][0] = 10_000


def _meta_edit(**changes):
    def edit(folder, _):
        path = os.path.join(folder, "meta.json")
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
        with open(path, "w", encoding="utf-8") as f:
            json.dump({**meta, **changes}, f)

    return edit


def _other_corpus(folder, fixtures):
    shutil.copy(os.path.join(fixtures.other_index_folder, "corpus.txt"), os.path.join(folder, "corpus.txt"))


def _embeddings_float64(folder, _):
    path = os.path.join(folder, "embeddings.npy")
    np.save(path, np.load(path).astype(np.float64))


TINY_BUILD = ["--bits", "64", "--epochs", "1"]


def _build_in_the_users_folder(fixtures, work):
    user_files(work, "user")
    return [
        "index",
        "build",
        "mycorpus.txt",
        "-o",
        ".",
        "--overwrite",
        "--chunk-size",
        "32",
        "--model",
        fixtures.model_file,
        *TINY_BUILD,
    ]


def _build_over_a_file(fixtures, work):
    target = os.path.join(user_files(work, "user"), "notes.md")
    return [
        "index",
        "build",
        fixtures.corpus_file,
        "-o",
        target,
        "--overwrite",
        "--model",
        fixtures.model_file,
        *TINY_BUILD,
    ]


INDEX_ROWS = [
    Row(
        "index",
        "build -o . --overwrite in a folder of the user's files",
        cli(_build_in_the_users_folder, cwd="user"),
        r"-o \.: is the current directory; keras-sentemb never replaces it \(it holds 2 entries",
        kept=("user/mycorpus.txt", "user/notes.md"),
    ),
    Row(
        "index",
        "build -o plainfile.txt --overwrite",
        cli(_build_over_a_file),
        r"notes\.md: is a file, and this writes a folder there",
        kept=("user/notes.md",),
    ),
    Row("index", "search: chunks.npz half truncated", _search(_truncate_half("chunks.npz"), True), r"chunks\.npz"),
    Row("index", "search: index.npz half truncated", _search(_truncate_half("index.npz")), r"index\.npz: not a \.npz"),
    Row(
        "index",
        "search: chunks.npz of 0 bytes",
        _search(_replace_with("chunks.npz", lambda p, fx: open(p, "wb").close()), True),
        r"chunks\.npz: not a \.npz file",
    ),
    Row(
        "index",
        "search: chunks.npz without start",
        _search(_chunks_edit(lambda arrays: arrays.pop("start")), True),
        r"chunks\.npz: the archive holds no array 'start'",
    ),
    Row(
        "index",
        "search: chunks.npz is a FIFO",
        _search(_replace_with("chunks.npz", lambda p, fx: os.mkfifo(p)), True),
        r"chunks\.npz: a FIFO, not a regular file",
    ),
    Row(
        "index",
        "search: index.npz is a FIFO",
        _search(_replace_with("index.npz", lambda p, fx: os.mkfifo(p))),
        r"index\.npz: a FIFO, not a regular file",
    ),
    Row(
        "index",
        "search: corpus.txt -> /dev/zero",
        _search(_replace_with("corpus.txt", lambda p, fx: os.symlink("/dev/zero", p))),
        r"corpus\.txt: a character device \(a symlink to /dev/zero\)",
    ),
    Row(
        "index",
        "search: another index's corpus.txt, same line count",
        _search(_other_corpus),
        r"corpus\.txt: .*not this index's corpus|corpus\.txt: its sha256 differs",
    ),
    Row(
        "index",
        "search: document -1 in half the chunks",
        _search(_chunks_edit(_half_minus_one), True),
        r"chunks\.npz: chunk 0 belongs to line -1, outside the corpus' 5 lines",
    ),
    Row(
        "index",
        "search: a chunk's span past its line",
        _search(_chunks_edit(_span_past_the_line), True),
        r"chunks\.npz: chunk 0 spans characters 0\.\.10000 of line 1",
    ),
    Row(
        "index",
        "search: meta.json bits 63",
        _search(_meta_edit(bits=63)),
        r"meta\.json: bits=63 is not valid for an index folder",
    ),
    Row(
        "index",
        "search: embeddings.npy of float64",
        _search(_embeddings_float64),
        r"embeddings\.npy: holds float64 \(5, 16\); expected float32",
    ),
    Row(
        "index",
        "search: hashed_encoder.keras is a FIFO",
        _search(_replace_with("hashed_encoder.keras", lambda p, fx: os.mkfifo(p))),
        r"hashed_encoder\.keras: a FIFO, not a regular file",
    ),
]


# ------------------------------------------------------------------------------------ family configs
def _encode_family(family, **changes):
    def argv(fixtures, work):
        folder = os.path.join(work, "model")
        shutil.copytree(os.path.join(FIXTURES, "st_folders", FAMILY_FOLDERS[family]), folder)
        path = os.path.join(folder, "config.json")
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        config.update(changes)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(config, f)
        text = os.path.join(work, "in.txt")
        with open(text, "w", encoding="utf-8") as f:
            f.write("A cat sits on the mat.\n")
        return ["encode", text, "-o", os.path.join(work, "out.npy"), "--model", folder]

    return cli(argv)


def _nan_weights(fixtures, work):
    from safetensors.numpy import load_file, save_file

    folder = os.path.join(work, "model")
    shutil.copytree(os.path.join(FIXTURES, "st_folders", FAMILY_FOLDERS["bert"]), folder)
    path = os.path.join(folder, "model.safetensors")
    tensors = load_file(path)
    tensors["embeddings.LayerNorm.weight"][:] = np.nan
    save_file(tensors, path)
    text = os.path.join(work, "in.txt")
    with open(text, "w", encoding="utf-8") as f:
        f.write("A cat sits on the mat.\n")
    return ["encode", text, "-o", os.path.join(work, "out.npy"), "--model", folder]


CONFIG = r"config\.json: "
CONFIG_ROWS = [
    Row(
        "config",
        f"{family} {key} {value}",
        _encode_family(family, **{key: value}),
        CONFIG + message,
        absent=("out.npy",),
    )
    for family, key, value, message in [
        ("qwen3", "rms_norm_eps", -1, r"rms_norm_eps=-1: must be a number in \(0, 0\.1\]"),
        ("gemma3", "rms_norm_eps", -1, r"rms_norm_eps=-1: must be a number in \(0, 0\.1\]"),
        ("modernbert", "norm_eps", -1, r"norm_eps=-1: must be a number in \(0, 0\.1\]"),
        ("gemma3", "query_pre_attn_scalar", 1e-300, r"query_pre_attn_scalar=1e-300: must be a number in \[1, "),
        ("qwen3", "rms_norm_eps", 1e30, r"rms_norm_eps=1e\+30: .*every vector alike"),
        ("modernbert", "norm_eps", float("nan"), r"norm_eps=nan: must be a finite number"),
        ("qwen3", "rope_parameters", [1, 2], r"rope_parameters=\[1, 2\]: must be an object"),
        ("qwen3", "rope_parameters", "default", r"rope_parameters='default': must be an object"),
        ("qwen3", "rope_parameters", {"rope_theta": -5}, r"rope_parameters=.*its rope_theta must be a number in \(1, "),
        (
            "modernbert",
            "rope_parameters",
            {"full_attention": 5},
            r"rope_parameters=\{'full_attention': 5\}: full_attention: must be an object",
        ),
        ("gemma3", "layer_types", 5, r"layer_types=5: must be a list of attention kinds"),
        ("qwen3", "layer_types", ["full_attention"] * 5, r"layer_types=.*names 5 layers, num_hidden_layers=2"),
        ("qwen3", "layer_types", ["sliding_attention"] * 2, r"layer_types=.*\['sliding_attention'\] not supported"),
        ("modernbert", "layer_types", ["global"] * 4, r"layer_types=.*\['global'\] not supported"),
        ("gemma3", "rope_local_base_freq", 0, r"rope_local_base_freq=0: must be a number in \(1, "),
    ]
] + [
    Row(
        "config",
        "gemma3 layer_types null, sliding_window_pattern 0",
        _encode_family("gemma3", layer_types=None, sliding_window_pattern=0),
        CONFIG + r"sliding_window_pattern must be an integer ≥ 1, got 0",
        absent=("out.npy",),
    ),
    Row(
        "config",
        "gemma3 layer_types null, sliding_window_pattern '3'",
        _encode_family("gemma3", layer_types=None, sliding_window_pattern="3"),
        CONFIG + r"sliding_window_pattern must be an integer ≥ 1, got '3'",
        absent=("out.npy",),
    ),
    Row(
        "config",
        "bert: a checkpoint whose norm weights are NaN",
        cli(_nan_weights),
        r"the model's output holds NaN or infinity for 1 of 1 input",
        absent=("out.npy",),
    ),
]


# ------------------------------------------------------------------------------------------- LiteRT
def _litert(call):
    def run(fixtures, work):
        from keras_sentemb.runtime.litert_runtime import LiteRTEncoder

        return call(LiteRTEncoder, fixtures, work)

    return as_command(run)


def _one_vector(encoder_class, fixtures, work):
    vector = encoder_class(fixtures.tflite_file).encode("hello")
    assert vector.shape == (16,), f"encode('hello') gave shape {vector.shape}, not one vector (16,)"


def _damaged_tflite(keep):
    def run(encoder_class, fixtures, work):
        path = os.path.join(work, "model.tflite")
        with open(fixtures.tflite_file, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(keep(data))
        encoder_class(path)

    return run


LITERT_ROWS = [
    Row("litert", "LiteRTEncoder.encode('hello') is one vector", _litert(_one_vector), None),
    Row(
        "litert",
        "LiteRTEncoder.encode([5])",
        _litert(lambda cls, fx, work: cls(fx.tflite_file).encode([5])),
        r"texts\[0\] must be str or bytes, got int",
    ),
    Row(
        "litert",
        "LiteRTEncoder.encode(['a', None])",
        _litert(lambda cls, fx, work: cls(fx.tflite_file).encode(["a", None])),
        r"texts\[1\] must be str or bytes, got NoneType",
    ),
    Row(
        "litert",
        "a .tflite truncated to half",
        _litert(_damaged_tflite(lambda data: data[: len(data) // 2])),
        r"model\.tflite: a damaged LiteRT file|model\.tflite: no 'keras_sentemb' metadata",
    ),
    Row(
        "litert",
        "a .tflite of random bytes",
        _litert(_damaged_tflite(lambda data: np.random.default_rng(0).bytes(len(data)))),
        r"model\.tflite: not a LiteRT \(\.tflite\) file",
    ),
    Row(
        "litert",
        "a .tflite with another program's identifier at bytes 4-8",
        _litert(_damaged_tflite(lambda data: data[:4] + b"TFL3" + np.random.default_rng(1).bytes(4096))),
        r"model\.tflite: (a damaged LiteRT file|no 'keras_sentemb' metadata)",
    ),
    Row(
        "litert",
        "export --litert into a read-only folder",
        cli(lambda fx, work: ["export", "/proc/hostile.tflite", "--litert", "--model", fx.model_file]),
        r"/proc/hostile\.tflite: cannot write in /proc",
    ),
]


# ----------------------------------------------------------------------------------------- chunking
def _chunking(**options):
    def call(fixtures, work):
        from keras_sentemb.chunking import Chunking

        Chunking(**options)

    return as_command(call)


def _prompt_too_long(late):
    def call(fixtures, work):
        from keras_sentemb.chunking import Chunking

        encoder = fixtures.make_encoder(max_length=16, prompts={"query": "the cat sat on the mat " * 7})
        encoder.encode(["a dog ran fast"], prompt_name="query", chunking=Chunking(late=late, context=None))

    return as_command(call)


CHUNKING_ROWS = [
    Row("chunking", "Chunking(late='no')", _chunking(late="no"), r"Chunking late must be True or False, got 'no'"),
    Row("chunking", "Chunking(late=1)", _chunking(late=1), r"Chunking late must be True or False, got 1"),
    Row("chunking", "Chunking(sentences='no')", _chunking(sentences="no"), r"Chunking sentences must be True or False"),
    Row(
        "chunking",
        "naive chunking: a prompt longer than the window",
        _prompt_too_long(False),
        r"the prompt takes 42 word pieces, leaving 0 of a window for the text",
    ),
    Row(
        "chunking",
        "late chunking: a prompt longer than the context",
        _prompt_too_long(True),
        r"late chunking: the prompt takes 42 of the 30 word pieces of a context window, leaving 0",
    ),
]


# -------------------------------------------------------------------------------------- BEIR folders
def _evaluate_beir(edit):
    def argv(fixtures, work):
        folder = os.path.join(work, "beir")
        shutil.copytree(os.path.join(FIXTURES, "beir_tiny"), folder)
        edit(folder)
        return ["evaluate", fixtures.model_file, "--beir", folder, "-o", os.path.join(work, "report"), "--no-plots"]

    return cli(argv)


def _append(relative, data):
    def edit(folder):
        with open(os.path.join(folder, relative), "ab") as f:
            f.write(data)

    return edit


BEIR_ROWS = [
    Row(
        "beir",
        "qrels grade 1 followed by 400 zeros",
        _evaluate_beir(_append("qrels/test.tsv", b"q1\td1\t1" + b"0" * 400 + b"\n")),
        r"qrels/test\.tsv:\d+: grade 10{12}… \(401 digits\) is outside -2147483648…2147483647",
    ),
    Row(
        "beir",
        "qrels grade 2^31",
        _evaluate_beir(_append("qrels/test.tsv", b"q1\td1\t2147483648\n")),
        r"qrels/test\.tsv:\d+: grade 2147483648 is outside -2147483648…2147483647",
    ),
    *[
        Row(
            "beir",
            f"a \\xff byte in {relative}",
            _evaluate_beir(_append(relative, line)),
            rf"{relative.replace('.', chr(92) + '.')}:\d+: not valid UTF-8 \(invalid start byte at byte \d+\)",
        )
        for relative, line in [
            ("corpus.jsonl", b'{"_id": "x1", "text": "caf\xff"}\n'),
            ("queries.jsonl", b'{"_id": "qx", "text": "caf\xff"}\n'),
            ("qrels/test.tsv", b"q1\td\xff\t1\n"),
        ]
    ],
    Row(
        "beir",
        "a 5,000-digit _id",
        _evaluate_beir(_append("corpus.jsonl", b'{"_id": ' + b"9" * 5000 + b', "text": "t"}\n')),
        r"corpus\.jsonl:\d+: invalid JSON \(Exceeds the limit",
    ),
    Row(
        "beir",
        "a 5,000-character _id",
        _evaluate_beir(_append("queries.jsonl", b'{"_id": "' + b"q" * 5000 + b'", "text": "t"}\n')),
        r"queries\.jsonl:\d+: _id of 5000 characters \('qqqq.*an id has at most 1024",
    ),
    Row(
        "beir",
        "corpus.jsonl is a FIFO",
        _evaluate_beir(lambda folder: (os.remove(f"{folder}/corpus.jsonl"), os.mkfifo(f"{folder}/corpus.jsonl"))),
        r"corpus\.jsonl: a FIFO, not a regular file",
    ),
]


# ------------------------------------------------------------------------------------------- bulk
def _beam_leftover(fixtures, work):
    """A Beam run killed mid-run left its staging folder (Beam's temporary shards inside): the next run
    of the same prefix deletes it."""
    from keras_sentemb.beam.embed_corpus import _staged_prefix

    dead = a_dead_pid()
    left = os.path.join(work, "out", f".corpus.tmp-{dead}-abc", "beam-temp-corpus-0f0f")
    os.makedirs(left)
    with open(os.path.join(left, "shard.parquet"), "wb") as f:
        f.write(b"PAR1")
    with _staged_prefix(os.path.join(work, "out", "corpus")) as staged:
        assert staged != os.path.join(work, "out", "corpus")
    assert os.listdir(os.path.join(work, "out")) == [], os.listdir(os.path.join(work, "out"))


def a_dead_pid():
    """The pid of a process that has exited (a killed job's)."""
    import subprocess

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _bulk_leftover(fixtures, work):
    """Spark's and Ray's local output: a killed job's staging folder is deleted by the next run."""
    from keras_sentemb.bulk.published_output import published_output

    target = os.path.join(work, "vectors")
    os.makedirs(os.path.join(work, f".vectors.tmp-{a_dead_pid()}-xyz", "part-0"))
    with published_output(target) as staging:
        open(os.path.join(staging, "part-0.parquet"), "wb").close()
    assert sorted(os.listdir(work)) == ["vectors"], os.listdir(work)


def _prefix_is_a_folder(fixtures, work):
    from keras_sentemb.beam.embed_corpus import _staged_prefix

    with _staged_prefix(work):
        pass


def _bare_string_batch(fixtures, work):
    from keras_sentemb.bulk.exported_model import embed_with_signatures

    embed_with_signatures(None, "hello")


BULK_ROWS = [
    Row("bulk", "Beam: a killed run's staging folder, next run", as_command(_beam_leftover), None),
    Row("bulk", "Spark/Ray: a killed run's staging folder, next run", as_command(_bulk_leftover), None),
    Row(
        "bulk",
        "a bare string as a batch of texts",
        as_command(_bare_string_batch),
        r"a batch of texts is a list of strings, got one str: wrap it in a list",
    ),
    Row(
        "bulk",
        "Beam: an output prefix that is a folder",
        as_command(_prefix_is_a_folder),
        r"output prefix .* names a folder",
    ),
]

ROWS = INDEX_ROWS + CONFIG_ROWS + LITERT_ROWS + CHUNKING_ROWS + BEIR_ROWS + BULK_ROWS


# ------------------------------------------------------------------- the folder-replacement table
# Each place makes, inside `work`: the user's files, the command's input where the place needs it, and
# returns (target, folder to run in or None). Every target folder's last name is "7", so that an
# export's PATH/<version> names it (PATH its parent, version 7).
PLACE_FILES = {
    ".": ("cwd/7/mycorpus.txt", "cwd/7/notes.md"),
    "an input's folder": ("in/7/mycorpus.txt", "in/7/notes.md", "in/7/corpus.txt", "in/7/tiny.keras"),
    "a folder above an input": ("up/7/sub/corpus.txt", "up/7/sub/tiny.keras", "up/7/notes.md"),
    "$HOME": ("home/7/mycorpus.txt", "home/7/notes.md"),
    "a folder of the user's": ("mine/7/mycorpus.txt", "mine/7/notes.md"),
    "another kind's folder": ("ours/7/payload.bin",),
    "the right kind": (),
}
INPUT_FOLDERS = {"an input's folder": "in/7", "a folder above an input": "up/7/sub"}


@dataclasses.dataclass(frozen=True)
class FolderCommand:
    """A command that writes a folder `-o TARGET` (`argv(target, corpus, model)`), of `kind`; `other_kind` is a
    keras-sentemb folder it must not replace."""

    name: str
    argv: object
    kind: str
    other_kind: str


def _export_argv(backend):
    def argv(target, corpus, model):
        parent, version = os.path.split(os.path.normpath(target))
        return ["export", parent or ".", "--version", version, "--overwrite", "--model", model, "--backend", backend]

    return argv


FOLDER_COMMANDS = [
    FolderCommand(
        "index build",
        lambda target, corpus, model: [
            "index",
            "build",
            corpus,
            "-o",
            target,
            "--overwrite",
            "--model",
            model,
            *TINY_BUILD,
        ],
        "index",
        "saved-model",
    ),
    FolderCommand("export", _export_argv("tensorflow"), "saved-model", "index"),
    FolderCommand("export --backend openvino", _export_argv("openvino"), "openvino", "saved-model"),
    FolderCommand(
        "embed-corpus --engine ray",
        lambda target, corpus, model: ["embed-corpus", model, corpus, "-o", target, "--engine", "ray", "--overwrite"],
        "bulk-output",
        "index",
    ),
]
# Cells that start an engine (Ray takes ~30 s and 1.5 GB to start): in the benchmark, not in `make test`
# (tests/scale_out/ replaces its own outputs with --overwrite under make test-slow).
ENGINE_CELLS = ("embed-corpus --engine ray × the right kind",)


def _make_place(place, work, command):
    """(target, cwd) of `place` for `command`, after writing what the place holds into `work`."""
    from keras_sentemb.utils.output_targets import mark_folder

    for relative in PLACE_FILES[place]:
        os.makedirs(os.path.join(work, os.path.dirname(relative)), exist_ok=True)
        if os.path.basename(relative) in ("mycorpus.txt", "notes.md", "payload.bin"):
            with open(os.path.join(work, relative), "w", encoding="utf-8") as f:
                f.write("the user's own\n")
    if place == ".":
        return (".", os.path.join(work, "cwd", "7")) if command.kind == "index" else (os.path.join("..", "7"), None)
    if place in ("another kind's folder", "the right kind"):
        target = os.path.join(work, "ours", "7")
        os.makedirs(target, exist_ok=True)
        mark_folder(target, command.other_kind if place == "another kind's folder" else command.kind)
        with open(os.path.join(target, "payload.bin"), "w", encoding="utf-8") as f:
            f.write("an earlier output\n")
        return target, None
    folder = {"an input's folder": "in/7", "a folder above an input": "up/7"}.get(place)
    folder = folder or {"$HOME": "home/7", "a folder of the user's": "mine/7"}[place]
    return os.path.join(work, folder), None


def replacement_run(command, place):
    """The run of one cell of the table: `command` writing over `place`."""

    def argv(fixtures, work):
        target, _ = _make_place(place, work, command)
        corpus, model = fixtures.corpus_file, fixtures.model_file
        if place in INPUT_FOLDERS:
            corpus = shutil.copy(corpus, os.path.join(work, INPUT_FOLDERS[place], "corpus.txt"))
            model = shutil.copy(model, os.path.join(work, INPUT_FOLDERS[place], "tiny.keras"))
        return command.argv(target, corpus, model)

    cwd = "cwd/7" if place == "." else None
    run = cli(argv, cwd=cwd)

    def with_home(fixtures, work):  # $HOME is the place itself; elsewhere a folder outside `work`
        os.makedirs(os.path.join(work, "cwd", "7"), exist_ok=True)
        before = os.environ.get("HOME")
        os.environ["HOME"] = os.path.join(work, "home", "7") if place == "$HOME" else os.path.join(work, "elsewhere")
        try:
            return run(fixtures, work)
        finally:
            if before is None:
                del os.environ["HOME"]
            else:
                os.environ["HOME"] = before

    return with_home


def replacement_expected(command, place):
    """The error line a refused cell must match, or None where the command replaces the target."""
    return {
        ".": r"is the current directory; keras-sentemb never replaces it",
        "an input's folder": r"holds the input .*; keras-sentemb never replaces it",
        "a folder above an input": r"holds the input .*; keras-sentemb never replaces it",
        "$HOME": r"is your home folder; keras-sentemb never replaces it",
        "a folder of the user's": r"holds 2 entries \(mycorpus\.txt, notes\.md\) but no keras-sentemb marker",
        "another kind's folder": rf"is a keras-sentemb {command.other_kind} folder, not an? {command.kind} folder",
    }.get(place)


def replaced_by(command, work):
    """Whether the right-kind cell's folder was replaced: its old payload gone, the new output there."""
    from keras_sentemb.utils.output_targets import folder_kind

    target = os.path.join(work, "ours", "7")
    return folder_kind(target) == command.kind and not os.path.exists(os.path.join(target, "payload.bin"))


REPLACEMENT_ROWS = [
    Row(
        "replace",
        f"{command.name} × {place}",
        replacement_run(command, place),
        replacement_expected(command, place),
        kept=PLACE_FILES[place] if place != "the right kind" else (),
    )
    for command in FOLDER_COMMANDS
    for place in PLACE_FILES
]


# Files: `export --litert` and `encode -o` over a file of the user's, an input, a folder, another kind's
# file of ours, and one of the right kind.
def _file_place(place, work, fixtures, command):
    user = user_files(work, "user")
    litert = command == "export --litert"
    if place == "a file of the user's":
        return os.path.join(user, "notes.md")
    if place == "an input":
        return fixtures.model_file if litert else os.path.join(user, "mycorpus.txt")
    if place == "a folder":
        return user
    if (place == "another kind's file") == litert:  # an .npy that encode wrote
        path = os.path.join(work, "vectors.npy")
        np.save(path, np.zeros((1, 16), np.float32))
        return path
    if litert:  # a .tflite that export --litert wrote
        return shutil.copy(fixtures.tflite_file, os.path.join(work, "model.tflite"))
    return shutil.copy(fixtures.model_file, os.path.join(work, "model.keras"))  # a model file of ours, not an .npy


def file_run(command, place):
    def argv(fixtures, work):
        target = _file_place(place, work, fixtures, command)
        if command == "export --litert":
            return ["export", target, "--litert", "--overwrite", "--model", fixtures.model_file]
        return ["encode", os.path.join(work, "user", "mycorpus.txt"), "-o", target, "--model", fixtures.model_file]

    return cli(argv)


FILE_EXPECTED = {
    "a file of the user's": r"notes\.md: exists and is not an? (LiteRT|\.npy) file keras-sentemb wrote",
    "an input": r"is the input .*; keras-sentemb never replaces it",
    "a folder": r"user: is a folder \(holds 2 entries",
    "another kind's file": r"exists and is not an? (LiteRT|\.npy) file keras-sentemb wrote",
    "the right kind": None,
}
FILE_ROWS = [
    Row("replace", f"{command} × {place}", file_run(command, place), expected, kept=("user/notes.md",))
    for command in ("encode -o", "export --litert")
    for place, expected in FILE_EXPECTED.items()
]
LITERT_FILE_ROWS = [row for row in FILE_ROWS if row.name.startswith("export --litert")]
ENCODE_FILE_ROWS = [row for row in FILE_ROWS if row.name.startswith("encode -o")]


def check_row(row, fixtures, work, capsys):
    """Runs `row` in-process in the fresh folder `work` and checks what the table asserts: the exit status,
    one `error:` line matching the row's message, the user's files kept, nothing written that should
    not be, no temporary file left behind."""
    import re

    os.makedirs(work, exist_ok=True)
    status = row.run(fixtures, str(work))
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    if row.message is None:
        assert status == 0, err
    else:
        assert status == 2, err
        assert len(err) == 1 and "error: " in err[0], err
        assert re.search(row.message, err[0]), err[0]
    for relative in row.kept:
        assert os.path.exists(os.path.join(work, relative)), f"{relative} was deleted"
    for relative in row.absent:
        assert not os.path.exists(os.path.join(work, relative)), f"{relative} was written"
    assert leftovers(work) == []

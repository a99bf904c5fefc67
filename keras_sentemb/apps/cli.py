"""The `keras-sentemb` command: encode, search and export from the shell.

keras-sentemb encode corpus.txt -o corpus.npy
keras-sentemb search --corpus corpus.txt --query "How do I bake bread?" --top-k 5
keras-sentemb export serving/minilm --version 1
keras-sentemb index build corpus.txt -o corpus_index --bits 256
keras-sentemb index search corpus_index --query "How do I bake bread?" --rerank 10
keras-sentemb evaluate minilm-l6 --tasks stsb,sts-dir --sts-dir my_sts -o reports/minilm
keras-sentemb evaluate minilm-l6 --beir data/beir/nfcorpus -o reports/minilm-nfcorpus
keras-sentemb zoo list
keras-sentemb serve minilm-l6 --port 8080   (OpenAI /v1/embeddings, TEI /embed)
keras-sentemb embed-corpus serving/minilm "corpus/*.txt" -o out/corpus   (Apache Beam)
keras-sentemb embed-corpus serving/minilm "corpus/*.txt" -o out/vectors --engine spark --master "local[2]"
"""

import argparse
import logging
import os
import sys
import time

from keras_sentemb import zoo
from keras_sentemb.apps.chunking_arguments import add_chunking_arguments, chunking_of
from keras_sentemb.apps.hit_printing import print_hits
from keras_sentemb.apps.index_command import add_index_parser, run_index
from keras_sentemb.apps.saved_model_folder import LOCAL_RUNNERS, serving_folder
from keras_sentemb.bulk.published_output import BULK_OUTPUT_KIND, is_uri
from keras_sentemb.data.text_file import calibration_lines, read_lines
from keras_sentemb.evaluation.beir_retrieval import RUN_FLOORS, BeirRetrievalTask
from keras_sentemb.evaluation.builtin_tasks import TASK_NAMES, TFDS_TASK_NAMES, build_tasks
from keras_sentemb.evaluation.report import evaluate, format_table, write_report
from keras_sentemb.export import export_litert, export_openvino, export_saved_model, export_serving_bundle
from keras_sentemb.export.litert_export import written_by_export_litert
from keras_sentemb.export.openvino_export import OPENVINO_KIND
from keras_sentemb.export.serving_export import SAVED_MODEL_KIND
from keras_sentemb.models.hashed_encoder import HashedEncoder
from keras_sentemb.models.multi_vector_encoder import MultiVectorEncoder
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.models.sparse_encoder import SparseEncoder
from keras_sentemb.retrieval.binary_index import BinaryIndex
from keras_sentemb.retrieval.run_fusion import ConvexFusion
from keras_sentemb.retrieval.semantic_search import semantic_search
from keras_sentemb.runtime import resolve_runtime
from keras_sentemb.server.serve_command import add_serve_arguments, serve, served_name
from keras_sentemb.utils.atomic_files import save_npy_atomic
from keras_sentemb.utils.checked_files import load_npy, read_json
from keras_sentemb.utils.command_errors import OneLineErrorParser, UsageError, run_command
from keras_sentemb.utils.output_targets import check_output_file, check_output_folder
from keras_sentemb.zoo.loading import (
    folder_model_type,
    load_any_encoder,
    load_cross_encoder,
    load_sentence_encoder,
    load_served_model,
)


def _add_model_arguments(parser):
    parser.add_argument(
        "--model",
        default="minilm-l6",
        help="preset name, zoo:NAME, Hugging Face BERT folder, or .keras file (default: minilm-l6)",
    )
    parser.add_argument(
        "--dtype",
        default=None,
        help="compute dtype policy, e.g. mixed_bfloat16 (default: float32)",
    )


def _add_precision_arguments(parser):
    parser.add_argument(
        "--precision",
        choices=["float32", "bfloat16", "float16", "int8"],
        default="float32",
        help="the arithmetic of the matrix products; bfloat16 and int8 run on OpenVINO "
        '(pip install "./keras-sentemb[openvino]"); float16 is for export --litert',
    )
    parser.add_argument(
        "--calibration", metavar="FILE", help="with --precision int8: calibration sentences, one a line"
    )


def _calibration_texts(args):
    """The sentences of `--calibration FILE` (checked: not empty), or None without it; read before any model
    loads, so that a bad file is refused at once."""
    return calibration_lines(args.calibration) if args.calibration else None


def _build_parser():
    parser = OneLineErrorParser(prog="keras-sentemb", description="Sentence embeddings with Keras 3.")
    commands = parser.add_subparsers(dest="command", required=True)

    encode = commands.add_parser("encode", help="embed a text file, one sentence a line")
    encode.add_argument("input", help="UTF-8 text file; line i becomes row i-1")
    encode.add_argument("-o", "--output", required=True, help="output .npy file [N, d]")
    encode.add_argument("--batch-size", type=int, default=64)
    encode.add_argument("--no-normalize", action="store_true", help="keep raw vectors")
    encode.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    encode.add_argument(
        "--backend",
        choices=["tensorflow", "openvino", "litert"],
        default=None,
        help="where the model runs (default: TensorFlow for float32, OpenVINO otherwise); litert: float32 or "
        'dynamic-range int8 without calibration, the int8 for AVX2-only CPUs (pip install "./keras-sentemb[litert]")',
    )
    _add_precision_arguments(encode)
    _add_model_arguments(encode)

    search = commands.add_parser("search", help="top-k corpus lines for each query")
    search.add_argument("--corpus", required=True, help="UTF-8 text file, one per line")
    search.add_argument("--corpus-embeddings", help=".npy from `encode` for the same corpus (skips encoding)")
    search.add_argument("--query", action="append", default=[], help="a query (repeatable)")
    search.add_argument("--queries", help="UTF-8 file of queries, one per line")
    search.add_argument("--top-k", type=int, default=5)
    search.add_argument("--json", action="store_true", help="print JSON lines")
    _add_model_arguments(search)

    export = commands.add_parser("export", help="write a TF Serving SavedModel, or a bundle of several")
    export.add_argument(
        "targets",
        nargs="+",
        metavar="PATH | MODEL",
        help="the model's base path (the version folder goes inside); with --serving DIR, the models "
        "to bundle (preset, zoo:NAME or .keras file)",
    )
    export.add_argument(
        "--serving",
        metavar="DIR",
        help="write a TF Serving bundle: DIR/<name>/<version>/ for each model, with warmup requests, "
        "and DIR/models.config",
    )
    export.add_argument("--version", type=int, default=1)
    export.add_argument("--overwrite", action="store_true")
    export.add_argument("--hashed", help="a HashedEncoder .keras file: adds the `hash` signature")
    export.add_argument("--code-table", help="an index folder (`index build`): adds `search` over its codes")
    export.add_argument(
        "--backend",
        choices=["tensorflow", "openvino"],
        default="tensorflow",
        help="tensorflow: a TF Serving SavedModel (raw strings in); openvino: an OpenVINO IR with its "
        'tokenizer, for OpenVINOEncoder.load (pip install "./keras-sentemb[openvino]")',
    )
    export.add_argument(
        "--litert",
        action="store_true",
        help="write one LiteRT (.tflite) file at PATH: raw strings in (the tokenizer inside, TF Text's LiteRT "
        "kernels), unit vectors out; --precision float32, float16 or int8 (--calibration: full-integer int8)",
    )
    export.add_argument(
        "--tokenizer",
        choices=["inside", "outside"],
        default="inside",
        help="with --litert: inside (raw strings in; WordPiece models) or outside (token ids in)",
    )
    _add_precision_arguments(export)
    _add_model_arguments(export)

    add_index_parser(commands)

    evaluate = commands.add_parser(
        "evaluate", help="measure a model on tasks; writes report.json, PNG plots, prints a table"
    )
    evaluate.add_argument(
        "model",
        help="preset name, zoo:NAME, Hugging Face BERT folder, or .keras file "
        "(a HashedEncoder adds Hamming STS and hash-recall); a sentence-transformers SPLADE or ColBERT / PyLate "
        "folder is measured on --beir folders",
    )
    evaluate.add_argument(
        "--tasks",
        default=None,
        help=f"comma-separated, from: {', '.join(TASK_NAMES)}, or the data sets' TFDS names "
        f"({', '.join(TFDS_TASK_NAMES)}) (default: stsb, plus hash-recall for a hashed model)",
    )
    evaluate.add_argument(
        "--data",
        default=os.environ.get("KERAS_SENTEMB_DATA"),
        help="folder with stsb/, mrpc/, sst2/, trec/, nli/ (docs/data.md), or tfds / tfds:DIR to read "
        "them from TensorFlow Datasets (default: $KERAS_SENTEMB_DATA); needed by the built-in tasks",
    )
    evaluate.add_argument(
        "--sts-dir",
        help="folder of STS files, .tsv/.txt (TAB-separated) or .csv: columns score, sentence1, sentence2; "
        "a header row naming them (any order) is optional",
    )
    evaluate.add_argument(
        "--senteval-dir",
        help="folder of classification files (columns label, sentence; .tsv/.txt/.csv, header optional): "
        "x.tsv (k-fold) or x.train.tsv + x.test.tsv (+ x.dev.tsv)",
    )
    evaluate.add_argument(
        "--beir",
        action="append",
        default=[],
        metavar="FOLDER",
        help="a retrieval collection in the BEIR layout (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv): nDCG@10, "
        "recall@100, MRR@10, MAP@100 as MTEB computes them; per-query scores in report.json (repeatable)",
    )
    evaluate.add_argument("--split", default="test", help="the qrels split of --beir folders (default test)")
    evaluate.add_argument(
        "--lexical",
        action="store_true",
        help="--beir folders: add BM25 (bm25s; k1 1.2, b 0.75, English stemming and stop words, as BEIR) and "
        "report the dense, lexical and hybrid runs",
    )
    evaluate.add_argument(
        "--rerank",
        metavar="MODEL",
        help="--beir folders: re-order each query's best --rerank-top documents by this cross-encoder "
        "(zoo:NAME, a .keras file or a sentence-transformers reranker folder) and report the reranked run",
    )
    evaluate.add_argument("--rerank-top", type=int, default=100, help="documents a query's reranker reads (100)")
    add_chunking_arguments(
        evaluate,
        "--beir folders: encode each document as chunks of at most this many word pieces (a dense model: the "
        "mean of the chunks' vectors; ColBERT: the chunks' token vectors joined); default: a document is cut at "
        "the model's limit",
    )
    evaluate.add_argument(
        "--fusion",
        default="dev",
        type=_fusion,
        metavar="dev|rrf|convex:W",
        help="how --lexical fuses the two runs: dev (default: the best on the folder's dev qrels, reciprocal-rank "
        "fusion without them), rrf (reciprocal-rank, k 60), or convex:W (dense weight W, 0..1)",
    )
    evaluate.add_argument(
        "-o",
        "--output",
        default=None,
        help="report folder to write (report.json + PNGs); without it the table is printed and nothing is written",
    )
    evaluate.add_argument("--folds", type=int, default=10, help="k of k-fold probes (default 10)")
    evaluate.add_argument("--seed", type=int, default=0, help="seed of probe splits (default 0)")
    evaluate.add_argument("--batch-size", type=int, default=64)
    evaluate.add_argument("--no-plots", action="store_true", help="JSON and table only")
    evaluate.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    evaluate.add_argument("--dtype", default=None, help="compute dtype policy (default float32)")

    embed = commands.add_parser(
        "embed-corpus",
        help="embed text files on Apache Beam (default), Spark or Ray Data into Parquet (or TFRecord on Beam)",
        description="Reads the files, embeds every non-blank line and writes (id, embedding, code) "
        "rows; the rows written must account for every line read (else nothing is kept). "
        "With --engine beam, options this command does not know are Beam "
        "pipeline options, e.g. --runner=DataflowRunner --project=P --region=R "
        "--temp_location=gs://b/tmp, --runner=FlinkRunner --flink_master=host:8081, "
        "--runner=SparkRunner, --direct_num_workers=4 --direct_running_mode=multi_processing. "
        "With --engine spark or ray, -o names a folder that appears whole or not at all.",
    )
    embed.add_argument(
        "model",
        help="exported SavedModel (version folder or its base folder), or, "
        "for local runners, a model spec exported on the fly "
        "(preset, zoo:NAME, .keras)",
    )
    embed.add_argument("inputs", nargs="+", help="text file pattern(s), one sentence a line")
    embed.add_argument(
        "-o", "--output", required=True, help="output prefix: PREFIX-00000-of-0000N.parquet (or .tfrecord)"
    )
    embed.add_argument(
        "--engine",
        choices=["beam", "spark", "ray"],
        default="beam",
        help="beam (RunInference; any Beam runner), spark (predict_batch_udf) or ray (Ray Data actors)",
    )
    embed.add_argument(
        "--master", default=None, help="spark: the Spark master (default: the spark-submit one, else local[*])"
    )
    embed.add_argument(
        "--address", default=None, help="ray: the cluster to join (default: RAY_ADDRESS, else a local one)"
    )
    embed.add_argument(
        "--chunks",
        action="store_true",
        help="beam: each line a document cut into windows by the SavedModel's `chunks` signature "
        "(export_saved_model(..., chunking=...)); one row a chunk, id LINE_ID#K, with its word-piece span",
    )
    embed.add_argument("--format", choices=["parquet", "tfrecord"], default="parquet")
    embed.add_argument("--shards", type=int, default=0, help="output shards (0: the runner decides)")
    embed.add_argument("--batch-size", type=int, default=256, help="most texts a model call")
    embed.add_argument(
        "--ids-in-first-column",
        action="store_true",
        help="lines are id<TAB>text (default id: <file path>:<line number>)",
    )
    embed.add_argument("--no-codes", action="store_true", help="skip codes of a hashed model")
    embed.add_argument(
        "--overwrite", action="store_true", help="replace the shards of an earlier run under the same prefix"
    )
    embed.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on for local runners in a terminal)",
    )

    server = commands.add_parser(
        "serve", help="an HTTP server: OpenAI's /v1/embeddings, text-embeddings-inference's /embed and /rerank"
    )
    add_serve_arguments(server)

    zoo_parser = commands.add_parser("zoo", help="the model zoo: list, card, export, publish, fetch")
    zoo_commands = zoo_parser.add_subparsers(dest="zoo_command", required=True)
    zoo_commands.add_parser("list", help="models available offline, with metrics")
    for name, text in (
        ("card", "print a model card"),
        ("export", "write a TF Serving SavedModel"),
        ("publish", "pack models into a static store (all local models, or the ones named)"),
        ("fetch", "download a model from a store into the cache"),
    ):
        sub = zoo_commands.add_parser(name, help=text)
        if name != "publish":
            sub.add_argument("name", help="zoo model name (see `keras-sentemb zoo list`)")
        if name in ("card", "fetch"):
            sub.add_argument(
                "--store",
                required=name == "fetch",
                help="folder, file://, http(s):// or gs:// store"
                + (" (fetch first when the model is not local)" if name == "card" else ""),
            )
            sub.add_argument("--version", type=int, default=None)
        if name == "export":
            sub.add_argument("path", help="model base path; the version folder goes inside")
            sub.add_argument("--version", type=int, default=1)
            sub.add_argument("--overwrite", action="store_true")
        if name == "publish":
            sub.add_argument(
                "targets",
                nargs="+",
                metavar="[NAME ...] STORE",
                help="the store (folder, file:// or gs://), after the models to publish; "
                "with the store alone, every local model",
            )
            sub.add_argument(
                "--hub",
                action=argparse.BooleanOptionalAction,
                default=False,
                help="also write each model's tensorflow_hub module (<store>/<name>/<version>: the serving "
                "SavedModel, every weight included: 91 MB for a MiniLM model; default: --no-hub)",
            )
    return parser


# The STS-B figures `zoo list` shows, in this order: metric key → {model class: what was scored}
# (None: any other class).
ZOO_LIST_METRICS = {
    "stsb_test_spearman": {None: "cosine"},
    "stsb_test_pair_spearman": {"CrossEncoder": "cross-encoder", None: "pair head"},
    "stsb_test_hamming_spearman": {None: "Hamming"},
}


def zoo_list_sts(entry):
    """The STS-B cell of `zoo list` for an index entry: each figure with what it scored
    ("82.03 cosine / 79.51 Hamming")."""
    metrics, kind = entry.get("metrics", {}), entry.get("class")
    return " / ".join(
        f"{metrics[key]:.2f} {names.get(kind, names[None])}"
        for key, names in ZOO_LIST_METRICS.items()
        if key in metrics
    )


def _zoo(args):

    command = args.zoo_command
    if command == "list":
        rows = [("model", "version", "MB", "STS-B test ρ", "speed", "what it is for")]
        for entry in zoo.list_models():
            metrics = entry.get("metrics", {})
            rows.append(
                (
                    entry["name"],
                    str(entry["version"]),
                    f"{entry['size_bytes'] / 1e6:.2f}",
                    zoo_list_sts(entry),
                    (
                        f"{metrics['sentences_per_second']} sent/s"
                        if "sentences_per_second" in metrics
                        else f"{metrics.get('pairs_per_second', '')} pairs/s"
                    ),
                    entry["use"],
                )
            )
        if len(rows) == 1:
            print(
                f"no zoo models: searched {zoo.searched_places()}; install keras-sentemb-zoo, set "
                "$KERAS_SENTEMB_ZOO to a zoo folder, or fetch one with `keras-sentemb zoo fetch NAME --store STORE`"
            )
            return
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        for row in rows:
            print("  ".join(cell.ljust(w) for cell, w in zip(row[:5], widths)) + "  " + row[5])
        print(
            "STS-B test ρ: Spearman × 100 on the STS-B test split of each score named: the cosine of two "
            "vectors, the Hamming distance of two codes, a model's own pair score (pair head, cross-encoder)"
        )
    elif command == "card":
        print(zoo.card(args.name, store=args.store, version=args.version))
    elif command == "export":
        folder = zoo.export(args.name, args.path, version=args.version, overwrite=args.overwrite)
        print(f"exported {args.name} to {folder}")
    elif command == "publish":
        *names, store = args.targets
        hub = args.hub
        entries = {name: zoo.publish(name, store, hub=hub) for name in names} if names else zoo.publish_all(store, hub)
        for name, entry in entries.items():
            print(f"published {name} to {store}/{entry['archive']} (sha256 {entry['sha256']})")
            if "hub" in entry:
                print(f"  tensorflow_hub module: {store}/{entry['hub']['path']} (hub.load over HTTP)")
        size = zoo.store_bytes(store)
        print(
            f"store {store}: {size['total'] / 1e6:.1f} MB ({size['archives'] / 1e6:.1f} MB of model archives, "
            f"{size['hub'] / 1e6:.1f} MB of tensorflow_hub modules)"
        )
    else:
        print(f"fetched {args.name} into {zoo.fetch(args.name, args.store, version=args.version)}")


def _embed_corpus_elsewhere(args, unknown):
    """`embed-corpus --engine spark|ray`: files → a Parquet folder, counts checked."""
    if unknown:
        raise ValueError(f"--engine {args.engine} takes no Beam pipeline options (got {' '.join(unknown)})")
    if args.chunks:
        raise ValueError(f"--chunks runs on --engine beam; --engine {args.engine} embeds whole lines")
    if args.format != "parquet" or args.shards:
        raise ValueError(f"--engine {args.engine} writes Parquet files the engine shards (no --format/--shards)")
    if not is_uri(args.output):  # refused before an engine starts (a Spark or Ray start takes seconds)
        check_output_folder(args.output, BULK_OUTPUT_KIND, args.overwrite, [*args.inputs, args.model], option="-o")
    local = (args.master or "local").startswith("local") if args.engine == "spark" else not args.address
    model_dir = serving_folder(args.model, None if local else f"{args.engine} cluster")
    common = {
        "batch_size": args.batch_size,
        "ids_in_first_column": args.ids_in_first_column,
        "with_codes": False if args.no_codes else None,
        "overwrite": args.overwrite,
    }
    if args.engine == "spark":
        from keras_sentemb.spark.corpus_job import embed_corpus, spark_session  # optional extra: pyspark

        summary = embed_corpus(args.inputs, model_dir, args.output, spark=spark_session(args.master), **common)
    else:
        import ray  # optional extra: ray

        from keras_sentemb.ray import embed_corpus

        if args.address:
            ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
        summary = embed_corpus(args.inputs, model_dir, args.output, **common)
    print(
        f"wrote {summary['vectors_written']} rows ({summary['blank_lines']} blank lines skipped, "
        f"{summary['lines_read']} read) to {summary['output']} in {summary['seconds']:.1f} s"
    )


def _embed_corpus(args, beam_args):
    if args.engine != "beam":
        _embed_corpus_elsewhere(args, beam_args)
        return

    from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions  # optional extra

    from keras_sentemb.beam import run_embed_corpus  # optional extra: apache-beam

    logging.getLogger().setLevel(logging.ERROR)  # Beam's optional-dependency warnings
    runner = PipelineOptions(beam_args).view_as(StandardOptions).runner
    model_dir = serving_folder(args.model, runner)
    print(f"embedding {' '.join(args.inputs)} with {model_dir} on {runner or 'DirectRunner'}", flush=True)
    start = time.perf_counter()
    summary = run_embed_corpus(
        model_dir,
        args.inputs,
        args.output,
        output_format=args.format,
        num_shards=args.shards,
        batch_size=args.batch_size,
        ids_in_first_column=args.ids_in_first_column,
        with_codes=False if args.no_codes else None,
        pipeline_args=beam_args,
        overwrite=args.overwrite,
        chunks=args.chunks,
        progress=(runner in LOCAL_RUNNERS and sys.stderr.isatty() if args.progress is None else args.progress),
    )
    seconds = time.perf_counter() - start
    print(
        f"wrote {summary['sentences']} rows ({summary['blank_lines']} blank lines skipped) to "
        f"{len(summary['files'])} file(s) in {seconds:.1f} s:"
    )
    for path in summary["files"]:
        print(f"  {path}")


def _is_our_report(path):
    """Whether `path` is a report.json that `evaluate` wrote (its keys), so a re-run may replace it."""
    try:
        report = read_json(path)
    except ValueError:
        return False
    return isinstance(report, dict) and {"model", "tasks", "versions"} <= set(report)


def _evaluate(args):
    # before any work: an earlier report is replaced, never a file of the user's
    if args.output is not None and os.path.isdir(args.output):
        check_output_file(os.path.join(args.output, "report.json"), "report", overwrite=True, is_ours=_is_our_report)
    names = args.tasks.split(",") if args.tasks else None
    chunking = chunking_of(args)
    another_type = folder_model_type(args.model)
    if another_type is not None and (names or not args.beir):
        raise ValueError(
            f"{args.model}: a SPLADE or ColBERT model is measured on --beir folders (retrieval) alone; "
            f"--tasks {args.tasks or 'stsb'} needs a sentence encoder"
        )
    if chunking is not None:
        _check_evaluate_chunking(args, another_type)
    hashed_default = (
        names is None and not args.beir and (args.model.endswith(".keras") or args.model.startswith("zoo:"))
    )
    tasks = []
    if names or not args.beir:
        tasks = build_tasks(
            names or ["stsb"],
            data=args.data,
            sts_dir=args.sts_dir,
            senteval_dir=args.senteval_dir,
            folds=args.folds,
            seed=args.seed,
        )
    reranker = load_cross_encoder(args.rerank) if args.rerank else None
    if reranker is not None and reranker.num_labels != 1:
        raise TypeError(f"--rerank needs a cross-encoder of one label; {args.rerank} has {reranker.num_labels}")
    tasks += [
        BeirRetrievalTask(
            f"beir:{os.path.basename(os.path.normpath(folder))}",
            folder,
            split=args.split,
            lexical=args.lexical or None,
            fusion=args.fusion,
            rerank=reranker,
            rerank_top=args.rerank_top,
            document_options={"chunking": chunking} if chunking is not None else None,
        )
        for folder in args.beir
    ]
    load = load_any_encoder if another_type is None else another_type.from_pretrained
    model = load(args.model, dtype=args.dtype)
    hashed = hasattr(model, "hash_embeddings")
    if "hash-recall" in (names or []) and not hashed:
        raise TypeError(
            f"task hash-recall needs a HashedEncoder .keras model; {args.model} holds a {type(model).__name__}"
        )
    if hashed_default and hashed:
        tasks += build_tasks(["hash-recall"], data=args.data)
    print(f"evaluating {args.model} ({type(model).__name__}) on {len(tasks)} task(s)", flush=True)
    results = evaluate(
        model,
        tasks,
        batch_size=args.batch_size,
        progress=args.progress,
        on_result=lambda r: print(
            f"  {r.name}: {r.main_metric} {r.metrics[r.main_metric]:.4g} ({r.seconds:.1f} s)", flush=True
        ),
    )
    info = {"class": type(model).__name__, "embedding_dim": int(model.embedding_dim)}
    if hashed:
        info["bits"] = int(model.bits)
    print()
    print(format_table(results))
    if args.output is None:
        print("\n(no report written: -o FOLDER writes report.json and its plots)")
        return
    path = write_report(results, args.output, model_name=args.model, model_info=info, plots=not args.no_plots)
    print(f"\nwrote {path}" + ("" if args.no_plots else " and its plots"))


def _check_evaluate_chunking(args, model_type):
    """Refuses, before any model is loaded, --chunk-* options that would shape nothing or that the model (of
    `folder_model_type`) cannot take."""
    if not args.beir:
        raise ValueError("--chunk-size and --late-chunking shape the documents of --beir folders: give --beir FOLDER")
    if model_type is SparseEncoder:
        raise ValueError(
            f"{args.model}: a SPLADE model encodes each document whole; --chunk-size is for dense and ColBERT"
        )
    if args.late_chunking and model_type is MultiVectorEncoder:
        raise ValueError(
            f"{args.model}: a ColBERT document keeps its windows' token vectors; --late-chunking is for a dense model"
        )


def _fusion(text):
    """--fusion's value: "dev", "rrf", or "convex:W" (a ConvexFusion of dense weight W, floors -1 and 0)."""
    if text in ("dev", "rrf"):
        return text
    kind, _, weight = text.partition(":")
    try:
        if kind == "convex":
            return ConvexFusion(weight=float(weight), floors=RUN_FLOORS)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r}: {error}") from None
    raise argparse.ArgumentTypeError(f"{text!r} is not dev, rrf or convex:W (W in 0..1)")


def _is_npy_file(path):
    """Whether `path` starts as a NumPy `.npy` file does (what `encode -o` writes and may replace)."""
    with open(path, "rb") as f:
        return f.read(6) == b"\x93NUMPY"


def _check_runtime_options(args):
    """Options that contradict each other, refused before anything is loaded."""
    if args.calibration and args.precision != "int8":
        raise ValueError(f"--calibration FILE calibrates --precision int8; it means nothing with {args.precision}")
    openvino = args.backend == "openvino" or (args.backend is None and args.precision != "float32")
    if openvino and args.dtype not in (None, "float32"):
        raise ValueError(
            f"--dtype {args.dtype} is TensorFlow's compute policy; OpenVINO converts the float32 model: "
            "use --precision bfloat16 (or --backend tensorflow with --dtype)"
        )
    if args.backend == "litert":
        if args.calibration:
            raise ValueError("--calibration FILE calibrates OpenVINO's int8; --backend litert's int8 needs none")
        resolve_runtime("litert", args.precision)  # float32 or int8
        if args.dtype not in (None, "float32"):
            raise ValueError(
                f"--dtype {args.dtype} is TensorFlow's compute policy; --backend litert converts the float32 model"
            )


def _encode(args):
    _check_runtime_options(args)
    # -o replaces an earlier .npy (what encode writes), never an input, a folder or another kind of file
    check_output_file(
        args.output, ".npy", overwrite=True, inputs=[args.input, args.model], is_ours=_is_npy_file, option="-o"
    )
    texts = read_lines(args.input)
    calibration = _calibration_texts(args)
    start = time.perf_counter()
    encoder = load_sentence_encoder(args.model, dtype=args.dtype)
    load_seconds = time.perf_counter() - start
    options = {}
    if args.precision != "float32" or args.backend or args.calibration:
        if not isinstance(encoder, SentenceEncoder):
            raise ValueError(
                f"--precision/--backend/--calibration are for transformer sentence encoders; "
                f"{args.model} is a {type(encoder).__name__}"
            )
        options = {
            "precision": args.precision,
            "backend": args.backend,
            "calibration_texts": calibration,
        }
    # The first call builds the graph (and calibrates int8): timed apart, so that the rate is the
    # encoder's and not the start-up's (3 lines once printed "5 sentences/s").
    start = time.perf_counter()
    if texts:
        encoder.encode(
            texts[:1], batch_size=args.batch_size, normalize=not args.no_normalize, progress=False, **options
        )
    first_call_seconds = time.perf_counter() - start
    start = time.perf_counter()
    vectors = encoder.encode(
        texts,
        batch_size=args.batch_size,
        normalize=not args.no_normalize,
        progress=args.progress,
        **options,
    )
    seconds = time.perf_counter() - start
    save_npy_atomic(args.output, vectors)
    print(f"wrote {args.output}: {vectors.shape[0]} x {vectors.shape[1]} float32")
    print(
        f"  encoded in {seconds:.2f} s ({len(texts) / max(seconds, 1e-9):,.0f} sentences/s); not counted: "
        f"loading {load_seconds:.1f} s, first call {first_call_seconds:.1f} s (builds the graph)"
    )


def _load_corpus_embeddings(path, texts, encoder):

    vectors = load_npy(path)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts):
        raise ValueError(
            f"{path}: holds {vectors.shape} but the corpus has {len(texts)} lines; "
            "re-run `keras-sentemb encode` on this corpus"
        )
    if vectors.shape[1] != encoder.embedding_dim:
        raise ValueError(f"{path}: vectors have {vectors.shape[1]} features but --model gives {encoder.embedding_dim}")
    return vectors


def _search(args):

    queries = list(args.query) + (read_lines(args.queries) if args.queries else [])
    if not queries:
        raise ValueError("give at least one --query or a --queries file")
    corpus = read_lines(args.corpus)
    if not corpus:
        raise ValueError(f"{args.corpus}: the corpus file has no lines")
    encoder = load_sentence_encoder(args.model, dtype=args.dtype)
    if args.corpus_embeddings:
        corpus_vectors = _load_corpus_embeddings(args.corpus_embeddings, corpus, encoder)
    else:
        corpus_vectors = encoder.encode(corpus)
    indices, scores = semantic_search(encoder.encode(queries), corpus_vectors, args.top_k)
    print_hits(queries, indices, scores, corpus, "score", args.json)


def _export_bundle(args):
    if args.hashed or args.code_table:
        raise ValueError("--serving takes the models as arguments (a hashed model as its .keras file or zoo:NAME)")
    names = [served_name(spec) for spec in args.targets]
    if len(set(names)) != len(names):
        raise ValueError(f"two models would be served under one name: {names}")
    for name in names:  # before any model is loaded
        target = os.path.join(args.serving, name, str(args.version))
        check_output_folder(
            target, SAVED_MODEL_KIND, args.overwrite, [spec for spec in args.targets if ":" not in spec]
        )
    models = {
        name: zoo.load(spec[len("zoo:") :]) if spec.startswith("zoo:") else load_served_model(spec)
        for name, spec in zip(names, args.targets)
    }
    config = export_serving_bundle(models, args.serving, version=args.version, overwrite=args.overwrite)
    print(f"exported {', '.join(names)} (version {args.version}) and {config}")


def _export(args):

    if args.serving:
        return _export_bundle(args)
    if len(args.targets) != 1:
        raise ValueError(f"export takes one base path, got {args.targets}; use --serving DIR to bundle models")
    args.path = args.targets[0]
    _check_export_target(args)
    calibration = _calibration_texts(args)
    if args.litert:
        return _export_litert(args, calibration)
    if args.precision == "float16":
        raise ValueError("--precision float16 is for --litert")
    if args.code_table and not args.hashed:
        raise ValueError("--code-table needs --hashed (the model that made the codes)")
    if args.hashed:
        hashed = load_any_encoder(args.hashed)
        if not isinstance(hashed, HashedEncoder):
            raise TypeError(f"{args.hashed} holds a {type(hashed).__name__}, not a HashedEncoder")
        table = ids = None
        if args.code_table:
            index = BinaryIndex.load(os.path.join(args.code_table, "index.npz"))
            table, ids = index.codes(), index.ids()
        folder = export_saved_model(
            hashed, args.path, version=args.version, overwrite=args.overwrite, code_table=table, code_ids=ids
        )
        signatures = "serving_default, hash, embed_and_hash" + (", search" if table is not None else "")
        print(f"exported {hashed.name} to {folder} (signatures: {signatures})")
        return
    if args.backend != "openvino" and (args.precision != "float32" or args.calibration):
        raise ValueError("--precision bfloat16/int8 and --calibration need --backend openvino")
    model_type = folder_model_type(args.model)
    if args.backend == "tensorflow" and model_type is not None:
        model = model_type.from_pretrained(args.model, dtype=args.dtype)
        folder = export_saved_model(model, args.path, version=args.version, overwrite=args.overwrite)
        print(f"exported {model.name} to {folder} (signatures: {MODEL_TYPE_SIGNATURES[type(model)]})")
        return
    encoder = load_sentence_encoder(args.model, dtype=args.dtype)
    if args.backend == "openvino":
        folder = export_openvino(
            encoder,
            args.path,
            precision=args.precision,
            calibration_texts=calibration,
            version=args.version,
            overwrite=args.overwrite,
        )
        print(f"exported {encoder.name} to {folder} (OpenVINO, {args.precision}; load with OpenVINOEncoder.load)")
        return
    folder = export_saved_model(encoder, args.path, version=args.version, overwrite=args.overwrite)
    print(f"exported {encoder.name} to {folder} (signature serving_default: texts -> embedding)")


# the signatures export_saved_model writes for the model types whose folders `export --model` also takes
MODEL_TYPE_SIGNATURES = {
    SparseEncoder: "serving_default: texts -> indices, values (documents)",
    MultiVectorEncoder: "query, document = serving_default: texts -> vectors, token_counts",
}


def _check_export_target(args):
    """Refuses, before any model is loaded, a target that is an input, holds one, or is not ours to replace."""
    inputs = [path for path in (args.model, args.hashed, args.code_table, args.calibration) if path]
    if args.litert:
        check_output_file(args.path, "LiteRT", args.overwrite, inputs, is_ours=written_by_export_litert)
        return
    kind = OPENVINO_KIND if args.backend == "openvino" and not args.hashed else SAVED_MODEL_KIND
    check_output_folder(os.path.join(args.path, str(args.version)), kind, args.overwrite, inputs)


def _export_litert(args, calibration):
    if args.code_table or args.backend != "tensorflow":
        raise ValueError("--litert writes one .tflite file: --code-table and --backend do not apply")
    if args.precision == "bfloat16":
        raise ValueError("--litert precisions are float32, float16 and int8")
    model = load_any_encoder(args.hashed or args.model, dtype=args.dtype)
    path = export_litert(
        model,
        args.path,
        precision=args.precision,
        tokenizer=args.tokenizer,
        calibration_texts=calibration,
        overwrite=args.overwrite,
    )
    inputs = "texts" if args.tokenizer == "inside" else "token_ids, padding_mask"
    outputs = "embedding" + (", codes" if isinstance(model, HashedEncoder) else "")
    print(
        f"exported {model.name} to {path} (LiteRT, {args.precision}, {os.path.getsize(path) / 1e6:.2f} MB; "
        f"signature serving_default: {inputs} -> {outputs})"
    )


def main(argv=None):
    """Runs the command line; returns the exit status (0 ok, 2 bad input)."""
    parser = _build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown and args.command != "embed-corpus":
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    handlers = {
        "encode": _encode,
        "search": _search,
        "export": _export,
        "index": run_index,
        "evaluate": _evaluate,
        "zoo": _zoo,
        "serve": serve,
        "embed-corpus": lambda parsed: _embed_corpus(parsed, unknown),
    }
    return run_command(args.command, handlers[args.command], args)


if __name__ == "__main__":
    sys.exit(main())

"""`keras-sentemb index build|search`: binary-code index folders (`index_folder`), with a BM25 index
beside the codes for hybrid search, learned-sparse index folders (`sparse_index_folder`, `--kind sparse`) and
late-interaction index folders (`multi_vector_index_folder`, `--kind multi-vector`).

keras-sentemb index build corpus.txt -o corpus_index --bits 256 [--lexical]
keras-sentemb index search corpus_index --query "How do I bake bread?" --rerank 10 [--hybrid] [--reranker MODEL]
keras-sentemb index build corpus.txt -o corpus_sparse --kind sparse --model SPLADE_FOLDER [--engine exact]
keras-sentemb index search corpus_sparse --query "How do I bake bread?" [--exact]
keras-sentemb index build corpus.txt -o corpus_colbert --kind multi-vector --model COLBERT_FOLDER [--engine exact]
keras-sentemb index search corpus_colbert --query "How do I bake bread?" [--exact] [--nprobe 64]
"""

import time

from keras_sentemb.apps.chunking_arguments import add_chunking_arguments, chunking_of
from keras_sentemb.apps.hit_printing import print_hits
from keras_sentemb.apps.index_folder import INDEX_KIND, IndexFolder, build_index_folder, read_meta
from keras_sentemb.apps.multi_vector_index_folder import (
    MULTI_VECTOR_KIND,
    MultiVectorIndexFolder,
    build_multi_vector_index_folder,
    is_multi_vector_index_folder,
)
from keras_sentemb.apps.sparse_index_folder import (
    SPARSE_KIND,
    SparseIndexFolder,
    build_sparse_index_folder,
    is_sparse_index_folder,
)
from keras_sentemb.data.text_file import read_lines
from keras_sentemb.retrieval.approximate_binary_search import DEFAULT_PARAMETERS, KINDS, SEARCH_PARAMETERS
from keras_sentemb.retrieval.multi_vector_index import ENGINES as MULTI_VECTOR_ENGINES
from keras_sentemb.retrieval.multi_vector_index import FAISS_SEARCH
from keras_sentemb.retrieval.sparse_index import ENGINES, SEISMIC_SEARCH
from keras_sentemb.utils.output_targets import check_output_folder
from keras_sentemb.zoo.loading import load_cross_encoder


def add_index_parser(commands):
    """Adds `index build` and `index search` to the command line's sub-commands."""
    index = commands.add_parser("index", help="binary-code, learned-sparse or multi-vector index: build, search")
    index_commands = index.add_subparsers(dest="index_command", required=True)
    build = index_commands.add_parser("build", help="hash a corpus into an index folder")
    build.add_argument("corpus", help="UTF-8 text file, one sentence a line")
    build.add_argument("-o", "--output", required=True, help="index folder to write")
    build.add_argument("--bits", type=int, default=256, help="code length for a new head (default 256)")
    build.add_argument("--epochs", type=int, default=5, help="head distillation epochs")
    build.add_argument("--seed", type=int, default=0)
    build.add_argument("--overwrite", action="store_true")
    build.add_argument(
        "--model",
        default="minilm-l6",
        help="encoder (preset, HF folder, .keras) or a HashedEncoder .keras file; "
        "for a plain encoder a head is distilled on the corpus; --kind sparse: a sentence-transformers "
        "SparseEncoder folder (SPLADE) or a SparseEncoder .keras file; --kind multi-vector: a sentence-transformers "
        "MultiVectorEncoder or PyLate ColBERT folder, or a MultiVectorEncoder .keras file",
    )
    build.add_argument(
        "--kind",
        choices=(*KINDS, SPARSE_KIND, MULTI_VECTOR_KIND),
        default="flat",
        help="flat: exact Hamming scan (default); ivf / hnsw: FAISS's sub-linear binary indexes "
        "for millions of codes (approximate; need faiss-cpu); sparse: a SparseEncoder's vectors searched by dot product; "
        "multi-vector: a ColBERT model's token vectors searched by MaxSim",
    )
    build.add_argument(
        "--engine",
        choices=sorted({*ENGINES, *MULTI_VECTOR_ENGINES}),
        help="--kind sparse: seismic (Seismic's approximate index, default; needs pyseismic-lsr) or exact; "
        "--kind multi-vector: faiss (FAISS' token index names the candidates, default; needs faiss-cpu) or exact",
    )
    build.add_argument("--nlist", type=int, help="ivf: number of lists (default 4·√N)")
    build.add_argument("--nprobe", type=int, help="ivf: lists a query scans (default 32)")
    build.add_argument("--hnsw-m", type=int, help="hnsw: links a code (default 32)")
    build.add_argument("--ef-construction", type=int, help="hnsw: build beam (default 40)")
    build.add_argument("--ef-search", type=int, help="hnsw: search beam (default 64)")
    add_chunking_arguments(
        build,
        "index each line as chunks of at most this many word pieces (long documents); "
        "a search returns lines scored by their best chunk",
    )
    build.add_argument(
        "--lexical",
        action="store_true",
        help="keep a BM25 index of the lines beside the codes (bm25s; BEIR's parameters) for `index search --hybrid`",
    )
    lookup = index_commands.add_parser("search", help="top-k corpus lines by Hamming distance")
    lookup.add_argument("folder", help="index folder from `index build`")
    lookup.add_argument("--query", action="append", default=[], help="a query (repeatable)")
    lookup.add_argument("--queries", help="UTF-8 file of queries, one per line")
    lookup.add_argument("--top-k", type=int, default=5)
    lookup.add_argument("--rerank", type=int, default=0, help="re-rank the Hamming top k×R by float cosine (0 = off)")
    lookup.add_argument(
        "--hybrid",
        action="store_true",
        help="fuse the code search's and BM25's top 100 lines by reciprocal rank (a folder built with --lexical)",
    )
    lookup.add_argument(
        "--reranker",
        metavar="MODEL",
        help="re-order the hits by this cross-encoder's score of (query, line) (zoo:NAME, a .keras file or a sentence-transformers reranker folder)",
    )
    lookup.add_argument("--json", action="store_true", help="print JSON lines")
    lookup.add_argument(
        "--nprobe", type=int, help="ivf or multi-vector faiss index: lists a query scans (overrides the folder's)"
    )
    lookup.add_argument(
        "--candidates-per-token",
        type=int,
        help="multi-vector faiss index: token vectors FAISS returns a query vector (overrides the folder's; "
        f"{FAISS_SEARCH['candidates_per_token']} when built)",
    )
    lookup.add_argument("--ef-search", type=int, help="hnsw index: search beam (overrides the folder's)")
    lookup.add_argument(
        "--exact", action="store_true", help="sparse or multi-vector index: search exactly, whatever its engine"
    )
    lookup.add_argument("--query-cut", type=int, help="sparse Seismic index: a query's entries read (default 20)")
    lookup.add_argument("--heap-factor", type=float, help="sparse Seismic index: block-skipping factor (default 0.9)")


def run_index(args):

    if args.index_command == "build" and args.kind in (SPARSE_KIND, MULTI_VECTOR_KIND):
        return _build_model_index(args)
    if args.index_command == "build":
        if args.engine is not None:
            raise ValueError(f"--engine is for --kind sparse or multi-vector, not --kind {args.kind}")
        check_output_folder(args.output, INDEX_KIND, args.overwrite, [args.corpus, args.model], option="-o")
        corpus = read_lines(args.corpus)
        start = time.perf_counter()
        folder = build_index_folder(
            corpus,
            args.output,
            model=args.model,
            inputs=[args.corpus],
            bits=args.bits,
            epochs=args.epochs,
            seed=args.seed,
            overwrite=args.overwrite,
            progress=len(corpus) >= 2048,
            kind=args.kind,
            index_parameters=given_options(args, [name for kind in KINDS for name in DEFAULT_PARAMETERS[kind]]),
            chunking=chunking_of(args),
            lexical=args.lexical or None,
        )
        meta = read_meta(folder)
        chunks = f" ({meta['chunks']} chunks)" if "chunks" in meta else ""
        lexical = " and a BM25 index" if args.lexical else ""
        print(
            f"wrote {folder}: {len(corpus)} lines{chunks} as {meta['bits']}-bit codes, {args.kind} index{lexical} "
            f"in {time.perf_counter() - start:.1f} s"
        )
        return
    queries = list(args.query) + (read_lines(args.queries) if args.queries else [])
    if not queries:
        raise ValueError("give at least one --query or a --queries file")
    if args.top_k < 1 or args.rerank < 0:
        raise ValueError(f"--top-k must be ≥ 1 and --rerank ≥ 0, got {args.top_k} and {args.rerank}")
    if is_sparse_index_folder(args.folder):
        return _search_sparse(args, queries)
    if is_multi_vector_index_folder(args.folder):
        return _search_multi_vector(args, queries)
    if args.candidates_per_token is not None:
        raise ValueError("--candidates-per-token is for multi-vector index folders")
    opened = IndexFolder(args.folder)
    overrides = given_options(args, [name for names in SEARCH_PARAMETERS.values() for name in names])
    if overrides:
        opened.index.set_search_parameters(**overrides)
    reranker = load_cross_encoder(args.reranker) if args.reranker else None
    if args.hybrid or reranker is not None:
        if args.hybrid:
            scores, ids = opened.search_hybrid(queries, args.top_k, rerank=args.rerank)
        else:
            scores, ids, _ = opened.search_documents(queries, args.top_k, rerank=args.rerank)
        if reranker is not None:
            scores, ids = opened.rerank_hits(queries, ids, reranker)
        measure = "reranker" if reranker is not None else "rrf"
        print_hits(queries, ids, scores, opened.corpus, measure, args.json)
        return
    scores, ids, chunks = opened.search_documents(queries, args.top_k, rerank=args.rerank)
    texts = opened.corpus
    if opened.chunks is not None:  # a chunked folder shows each line's best chunk
        texts = {
            (i, c): opened.chunk_text(c)
            for row_ids, row_chunks in zip(ids, chunks)
            for i, c in zip(row_ids, row_chunks)
        }
        ids = [list(zip(row_ids, row_chunks)) for row_ids, row_chunks in zip(ids, chunks)]
    print_hits(queries, ids, scores, texts, "cosine" if args.rerank else "hamming", args.json)


def _build_model_index(args):
    """`index build --kind sparse | multi-vector`: an index folder with its encoder beside it."""
    binary_only = [option for option in ("chunk_size", "nlist", "nprobe", "hnsw_m", "ef_construction", "ef_search")
                   if getattr(args, option) is not None] + (["lexical"] if args.lexical else [])  # fmt: skip
    if binary_only or args.late_chunking:
        raise ValueError(
            f"--{(binary_only or ['late_chunking'])[0].replace('_', '-')} is for a binary-code index, not --kind {args.kind}"
        )
    sparse = args.kind == SPARSE_KIND
    engines = ENGINES if sparse else MULTI_VECTOR_ENGINES
    engine = args.engine or ("seismic" if sparse else "faiss")
    if engine not in engines:
        raise ValueError(f"--engine {engine} is not one of {', '.join(engines)} for --kind {args.kind}")
    check_output_folder(args.output, INDEX_KIND, args.overwrite, [args.corpus, args.model], option="-o")
    corpus = read_lines(args.corpus)
    start = time.perf_counter()
    build = build_sparse_index_folder if sparse else build_multi_vector_index_folder
    folder = build(
        corpus, args.output, args.model, engine=engine, overwrite=args.overwrite,
        progress=len(corpus) >= 2048, inputs=[args.corpus],
    )  # fmt: skip
    if sparse:
        opened = SparseIndexFolder(folder)
        active = opened.index.vectors.getnnz() / len(corpus)
        what = f"sparse vectors ({active:.0f} active entries a line of {opened.meta['vocabulary']})"
    else:
        opened = MultiVectorIndexFolder(folder)
        what = (
            f"token vectors ({opened.index.tokens / len(corpus):.1f} a line of {opened.index.dim} dims, "
            f"{opened.index.bytes_per_document:,.0f} bytes a line)"
        )
    print(f"wrote {folder}: {len(corpus)} lines as {what}, {engine} index in {time.perf_counter() - start:.1f} s")


def _search_multi_vector(args, queries):
    if args.rerank or args.hybrid or args.reranker or args.ef_search is not None:
        raise ValueError("--rerank, --hybrid, --reranker and --ef-search are for binary-code index folders")
    if args.query_cut is not None or args.heap_factor is not None:
        raise ValueError("--query-cut and --heap-factor are for sparse Seismic index folders")
    opened = MultiVectorIndexFolder(args.folder)
    settings = {name: getattr(args, name) for name in FAISS_SEARCH if getattr(args, name, None) is not None}
    if settings:
        opened.index.set_search_settings(**settings)
    scores, ids = opened.search(queries, args.top_k, engine="exact" if args.exact else None)
    print_hits(queries, ids, scores, opened.corpus, "maxsim", args.json)


def _search_sparse(args, queries):
    if args.rerank or args.hybrid or args.reranker or args.nprobe is not None or args.ef_search is not None:
        raise ValueError("--rerank, --hybrid, --reranker, --nprobe and --ef-search are for binary-code index folders")
    if args.candidates_per_token is not None:
        raise ValueError("--candidates-per-token is for multi-vector index folders")
    opened = SparseIndexFolder(args.folder)
    settings = {name: getattr(args, name) for name in SEISMIC_SEARCH if getattr(args, name, None) is not None}
    if settings:
        opened.index.set_search_settings(**settings)
    scores, ids = opened.search(queries, args.top_k, engine="exact" if args.exact else None)
    print_hits(queries, ids, scores, opened.corpus, "dot", args.json)


def given_options(args, names):
    """{name: value} of the options among `names` given on the command line (not None)."""
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}

"""The sub-linear kinds of `BinaryIndex`: FAISS's inverted-file and HNSW indexes over binary codes.

A flat index compares a query with every code: N·bits/8 bytes a query. The approximate kinds
compare it with a few of them, and may miss some of the exact nearest codes:

- "ivf" (`faiss.IndexBinaryIVF`): the codes are split into `nlist` lists by their nearest
  centroid (binary k-means, trained on up to 64·nlist of the first codes added); a query scans the `nprobe` lists
  whose centroids are nearest to it: about N·nprobe/nlist codes.
- "hnsw" (`faiss.IndexBinaryHNSW`): a graph with `hnsw_m` links a code (2·hnsw_m on its bottom
  layer), built with a beam of `ef_construction`; a query walks it greedily with a beam of
  `ef_search`: O(ef_search · hnsw_m · log N) codes.

Higher `nprobe` / `ef_search` buy recall with time; both can be changed after building
(`BinaryIndex.set_search_parameters`). `benchmarks/binary_index_scale.py` measures recall of
the exact Hamming top 10 against latency at 10 million codes.

Example:
>>> parameters = kind_parameters("hnsw", {"ef_search": 128})
>>> parameters == {"hnsw_m": 32, "ef_construction": 40, "ef_search": 128}
True
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

KINDS = ("flat", "ivf", "hnsw")
# Every parameter of a kind with its default; None = chosen from the data at the first `add`.
DEFAULT_PARAMETERS = {
    "flat": {},
    "ivf": {"nlist": None, "nprobe": 32},
    "hnsw": {"hnsw_m": 32, "ef_construction": 40, "ef_search": 64},
}
# Codes a list that train an IVF's k-means (FAISS asks for 39 at least, and samples 256 itself).
TRAINING_CODES_PER_LIST = 64
# The parameters that only steer searching (changeable after the index is built).
SEARCH_PARAMETERS = {"ivf": ("nprobe",), "hnsw": ("ef_search",), "flat": ()}


def kind_parameters(kind: str, parameters: dict | None) -> dict:
    """The full parameters of `kind`: the defaults updated by `parameters`, each checked to be a
    positive integer (or None where the data chooses it).

    Raises:
        ValueError: an unknown kind, a parameter the kind does not take, a value ≤ 0.
        TypeError: a value that is not an integer.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    merged = dict(DEFAULT_PARAMETERS[kind])
    for name, value in (parameters or {}).items():
        if name not in merged:
            known = ", ".join(merged) or "none"
            raise ValueError(f"kind={kind!r} takes no parameter {name!r} (its parameters: {known})")
        if value is None and DEFAULT_PARAMETERS[kind][name] is None:
            merged[name] = None
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be a positive integer, got {value!r}")
        if value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value}")
        merged[name] = int(value)
    return merged


def default_nlist(count: int) -> int:
    """Lists for an inverted file over `count` codes: 4·√count (FAISS's guideline), at most
    count/39 so that k-means has 39 codes a centroid (FAISS's minimum), at least 1."""
    return max(1, min(int(round(4 * math.sqrt(count))), count // 39))


def new_faiss_index(kind: str, bits: int, parameters: dict, first_codes: np.ndarray):
    """An empty FAISS index of `kind`, trained on `first_codes` where the kind needs training.

    Fills in `parameters["nlist"]` when it is None. The IVF keeps a direct map (8 bytes a code)
    so that the stored codes can be read back in insertion order.
    """
    import faiss  # optional extra: faiss-cpu (checked by BinaryIndex)

    if kind == "flat":
        return faiss.IndexBinaryFlat(bits)
    if kind == "hnsw":
        index = faiss.IndexBinaryHNSW(bits, parameters["hnsw_m"])
        index.hnsw.efConstruction = parameters["ef_construction"]
        set_search_parameters(index, kind, parameters)
        return index
    if parameters["nlist"] is None:
        parameters["nlist"] = default_nlist(len(first_codes))
    if len(first_codes) < parameters["nlist"]:
        raise ValueError(
            f"kind='ivf' with nlist={parameters['nlist']} is trained on the first codes added: "
            f"add at least {parameters['nlist']} codes at once (got {len(first_codes)})"
        )
    # faiss's Python wrapper keeps the quantizer alive with the index (its referenced_objects)
    index = faiss.IndexBinaryIVF(faiss.IndexBinaryFlat(bits), bits, parameters["nlist"])
    index.verbose = False
    index.train(training_sample(first_codes, parameters["nlist"]))
    index.make_direct_map(True)
    set_search_parameters(index, kind, parameters)
    return index


def training_sample(codes: np.ndarray, nlist: int, per_list: int = TRAINING_CODES_PER_LIST) -> np.ndarray:
    """At most `per_list`·nlist of `codes`, drawn without replacement (seed 0), in order.

    FAISS's binary k-means trains on the codes unpacked to float32 (bits·4 bytes a code): a
    sample bounds that memory and time (10M 512-bit codes would unpack to 20 GB).
    """
    if len(codes) <= per_list * nlist:
        return codes
    rows = np.sort(np.random.default_rng(0).choice(len(codes), per_list * nlist, replace=False))
    return codes[rows]


@contextlib.contextmanager
def search_threads(queries: int):
    """Runs the FAISS searches inside on min(`queries`, OpenMP's thread count) threads, then restores it.

    FAISS's binary searches (flat, IVF, HNSW) share their queries among OpenMP threads; threads beyond
    the queries get none and spin. On a quiet 2-core machine one query over 1M 512-bit codes (flat)
    takes 2.23 ms either way, but while another process computes, the spinning thread competes with it
    and FAISS's default takes 6.30 ms where one thread takes 2.08 (benchmarks/binary_search_under_load.py,
    docs/hashing.md). So: one thread a query, at most the cores OpenMP would use
    (`faiss.omp_set_num_threads` sets that cap). OpenMP's thread count is a
    per-thread setting: other Python threads searching at the same time keep theirs.
    """
    import faiss  # optional extra: faiss-cpu (checked by BinaryIndex)

    cap = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(max(1, min(int(queries), cap)))
    try:
        yield
    finally:
        faiss.omp_set_num_threads(cap)


def set_search_parameters(index, kind: str, parameters: dict) -> None:
    """Writes the search-time parameters into the FAISS index."""
    if kind == "hnsw":
        index.hnsw.efSearch = parameters["ef_search"]
    elif kind == "ivf":
        index.nprobe = min(parameters["nprobe"], index.nlist)


def stored_codes(index, kind: str, count: int, nbytes: int) -> np.ndarray:
    """The codes of a FAISS binary index in insertion order: a view of its buffer for flat and
    HNSW (valid until the next `add`), a copy for IVF (read through its direct map)."""
    import faiss  # optional extra: faiss-cpu (checked by BinaryIndex)

    if kind == "ivf":
        return index.reconstruct_n(0, count)
    flat = faiss.downcast_IndexBinary(index.storage) if kind == "hnsw" else index
    return faiss.rev_swig_ptr(flat.xb.data(), count * nbytes).reshape(-1, nbytes)


def structure_bytes(index, kind: str, count: int) -> int:
    """Bytes the index holds besides one copy of the codes: HNSW's links and levels, the IVF's
    ids, direct map and centroids."""
    if kind == "hnsw":
        hnsw = index.hnsw
        return 4 * hnsw.neighbors.size() + 4 * hnsw.levels.size() + 8 * hnsw.offsets.size()
    if kind == "ivf":
        return 8 * count + 8 * count + index.nlist * index.code_size
    return 0

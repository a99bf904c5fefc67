"""Silver pairs (AugSBERT, Thakur et al. 2021): sentence pairs nobody annotated, scored by a
cross-encoder teacher, to train siamese students (DSE, SBERT) on more than the gold pairs.

Three steps, each its own function:

1. `silver_sentence_pool`: distinct sentences of the training files of a data folder (STS-B,
   MRPC, the SNLI sample, SST-2, TREC), never a sentence of a dev or test file; a seeded sample.
2. `mine_silver_pairs`: pairs of pool sentences, two strategies mixed,
   - *neighbour*: each sentence with its nearest neighbours by cosine of a bi-encoder's
     embeddings (AugSBERT's "semantic search sampling": pairs likely to be similar, which
     random pairs almost never are);
   - *random*: uniformly drawn pairs (mostly dissimilar: the low end of the score scale);
   no pair twice (in either order), no pair of identical texts, no gold pair.
3. `label_silver_pairs`: the teacher's logits for every pair, computed chunk by chunk, each
   chunk cached on disk (keyed by its texts and the teacher's weights) so that a killed
   labelling resumes at the first unfinished chunk; a progress bar counts pairs.

Example:
(Not run as a doctest: it reads a data folder and loads pretrained weights.)
    pool = silver_sentence_pool("data", size=20_000)
    embeddings = SentenceEncoder.from_pretrained("minilm-l6").encode(pool)
    pairs = mine_silver_pairs(pool, embeddings, count=10_000)
    T = label_silver_pairs(teacher, pairs.sentences1, pairs.sentences2, "out/cache")
"""

import dataclasses
import time

import numpy as np
from tqdm.auto import tqdm

from keras_sentemb.data.examples import ScoredPairs
from keras_sentemb.data.sentence_corpus import available_files, collect_sentences
from keras_sentemb.models.sentence_encoder import SentenceEncoder
from keras_sentemb.retrieval.semantic_search import semantic_search
from keras_sentemb.training.teacher_logits import teacher_logits_key
from keras_sentemb.training.teacher_vectors import cached_teacher_vectors
from keras_sentemb.utils.argument_checks import positive_int
from keras_sentemb.utils.array_cache import cached_array, fingerprint, fingerprint_weights

# The training files silver sentences come from, and the files whose sentences never may.
SILVER_SOURCE_FILES = (
    "stsb/train.tsv",
    "mrpc/train.tsv",
    "nli/snli_train_subset.tsv.gz",
    "sst2/train.tsv",
    "trec/train.tsv",
)
HELD_OUT_FILES = (
    "stsb/dev.tsv",
    "stsb/test.tsv",
    "mrpc/test.tsv",
    "nli/snli_dev.tsv.gz",
    "nli/snli_test.tsv.gz",
    "sst2/dev.tsv",
    "sst2/test.tsv",
    "trec/test.tsv",
)
STRATEGIES = ("neighbour", "random")


@dataclasses.dataclass
class SilverPairs:
    """Unlabelled sentence pairs and how each was sampled (`strategy[i]` in `STRATEGIES`)."""

    sentences1: list
    sentences2: list
    strategy: list

    def __len__(self):
        return len(self.sentences1)

    def counts(self):
        """{strategy: number of pairs}."""
        return {name: self.strategy.count(name) for name in STRATEGIES}


def silver_sentence_pool(data, size=20_000, seed=0, files=None):
    """Up to `size` distinct sentences of the training files of `data` (a folder, `tfds` or
    `tfds:DIR`), none of which occurs in a dev or test file (`HELD_OUT_FILES`); a seeded
    uniform sample, in a fixed order.

    Args:
        files: the files to draw from (default: the `SILVER_SOURCE_FILES` that `data` holds).

    Raises:
        ValueError: `size` is not a positive int, `files` names a dev or test file, or no
            source file is there.
    """
    size = positive_int(size, "size")
    present = available_files(data)
    files = [name for name in SILVER_SOURCE_FILES if name in present] if files is None else list(files)
    leaked = sorted(set(files) & set(HELD_OUT_FILES))
    if leaked:
        raise ValueError(f"silver sentences never come from dev or test files, got {leaked}")
    if not files:
        raise ValueError(f"{data}: none of the silver source files {list(SILVER_SOURCE_FILES)} is there")
    held_out = [name for name in HELD_OUT_FILES if name in present]
    sentences = collect_sentences(data, files=files, exclude_files=held_out)
    if len(sentences) <= size:
        return sentences
    chosen = np.sort(np.random.default_rng(seed).choice(len(sentences), size, replace=False))
    return [sentences[i] for i in chosen]


def mine_silver_pairs(sentences, embeddings, count, neighbours=3, random_share=0.5, exclude_pairs=(), seed=0):
    """`count` pairs of distinct `sentences`: a `1 − random_share` share from nearest
    neighbours, the rest random (see the module docstring).

    Neighbour pairs: for each sentence i, its `neighbours` most similar other sentences j by
    cosine of `embeddings[i]`, `embeddings[j]` (`semantic_search`); the unordered pairs are
    shuffled (seeded) and the first ones taken. When there are fewer than asked for, random
    pairs make up the rest.

    Args:
        sentences: N distinct texts; embeddings: float [N, d], row i the vector of sentence i.
        exclude_pairs: (a, b) pairs never to emit in either order (the gold training pairs).

    Returns: `SilverPairs`, neighbour pairs first.
    Raises: ValueError for repeated sentences, mismatched lengths, `count` beyond the
        N·(N−1)/2 pairs there are, or `random_share` outside [0, 1].
    """
    count = positive_int(count, "count")
    neighbours = positive_int(neighbours, "neighbours")
    if not 0.0 <= random_share <= 1.0:
        raise ValueError(f"random_share must be in [0, 1], got {random_share}")
    embeddings = np.asarray(embeddings, np.float32)
    if embeddings.ndim != 2 or len(embeddings) != len(sentences):
        raise ValueError(f"{len(sentences)} sentences but embeddings of shape {embeddings.shape}")
    n = len(sentences)
    if count > n * (n - 1) // 2 - len(exclude_pairs):
        raise ValueError(f"{count} pairs asked of {n} sentences, which have at most {n * (n - 1) // 2}")
    index = {text: i for i, text in enumerate(sentences)}
    if len(index) != n:
        raise ValueError(f"the sentences must be distinct: {n - len(index)} repeat an earlier one")
    rng = np.random.default_rng(seed)
    taken = {_unordered(index[a], index[b]) for a, b in exclude_pairs if a in index and b in index}
    chosen = []

    def take(i, j):
        key = _unordered(i, j)
        if i == j or key in taken:
            return False
        taken.add(key)
        chosen.append(key)
        return True

    wanted_neighbours = count - int(round(count * random_share))
    if wanted_neighbours:
        nearest, _ = semantic_search(embeddings, embeddings, top_k=min(neighbours + 1, n))
        candidates = sorted({_unordered(i, int(j)) for i, row in enumerate(nearest) for j in row if j != i})
        for position in rng.permutation(len(candidates)):
            if len(chosen) == wanted_neighbours:
                break
            take(*candidates[position])
    neighbour_count = len(chosen)
    while len(chosen) < count:
        i, j = rng.integers(n, size=2)
        take(int(i), int(j))
    return SilverPairs(
        [sentences[i] for i, _ in chosen],
        [sentences[j] for _, j in chosen],
        ["neighbour"] * neighbour_count + ["random"] * (count - neighbour_count),
    )


def _unordered(i, j):
    return (i, j) if i < j else (j, i)


@dataclasses.dataclass
class SilverLabels:
    """The teacher's logits [N, num_labels] for N pairs, and what computing them cost:
    `computed` pairs labelled in this call (the others came from the cache) in `seconds`."""

    logits: np.ndarray
    computed: int
    seconds: float

    @property
    def pairs_per_second(self):
        """Labelling throughput of this call (None when every chunk was cached)."""
        return self.computed / self.seconds if self.computed else None


def label_silver_pairs(teacher, sentences1, sentences2, cache_dir, chunk_size=2048, batch_size=64, progress=True):
    """The teacher's logits T = `teacher.predict_pairs(a, b)` for every pair, resumable:
    a `SilverLabels` with T as float32 [N, num_labels].

    The pairs are labelled `chunk_size` at a time; each chunk's logits are cached in
    `cache_dir` under a key of its two sentence lists and the teacher's weights
    (`teacher_logits_key`), verified by sha256 on reading (`cached_array`). A rerun after a
    kill, or with more pairs appended, recomputes only the chunks not on disk. The bar
    counts pairs (cached chunks count at once).

    Raises: ValueError when the lists differ in length (before anything is computed).
    """
    if len(sentences1) != len(sentences2):
        raise ValueError(f"sentences1 has {len(sentences1)} texts but sentences2 has {len(sentences2)}")
    chunk_size = positive_int(chunk_size, "chunk_size")
    weights = fingerprint_weights(teacher)
    parts, cost = [], {"computed": 0, "seconds": 0.0}
    with tqdm(total=len(sentences1), unit="pair", desc="label silver pairs", disable=not progress) as bar:
        for start in range(0, len(sentences1), chunk_size):
            first = list(sentences1[start : start + chunk_size])
            second = list(sentences2[start : start + chunk_size])
            key = fingerprint("silver-chunk-v1", teacher_logits_key(teacher, first, second, weights=weights))

            def compute(first=first, second=second):
                began = time.perf_counter()
                logits = teacher.predict_pairs(first, second, batch_size=batch_size, progress=False)
                cost["seconds"] += time.perf_counter() - began
                cost["computed"] += len(first)
                return np.asarray(logits, np.float32).reshape(len(first), -1)

            parts.append(cached_array(cache_dir, "silver_labels", key, compute))
            bar.update(len(first))
    logits = np.concatenate(parts) if parts else np.zeros((0, getattr(teacher, "num_labels", 1)), np.float32)
    return SilverLabels(logits, cost["computed"], cost["seconds"])


def add_silver_arguments(parser):
    """The `--silver-*` options of the training examples (see `silver_training_pairs`)."""
    group = parser.add_argument_group("silver pairs (AugSBERT): teacher-labelled pairs beside the gold ones")
    group.add_argument("--silver-pairs", type=int, default=0, help="how many silver pairs to add (0 = none)")
    group.add_argument("--silver-pool", type=int, default=20_000, help="sentences sampled from the training files")
    group.add_argument(
        "--silver-source",
        action="append",
        choices=SILVER_SOURCE_FILES,
        default=None,
        metavar="FILE",
        help="(repeatable) draw the pool from this training file only, e.g. stsb/train.tsv for in-domain pairs "
        "(AugSBERT's setting); default: every training file of --data",
    )
    group.add_argument("--silver-neighbours", type=int, default=3, help="nearest neighbours per sentence")
    group.add_argument(
        "--silver-random-share", type=float, default=0.5, help="share of random pairs (the rest: neighbours)"
    )
    group.add_argument("--silver-encoder", default="minilm-l6", help="the bi-encoder whose cosine finds the neighbours")
    return group


def silver_training_pairs(args, teacher, cache_dir, gold, log=print):
    """The gold `ScoredPairs` plus silver pairs for the `--silver-*` options of `args`
    (`add_silver_arguments`; `args.data`, `args.seed`): pool, its embeddings (cached,
    `cached_teacher_vectors`), pairs mined without the gold ones, teacher labels. Returns
    (gold + silver as `ScoredPairs`, the silver pairs' `SilverLabels`); a silver pair's score
    is 5·T clipped to [0, 5] (the teacher regresses score / 5). Prints what it did and the
    labelling throughput through `log`."""
    began = time.perf_counter()
    pool = silver_sentence_pool(args.data, size=args.silver_pool, seed=args.seed, files=args.silver_source)
    embeddings = cached_teacher_vectors(
        SentenceEncoder.from_pretrained(args.silver_encoder), pool, cache_dir, progress=True
    )
    pairs = mine_silver_pairs(
        pool,
        embeddings,
        args.silver_pairs,
        neighbours=args.silver_neighbours,
        random_share=args.silver_random_share,
        exclude_pairs=list(zip(gold.sentences1, gold.sentences2)),
        seed=args.seed,
    )
    labels = label_silver_pairs(teacher, pairs.sentences1, pairs.sentences2, cache_dir)
    rate = f"{labels.pairs_per_second:.0f} pairs/s" if labels.computed else "all cached"
    sources = ", ".join(args.silver_source) if args.silver_source else "every training file"
    log(
        f"silver pairs: {len(pairs)} ({pairs.counts()}) from a pool of {len(pool)} training sentences "
        f"({sources}); "
        f"teacher labelling {rate}; {time.perf_counter() - began:.0f} s"
    )
    combined = ScoredPairs(
        list(gold.sentences1) + pairs.sentences1,
        list(gold.sentences2) + pairs.sentences2,
        list(gold.scores) + list(np.clip(labels.logits[:, 0], 0.0, 1.0) * 5.0),
    )
    return combined, labels

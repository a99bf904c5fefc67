"""examples/dse_head_anatomy.py: what a DSE's pair head adds to its cosine. The folds its report relies on
(the symmetric head and head + w·cosine are heads of the same family) hold, a fresh unit-feature head is
reported as exactly its cosine, the ridge refit recovers a linear target and keeps the trained head at a
large λ, and bad options are refused by name."""

import importlib.util
import json
import os

import numpy as np

from keras_sentemb.models import DSE
from tests.conftest import FIXTURES, make_tiny_cross_encoder, make_tiny_encoder
from tests.examples.example_scripts import REPO, SAMPLE_DATA, run_example, run_example_in_this_process

SCRIPT = os.path.join(REPO, "examples", "dse_head_anatomy.py")
CHECKPOINT = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")


def anatomy_module():
    spec = importlib.util.spec_from_file_location("dse_head_anatomy", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unit_feature_dse(seed=None):
    """A DSE as train_dse.py builds it (its head starts as the cosine); `seed` gives it a random head."""
    dse = DSE.from_pretrained(CHECKPOINT, psi="checkpoint", unit_features=True, alpha=1.0)
    if seed is not None:
        kernel = dse.head.output_layer.kernel
        kernel.assign(np.random.default_rng(seed).normal(size=kernel.shape).astype("float32"))
    return dse


def anatomy_script(*arguments, fresh_process=False):
    run = run_example if fresh_process else run_example_in_this_process
    return run("dse_head_anatomy.py", *arguments, "--data", SAMPLE_DATA)


def test_the_symmetric_head_and_a_cosine_blend_are_heads_of_the_same_family():
    dse = unit_feature_dse(seed=1)
    rng = np.random.default_rng(2)
    u, v = rng.normal(size=(5, dse.embedding_dim)), rng.normal(size=(5, dse.embedding_dim))
    symmetric = (dse.score(u, v) + dse.score(v, u)) / 2
    blended = dse.score(u, v) + 0.5 * np.sum(
        u / np.linalg.norm(u, axis=1, keepdims=True) * v / np.linalg.norm(v, axis=1, keepdims=True), axis=1
    )

    w_u, w_v, w_x, w_d, _ = (np.asarray(w) for w in dse.head_weights())
    kernel = dse.head.output_layer.kernel
    kernel.assign(np.concatenate([(w_u + w_v) / 2, (w_u + w_v) / 2, w_x, w_d]))
    np.testing.assert_allclose(dse.score(u, v), symmetric, rtol=1e-4, atol=1e-5)
    kernel.assign(np.concatenate([w_u, w_v, w_x + 0.5, w_d]))
    np.testing.assert_allclose(dse.score(u, v), blended, rtol=1e-4, atol=1e-5)


def test_the_refit_recovers_a_linear_target_and_keeps_the_trained_head_at_a_large_lambda():
    module = anatomy_module()
    dse = unit_feature_dse(seed=3)
    rng = np.random.default_rng(4)
    features = rng.normal(size=(4 * dse.embedding_dim + 50, 4 * dse.embedding_dim))
    target_kernel = rng.normal(size=4 * dse.embedding_dim)
    fits = module.refit_head(dse, features, features @ target_kernel + 0.3, [1e-9, 1e12])

    kernel, bias = fits[1e-9]
    np.testing.assert_allclose(kernel, target_kernel, atol=1e-6)
    assert abs(bias - 0.3) < 1e-6
    trained = np.asarray(dse.head.output_layer.kernel)[:, 0]
    np.testing.assert_allclose(fits[1e12][0], trained, atol=1e-3)


def test_a_fresh_unit_feature_head_is_reported_as_exactly_its_cosine(tmp_path):
    unit_feature_dse().save(tmp_path / "dse.keras")
    make_tiny_cross_encoder().save(tmp_path / "teacher.keras")
    finished = anatomy_script(
        "--model",
        str(tmp_path / "dse.keras"),
        "--teacher",
        str(tmp_path / "teacher.keras"),
        "--refit",
        "1e12",
        "--cache",
        str(tmp_path / "cache"),
        "--blend",
        "2",
        fresh_process=True,  # as a user runs it
    )
    assert finished.returncode == 0, finished.stderr[-2000:]

    report = json.loads(finished.stdout.strip().splitlines()[-1])
    spearman = report["spearman"]
    assert report["split"] == "dev" and report["unit_features"] is True
    assert set(spearman) == {
        "head",
        "head_swapped",
        "head_symmetric",
        "cosine",
        "head_plus_2_cosine",
        "head_refit_1e+12",
    }
    assert spearman["head"] == spearman["cosine"] == spearman["head_symmetric"] == spearman["head_plus_2_cosine"]
    assert spearman["head_refit_1e+12"] == spearman["head"]  # λ → ∞ keeps the trained head
    assert report["head_cosine_pearson"] > 0.9999
    assert report["head"]["W_x_mean"] == 1.0 and report["head"]["W_x_std"] == 0.0
    assert report["head"]["norms"]["W_u"] == report["head"]["norms"]["W_d"] == 0.0


def test_a_refit_on_silver_pairs_alone_reads_only_teacher_labels(tmp_path):
    unit_feature_dse().save(tmp_path / "dse.keras")
    make_tiny_cross_encoder().save(tmp_path / "teacher.keras")
    options = ["--model", str(tmp_path / "dse.keras"), "--teacher", str(tmp_path / "teacher.keras")]
    options += ["--cache", str(tmp_path / "cache"), "--silver-pairs", "6", "--silver-encoder", CHECKPOINT]
    finished = anatomy_script(*options, "--seed", "7", "--refit-silver-only", "--refit", "1e12", "--refit", "1e-6")
    assert finished.returncode == 0, finished.stderr[-2000:]

    assert "silver pairs: 6 " in finished.stdout
    spearman = json.loads(finished.stdout.strip().splitlines()[-1])["spearman"]
    assert spearman["head_refit_1e+12"] == spearman["head"]
    assert -100 <= spearman["head_refit_1e-06"] <= 100


def test_bad_options_are_refused_by_name(tmp_path):
    make_tiny_encoder().save(tmp_path / "encoder.keras")
    not_a_dse = anatomy_script("--model", str(tmp_path / "encoder.keras"))
    assert not_a_dse.returncode == 2 and "holds a SentenceEncoder, not a DSE" in not_a_dse.stderr

    no_teacher = anatomy_script("--model", str(tmp_path / "encoder.keras"), "--refit", "1")
    assert no_teacher.returncode == 2 and "--refit needs --teacher" in no_teacher.stderr
    no_silver = anatomy_script("--teacher", "zoo:x", "--refit", "1", "--refit-silver-only")
    assert (
        no_silver.returncode == 2 and "--refit-silver-only needs --refit and --silver-pairs N > 0" in no_silver.stderr
    )

"""examples/soup_dse.py end to end on two tiny DSE runs of a fixture checkpoint: the soup is
their weight average stored as LoRA on the checkpoint, measured beside each run, and a file
that is not such a run is refused by name."""

import json
import os

import keras
import numpy as np

from keras_sentemb.layers.backbone_lora import ALL_TRANSFORMER_DENSE_LAYERS
from keras_sentemb.models import DSE
from keras_sentemb.training.model_soup import load_soup, soup_weights
from tests.conftest import FIXTURES, make_tiny_encoder
from tests.examples.example_scripts import SAMPLE_DATA, run_example, run_example_in_this_process

CHECKPOINT = os.path.join(FIXTURES, "st_folders", "bert_mean_normalize_old")
PAIRS = (["a cat sat on the mat", "rain"], ["the cat sat", "a storm"])


def dse_run(seed, rank=2):
    """A DSE of the checkpoint as train_dse.py makes it, with random LoRA adapters and head."""
    dse = DSE.from_pretrained(CHECKPOINT, psi="checkpoint", unit_features=True, alpha=1.0, cosine_weight=1.0)
    dse.enable_lora(rank, ALL_TRANSFORMER_DENSE_LAYERS)
    rng = np.random.default_rng(seed)
    for variable in dse.trainable_weights:
        variable.assign(variable.numpy() + rng.normal(scale=0.05, size=variable.shape))
    return dse


def soup_script(*arguments, fresh_process=False):
    return (run_example if fresh_process else run_example_in_this_process)("soup_dse.py", *arguments)


def test_two_runs_make_one_soup_stored_at_the_sum_of_their_ranks(tmp_path):
    runs = [dse_run(seed) for seed in (1, 2)]
    paths = [str(tmp_path / f"run{k}.keras") for k in (1, 2)]
    for run, path in zip(runs, paths):
        run.save(path)
    output = tmp_path / "soup"
    options = ["--checkpoint", CHECKPOINT, "--lora-rank", "4", "--lora-targets", "all", "--output", str(output)]
    finished = soup_script(
        "--model", paths[0], "--model", paths[1], *options, "--data", SAMPLE_DATA, fresh_process=True
    )
    assert finished.returncode == 0, finished.stderr[-2000:]

    result = json.loads(finished.stdout.strip().splitlines()[-1])
    assert [run["path"] for run in result["soup_of"]] == paths
    assert result["lora_rank"] == 4 and result["truncation_dropped_energy"] == 0.0  # rank 2 + rank 2 fits
    assert set(result["student"]) == {"spearman", "pearson", "cosine_spearman"} and "teacher" not in result
    expected = DSE.from_pretrained(CHECKPOINT, psi="checkpoint", unit_features=True, alpha=1.0, cosine_weight=1.0)
    load_soup(expected, soup_weights(runs))

    soup = keras.saving.load_model(output / "dse.keras")
    assert soup.alpha == 1.0 and soup.unit_features and soup.psi == "checkpoint"
    np.testing.assert_allclose(soup.predict_pairs(*PAIRS), expected.predict_pairs(*PAIRS), atol=1e-5)
    assert json.loads((output / "training_clock.json").read_text())["epochs"] == 0


def test_a_file_that_is_not_a_dse_run_is_refused_by_name(tmp_path):
    dse_run(1).save(tmp_path / "run.keras")
    make_tiny_encoder().save(tmp_path / "encoder.keras")
    finished = soup_script(
        "--model",
        str(tmp_path / "run.keras"),
        "--model",
        str(tmp_path / "encoder.keras"),
        "--checkpoint",
        CHECKPOINT,
        "--data",
        SAMPLE_DATA,
    )
    assert finished.returncode == 2
    assert (
        f"--model {tmp_path / 'encoder.keras'}: not a DSE that DSE.from_pretrained built (SentenceEncoder)"
        in finished.stderr
    )
    single = soup_script("--model", str(tmp_path / "run.keras"), "--data", SAMPLE_DATA)
    assert single.returncode == 2 and "a soup needs at least two runs, got 1" in single.stderr

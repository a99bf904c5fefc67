"""What the families that gained a fast path gained, and what the others kept: real-size backbones with
random weights (speed does not depend on the values) under each family's tokenizer, on STS-B test sentences.

For each model (`--models`):
- `encode`: TensorFlow float32, batches of 32 (the reference of the two rows below);
- OpenVINO float32: the graph OpenVINO converts, this project's fused one (`openvino_graph_fn()`: the
  family's inference math on a padded batch) against the Keras layers' own graph (`embed_fn()`, what a
  family without a fused graph fell back to), each through `predict_rows` in batches of 32;
- the raw-string SavedModel, requests of 32 texts in corpus order, against `encode`: unpadded (the family's
  math on texts one after another) where `supports_unpadded()`, padded chunks otherwise.

    python benchmarks/family_fast_paths.py              # ~10 minutes on 2 cores
    python benchmarks/family_fast_paths.py --models xlm-r-base
    python benchmarks/family_fast_paths.py --models minilm-l6 mpnet-base   # the families that had both

It uses only the public API of `SentenceEncoder`, so the same script measures a checkout before a change.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benchmarks"))
sys.path.insert(0, REPO)

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from common import cpu_flags, default_stsb_test, machine_description  # noqa: E402

from keras_sentemb import SentenceEncoder  # noqa: E402
from keras_sentemb.backbones import (  # noqa: E402
    Gemma3TextBackbone,
    HuggingFaceRobertaBackbone,
    ModernBertBackbone,
    MPNetBackbone,
)
from keras_sentemb.data.table_reader import read_table  # noqa: E402
from keras_sentemb.export import export_saved_model  # noqa: E402

FIXTURES = os.path.join(REPO, "tests", "fixtures", "st_folders")


def minilm_l6(vocabulary):
    import keras_hub

    return keras_hub.models.BertBackbone(vocabulary, 6, 12, 384, 1536, dropout=0.0, max_sequence_length=512)


def mpnet_base(vocabulary):
    return MPNetBackbone(vocabulary, 12, 12, 768, 3072, dropout=0.0, max_sequence_length=514)


def xlm_r_base(vocabulary):
    return HuggingFaceRobertaBackbone(vocabulary, 12, 12, 768, 3072, dropout=0.0, max_sequence_length=512)


def distilbert_base(vocabulary):
    import keras_hub

    return keras_hub.models.DistilBertBackbone(vocabulary, 6, 12, 768, 3072, dropout=0.0, max_sequence_length=512)


def modernbert_base(vocabulary):
    return ModernBertBackbone(vocabulary, 22, 12, 768, 1152, global_every=3, window=64, max_sequence_length=8192)


def embeddinggemma(vocabulary):
    layer_types = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(24)]
    return Gemma3TextBackbone(
        vocabulary, 24, 3, 1, 256, 768, 1152, layer_types=layer_types, sliding_window=512, bidirectional=True,
        query_pre_attn_scalar=256, max_sequence_length=2048,
    )  # fmt: skip


# name → (the fixture folder whose tokenizer and head it takes, the real-size backbone of that family).
# MiniLM and MPNet had both fast paths before the families (`--models minilm-l6 mpnet-base`: none lost?).
HAD_FAST_PATHS = ("minilm-l6", "mpnet-base")
MODELS = {
    "minilm-l6": ("bert_mean_normalize_old", minilm_l6),
    "mpnet-base": ("mpnet_mean_normalize_old", mpnet_base),
    "xlm-r-base": ("xlm_roberta_mean_normalize_new", xlm_r_base),
    "distilbert-base": ("distilbert_sqrt_residual_old", distilbert_base),
    "modernbert-base": ("modernbert_mean_prompts_new", modernbert_base),
    "embeddinggemma-300m": ("gemma3_mean_dense_prompts_new", embeddinggemma),
}


def real_size_encoder(name):
    folder, make_backbone = MODELS[name]
    small = SentenceEncoder.from_pretrained(os.path.join(FIXTURES, folder))
    keras.utils.set_random_seed(0)
    backbone = make_backbone(small.backbone.token_embedding.input_dim)
    return SentenceEncoder(backbone, tokenizer=small.tokenizer, pooling="mean", normalize=True, name=name)


def rate(function, rounds):
    """Median sentences/s of `function()` (returns the count) over `rounds` timed calls after one warm-up."""
    function()
    rates = []
    for _ in range(rounds):
        start = time.perf_counter()
        count = function()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def measure(name, sentences, rounds):
    from keras_sentemb.runtime.openvino_runtime import OpenVINORuntime

    encoder = real_size_encoder(name)
    rows = encoder.tokenize_to_rows([s.encode() for s in sentences])
    row = {"encode": rate(lambda: len(encoder.encode(sentences, batch_size=32)), rounds)}
    fused = encoder.openvino_graph_fn() is not encoder.embed_fn()
    for graph_name, graph in (("fused", encoder.openvino_graph_fn()), ("keras", encoder.embed_fn())):
        if graph_name == "fused" and not fused:
            row["openvino fused"] = None
            continue
        runtime = OpenVINORuntime(graph.get_concrete_function(), "float32")
        row[f"openvino {graph_name}"] = rate(
            lambda r=runtime: len(encoder.predict_rows(rows, 32, False, runtime=r)), rounds
        )
    with tempfile.TemporaryDirectory() as work:
        serving = tf.saved_model.load(export_saved_model(encoder, work)).signatures["serving_default"]
        requests = [tf.constant(sentences[i : i + 32]) for i in range(0, len(sentences), 32)]
        row["savedmodel"] = rate(lambda: sum(int(serving(texts=r)["embedding"].shape[0]) for r in requests), rounds)
    row["unpadded"] = bool(getattr(encoder, "supports_unpadded", lambda: False)())
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="*", default=[m for m in MODELS if m not in HAD_FAST_PATHS], choices=MODELS)
    parser.add_argument("--data", default=default_stsb_test())
    parser.add_argument("--sentences", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    columns, _ = read_table(args.data, {"sentence1": ("sentence1", str)})
    sentences = list(dict.fromkeys(columns["sentence1"]))[: args.sentences]
    print(f"machine: {machine_description()}; CPU flags: {cpu_flags()}; {len(sentences)} STS-B test sentences")
    print("| model | encode (TF f32) sent/s | OpenVINO f32, fused graph | OpenVINO f32, Keras graph | fused / Keras "
          "| SavedModel requests of 32 | SavedModel / encode | SavedModel path |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name in args.models:
        row = measure(name, sentences, args.rounds)
        fused, keras_graph = row["openvino fused"], row["openvino keras"]
        fused_cells = ("-", "-") if fused is None else (f"{fused:.1f}", f"{fused / keras_graph:.2f}×")
        path = "unpadded" if row["unpadded"] else "padded chunks"
        print(
            f"| {name} | {row['encode']:.1f} | {fused_cells[0]} | {keras_graph:.1f} | {fused_cells[1]} | "
            f"{row['savedmodel']:.1f} | {row['savedmodel'] / row['encode']:.2f}× | {path} |",
            flush=True,
        )


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()

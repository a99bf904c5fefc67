"""SentenceEncoder on a tiny random BERT: encode semantics, errors, serialization."""

import keras
import numpy as np
import pytest

from keras_sentemb import SentenceEncoder
from tests.conftest import make_tiny_encoder, packed_tokens
from tests.layer_test_case import run_model_test

TEXTS = [
    "the cat sat on the mat .",
    "a dog ran",
    "hello world !",
    "",
    "rain , storm , rain , storm , the oven was hot",
    "cat",
    "the dog is playing",
]


def test_encode_returns_unit_vectors_in_input_order(tiny_encoder):
    together = tiny_encoder.encode(TEXTS, batch_size=3)
    one_by_one = np.stack([tiny_encoder.encode([t])[0] for t in TEXTS])
    assert together.shape == (len(TEXTS), tiny_encoder.embedding_dim)
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, rtol=1e-5)


def test_shuffling_the_input_shuffles_the_output(tiny_encoder):
    order = np.random.default_rng(0).permutation(len(TEXTS))
    shuffled = tiny_encoder.encode([TEXTS[i] for i in order], batch_size=2)
    np.testing.assert_allclose(shuffled, tiny_encoder.encode(TEXTS)[order], atol=1e-5)


def test_padding_in_a_batch_never_changes_an_embedding(tiny_encoder):
    alone = tiny_encoder.encode(["cat"])
    beside_a_long_text = tiny_encoder.encode(["cat", "the cat sat on the mat " * 3])[:1]
    np.testing.assert_allclose(beside_a_long_text, alone, atol=1e-5)


def test_model_output_matches_the_pooled_backbone_sequence_output(tiny_encoder):
    packed = tiny_encoder.tokenizer.pack(tiny_encoder.tokenizer.content_ids(np.array(TEXTS)))
    states = tiny_encoder.backbone({**packed, "segment_ids": keras.ops.zeros_like(packed["token_ids"])})[
        "sequence_output"
    ]
    mask = np.asarray(packed["padding_mask"], "float32")[..., None]
    expected = (np.asarray(states) * mask).sum(1) / mask.sum(1)
    np.testing.assert_allclose(tiny_encoder(packed), expected, atol=1e-5)


def test_encode_of_nothing_has_zero_rows(tiny_encoder):
    assert tiny_encoder.encode([]).shape == (0, tiny_encoder.embedding_dim)


def test_a_single_string_gives_one_vector(tiny_encoder):
    np.testing.assert_allclose(tiny_encoder.encode("cat"), tiny_encoder.encode(["cat"])[0])


def test_empty_and_whitespace_texts_are_the_empty_sentence(tiny_encoder):
    vectors = tiny_encoder.encode(["", "   ", "\n\t"])
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(vectors[1:], np.repeat(vectors[:1], 2, axis=0), atol=1e-6)


def test_texts_longer_than_max_length_are_truncated(tiny_encoder):
    limit = tiny_encoder.tokenizer.max_length  # 16 = [CLS] + 14 words + [SEP]
    words = ["cat", "dog", "rain", "storm", "bread", "oven", "mat"] * 4
    kept = " ".join(words[: limit - 2])
    longer = " ".join(words)
    np.testing.assert_allclose(tiny_encoder.encode([longer]), tiny_encoder.encode([kept]), atol=1e-6)
    assert not np.allclose(tiny_encoder.encode([" ".join(words[: limit - 3])]), tiny_encoder.encode([kept]))


def test_one_trace_serves_every_batch_shape():
    encoder = make_tiny_encoder()
    lengths = [1, 3, 7, 12, 14]
    texts = [" ".join(["cat"] * n) for n in lengths]
    encoder.encode(texts, batch_size=1)
    encoder.encode(texts, batch_size=2)
    encoder.encode(texts * 5, batch_size=4)
    assert encoder.embed_fn().experimental_get_tracing_count() == 1


def test_progress_bar_reports_every_sentence(tiny_encoder, capsys):
    tiny_encoder.encode(TEXTS, progress=True)
    assert f"{len(TEXTS)}/{len(TEXTS)}" in capsys.readouterr().err


def test_bad_elements_are_reported_with_their_index(tiny_encoder):
    with pytest.raises(TypeError, match=r"texts\[1\] must be str or bytes, got float"):
        tiny_encoder.encode(["cat", 1.5])
    with pytest.raises(ValueError, match=r"texts\[0\] is bytes that are not valid UTF-8"):
        tiny_encoder.encode([b"\x80abc"])
    with pytest.raises(ValueError, match="batch_size"):
        tiny_encoder.encode(["cat"], batch_size=0)


def test_encoder_without_tokenizer_says_so():
    encoder = make_tiny_encoder()
    bare = SentenceEncoder(encoder.backbone)
    with pytest.raises(ValueError, match="has no tokenizer"):
        bare.encode(["cat"])


def test_pools_the_last_four_layers_for_dse():
    encoder = make_tiny_encoder(pooling="mean", layer_indices=(-2, -1), exclude_special_tokens=True)
    assert encoder.embedding_dim == 2 * 16
    assert encoder.encode(["cat dog"]).shape == (1, 32)


def test_passes_the_shared_model_checks(tmp_path):
    encoder = make_tiny_encoder(seed=5)
    run_model_test(encoder, packed_tokens(encoder.tokenizer, TEXTS[:3]), (3, 16), tmp_path)


def test_save_and_load_round_trip(tmp_path, tiny_encoder):
    path = tmp_path / "tiny.keras"
    tiny_encoder.save(path)
    restored = keras.saving.load_model(path)
    assert isinstance(restored, SentenceEncoder)
    assert restored.tokenizer.max_length == tiny_encoder.tokenizer.max_length
    np.testing.assert_allclose(restored.encode(TEXTS), tiny_encoder.encode(TEXTS), atol=1e-6)


def test_get_config_round_trip_rebuilds_the_same_architecture(tiny_encoder):
    clone = SentenceEncoder.from_config(tiny_encoder.get_config())
    assert isinstance(clone, SentenceEncoder)
    assert clone.count_params() == tiny_encoder.count_params()
    assert (clone.pooling, clone.layer_indices, clone.normalize) == ("mean", (-1,), False)

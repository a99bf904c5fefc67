"""Each family's inference math, written once, is the Keras model in every token layout: every block's output
at every real token, for a padded batch (right padding; left too for the decoders), texts laid one after
another in 1, 2, 4 or 9 attention groups, in any order, and one text alone; the weights read when called
(so LoRA adapters count); a backbone no family computes refused by name. And a `SentenceEncoder` of each
family gives `embed_fn`'s vectors through its fused graph (`openvino_graph_fn`), without padding
(`embed_unpadded`) and one text at a time (`embed_one_unpadded`).

The families come from the tiny sentence-transformers folders of tests/fixtures/st_folders (random weights
made by transformers' own classes; tests/fixtures/st_folders/make_folders.py)."""

import os

import keras
import keras_hub
import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.families.registry import family_computing
from keras_sentemb.families.token_layouts import FlatTokens, OneText, PaddedTokens, to_padded
from keras_sentemb.models import SentenceEncoder
from keras_sentemb.pretrained.transformer_layer_states import transformer_layer_states
from tests.conftest import ENCODER_HEADS, FIXTURES, make_tiny_backbone, make_tiny_encoder

# One sentence-transformers folder a family (XLM-R is RoBERTa's family, with its own tokenizer and folder).
FOLDERS = {
    "bert": "bert_cls_max_dense_new",
    "distilbert": "distilbert_sqrt_residual_old",
    "roberta": "roberta_mean_normalize_new",
    "xlm-roberta": "xlm_roberta_mean_normalize_new",
    "mpnet": "mpnet_all_modes_new",
    "modernbert": "modernbert_mean_prompts_new",
    "gemma3": "gemma3_mean_dense_prompts_new",
    "qwen3": "qwen3_lasttoken_prompts_new",
    "qwen2": "qwen2_lasttoken_prompts_new",
    "t5": "t5_gatedgelu_mean_dense_new",
}
DECODERS = ("qwen3", "qwen2")


def assert_states_close(ours, theirs, tolerance=1e-5, scale=None):
    """Within `tolerance` of the states' scale (`scale`, default max |x| of `theirs`, at least 1): these
    random-weight folders' block states reach 10-20, and float32 round-off grows with them."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    scale = float(np.abs(theirs).max(initial=0)) if scale is None else scale
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=tolerance * max(1.0, scale))


TEXTS = [
    "the cat sat on the mat.",
    "a",
    "Rain and storms all week long, then sun on Sunday!",
    "",
    "hello world, again and again and again",
]


@pytest.fixture(scope="module")
def encoders():
    return {
        name: SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", folder))
        for name, folder in FOLDERS.items()
    }


def sequences_of(encoder):
    """Five texts' ids with their special tokens (1 to ~15 words; the ModernBERT folder's tokenizer makes up to
    26 ids of them, past four windows of its local layers, which are then attended in blocks), and two with a
    padding id inside a text (positions that count ids must skip it)."""
    tokenizer = encoder.tokenizer
    rows = [list(row) for row in tokenizer.add_special_tokens(tokenizer.content_ids(tf.constant(TEXTS))).to_list()]
    pad = getattr(tokenizer, "pad_token_id", None)
    if pad is not None:
        rows.append(rows[0][:3] + [pad] + rows[0][3:])
    return rows


def keras_states(backbone, rows, left=False):
    """Every block's output of the Keras model on `rows` padded (right, or left), and the real tokens' mask."""
    longest = max(map(len, rows))
    pad = 0
    ids = np.full((len(rows), longest), pad, "int32")
    mask = np.zeros((len(rows), longest), "int32")
    for i, row in enumerate(rows):
        slots = slice(longest - len(row), longest) if left else slice(0, len(row))
        ids[i, slots], mask[i, slots] = row, 1
    available = {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": mask}
    names = list(backbone.input) if isinstance(backbone.input, dict) else []
    states = transformer_layer_states(backbone)({name: available[name] for name in names})
    return [np.asarray(s) for s in states], ids, mask.astype(bool)


@pytest.fixture(scope="module")
def references(encoders):
    """`keras_states` of each family's `sequences_of` rows, right (and left) padded, computed once a module:
    building the Keras taps takes seconds, the layouts' checks milliseconds."""
    memo = {}

    def reference(name, left=False):
        if (name, left) not in memo:
            encoder = encoders[name]
            memo[name, left] = (sequences_of(encoder), *keras_states(encoder.backbone, sequences_of(encoder), left))
        return memo[name, left]

    return reference


def padded_states(family, backbone, ids, mask):
    return [s.numpy() for s in family.states(backbone, PaddedTokens(ids, mask))]


@pytest.mark.parametrize("name", FOLDERS)
@pytest.mark.parametrize("side", ["right", "left"])
def test_a_padded_batch_gives_the_keras_states_at_every_real_token(encoders, references, name, side):
    if side == "left" and name not in DECODERS:
        pytest.skip("encoders are padded on the right")
    backbone = encoders[name].backbone
    family = family_computing(backbone)
    _, reference, ids, real = references(name, left=side == "left")
    ours = padded_states(family, backbone, ids, real.astype("int32"))
    assert len(ours) == len(reference) == len(backbone.transformer_layers)
    for mine, theirs in zip(ours, reference):
        assert_states_close(mine[real], theirs[real])


@pytest.mark.parametrize("name", FOLDERS)
@pytest.mark.parametrize("attention_groups", [1, 2, 4, 9])
def test_texts_one_after_another_give_the_keras_states_in_any_number_of_groups(
    encoders, references, name, attention_groups
):
    backbone = encoders[name].backbone
    rows, reference, _, real = references(name)
    ours = family_computing(backbone).states(backbone, FlatTokens(tf.ragged.constant(rows), attention_groups))
    for mine, theirs in zip(ours, reference):
        assert mine.shape[0] == sum(map(len, rows))  # only real tokens
        padded = to_padded(mine, [len(r) for r in rows]).numpy()
        assert_states_close(padded[real], theirs[real])
        assert not padded[~real].any()  # zeros after each text's end


@pytest.mark.parametrize("name", FOLDERS)
def test_the_order_of_the_texts_changes_the_speed_not_the_states(encoders, name):
    backbone = encoders[name].backbone
    rows = sequences_of(encoders[name])
    order = np.argsort([-len(r) for r in rows], kind="stable")
    family = family_computing(backbone)
    as_given = family.states(backbone, FlatTokens(tf.ragged.constant(rows)))[-1]
    longest_first = family.states(backbone, FlatTokens(tf.ragged.constant([rows[i] for i in order])))[-1]
    lengths = [len(r) for r in rows]
    assert_states_close(
        to_padded(longest_first, [lengths[i] for i in order]), to_padded(as_given, lengths).numpy()[order]
    )


@pytest.mark.parametrize("name", FOLDERS)
def test_one_text_alone_gives_its_states_in_a_batch(encoders, name):
    backbone = encoders[name].backbone
    rows = sequences_of(encoders[name])
    family = family_computing(backbone)
    batched = to_padded(family.states(backbone, FlatTokens(tf.ragged.constant(rows)))[-1], [len(r) for r in rows])
    for index, row in enumerate(rows):
        alone = family.states(backbone, OneText(tf.constant(row)))[-1].numpy()
        assert_states_close(alone, batched.numpy()[index, : len(row)], scale=float(np.abs(batched).max()))


# One family a way of reading the weights: keras-hub's TransformerEncoder through the BERT adapter (RoBERTa,
# XLM-R and DistilBERT read theirs the same way), our MPNet layers, keras-hub's Qwen3 and Qwen2 decoders through
# their adapters, and a family LoRA does not reach (Gemma 3: its kernels are changed instead; ModernBERT likewise).
WEIGHT_READERS = ("bert", "mpnet", "qwen3", "qwen2", "gemma3")


@pytest.mark.parametrize("name", WEIGHT_READERS)
def test_the_weights_are_read_when_called_so_lora_adapters_count(name):
    encoder = SentenceEncoder.from_pretrained(os.path.join(FIXTURES, "st_folders", FOLDERS[name]))
    backbone = encoder.backbone
    rows = sequences_of(encoder)[:3]
    before = family_computing(backbone).states(backbone, FlatTokens(tf.ragged.constant(rows)))[-1].numpy()
    encoder.enable_lora(rank=2)
    adapters = [weight for weight in backbone.trainable_weights if "lora" in weight.path]
    for weight in adapters or [w for w in backbone.weights if w.path.endswith("kernel")]:
        # non-zero adapters: B·A changes the kernels (a family LoRA does not reach: its kernels change)
        weight.assign(np.full(weight.shape, 0.05, "float32") if adapters else np.asarray(weight) * 1.1)
    after = family_computing(backbone).states(backbone, FlatTokens(tf.ragged.constant(rows)))[-1].numpy()
    reference, _, real = keras_states(backbone, rows)
    assert np.abs(after - before).max() > 1e-3
    padded = to_padded(after, [len(r) for r in rows]).numpy()
    assert_states_close(padded[real], reference[-1][real])


def test_a_backbone_no_family_computes_is_refused_by_name():
    keras.utils.set_random_seed(0)
    roberta = keras_hub.models.RobertaBackbone(  # keras-hub's own RoBERTa: positions from 0, not a family's
        vocabulary_size=30, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=16
    )
    assert family_computing(roberta) is None
    bf16 = keras_hub.models.BertBackbone.from_config({**make_tiny_backbone().get_config(), "dtype": "mixed_bfloat16"})
    encoder = SentenceEncoder(bf16)
    assert family_computing(encoder.backbone) is None
    assert encoder.openvino_graph_fn() is encoder.embed_fn()  # the Keras graph is what OpenVINO converts
    assert not encoder.supports_unpadded() and encoder.inference_graph() is None
    with pytest.raises(ValueError, match="unpadded inference needs a float32, unquantised backbone of a family"):
        encoder.embed_unpadded(tf.ragged.constant([[2, 3]]))


@pytest.mark.parametrize("attention_groups", [0, -1, 1.5, True])
def test_a_number_of_groups_that_is_not_a_positive_int_is_refused(attention_groups):
    with pytest.raises(ValueError, match="attention_groups must be a positive int"):
        FlatTokens(tf.ragged.constant([[2, 3]]), attention_groups)


def test_an_empty_batch_gives_empty_states(encoders):
    backbone = encoders["bert"].backbone
    states = family_computing(backbone).states(
        backbone, FlatTokens(tf.ragged.constant([], dtype=tf.int32, ragged_rank=1))
    )
    assert all(s.shape[0] == 0 for s in states)


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("name", DECODERS)
def test_last_token_only_computes_the_last_block_at_each_rows_last_real_token(encoders, name, side):
    backbone = encoders[name].backbone
    family = family_computing(backbone)
    reference, ids, real = keras_states(backbone, sequences_of(encoders[name]), left=side == "left")
    last = family.last_token_states(backbone, PaddedTokens(ids, real.astype("int32")))[-1].numpy()
    last_index = [np.flatnonzero(row)[-1] for row in real]
    expected = np.stack([reference[-1][i, j] for i, j in enumerate(last_index)])
    assert_states_close(last[:, 0], expected)


@pytest.mark.parametrize("name", FOLDERS)
def test_a_sentence_encoder_gives_its_vectors_through_every_layout(encoders, name):
    encoder = encoders[name]
    texts = TEXTS + ["a longer text of many words, to be padded against the short ones above"]
    expected = encoder.encode(texts, normalize=False)
    rows = encoder.tokenizer.add_special_tokens(encoder.tokenizer.content_ids(tf.constant(texts)))
    packed = encoder.tokenizer.pack(encoder.tokenizer.content_ids(tf.constant(texts)))
    fused = encoder.openvino_graph_fn()(packed["token_ids"], packed["padding_mask"]).numpy()
    np.testing.assert_allclose(fused, expected, atol=1e-5)
    np.testing.assert_allclose(encoder.embed_unpadded(tf.cast(rows, tf.int32)).numpy(), expected, atol=1e-5)
    for index, row in enumerate(rows.to_list()):
        one = encoder.embed_one_unpadded(tf.constant(row, tf.int32)).numpy()[0]
        np.testing.assert_allclose(one, expected[index], atol=1e-5)


@pytest.mark.parametrize("options", list(ENCODER_HEADS.values()), ids=list(ENCODER_HEADS))
def test_every_pooling_and_head_is_the_models_through_the_fused_and_unpadded_graphs(options):
    encoder = make_tiny_encoder(seed=2, **options)
    texts = ["the cat sat on the mat .", "a dog ran fast", "hello"]
    expected = encoder.encode(texts, normalize=False)
    packed = encoder.tokenizer.pack(encoder.tokenizer.content_ids(tf.constant(texts)))
    fused = encoder.openvino_graph_fn()(packed["token_ids"], packed["padding_mask"]).numpy()
    rows = encoder.tokenizer.add_special_tokens(encoder.tokenizer.content_ids(tf.constant(texts)))
    np.testing.assert_allclose(fused, expected, atol=1e-5)
    np.testing.assert_allclose(encoder.embed_unpadded(tf.cast(rows, tf.int32)).numpy(), expected, atol=1e-5)


def test_keras_dtype_policy_is_float32_here():
    """The parity above is float32's (the families' math reads float32 weights)."""
    assert keras.config.floatx() == "float32"


@pytest.mark.parametrize("name", DECODERS)
def test_last_token_pooling_runs_the_last_block_at_the_last_token_alone_in_the_fused_graph(encoders, name):
    encoder = encoders[name]
    assert encoder.pools_only_the_last_token() and encoder.openvino_graph_fn() is not encoder.embed_fn()
    ids = np.array([[3, 7, 8, 9, 2, 1, 4], [5, 10, 2, 6, 9, 1, 1], [1, 7, 7, 8, 9, 10, 2]], "int32")
    left = np.array([[1] * 7, [0, 0, 0, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 1]], "int32")
    for padding_mask in (left, left[:, ::-1].copy()):
        np.testing.assert_allclose(
            np.asarray(encoder.openvino_graph_fn()(ids, padding_mask)),
            np.asarray(encoder.embed_fn()(ids, padding_mask)),
            atol=1e-5,
        )

"""A SentencePiece-style BPE tokenizer.json (EmbeddingGemma's shape: " " → "▁", no pre-tokenisation, byte
fallback, `<bos> $A <eos>`) gives its own ids in-graph and on the host on every hostile text, in the
variants such files come in. The fixture is a BPE trained here in that shape
(tests/fixtures/st_folders/make_folders.py gemma-tokenizer)."""

import json
import os

import pytest
import tensorflow as tf
from tokenizers import Tokenizer

from keras_sentemb.pretrained import load_tokenizer
from keras_sentemb.tokenizers.sentencepiece_bpe_tokenizer import SentencePieceBpeTokenizer
from tests.conftest import FIXTURES

FOLDER = os.path.join(FIXTURES, "gemma_tokenizer")
with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)
with open(os.path.join(FOLDER, "tokenizer.json"), encoding="utf-8") as f:
    SPEC = json.load(f)
with open(os.path.join(FOLDER, "tokenizer_config.json"), encoding="utf-8") as f:
    CONFIG = json.load(f)
EDGES = ["", " ", "  two  spaces  ", "<bos>inside<eos> text", "ßüñ 😀 \u0000 \ufffd", "<0x41> typed", "▁▁x"]
EDGES += ["<bos>first is special", "<start_of_turn>user\nhi <end_of_turn>", " leading space", "▁already"]


def llama_style(spec):
    """Llama 2's older file: "▁" prepended and spaces replaced by the normaliser, no pre-tokeniser."""
    prepend = {"type": "Prepend", "prepend": "▁"}
    return {
        **spec,
        "normalizer": {"type": "Sequence", "normalizers": [prepend, spec["normalizer"]]},
        "pre_tokenizer": None,
    }


def mistral_style(spec):
    """Llama's and Mistral's newer file: Metaspace with the "first" scheme, no split, no normaliser."""
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    return {**spec, "normalizer": None, "pre_tokenizer": metaspace}


def metaspace_split(spec):
    """Metaspace that prepends to every stretch and splits before each "▁"."""
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
    return {**spec, "normalizer": None, "pre_tokenizer": metaspace}


def without_byte_fallback(spec):
    """Unknown characters become `<unk>`, consecutive ones fused."""
    return {**spec, "model": {**spec["model"], "byte_fallback": False, "fuse_unk": True}}


def lowercased(spec):
    """Lower-casing before the space replacement (uncased SentencePiece models)."""
    return {**spec, "normalizer": {"type": "Sequence", "normalizers": [{"type": "Lowercase"}, spec["normalizer"]]}}


def nfc_first(spec):
    return {**spec, "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, spec["normalizer"]]}}


VARIANTS = {
    "gemma": lambda spec: spec,
    "llama": llama_style,
    "mistral": mistral_style,
    "metaspace_split": metaspace_split,
    "no_byte_fallback": without_byte_fallback,
    "nfc": nfc_first,
    "lowercase": lowercased,
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_ids_with_the_template_are_tokenizer_json_ids_on_every_hostile_text(variant, tmp_path):
    (tmp_path / "tokenizer.json").write_text(json.dumps(VARIANTS[variant](SPEC)), encoding="utf-8")
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    reference = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    reference.no_truncation()
    texts = HOSTILE[:: 1 if variant == "gemma" else 4] + EDGES
    expected = [encoding.ids for encoding in reference.encode_batch(texts)]
    tokenizer = load_tokenizer(tmp_path, max_length=1_000_000)
    assert isinstance(tokenizer, SentencePieceBpeTokenizer)
    in_graph = tokenizer.add_special_tokens(tokenizer.content_ids(tf.constant(texts))).to_list()
    differ = [i for i, (ours, theirs) in enumerate(zip(in_graph, expected)) if ours != theirs]
    assert not differ, (variant, len(differ), [(texts[i][:30], in_graph[i][:8], expected[i][:8]) for i in differ[:3]])
    start, end = list(tokenizer.start_ids), list(tokenizer.end_ids)
    assert [start + row.tolist() + end for row in tokenizer.content_id_rows(texts)] == expected


def test_a_character_outside_the_vocabulary_becomes_its_byte_pieces():
    tokenizer = load_tokenizer(FOLDER, max_length=64)
    assert "𓀀" not in tokenizer.get_vocabulary()
    ids = tokenizer.content_ids(tf.constant(["𓀀"])).to_list()[0]
    assert [tokenizer.id_to_token(i) for i in ids] == ["<0xF0>", "<0x93>", "<0x80>", "<0x80>"]


def test_comes_back_from_its_config_and_runs_in_tf_data():
    tokenizer = load_tokenizer(FOLDER, max_length=32)
    again = SentencePieceBpeTokenizer.from_config(json.loads(json.dumps(tokenizer.get_config())))
    texts = tf.constant(HOSTILE[:100])
    dataset = tf.data.Dataset.from_tensor_slices(texts).batch(25).map(again.content_ids)
    assert [row for batch in dataset for row in batch.to_list()] == tokenizer.content_ids(texts).to_list()
    long_text = tf.constant([" ".join(HOSTILE[:50])])
    assert tokenizer.content_ids(long_text).row_lengths().numpy().tolist() == [32 - 2]  # room for <bos>, <eos>


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s.update(normalizer={"type": "StripAccents"}), "normalizer 'StripAccents'"),
        (lambda s: s.update(normalizer={"type": "NFKC"}), "normalizer 'NFKC'"),
        (lambda s: s.update(pre_tokenizer={"type": "Whitespace"}), "pre-tokenizer 'Whitespace'"),
        (lambda s: s["model"].update(dropout=0.1), "dropout"),
    ],
)
def test_a_pipeline_we_cannot_reproduce_is_refused(edit, message, tmp_path):
    spec = json.loads(json.dumps(SPEC))
    edit(spec)
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_tokenizer(tmp_path, max_length=16)

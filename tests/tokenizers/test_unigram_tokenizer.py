"""The Unigram tokenizer (XLM-RoBERTa and the multilingual models on it) gives the model's own `tokenizer.json`
ids, in-graph: its normaliser is Hugging Face's `Precompiled` (grapheme cluster by grapheme cluster),
`Strip` and `Replace`, its pre-tokens Metaspace's, its segmentation Hugging Face's Viterbi. The fixture's
tokenizer.json is what transformers' XLMRobertaConverter writes for a SentencePiece nmt_nfkc model
(tests/fixtures/unigram_source); the 12,000 hostile texts through whole XLM-R folders:
tests/pretrained/test_sentence_transformers_parity.py."""

import base64
import json
import os

import keras
import numpy as np
import pytest
import regex
import tensorflow as tf
from tokenizers import Tokenizer, normalizers

from keras_sentemb import SentenceEncoder
from keras_sentemb.pretrained import load_tokenizer
from keras_sentemb.tokenizers import UnigramTokenizer
from keras_sentemb.tokenizers.grapheme_clusters import grapheme_clusters
from keras_sentemb.tokenizers.metaspace_text_splitter import PrecompiledNormalizer
from keras_sentemb.tokenizers.precompiled_charsmap import charsmap_rules
from keras_sentemb.tokenizers.unigram_lattice import UnigramLattice
from tests.conftest import FIXTURES

SOURCE = os.path.join(FIXTURES, "unigram_source", "tokenizer.json")
FOLDER = os.path.join(FIXTURES, "st_folders", "xlm_roberta_mean_normalize_new")
with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)
with open(SOURCE, encoding="utf-8") as f:
    SPEC = json.load(f)
CHARSMAP = base64.b64decode(SPEC["normalizer"]["normalizers"][0]["precompiled_charsmap"])
# Clusters the normaliser treats whole (< 6 bytes) and whose first character alone is a rule: the rest
# of the cluster goes ("Ａ\u0301" → "A"); CR LF is one cluster; a long cluster goes character by character.
EDGES = ["Ａ\u0301", "ﬁ\u0301x", "\r\n", "e\u0301", "o\u0308\u0304", "Z\u0335\u0321\u0322", "1\ufe0f\u20e3", "\u0600a"]
EDGES += ["", " ", "  a  ", "\t", "\u3000x\u3000", "<mask>", " <mask> x", "a</s>b ", "\x85", "\u2028a"]


@pytest.fixture(scope="module")
def precompiled():
    return PrecompiledNormalizer(CHARSMAP)


def test_the_charsmap_rules_are_the_ones_hugging_face_applies():
    rules = charsmap_rules(CHARSMAP)
    assert rules["ﬁ"] == "fi" and rules["\t"] == " " and rules["e\u0301"] == "é"
    reference = normalizers.Precompiled(CHARSMAP)
    singles = [key for key in rules if len(key) == 1]
    assert len(singles) > 1000
    assert [reference.normalize_str(key) for key in singles] == [rules[key] for key in singles]


def test_grapheme_clusters_are_unicode_ones_below_six_bytes():
    """Every extended grapheme cluster (the `regex` library's \\X) of fewer than six bytes is one of ours,
    at the same place. Indic conjuncts (GB9c) are left out: they are six bytes or more, which the
    normaliser reads character by character whatever the clusters are."""
    texts = HOSTILE[::3] + EDGES
    for text, clusters in zip(texts, grapheme_clusters(tf.constant(texts)).to_list()):
        assert b"".join(clusters) == text.encode()
        ours = {(offset, cluster) for offset, cluster in zip(np.cumsum([0] + [len(c) for c in clusters]), clusters)}
        offset = 0
        for match in regex.findall(r"\X", text):
            cluster = match.encode()
            if len(cluster) < 6:
                assert (offset, cluster) in ours, (text[:40], cluster)
            offset += len(cluster)


def test_the_normaliser_is_hugging_face_precompiled_on_hostile_texts(precompiled):
    texts = HOSTILE + EDGES
    reference = normalizers.Precompiled(CHARSMAP)
    ours = precompiled(tf.constant(texts)).numpy()
    differ = [i for i, text in enumerate(texts) if ours[i] != reference.normalize_str(text).encode()]
    assert not differ, [texts[i][:40] for i in differ[:3]]
    assert precompiled(tf.constant(["Ａ\u0301", "ﬁ\u0301x"])).numpy().tolist() == [b"A", b"fix"]


def test_the_lattice_breaks_ties_as_hugging_face_does():
    """ "▁ab" + "b" and "▁a" + "bb" score the same: the earliest start of the last piece wins."""
    pieces = [("<unk>", 0.0), ("▁a", -1.0), ("b", -1.0), ("▁ab", -1.5), ("bb", -1.5), ("c", -3.0)]
    lattice = UnigramLattice(pieces, unk_id=0)
    reference = Tokenizer.from_str(
        json.dumps({"version": "1.0", "model": {"type": "Unigram", "unk_id": 0, "vocab": pieces}})
    )
    words = ["▁abb", "▁a??c", "?", "▁abbbc", "cc"]
    expected = [
        [reference.token_to_id(t.value) if t.id != 0 else 0 for t in reference.model.tokenize(w)] for w in words
    ]
    assert lattice.pieces(tf.constant(words)).to_list() == expected
    assert lattice.pieces(tf.constant([], tf.string)).to_list() == []


def with_legacy_pipeline(spec):
    """tokenizer.json as older converters wrote it for XLM-R: Precompiled + Replace(" {2,}", " "),
    Metaspace with add_prefix_space."""
    precompiled = spec["normalizer"]["normalizers"][0]
    replace = {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}
    pre_tokenizer = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
    return {
        **spec,
        "normalizer": {"type": "Sequence", "normalizers": [precompiled, replace]},
        "pre_tokenizer": pre_tokenizer,
    }


def with_transformers5_pipeline(spec, prepend_scheme="always", split=True):
    """tokenizer.json as transformers 5 writes XLM-R's (its `XLMRobertaTokenizer` rebuilds the pipeline):
    Precompiled alone, then `Sequence[WhitespaceSplit, Metaspace]`."""
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": prepend_scheme, "split": split}
    return {
        **spec,
        "normalizer": spec["normalizer"]["normalizers"][0],
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]},
    }


PIPELINES = {
    "converter": lambda spec: spec,
    "legacy": with_legacy_pipeline,
    "transformers5": with_transformers5_pipeline,
    "transformers5_never": lambda spec: with_transformers5_pipeline(spec, "never"),
    "transformers5_unsplit": lambda spec: with_transformers5_pipeline(spec, split=False),
    "metaspace_first": lambda spec: {**spec, "pre_tokenizer": {**spec["pre_tokenizer"], "prepend_scheme": "first"}},
}
EDGES += ["<s>after a special", "<mask> x", "a ▁b", "▁ ▁▁x", " \u3000▁", "a\u2003b\u00a0c", "x <mask>▁y\t"]


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_ids_are_tokenizer_json_ids_for_every_pipeline_xlm_r_files_carry(pipeline, tmp_path):
    spec = PIPELINES[pipeline](SPEC)
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec))
    reference = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    reference.no_truncation()
    texts = HOSTILE[::6] + EDGES
    expected = [e.ids for e in reference.encode_batch(texts, add_special_tokens=False)]
    tokenizer = load_tokenizer(tmp_path, max_length=1_000_000)
    ours = tokenizer.content_ids(tf.constant(texts)).to_list()
    differ = [i for i in range(len(texts)) if ours[i] != expected[i]]
    assert not differ, [(texts[i][:30], ours[i][:8], expected[i][:8]) for i in differ[:3]]
    assert [row.tolist() for row in tokenizer.content_id_rows(texts)] == expected


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s["pre_tokenizer"].update(prepend_scheme="sometimes"), "prepend_scheme 'sometimes'"),
        (lambda s: s["model"].update(byte_fallback=True), "byte_fallback"),
        (lambda s: s["normalizer"]["normalizers"].append({"type": "NFKC"}), "normalizer 'NFKC'"),
        (lambda s: s.update(pre_tokenizer={"type": "WhitespaceSplit"}), "pre-tokenizer 'WhitespaceSplit'"),
        (
            lambda s: s.update(pre_tokenizer={"type": "Sequence", "pretokenizers": [s["pre_tokenizer"]] * 2}),
            r"Sequence\['Metaspace', 'Metaspace'\]",
        ),
    ],
)
def test_a_unigram_pipeline_we_cannot_reproduce_is_refused(edit, message, tmp_path):
    spec = json.loads(json.dumps(SPEC))
    edit(spec)
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec))
    with pytest.raises(ValueError, match=message):
        load_tokenizer(tmp_path, max_length=16)


def test_the_tokenizer_runs_in_tf_data_and_comes_back_from_its_config():
    tokenizer = load_tokenizer(FOLDER, max_length=16)
    texts = HOSTILE[:32]
    dataset = tf.data.Dataset.from_tensor_slices(texts).batch(16).map(tokenizer.content_ids)
    in_pipeline = [row for batch in dataset for row in batch.to_list()]
    assert UnigramTokenizer.from_config(tokenizer.get_config()).content_ids(tf.constant(texts)).to_list() == in_pipeline
    assert all(len(row) <= 14 for row in in_pipeline)


def test_an_xlm_roberta_encoder_saves_and_loads_as_a_keras_file(tmp_path):
    encoder = SentenceEncoder.from_pretrained(FOLDER)
    encoder.save(tmp_path / "xlmr.keras")
    loaded = keras.saving.load_model(tmp_path / "xlmr.keras")
    assert type(loaded.tokenizer) is UnigramTokenizer
    np.testing.assert_allclose(loaded.encode(HOSTILE[:32]), encoder.encode(HOSTILE[:32]), atol=1e-6)

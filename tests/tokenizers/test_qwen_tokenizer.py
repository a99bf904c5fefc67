"""A Qwen2 / Qwen3 tokenizer.json (NFC, Qwen's Split expression, byte-level BPE, `$A <|endoftext|>`, left
padding) gives its own ids in-graph and on the host, on every hostile text. The fixture is a BPE trained
here in that shape (tests/fixtures/st_folders/make_folders.py qwen-tokenizer)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf
from tokenizers import Tokenizer

from keras_sentemb.pretrained import load_tokenizer
from keras_sentemb.tokenizers import ByteLevelBpeTokenizer
from tests.conftest import FIXTURES

FOLDER = os.path.join(FIXTURES, "qwen_tokenizer")
with open(os.path.join(FIXTURES, "hostile_texts", "texts.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer(FOLDER, max_length=1_000_000)


def reference_ids(texts):
    reference = Tokenizer.from_file(os.path.join(FOLDER, "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    return [encoding.ids for encoding in reference.encode_batch(texts)]


def test_ids_with_the_appended_end_of_text_are_tokenizer_json_ids_on_every_hostile_text(tokenizer):
    expected = reference_ids(HOSTILE)
    in_graph = tokenizer.add_special_tokens(tokenizer.content_ids(tf.constant(HOSTILE))).to_list()
    differ = [i for i, (ours, theirs) in enumerate(zip(in_graph, expected)) if ours != theirs]
    assert not differ, (len(differ), [HOSTILE[i][:40] for i in differ[:3]])
    on_host = [row.tolist() + list(tokenizer.end_ids) for row in tokenizer.content_id_rows(HOSTILE)]
    assert on_host == expected


def test_a_text_is_its_ids_then_end_of_text_padded_on_the_left(tokenizer):
    end = tokenizer.token_to_id("<|endoftext|>")
    assert (tokenizer.start_ids, tokenizer.end_ids, tokenizer.padding_side) == ((), (end,), "left")
    packed = tokenizer.pack(tokenizer.content_ids(tf.constant(["the cat sat on the mat", "hi"])))
    ids, mask = packed["token_ids"].numpy(), packed["padding_mask"].numpy()
    assert (ids[:, -1] == end).all() and (mask[:, -1] == 1).all()  # both end at the last position
    assert mask[1].tolist() == sorted(mask[1].tolist()) and mask[1].sum() < mask[0].sum()  # pads in front
    assert ids[1][: mask.shape[1] - mask[1].sum()].tolist() == [tokenizer.pad_token_id] * int((mask[1] == 0).sum())


def test_truncation_keeps_room_for_the_one_special_token():
    tokenizer = load_tokenizer(FOLDER, max_length=8)
    assert tokenizer.content_limit == 7
    assert tokenizer.content_ids(tf.constant(["word " * 40])).row_lengths().numpy().tolist() == [7]


def test_runs_in_tf_data_and_comes_back_from_its_config(tokenizer):
    config = {**tokenizer.get_config(), "vocabulary": dict(tokenizer.vocabulary), "merges": list(tokenizer.merges)}
    again = ByteLevelBpeTokenizer.from_config(json.loads(json.dumps(config)))
    texts = tf.constant(HOSTILE[:200])
    dataset = tf.data.Dataset.from_tensor_slices(texts).batch(50).map(again.content_ids)
    assert [row for batch in dataset for row in batch.to_list()] == tokenizer.content_ids(texts).to_list()
    np.testing.assert_array_equal(
        again.pack(again.content_ids(texts))["token_ids"], tokenizer.pack(tokenizer.content_ids(texts))["token_ids"]
    )


def test_another_split_expression_is_refused(tmp_path):
    with open(os.path.join(FOLDER, "tokenizer.json"), encoding="utf-8") as f:
        spec = json.load(f)
    spec["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = r"\p{N}{1,3}|\s+"
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ValueError, match="pre-tokenizer 'Sequence' is not supported"):
        load_tokenizer(tmp_path, max_length=16)

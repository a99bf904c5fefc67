"""MultiVectorEncoder: ColBERT folders of sentence-transformers 6 and PyLate compute sentence-transformers' token
vectors and MaxSim scores (tests/fixtures/multi_vector_folders_reference/, recorded by
benchmarks/anchors/multi_vector_folders.py), and the API a sentence-transformers user knows."""

import os

import numpy as np
import pytest

from keras_sentemb.chunking import Chunking
from keras_sentemb.models import MultiVectorEncoder
from keras_sentemb.utils.maxsim import maxsim
from tests.fixture_folders import (
    LONG_QUERY,
    MULTI_VECTOR_FAMILY_FOLDERS,
    MULTI_VECTOR_FOLDERS,
    MULTI_VECTOR_REFERENCE,
    copy_folder,
    edit_json,
    reference_texts,
)


def load(name):
    return MultiVectorEncoder.from_pretrained(os.path.join(MULTI_VECTOR_FOLDERS, name))


def split_rows(concatenated, lengths):
    return np.split(concatenated, np.cumsum(lengths)[:-1])


@pytest.fixture(scope="module")
def colbert():
    return load("bert_colbert")


@pytest.mark.parametrize("name", MULTI_VECTOR_FAMILY_FOLDERS)
def test_token_vectors_and_maxsim_equal_sentence_transformers(name):
    encoder = load(name)
    reference = np.load(os.path.join(MULTI_VECTOR_REFERENCE, f"{name}.npz"))
    texts = reference_texts() + [LONG_QUERY]
    ours = {"query": encoder.encode_query(texts), "document": encoder.encode_document(texts)}
    for side, rows in ours.items():
        assert all(row.dtype == np.float32 and row.ndim == 2 for row in rows)
        assert [len(row) for row in rows] == reference[f"{side}_lengths"].tolist(), (name, side)
        np.testing.assert_allclose(np.concatenate(rows), reference[side], atol=1e-4, err_msg=f"{name} {side}")
    scores = encoder.similarity(ours["query"], ours["document"])
    assert np.abs(scores - reference["similarity"]).max() <= 1e-4 * np.abs(reference["similarity"]).max()


def test_a_pylate_folder_reads_as_the_same_model_in_sentence_transformers_layout(colbert):
    pylate = load("bert_pylate")
    texts = reference_texts()[:6]
    for ours, theirs in zip(pylate.encode_query(texts), colbert.encode_query(texts)):
        np.testing.assert_array_equal(ours, theirs)
    assert pylate.prompts == {"query": "[Q] ", "document": "[D] "} and pylate.skiplist_ids == colbert.skiplist_ids


def test_fixed_expansion_gives_every_query_the_expansion_length_of_vectors(colbert):
    short, long = colbert.encode_query(["cat", LONG_QUERY])
    assert len(short) == len(long) == 16
    ids, attention, scored = colbert.pack_texts([b"[Q] cat"], "query")[0]
    mask_id = colbert.query_expansion["token_id"]
    real = len(colbert.pack_texts([b"[Q] cat"], None)[0][0])  # [CLS] [Q] cat's pieces [SEP], not expanded
    filler = ids == mask_id
    assert filler[real:].all() and not filler[:real].any()  # the fillers follow [SEP] up to 16
    assert not attention[filler].any() and attention[:real].all() and scored.all()  # not attended, all scored


def test_min_expansion_fills_short_queries_and_keeps_long_ones_up_to_the_query_length():
    modernbert = load("modernbert_colbert")
    short, long = modernbert.encode_query(["cat", LONG_QUERY])
    assert len(short) == 12 and len(long) == 20
    ids, attention, _ = modernbert.pack_texts([b"[Q] cat"], "query")[0]
    assert attention.all()  # attend: the encoder sees the fillers


def test_documents_skip_punctuation_and_are_cut_at_the_document_length(colbert):
    plain, punctuated = colbert.pack_texts([b"[D] the cat sat", b"[D] the cat , sat ."], "document")
    assert plain[2].sum() == punctuated[2].sum() == len(plain[0])  # "," and "." are tokens, never scored
    assert len(punctuated[0]) == len(plain[0]) + 2
    (long,) = colbert.encode_document([LONG_QUERY])
    assert len(long) == 40


def test_queries_keep_punctuation_the_skip_list_is_for_documents(colbert):
    ids, _, scored = colbert.pack_texts([b"[Q] the cat , sat ."], "query")[0]
    assert scored.all() and np.isin(colbert.skiplist_ids, ids).any()


def test_encode_takes_one_text_a_list_or_nothing(colbert):
    one = colbert.encode_document("the cat")
    assert isinstance(one, np.ndarray) and one.shape[1] == colbert.embedding_dim == 24
    assert colbert.encode_document([]) == []
    np.testing.assert_allclose(np.linalg.norm(one, axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.encode_document([1]), TypeError),
        (lambda m: m.encode_document(["a"], batch_size=0), ValueError),
        (lambda m: m.encode(["a"], task="passage"), ValueError),
        (lambda m: m.encode_query(["a"], prompt_name="nope"), ValueError),
        (lambda m: m.encode_query(["a"], chunking=Chunking()), ValueError),
        (lambda m: m.encode_document(["a"], chunking=Chunking(pooling=None)), ValueError),
        (lambda m: m.encode_document(["a"], chunking=Chunking(late=True)), ValueError),
        (lambda m: m.encode_document(["a"], chunking=128), TypeError),
        (lambda m: m.encode_document(["a"], chunking={"size": 0}), ValueError),
    ],
)
def test_bad_arguments_are_refused(colbert, call, error):
    with pytest.raises(error):
        call(colbert)


LONG_DOCUMENT = " ".join(["the cat sat on the mat . a dog ran fast !"] * 12)


def test_a_chunked_document_keeps_every_windows_vectors_in_order(colbert):
    plain = colbert.encode_document(["a short one .", LONG_DOCUMENT])
    whole = colbert.encode_document(["a short one .", LONG_DOCUMENT], chunking=Chunking())
    np.testing.assert_array_equal(whole[0], plain[0])  # one window: the vectors without chunking
    assert len(whole[1]) > 4 * len(plain[1])  # every window's, not the first window's alone
    np.testing.assert_allclose(whole[1][: len(plain[1])], plain[1], atol=1e-6)  # the first window is the cut one
    overlapping = colbert.encode_document(LONG_DOCUMENT, chunking=Chunking(size=16, overlap=4))
    assert len(overlapping) > len(whole[1])  # shared pieces are encoded in both windows


def test_batches_of_any_size_give_the_same_vectors(colbert):
    texts = reference_texts()[:9]
    for one, many in zip(colbert.encode_document(texts, batch_size=1), colbert.encode_document(texts, batch_size=4)):
        np.testing.assert_allclose(one, many, atol=1e-5)


def test_a_saved_keras_file_loads_the_same_model(colbert, tmp_path):
    path = tmp_path / "colbert.keras"
    colbert.save(path)
    loaded = __import__("keras").saving.load_model(path)
    texts = ["a cat", "the dog , ran ."]
    for side in ("encode_query", "encode_document"):
        for ours, theirs in zip(getattr(loaded, side)(texts), getattr(colbert, side)(texts)):
            np.testing.assert_allclose(ours, theirs, atol=1e-6)
    assert loaded.query_expansion == colbert.query_expansion and loaded.similarity_fn_name == "maxsim"


def test_maxsim_sums_each_query_vectors_best_match():
    rng = np.random.default_rng(0)
    queries = [rng.normal(size=(n, 8)).astype(np.float32) for n in (3, 5)]
    documents = [rng.normal(size=(n, 8)).astype(np.float32) for n in (1, 7, 4)]
    expected = np.array([[(q @ d.T).max(axis=1).sum() for d in documents] for q in queries], np.float32)
    np.testing.assert_allclose(maxsim(queries, documents), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        maxsim(queries, documents, length_normalize=True), expected / np.array([[3], [5]]), rtol=1e-5, atol=1e-5
    )


def test_maxsim_of_a_document_without_vectors_is_an_error():
    with pytest.raises(ValueError, match="document #1 has no token vectors"):
        maxsim([np.ones((2, 4), np.float32)], [np.ones((1, 4), np.float32), np.zeros((0, 4), np.float32)])


def _dense_in_features(folder):
    edit_json(folder / "1_Dense" / "config.json", lambda c: c.update(in_features=48))


def _expansion_length(value):
    return lambda folder: edit_json(
        folder / "sentence_bert_config.json", lambda c: c["query_expansion"].update(length=value)
    )


def _expansion_key(folder):
    edit_json(folder / "sentence_bert_config.json", lambda c: c["query_expansion"].update(pad_to=3))


def _expansion_token(folder):
    edit_json(folder / "sentence_bert_config.json", lambda c: c["query_expansion"].update(token="[NOPE]"))


def _legacy_marker(folder):
    edit_json(folder / "config_sentence_transformers.json", lambda c: c.update(query_prefix="[unused0] "))


def _stanford(folder):
    (folder / "modules.json").unlink()
    edit_json(folder / "config.json", lambda c: c.update(architectures=["HF_ColBERT"]))


def _sentence_dense(folder):
    edit_json(folder / "1_Dense" / "config.json", lambda c: c.update(module_input_name="sentence_embedding"))


def _normalize_first(folder):
    edit_json(folder / "modules.json", lambda m: [m[0], m[3], m[1], m[2]])


@pytest.mark.parametrize(
    "name, edit, message",
    [
        ("bert_colbert", _dense_in_features, r"1_Dense.*in_features=48.*model.safetensors"),
        ("bert_colbert", _expansion_length(0), r"sentence_bert_config.json: query_expansion: length must be"),
        ("bert_colbert", _expansion_length(10**9), r"length must be an integer in \[1, 1000000\], got 1000000000"),
        ("bert_colbert", _expansion_key, r"query_expansion has unknown keys \['pad_to'\]"),
        ("bert_colbert", _expansion_token, r"expansion token '\[NOPE\]' is not a token of the vocabulary"),
        ("bert_pylate", _legacy_marker, r"markers \['\[unused0\]'\] are not tokens of the vocabulary"),
        ("bert_colbert", _stanford, r"Stanford-NLP ColBERT checkpoint \(HF_ColBERT"),
        ("bert_colbert", _sentence_dense, r"config.json: a Dense module from 'sentence_embedding'"),
        ("bert_colbert", _normalize_first, r"comes after Normalize"),
    ],
)
def test_a_folder_that_is_not_what_it_says_is_refused_naming_the_file(tmp_path, name, edit, message):
    folder = copy_folder(MULTI_VECTOR_FOLDERS, name, tmp_path)
    edit(folder)
    with pytest.raises(ValueError, match=message):
        MultiVectorEncoder.from_pretrained(str(folder))


def test_a_pylate_marker_that_is_a_plain_vocabulary_token_stays_one_token(tmp_path):
    folder = copy_folder(MULTI_VECTOR_FOLDERS, "bert_pylate", tmp_path)

    def rename(spec):  # vocabulary entry 300 becomes "[unused0]", a token the WordPiece splitting would cut up
        vocab = spec["model"]["vocab"]
        vocab["[unused0]"] = vocab.pop(next(token for token, index in vocab.items() if index == 300))

    edit_json(folder / "tokenizer.json", rename)
    edit_json(folder / "config_sentence_transformers.json", lambda c: c.update(query_prefix="[unused0] "))
    encoder = MultiVectorEncoder.from_pretrained(str(folder))
    ids, _, _ = encoder.pack_texts([b"[unused0] the cat"], "query")[0]
    plain, _, _ = encoder.pack_texts([b"the cat"], "query")[0]
    assert ids[1] == 300 and ids[2:].tolist()[:3] == plain[1:4].tolist()  # [CLS] [unused0] the cat …
    assert encoder.encode_query(["the cat"])[0].shape == (16, 24)

"""LexicalIndex scores documents by Lucene's BM25 over stemmed, stop-word-free terms, returns only
documents sharing a term with the query, and saves to a folder that is refused when its files or
its documents are not the ones written."""

import json
import math
import os

import numpy as np
import pytest

from keras_sentemb.retrieval.lexical_index import Bm25, LexicalIndex, texts_sha256

DOCUMENTS = [
    "Statins lower cholesterol in the blood.",
    "Breast cancer cells take up cholesterol.",
    "Fruit and vegetables were linked to fewer asthma attacks.",
    "Cholesterol, cholesterol and more cholesterol in eggs.",
    "",
]


def document_terms(index, documents):
    return [index.query_terms([text])[0] if text.strip() else [] for text in documents]


def lucene_bm25(query_terms, terms_of_documents, k1=1.2, b=0.75):
    """The module docstring's formula, written out."""
    n = len(terms_of_documents)
    average = sum(len(terms) for terms in terms_of_documents) / n
    scores = []
    for terms in terms_of_documents:
        score = 0.0
        for term in set(query_terms):
            df = sum(term in other for other in terms_of_documents)
            tf = terms.count(term)
            if tf == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf / (tf + k1 * (1 - b + b * len(terms) / average))
        scores.append(score)
    return np.array(scores)


def test_scores_are_lucenes_bm25_of_the_stemmed_terms():
    index = LexicalIndex(DOCUMENTS)
    query = "cholesterol levels of breast cells"
    expected = lucene_bm25(index.query_terms([query])[0], document_terms(index, DOCUMENTS))
    ids, scores = index.search([query], top_k=5)
    matched = np.flatnonzero(expected > 0)
    assert sorted(ids[0][ids[0] >= 0].tolist()) == sorted(matched.tolist())
    np.testing.assert_allclose(scores[0][: len(matched)], expected[ids[0][: len(matched)]], rtol=1e-5)
    assert list(scores[0][: len(matched)]) == sorted(scores[0][: len(matched)], reverse=True)


def test_stems_and_stop_words_follow_the_options():
    index = LexicalIndex(DOCUMENTS)
    assert index.query_terms(["The attacks of asthma"]) == [["attack", "asthma"]]
    plain = LexicalIndex(DOCUMENTS, Bm25(stemmer=None, stopwords=None))
    assert plain.query_terms(["The attacks of asthma"]) == [["the", "attacks", "of", "asthma"]]


def test_only_documents_sharing_a_term_are_hits_and_the_rest_of_the_row_is_minus_one():
    index = LexicalIndex(DOCUMENTS)
    ids, scores = index.search(["asthma", "the and of", "zebra"], top_k=4)
    assert ids.tolist() == [[2, -1, -1, -1], [-1] * 4, [-1] * 4]
    assert scores[0, 0] > 0 and not scores[0, 1:].any() and not scores[1:].any()


def test_ties_rank_the_lower_id_first_and_top_k_is_capped_at_the_documents():
    index = LexicalIndex(["red apple", "red apple", "green pear"])
    ids, _ = index.search(["apple"], top_k=10)
    assert ids.tolist() == [[0, 1, -1]]


@pytest.mark.parametrize(
    "queries, error, words",
    [
        ([""], ValueError, "queries[0] is empty"),
        (["fine", "   "], ValueError, "queries[1] is empty"),
        ([], ValueError, "queries is empty"),
        ("a string, not a list", TypeError, "list of strings"),
        (["fine", None], TypeError, "queries[1] must be a string"),
    ],
)
def test_bad_queries_are_refused_by_name(queries, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        LexicalIndex(DOCUMENTS).search(queries)


@pytest.mark.parametrize(
    "documents, error, words",
    [
        ([], ValueError, "documents is empty"),
        (["", "  ", "the of and"], ValueError, "none of the 3 documents holds a term"),
        (["text", 3], TypeError, r"documents\[1\] must be a string"),
        (b"bytes", TypeError, "list of strings"),
    ],
)
def test_documents_without_text_are_refused(documents, error, words):
    with pytest.raises(error, match=words):
        LexicalIndex(documents)


@pytest.mark.parametrize(
    "options, words",
    [
        (dict(k1=0), "k1 must be > 0"),
        (dict(k1=-1.0), "k1 must be a number"),
        (dict(b=1.5), "b must be a number"),
        (dict(method="bm25+"), "method must be one of"),
        (dict(stopwords=3), "stopwords must be"),
        (dict(stopwords=("the", 3)), "stopwords must be"),
        (dict(k1=float("inf")), "k1 must be > 0 and finite"),
        (dict(b=float("nan")), "b must be a number"),
    ],
)
def test_bad_options_are_refused(options, words):
    with pytest.raises((ValueError, TypeError), match=words):
        Bm25(**options)


def test_an_unknown_stemmer_or_stop_word_language_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="no Snowball stemmer 'klingon'.*english"):
        LexicalIndex(DOCUMENTS, Bm25(stemmer="klingon"))
    with pytest.raises(ValueError, match="klingon not recognized.*German, Dutch, French"):
        LexicalIndex(DOCUMENTS, Bm25(stopwords="klingon"))


def test_other_languages_stem_and_drop_their_own_stop_words():
    index = LexicalIndex(["le chat est sur la table", "les chats dorment"], Bm25(stemmer="french", stopwords="fr"))
    assert index.query_terms(["les chats"]) == [["chat"]]


def test_a_saved_index_searches_as_the_one_saved(tmp_path):
    index = LexicalIndex(DOCUMENTS, Bm25(k1=1.5, b=0.5))
    folder = index.save(tmp_path / "lexical")
    loaded = LexicalIndex.load(folder, documents_sha256=texts_sha256(DOCUMENTS))
    assert loaded.options == Bm25(k1=1.5, b=0.5) and len(loaded) == len(DOCUMENTS)
    queries = ["cholesterol in eggs", "asthma"]
    for got, expected in zip(loaded.search(queries, 3), index.search(queries, 3)):
        np.testing.assert_array_equal(got, expected)
    with pytest.raises(FileExistsError):
        index.save(folder)
    assert sorted(os.listdir(tmp_path)) == ["lexical"]


def test_a_saved_index_of_other_documents_is_refused(tmp_path):
    folder = LexicalIndex(DOCUMENTS).save(tmp_path / "lexical")
    with pytest.raises(ValueError, match="indexes other documents"):
        LexicalIndex.load(folder, documents_sha256=texts_sha256(DOCUMENTS[:-1]))


def test_a_changed_file_of_a_saved_index_is_refused(tmp_path):
    folder = LexicalIndex(DOCUMENTS).save(tmp_path / "lexical")
    vocabulary = os.path.join(folder, "vocab.index.json")
    with open(vocabulary, "r+", encoding="utf-8") as f:
        terms = json.load(f)
        f.seek(0)
        json.dump({term: (i + 1) % len(terms) for i, term in enumerate(terms)}, f)
    with pytest.raises(ValueError, match="vocab.index.json: its sha256 differs"):
        LexicalIndex.load(folder)


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda meta: meta.update(format=2), "format 2"),
        (lambda meta: meta.update(documents=-1), "documents=-1"),
        (lambda meta: meta["options"].update(k1="big"), "k1 must be a number"),
        (lambda meta: meta["options"].update(colour="red"), "unexpected keyword"),
        (lambda meta: meta["files"].update({"../../etc/passwd": "0" * 64}), "not a file of"),
        (lambda meta: meta.pop("files"), "files"),
    ],
)
def test_a_bad_lexical_json_is_refused_by_name(tmp_path, edit, words):
    folder = LexicalIndex(DOCUMENTS).save(tmp_path / "lexical")
    path = os.path.join(folder, "lexical.json")
    with open(path, encoding="utf-8") as f:
        meta = json.load(f)
    edit(meta)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(meta, f)
    with pytest.raises(ValueError, match=words):
        LexicalIndex.load(folder)


def test_a_folder_without_lexical_json_is_not_an_index(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a lexical index"):
        LexicalIndex.load(tmp_path)

"""LexicalIndex: BM25 over documents, on `bm25s` (a sparse matrix of precomputed term scores).

A text becomes terms as BEIR's Elasticsearch "english" analyser makes them, through bm25s' own
tokeniser: lower-cased, split into words of two or more letters or digits (scikit-learn's
pattern `\\b\\w\\w+\\b`), English stop words removed, each word stemmed by the Snowball English
stemmer (PyStemmer). A document d then scores, for a query q of terms t (Lucene's BM25),

    score(q, d) = Σ_{t ∈ q} idf(t) · tf(t, d) / (tf(t, d) + k1 · (1 − b + b · |d| / avgdl))
    idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

with N documents, df(t) the documents holding t, tf(t, d) its count in d, |d| the terms of d and
avgdl their mean (Lucene 8's form: Robertson's (k1 + 1) factor dropped, which ranks the same).
k1 = 1.2 and b = 0.75 are Elasticsearch's defaults, which BEIR's BM25 figures ran with
(NFCorpus test: 31.80 nDCG@10 here against BEIR's published 32.5; benchmarks/retrieval_pipeline.py).

Only documents sharing a term with the query are hits: `search` pads a query's row with id -1
(score 0) where fewer than `top_k` documents match, as FAISS pads; a query whose words are all
stop words (or unknown to the corpus) has no hits.

A saved index is a folder: bm25s' own files and `lexical.json` (format, options, the number of
documents, the sha256 of the documents' texts, and the sha256 of every bm25s file, checked before
bm25s reads them). It is written atomically; a folder whose files differ from what was written, or
whose documents differ from the texts a caller holds (`documents_sha256`), is refused.

Example:
>>> index = LexicalIndex(["Bread rises with yeast.", "Stocks fell sharply today.", "Baking bread at home"])
>>> ids, scores = index.search(["how to bake bread"], top_k=3)
>>> ids.tolist()
[[2, 0, -1]]
"""

import dataclasses
import hashlib
import math
import os

import numpy as np

from keras_sentemb.retrieval.ranked_runs import best_positive
from keras_sentemb.utils.argument_checks import positive_int
from keras_sentemb.utils.atomic_files import atomic_directory
from keras_sentemb.utils.index_meta import check_index_files, read_index_meta, write_index_meta

LEXICAL_FORMAT = 1
META_FILE = "lexical.json"
INSTALL_HINT = 'pip install "./keras-sentemb[lexical]" (bm25s, PyStemmer)'
# bm25s' variants whose score is 0 for a document without a query term ("bm25l" and "bm25+" add a
# constant to every document, so a hit could no longer mean a shared term)
BM25_METHODS = ("lucene", "robertson", "atire")


def _bm25s():
    try:
        import bm25s  # optional extra: lexical
    except ImportError as error:
        raise ImportError(f"lexical retrieval needs bm25s: {INSTALL_HINT}") from error
    return bm25s


@dataclasses.dataclass(frozen=True)
class Bm25:
    """How texts become terms, and BM25's parameters (the module docstring has the formula).

    Attributes:
        k1: term-frequency saturation (> 0; Elasticsearch's and BEIR's 1.2).
        b: length normalisation, 0…1 (BEIR's 0.75).
        method: bm25s' variant: "lucene" (the one Elasticsearch runs), "robertson" or "atire".
        stemmer: a Snowball language of PyStemmer ("english"), or None for none.
        stopwords: a language bm25s has a list for ("en", the default; "de", "fr", "es", … or
            their English names), a tuple (or list) of words, or None for none.
    """

    k1: float = 1.2
    b: float = 0.75
    method: str = "lucene"
    stemmer: str | None = "english"
    stopwords: str | tuple | None = "en"

    def __post_init__(self):
        for name, low, high in (("k1", 0.0, math.inf), ("b", 0.0, 1.0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(f"Bm25.{name} must be a number in [{low}, {high}], got {value!r}")
        if self.k1 == 0 or self.k1 == math.inf:
            raise ValueError(f"Bm25.k1 must be > 0 and finite (0 ignores how often a term occurs), got {self.k1!r}")
        if self.method not in BM25_METHODS:
            raise ValueError(f"Bm25.method must be one of {BM25_METHODS}, got {self.method!r}")
        if self.stemmer is not None and not isinstance(self.stemmer, str):
            raise TypeError(f"Bm25.stemmer must be a language name or None, got {type(self.stemmer).__name__}")
        if isinstance(self.stopwords, list):
            object.__setattr__(self, "stopwords", tuple(self.stopwords))
        words = isinstance(self.stopwords, tuple) and all(isinstance(word, str) for word in self.stopwords)
        if self.stopwords is not None and not isinstance(self.stopwords, str) and not words:
            raise TypeError(f"Bm25.stopwords must be 'en', a tuple of words or None, got {self.stopwords!r:.80}")

    def stemmer_object(self):
        """PyStemmer's stemmer of `stemmer` (None for none); `ValueError` naming the languages it has."""
        if self.stemmer is None:
            return None
        try:
            import Stemmer  # optional extra: lexical (PyStemmer)
        except ImportError as error:
            raise ImportError(f"stemming needs PyStemmer: {INSTALL_HINT}") from error
        if self.stemmer not in Stemmer.algorithms():
            raise ValueError(
                f"Bm25.stemmer: no Snowball stemmer {self.stemmer!r}; PyStemmer has {Stemmer.algorithms()}"
            )
        return Stemmer.Stemmer(self.stemmer)

    def to_json(self):
        fields = dataclasses.asdict(self)
        if isinstance(self.stopwords, tuple):
            fields["stopwords"] = list(self.stopwords)
        return fields


def lexical_options(lexical):
    """The `Bm25` of `evaluate_beir`'s `lexical` (True: BEIR's parameters); None for None / False."""
    if lexical is None or lexical is False:
        return None
    if lexical is True:
        return Bm25()
    if isinstance(lexical, Bm25):
        return lexical
    raise TypeError(f"lexical must be True, a Bm25 or None, got {type(lexical).__name__}")


def texts_sha256(texts):
    """sha256 of a list of texts, each length-prefixed (so ["ab", "c"] and ["a", "bc"] differ)."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def checked_texts(texts, what):
    """`texts` as a list of str; `TypeError` naming the first item that is not one."""
    if isinstance(texts, (str, bytes)) or not hasattr(texts, "__len__"):
        raise TypeError(f"{what} must be a list of strings, got {type(texts).__name__}")
    texts = list(texts)
    bad = next((i for i, text in enumerate(texts) if not isinstance(text, str)), None)
    if bad is not None:
        raise TypeError(f"{what}[{bad}] must be a string, got {type(texts[bad]).__name__}")
    return texts


class LexicalIndex:
    """BM25 over `documents` (see the module docstring).

    Args:
        documents: the texts, in the order their ids (row numbers) name them.
        options: a `Bm25` (default: BEIR's parameters, English stemming and stop words).
        progress: bm25s' progress bars while indexing (None: from 10,000 documents on).

    Raises:
        TypeError: `documents` is not a list of strings.
        ValueError: no documents, or not one of them holds a term to index (all empty or stop words).
    """

    def __init__(self, documents, options=None, progress=None):
        self.options = options if options is not None else Bm25()
        if not isinstance(self.options, Bm25):
            raise TypeError(f"options must be a Bm25, got {type(self.options).__name__}")
        documents = checked_texts(documents, "documents")
        if not documents:
            raise ValueError("documents is empty: nothing to index")
        bm25s = _bm25s()
        progress = len(documents) >= 10_000 if progress is None else bool(progress)
        tokens = bm25s.tokenize(
            documents, stopwords=self.options.stopwords, stemmer=self.options.stemmer_object(), show_progress=progress
        )
        if not any(term for term in tokens.vocab if term != ""):
            raise ValueError(
                f"none of the {len(documents)} documents holds a term to index (each is empty, or only stop words "
                "and single characters): BM25 would score every query 0"
            )
        self.retriever = bm25s.BM25(k1=self.options.k1, b=self.options.b, method=self.options.method)
        self.retriever.index(tokens, show_progress=progress)
        self.size = len(documents)
        self.documents_sha256 = texts_sha256(documents)

    def __len__(self):
        return self.size

    def query_terms(self, queries):
        """Each query's terms, as the index makes them; `ValueError` for an empty query."""
        queries = checked_texts(queries, "queries")
        if not queries:
            raise ValueError("queries is empty: nothing to search for")
        empty = next((i for i, query in enumerate(queries) if not query.strip()), None)
        if empty is not None:
            raise ValueError(f"queries[{empty}] is empty (or only white space): there is nothing to search for")
        return _bm25s().tokenize(
            queries,
            stopwords=self.options.stopwords,
            stemmer=self.options.stemmer_object(),
            return_ids=False,
            show_progress=False,
        )

    def search(self, queries, top_k=10):
        """The `top_k` documents of highest BM25 score for each query, best first.

        Returns:
            `(ids, scores)`: int64 and float32 arrays [Q, min(top_k, documents)]; ties by lower id;
            id -1 and score 0 past the documents that share a term with the query.

        Raises:
            TypeError: `queries` is not a list of strings.
            ValueError: no queries, an empty query, or `top_k` < 1.
        """
        top_k = positive_int(top_k, "top_k")
        terms = self.query_terms(queries)
        k = min(top_k, self.size)
        ids = np.full((len(terms), k), -1, np.int64)
        scores = np.zeros((len(terms), k), np.float32)
        for row, query_terms in enumerate(terms):
            document_scores = self.retriever.get_scores(query_terms) if query_terms else np.zeros(self.size)
            ids[row], scores[row] = best_positive(document_scores, k)
        return ids, scores

    def save(self, folder, overwrite=False):
        """Writes the index to `folder` atomically (see the module docstring); returns the path."""
        folder = os.fspath(folder)
        with atomic_directory(folder, overwrite=overwrite) as staging:
            self.save_into(staging)
        return folder

    def save_into(self, folder):
        """Writes the index's files into the existing `folder` (not atomically: a caller staging a
        larger folder, such as an index folder, publishes it)."""
        self.retriever.save(folder, show_progress=False)
        meta = {
            "format": LEXICAL_FORMAT,
            "options": self.options.to_json(),
            "documents": self.size,
            "documents_sha256": self.documents_sha256,
        }
        write_index_meta(folder, META_FILE, meta, [name for name in os.listdir(folder) if name != META_FILE])

    @classmethod
    def load(cls, folder, documents_sha256=None):
        """Opens a folder `save` wrote. With `documents_sha256` (`texts_sha256` of the texts the
        caller will show or fuse with), an index of other documents is refused.

        Raises:
            FileNotFoundError: no such folder, or no lexical.json in it.
            ValueError: a format, option or count that is not valid, a file that differs from the
                one written (sha256), or other documents than `documents_sha256`'s.
        """
        folder = os.fspath(folder)
        meta, path = read_index_meta(folder, META_FILE, ["options", "documents"], LEXICAL_FORMAT, "a lexical index")
        if type(meta["documents"]) is not int or meta["documents"] < 1:
            raise ValueError(f"{path}: documents={meta['documents']!r} is not a count of documents")
        if not isinstance(meta["options"], dict):
            raise ValueError(f"{path}: options must be a JSON object")
        try:
            options = Bm25(**meta["options"])
        except TypeError as error:
            raise ValueError(f"{path}: options {meta['options']!r}: {error}") from None
        hint = ": rebuild the lexical index from the documents it is searched with"
        check_index_files(folder, meta, path, documents_sha256, hint=hint)
        try:
            retriever = _bm25s().BM25.load(folder, mmap=False, load_corpus=False)
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"{folder}: bm25s could not read its index ({type(error).__name__}: {error})") from None
        if int(retriever.scores["num_docs"]) != meta["documents"] or (retriever.k1, retriever.b) != (
            options.k1,
            options.b,
        ):
            raise ValueError(
                f"{folder}: bm25s' files hold {retriever.scores['num_docs']} documents (k1 {retriever.k1}, b "
                f"{retriever.b}); {META_FILE} says {meta['documents']} (k1 {options.k1}, b {options.b})"
            )
        index = cls.__new__(cls)
        index.options, index.retriever = options, retriever
        index.size, index.documents_sha256 = meta["documents"], meta["documents_sha256"]
        return index

"""BeirCollection: a retrieval test collection in the BEIR layout (the one MTEB reads).

    folder/corpus.jsonl        {"_id": "MED-10", "title": "…", "text": "…"} per line
    folder/queries.jsonl       {"_id": "PLAIN-2", "text": "…"} per line
    folder/qrels/<split>.tsv   query-id <TAB> corpus-id <TAB> score, with that header line

A document's text is `(title + " " + text).strip()`, or `text.strip()` without a title, as MTEB
and BEIR build it; the queries are those the split's qrels judge, in the order of their first
judgement. The rules for awkward input, each tested:

- a duplicate `_id` (corpus or queries), a qrels line naming a (query, document) pair twice, a
  score that is not an integer, a missing `_id`/`text`: `ValueError("path:line: …")`;
- a qrels line naming a query or a document the folder does not hold: `ValueError` naming it
  (`unknown_ids="error"`, the default), or, with `unknown_ids="drop"`, the line is left out and
  counted in `dropped_judgements` (a judged document missing from the corpus can never be
  retrieved, and MTEB would still count it in nDCG's ideal ranking: dropping it is not what
  MTEB scores);
- an empty document (no title, no text) is kept and embedded as the empty text, as MTEB does;
  `empty_documents` counts them;
- a document of any length is read whole: truncation or chunking happens at encoding time (a
  text is tokenised only as far as the model reads it, so one huge document costs memory in
  proportion to its own length);
- bytes that are not UTF-8, anywhere in the three files: `ValueError("path:line: not valid UTF-8 …")`;
- an id (`_id`, or a qrels query or document id) longer than `MAX_ID_CHARACTERS`, a grade outside
  `LOWEST_GRADE`…`HIGHEST_GRADE` (trec_eval's and pytrec_eval's 32-bit integers; a grade of 10⁴⁰⁰ once reached the
  evaluation and overflowed there): `ValueError("path:line: …")`; the three files must be regular
  files (a FIFO is refused, never waited on).
"""

import dataclasses
import os
import re

from keras_sentemb.data.table_reader import jsonl_records
from keras_sentemb.utils.checked_files import open_regular_file, regular_file_present

QRELS_COLUMNS = ("query-id", "corpus-id", "score")
MAX_ID_CHARACTERS = 1024
LOWEST_GRADE, HIGHEST_GRADE = -(2**31), 2**31 - 1  # trec_eval's and pytrec_eval's 32-bit integers


@dataclasses.dataclass
class BeirCollection:
    """Documents, the judged queries of one split and their graded judgements.

    Attributes:
        document_ids / documents: corpus ids and texts (title + " " + text, stripped), file order.
        query_ids / queries: the judged queries of the split and their texts.
        qrels: {query id: {document id: grade}}; grade > 0 is relevant (trec_eval's rule).
        empty_documents: documents with neither title nor text.
        dropped_judgements: qrels lines left out by `unknown_ids="drop"`.
    """

    document_ids: list
    documents: list
    query_ids: list
    queries: list
    qrels: dict
    split: str = "test"
    empty_documents: int = 0
    dropped_judgements: int = 0

    def __len__(self):
        return len(self.query_ids)


def _utf8_lines(path):
    """The lines of `path` (a regular file) as text; `ValueError("path:line: not valid UTF-8 …")`."""
    with open_regular_file(path) as f:
        for line, data in enumerate(f, start=1):
            try:
                yield data.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(f"{path}:{line}: not valid UTF-8 ({error.reason} at byte {error.start})") from None


def _checked_id(identifier, what, path, line):
    if len(identifier) > MAX_ID_CHARACTERS:
        raise ValueError(
            f"{path}:{line}: {what} of {len(identifier)} characters ({identifier[:20]!r}…); "
            f"an id has at most {MAX_ID_CHARACTERS}"
        )
    return identifier


def _jsonl_records(path):
    """(line number, record) of each non-blank line; `ValueError("path:line: …")` for a bad one."""
    for line, record, problem in jsonl_records(_utf8_lines(path)):
        if problem is not None:
            raise ValueError(f"{path}:{line}: {problem}")
        yield line, record


def _string_field(record, key, path, line, required=True):
    value = record.get(key)
    if value is None:
        if required:
            raise ValueError(f"{path}:{line}: missing {key!r}")
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"{path}:{line}: {key!r} must be a string, got {type(value).__name__}")
    return str(value)


def _read_texts(path, with_title):
    """{id: text} of a corpus or queries file, in file order, and the count of empty texts."""
    texts, first_line, empty = {}, {}, 0
    for line, record in _jsonl_records(path):
        identifier = _checked_id(_string_field(record, "_id", path, line), "_id", path, line)
        if identifier in first_line:
            raise ValueError(f"{path}:{line}: duplicate _id {identifier!r} (first at line {first_line[identifier]})")
        text = _string_field(record, "text", path, line)
        if with_title and "title" in record:
            text = _string_field(record, "title", path, line, required=False) + " " + text
        text = text.strip()
        empty += not text
        texts[identifier] = text
        first_line[identifier] = line
    return texts, empty


def _qrels_lines(path):
    """(line, query id, document id, grade) of each judgement of a qrels TSV (header first)."""
    lines = _utf8_lines(path)
    header = next(lines, "").rstrip("\r\n").split("\t")
    if tuple(header) != QRELS_COLUMNS:
        raise ValueError(f"{path}:1: the header must be {'<TAB>'.join(QRELS_COLUMNS)}, got {header}")
    for line, text in enumerate(lines, start=2):
        if not text.strip():
            continue
        fields = text.rstrip("\r\n").split("\t")
        if len(fields) != 3:
            raise ValueError(f"{path}:{line}: expected 3 TAB-separated fields, got {len(fields)}")
        score = fields[2].strip()
        if not re.fullmatch(r"[+-]?[0-9]+", score):
            raise ValueError(f"{path}:{line}: the score must be an integer grade, got {fields[2]!r:.40}")
        grade = int(score) if len(score) <= 20 else None  # 20 digits: past any 64-bit integer already
        if grade is None or not LOWEST_GRADE <= grade <= HIGHEST_GRADE:
            shown = score if len(score) <= 20 else f"{score[:13]}… ({len(score)} digits)"
            raise ValueError(
                f"{path}:{line}: grade {shown} is outside {LOWEST_GRADE}…{HIGHEST_GRADE} "
                "(a 32-bit integer, as trec_eval reads it)"
            )
        yield (
            line,
            _checked_id(fields[0], "query id", path, line),
            _checked_id(fields[1], "document id", path, line),
            grade,
        )


def read_beir_folder(folder, split="test", unknown_ids="error"):
    """Reads a BEIR-layout folder (see the module docstring) into a `BeirCollection`.

    Args:
        folder: holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv.
        split: the qrels file to read ("test", "dev", "train").
        unknown_ids: "error" (default) or "drop": what a qrels line naming an id that is not in
            the corpus or the queries does.

    Raises:
        FileNotFoundError: a missing file (named).
        ValueError: a bad line (`path:line`), or an unknown id with `unknown_ids="error"`.

    (Not run as a doctest: it reads the benchmark data folder, docs/data.md.)
        nfcorpus = read_beir_folder("data/beir/nfcorpus", split="test")
        len(nfcorpus.documents), len(nfcorpus.queries)
        # -> (3633, 323)
    """
    if unknown_ids not in ("error", "drop"):
        raise ValueError(f"unknown_ids must be 'error' or 'drop', got {unknown_ids!r}")
    folder = os.fspath(folder)
    paths = {
        "corpus": os.path.join(folder, "corpus.jsonl"),
        "queries": os.path.join(folder, "queries.jsonl"),
        "qrels": os.path.join(folder, "qrels", f"{split}.tsv"),
    }
    for name, path in paths.items():
        if not regular_file_present(path):
            raise FileNotFoundError(f"{folder} is not a BEIR folder: no {name} file {path}")
    documents, empty = _read_texts(paths["corpus"], with_title=True)
    queries, _ = _read_texts(paths["queries"], with_title=False)
    qrels, dropped = {}, 0
    for line, query, document, grade in _qrels_lines(paths["qrels"]):
        unknown = [f"query {query!r}"] * (query not in queries) + [f"document {document!r}"] * (
            document not in documents
        )
        if unknown:
            if unknown_ids == "error":
                raise ValueError(
                    f"{paths['qrels']}:{line}: {' and '.join(unknown)} not in the folder "
                    "(read_beir_folder(..., unknown_ids='drop') leaves such judgements out)"
                )
            dropped += 1
            continue
        judged = qrels.setdefault(query, {})
        if document in judged:
            raise ValueError(f"{paths['qrels']}:{line}: query {query!r} judges document {document!r} twice")
        judged[document] = grade
    if not qrels:
        raise ValueError(f"{paths['qrels']}: no judgements")
    return BeirCollection(
        document_ids=list(documents),
        documents=list(documents.values()),
        query_ids=list(qrels),
        queries=[queries[query] for query in qrels],
        qrels=qrels,
        split=split,
        empty_documents=empty,
        dropped_judgements=dropped,
    )

"""encode(texts, chunking=…): naive chunks are the model's vectors of their windows, late chunks
average token states of the whole document, a short document gets its plain vector, and every
bad option is refused by name."""

import numpy as np
import pytest
import tensorflow as tf

from keras_sentemb.chunking import ChunkedEmbeddings, Chunking
from tests.conftest import make_tiny_encoder

SENTENCES = ["the cat sat on the mat.", "a dog ran fast!", "hello world", "bread in the oven."]
LONG = " ".join(SENTENCES * 5)  # 60 word pieces; the tiny encoder takes 14 a text
SHORT = "the cat sat on the mat."


@pytest.fixture(scope="module")
def encoder():
    return make_tiny_encoder(max_length=16, normalize=True, prompts={"document": "hello "})


def test_a_document_that_fits_gets_exactly_its_encode_vector(encoder):
    for pooling in ("mean", "max", "first"):
        chunked = encoder.encode([SHORT, ""], chunking=Chunking(pooling=pooling))
        np.testing.assert_allclose(chunked, encoder.encode([SHORT, ""]), atol=1e-6)
    prompted = encoder.encode_document([SHORT], chunking=Chunking())
    np.testing.assert_allclose(prompted, encoder.encode_document([SHORT]), atol=1e-6)


def test_each_chunk_is_the_vector_of_its_window_and_knows_its_document_and_span(encoder):
    chunks = encoder.encode([SHORT, LONG], chunking=Chunking(size=8, overlap=2, sentences=True, pooling=None))
    assert isinstance(chunks, ChunkedEmbeddings)
    assert chunks.document[0] == 0 and set(chunks.document[1:]) == {1}
    texts = chunks.texts([SHORT, LONG])
    assert texts[1] == "the cat sat on the mat."  # cut at the sentence end
    # whole words in the tiny vocabulary: re-encoding a chunk's text gives its window's pieces
    np.testing.assert_allclose(chunks.vectors, encoder.encode(texts), atol=1e-6)
    assert all(LONG[s:e] == t for s, e, t in zip(chunks.start[1:], chunks.end[1:], texts[1:]))
    pooled = encoder.encode([SHORT, LONG], chunking=Chunking(size=8, overlap=2, sentences=True))
    np.testing.assert_allclose(pooled, chunks.pooled("mean"), atol=1e-6)


def test_the_prompt_goes_in_front_of_every_chunk_and_spans_stay_in_the_document(encoder):
    chunks = encoder.encode_document([LONG], chunking=Chunking(size=8, pooling=None))
    np.testing.assert_allclose(chunks.vectors, encoder.encode_document(chunks.texts([LONG])), atol=1e-6)
    assert chunks.start[0] == 0


def test_late_chunks_average_the_token_states_of_the_whole_document(encoder):
    chunking = Chunking(size=6, late=True, pooling=None)
    chunks = encoder.encode([SENTENCES[0] + " " + SENTENCES[1]], chunking=chunking, normalize=False)
    ids = encoder.tokenizer.content_id_rows([SENTENCES[0] + " " + SENTENCES[1]])[0]  # 12 pieces: one context
    token_ids, mask = encoder.pack_batch([ids], len(ids) + 2)
    states = encoder.token_states_fn()(tf.constant(token_ids), tf.constant(mask)).numpy()[0, 1:-1]
    expected = [states[0:6].mean(axis=0), states[6:12].mean(axis=0)]
    np.testing.assert_allclose(chunks.vectors, encoder.head_fn()(np.stack(expected)), atol=1e-5)


def test_late_chunking_beyond_the_context_uses_overlapping_context_windows(encoder):
    chunks = encoder.encode([LONG, ""], chunking=Chunking(size=8, late=True, context=20, pooling=None))
    assert chunks.document.tolist().count(1) == 1
    assert len(chunks) - 1 == len(encoder.encode([LONG], chunking=Chunking(size=8, pooling=None)))
    assert np.isfinite(chunks.vectors).all()
    np.testing.assert_allclose(chunks.vectors[-1], encoder.encode(""), atol=1e-6)  # an empty document


def test_bad_chunking_options_are_refused_by_name(encoder):
    with pytest.raises(ValueError, match="size 20 exceeds the 14 word pieces"):
        encoder.encode([LONG], chunking=Chunking(size=20))
    with pytest.raises(ValueError, match="late chunking reads token states of the float32 TensorFlow model"):
        encoder.encode([LONG], chunking=Chunking(late=True), precision="int8")
    with pytest.raises(ValueError, match="context 40 exceeds this backbone's 30 content positions"):
        encoder.encode([LONG], chunking=Chunking(late=True, context=40))
    with pytest.raises(TypeError, match="chunking must be a Chunking"):
        encoder.encode([LONG], chunking="late")
    with pytest.raises(ValueError, match="pooling must be one of"):
        Chunking(pooling="sum")
    assert encoder.encode([LONG], chunking={"size": 8}).shape == (1, 16)


def test_no_texts_give_no_chunks_and_word_piece_spans_are_kept(encoder):
    for late in (False, True):
        empty = encoder.encode([], chunking=Chunking(size=8, late=late, pooling=None))
        assert empty.vectors.shape == (0, 16) and len(empty) == 0
        assert encoder.encode([], chunking=Chunking(size=8, late=late)).shape == (0, 16)
    chunks = encoder.encode([LONG], chunking=Chunking(size=8, overlap=3, pooling=None))
    assert chunks.piece_start.tolist()[:3] == [0, 5, 10] and chunks.piece_end.tolist()[:3] == [8, 13, 18]


def test_late_chunking_runs_a_bounded_number_of_tokens_a_call_with_the_same_vectors(encoder, monkeypatch):
    """Memory does not grow with a document: the backbone sees at most LATE_CHUNKING_TOKENS_A_CALL padded
    tokens a call, and each window's states are added into its chunks' sums as soon as it has run; the
    vectors are those of the document's states taken whole (one call a document)."""
    from keras_sentemb.models import chunked_encoding

    chunking = Chunking(size=8, late=True, context=20, pooling=None)
    whole = encoder.encode([LONG, SHORT + " " + LONG], chunking=chunking)
    calls = []
    states_fn = encoder.token_states_fn()
    monkeypatch.setattr(
        type(encoder), "token_states_fn", lambda self: lambda ids, mask: calls.append(ids.shape) or states_fn(ids, mask)
    )
    monkeypatch.setattr(chunked_encoding, "LATE_CHUNKING_TOKENS_A_CALL", 32)
    bounded = encoder.encode([LONG, SHORT + " " + LONG], chunking=chunking)
    assert len(calls) > 2 and all(rows * length <= 32 for rows, length in calls), calls
    np.testing.assert_allclose(bounded.vectors, whole.vectors, atol=1e-6)
    assert bounded.document.tolist() == whole.document.tolist() and bounded.end.tolist() == whole.end.tolist()


def test_late_chunking_equals_encode_when_the_pooling_averages_the_content_pieces_alone():
    """docs/document_search.md: a one-window, one-chunk text's late vector is `encode`'s when the model
    mean-pools its content pieces alone (exclude_special_tokens=True, no prompt); sentence-transformers'
    mean pooling also averages [CLS] and [SEP] (and the prompt), so there it differs."""
    texts = ["the cat sat on the mat .", "a dog ran fast"]
    for exclude, equal in ((True, True), (False, False)):
        model = make_tiny_encoder(max_length=16, exclude_special_tokens=exclude)
        late = model.encode(texts, chunking=Chunking(late=True, pooling=None))
        assert np.allclose(late.vectors, model.encode(texts), atol=1e-6) == equal

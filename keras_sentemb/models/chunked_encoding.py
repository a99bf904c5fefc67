"""`SentenceEncoder.encode(texts, chunking=Chunking(…))`: long documents as chunks, naive or late.

Each document (with the encoder's prompt in front, when it has one) is tokenised once on the host,
untruncated, with each word piece's character span. Its content pieces are cut into windows
(`keras_sentemb.chunking.token_windows`); the prompt's pieces go in front of every window.

- Naive chunking: each window is one input `[CLS] prompt window [SEP]` of the model (the same
  smart-batched loop, runtime and precision as `encode`); a document that fits in one window gets
  exactly its `encode` vector.
- Late chunking: the document is run through the backbone in context windows of up to `context`
  pieces (`context_windows`), each piece's state taken from one window; a chunk's vector is the
  mean of its pieces' states over the layers the model pools, then the model's own head (Dense,
  normalisation, truncation). An empty document gets its `encode` vector.

The work is linear in a document's length: one tokenisation, windows found in one pass, each
piece encoded a bounded number of times.
"""

import numpy as np
import tensorflow as tf
from tqdm.auto import tqdm

from keras_sentemb.chunking.chunked_embeddings import ChunkedEmbeddings
from keras_sentemb.chunking.token_windows import context_windows, sentence_end_tokens, token_windows
from keras_sentemb.data.length_buckets import length_buckets
from keras_sentemb.models.embedding_model import PROGRESS_THRESHOLD

# late chunking runs the backbone on at most this many word pieces at once (bounded memory)
LATE_CHUNKING_PIECES_A_STEP = 32_768


def prompted_pieces(tokenizer, texts, prompt):
    """For each text: (the prompt's ids, the text's content ids, their character spans [L, 2] in
    the text). `prompt + text` is tokenised as one string, as `encode` does; a piece that ends
    inside the prompt belongs to it, a piece that straddles its end to the text (span clipped)."""
    if not hasattr(tokenizer, "content_ids_with_offsets"):
        raise TypeError(
            f"chunking needs a word-piece tokenizer with character offsets; {type(tokenizer).__name__} has none"
        )
    prefix = prompt or ""
    pieces = []
    for ids, offsets in tokenizer.content_ids_with_offsets([prefix + text for text in texts]):
        in_prompt = int(np.count_nonzero(offsets[:, 1] <= len(prefix))) if prefix else 0
        spans = np.maximum(offsets[in_prompt:] - len(prefix), 0)
        pieces.append((ids[:in_prompt], ids[in_prompt:], spans))
    return pieces


def _chunk_spans(text, ids, spans, chunking, size):
    sentence_ends = sentence_end_tokens(text, spans) if chunking.sentences else None
    return token_windows(len(ids), size, chunking.overlap, sentence_ends)


def _character_span(spans, start, end):
    return (int(spans[start, 0]), int(spans[end - 1, 1])) if end > start else (0, 0)


def encode_chunked(encoder, texts, prompt, chunking, batch_size, progress, runtime):
    """`ChunkedEmbeddings` of `texts` (a list of str) by `encoder` (see the module docstring):
    raw model outputs, before `encode`'s truncation and normalisation."""
    limit = encoder.tokenizer.content_limit
    pieces = prompted_pieces(encoder.tokenizer, texts, prompt)
    if chunking.late:
        return _late_chunks(encoder, texts, pieces, chunking, batch_size, progress)
    rows, document, starts, ends, windows = [], [], [], [], []
    for index, (text, (prompt_ids, ids, spans)) in enumerate(zip(texts, pieces)):
        size = chunking.window_size(limit - len(prompt_ids))
        for start, end in _chunk_spans(text, ids, spans, chunking, size):
            rows.append(np.concatenate([prompt_ids, ids[start:end]]).astype(np.int32))
            document.append(index)
            first, last = _character_span(spans, start, end)
            starts.append(first)
            ends.append(last)
            windows.append((start, end))
    vectors = encoder.predict_rows(rows, batch_size, progress, unit="chunk", desc="encode chunks", runtime=runtime)
    return _chunked(vectors, document, starts, ends, windows, encoder.embedding_dim)


def _chunked(vectors, document, starts, ends, windows, dim):
    windows = np.asarray(windows, np.int64).reshape(-1, 2)
    return ChunkedEmbeddings(
        np.asarray(vectors, np.float32).reshape(len(document), dim),
        np.asarray(document, np.int64),
        np.asarray(starts, np.int64),
        np.asarray(ends, np.int64),
        windows[:, 0],
        windows[:, 1],
    )


def _late_chunks(encoder, texts, pieces, chunking, batch_size, progress):
    positions = int(getattr(encoder.backbone, "max_sequence_length", encoder.tokenizer.max_length))
    context = chunking.context or positions - 2
    if context > positions - 2:
        raise ValueError(f"late chunking context {context} exceeds this backbone's {positions - 2} content positions")
    states_fn, head_fn = encoder.token_states_fn(), encoder.head_fn()
    vectors, document, starts, ends, piece_windows = [], [], [], [], []
    empty = [i for i, (_, ids, _) in enumerate(pieces) if not len(ids)]
    empty_vectors = (
        dict(zip(empty, encoder.predict_rows([pieces[i][0] for i in empty], batch_size, False))) if empty else {}
    )
    show = progress if progress is not None else len(texts) >= PROGRESS_THRESHOLD
    bar = tqdm(total=len(texts), unit="doc", desc="late chunking") if show else None
    group = []

    def flush():
        if not group:
            return
        for index, chunk_vectors, spans_of_chunks, chunks in _late_group(
            encoder, group, states_fn, head_fn, batch_size
        ):
            for vector, (first, last), window in zip(chunk_vectors, spans_of_chunks, chunks):
                vectors.append(vector)
                document.append(index)
                starts.append(first)
                ends.append(last)
                piece_windows.append(window)
        if bar is not None:
            bar.update(len(group))
        group.clear()

    pieces_in_group = 0
    for index, (text, (prompt_ids, ids, spans)) in enumerate(zip(texts, pieces)):
        if index in empty_vectors:
            flush()
            pieces_in_group = 0
            vectors.append(empty_vectors[index])
            document.append(index)
            starts.append(0)
            ends.append(0)
            piece_windows.append((0, 0))
            if bar is not None:
                bar.update(1)
            continue
        content_context = context - len(prompt_ids)
        overlap = chunking.context_overlap if chunking.context_overlap is not None else content_context // 8
        if content_context <= overlap:
            raise ValueError(f"late chunking: the prompt leaves {content_context} pieces of context, overlap {overlap}")
        size = chunking.window_size(content_context)
        chunks = _chunk_spans(text, ids, spans, chunking, size)
        windows = context_windows(len(ids), content_context, overlap)
        group.append((index, prompt_ids, ids, spans, chunks, windows))
        pieces_in_group += len(ids)
        if pieces_in_group >= LATE_CHUNKING_PIECES_A_STEP:
            flush()
            pieces_in_group = 0
    flush()
    if bar is not None:
        bar.close()
    return _chunked(vectors, document, starts, ends, piece_windows, encoder.embedding_dim)


def _late_group(encoder, group, states_fn, head_fn, batch_size):
    """(document index, chunk vectors, chunk character spans, chunk word-piece spans) for each document of `group`."""
    rows, owners = [], []
    for slot, (_, prompt_ids, ids, _, _, windows) in enumerate(group):
        for start, end, keep_from in windows:
            rows.append(np.concatenate([prompt_ids, ids[start:end]]).astype(np.int32))
            owners.append((slot, len(prompt_ids), start, end, keep_from))
    states = _token_states(encoder, rows, states_fn, batch_size)
    width = states[0].shape[-1]
    document_states = [np.zeros((len(item[2]), width), np.float32) for item in group]
    for row_states, (slot, prompt_length, start, end, keep_from) in zip(states, owners):
        # row_states: [CLS] prompt window [SEP]; the window's pieces are rows 1 + prompt_length …
        window_states = row_states[1 + prompt_length : 1 + prompt_length + (end - start)]
        document_states[slot][keep_from:end] = window_states[keep_from - start :]
    pooled, spans_of_documents = [], []
    for (_, _, _, spans, chunks, _), token_states in zip(group, document_states):
        pooled.append(np.stack([token_states[start:end].mean(axis=0) for start, end in chunks]))
        spans_of_documents.append([_character_span(spans, start, end) for start, end in chunks])
    outputs = np.asarray(head_fn(tf.constant(np.concatenate(pooled))), np.float32)
    offset = 0
    for (index, _, _, _, chunks, _), chunk_pooled, spans_of_chunks in zip(group, pooled, spans_of_documents):
        yield index, outputs[offset : offset + len(chunk_pooled)], spans_of_chunks, chunks
        offset += len(chunk_pooled)


def _token_states(encoder, rows, states_fn, batch_size):
    """The pooled layers' states of each row `[CLS] row [SEP]`, float32 [len(row) + 2, H] each,
    rows batched by length (padded to the bucket ladder up to the backbone's positions)."""
    ladder = length_buckets(max(len(row) for row in rows) + 2)
    order = sorted(range(len(rows)), key=lambda i: -len(rows[i]))
    states = [None] * len(rows)
    for first in range(0, len(order), batch_size):
        batch = order[first : first + batch_size]
        longest = len(rows[batch[0]]) + 2
        length = next(rung for rung in ladder if rung >= longest)
        token_ids, padding_mask = encoder.pack_batch([rows[i] for i in batch], length)
        batch_states = np.asarray(states_fn(tf.constant(token_ids), tf.constant(padding_mask)))
        for position, i in enumerate(batch):
            states[i] = batch_states[position, : len(rows[i]) + 2]
    return states

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

# late chunking plans at most this many word pieces of documents at once, and runs the backbone on
# at most this many padded tokens a call (its activations, attention scores included, stay bounded)
LATE_CHUNKING_PIECES_A_STEP = 32_768
LATE_CHUNKING_TOKENS_A_CALL = 4096


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


def window_rows(texts, pieces, chunking, limit):
    """Naive chunking's inputs: `(rows, document, starts, ends, windows)`, a window each — its content ids
    (the prompt's ids, then the window's pieces; int32), its text's index, its character span and its word-piece
    span — for `texts` and their `prompted_pieces`, each window at most `limit` content ids with the prompt."""
    rows, document, starts, ends, windows = [], [], [], [], []
    for index, (text, (prompt_ids, ids, spans)) in enumerate(zip(texts, pieces)):
        size = chunking.window_size(limit - len(prompt_ids), prompt_pieces=len(prompt_ids))
        for start, end in _chunk_spans(text, ids, spans, chunking, size):
            rows.append(np.concatenate([prompt_ids, ids[start:end]]).astype(np.int32))
            document.append(index)
            first, last = _character_span(spans, start, end)
            starts.append(first)
            ends.append(last)
            windows.append((start, end))
    return rows, document, starts, ends, windows


def encode_chunked(encoder, texts, prompt, chunking, batch_size, progress, runtime):
    """`ChunkedEmbeddings` of `texts` (a list of str) by `encoder` (see the module docstring):
    raw model outputs, before `encode`'s truncation and normalisation."""
    pieces = prompted_pieces(encoder.tokenizer, texts, prompt)
    if chunking.late:
        return _late_chunks(encoder, texts, pieces, chunking, batch_size, progress)
    rows, document, starts, ends, windows = window_rows(texts, pieces, chunking, encoder.tokenizer.content_limit)
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
        pooled = _late_group_means(encoder, group, states_fn, batch_size)
        outputs = np.asarray(head_fn(tf.constant(np.concatenate(pooled))), np.float32)
        offset = 0
        for (index, _, _, spans, chunks, _), means in zip(group, pooled):
            for vector, (start, end) in zip(outputs[offset : offset + len(means)], chunks):
                vectors.append(vector)
                document.append(index)
                first, last = _character_span(spans, start, end)
                starts.append(first)
                ends.append(last)
                piece_windows.append((start, end))
            offset += len(means)
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
        overlap = chunking.context_overlap if chunking.context_overlap is not None else max(content_context // 8, 0)
        if content_context <= overlap:
            raise ValueError(
                f"late chunking: the prompt takes {len(prompt_ids)} of the {context} word pieces of a context window, "
                f"leaving {max(content_context, 0)} for the text, not more than the context overlap {overlap}: "
                "shorten the prompt or the context_overlap"
            )
        size = chunking.window_size(content_context, prompt_pieces=len(prompt_ids))
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


def _late_group_means(encoder, group, states_fn, batch_size):
    """For each document of `group`, float32 [chunks, p]: the mean of each chunk's pieces' states.

    The context windows are run a bounded number of tokens at a time (`LATE_CHUNKING_TOKENS_A_CALL`),
    and each window's kept pieces are added into the sums of the chunks they fall in as soon as it has
    run: memory is that of one call and of the chunk sums, whatever the documents' length (a 1 MB
    document's token states were 1.5 GB when kept whole)."""
    sums = [None] * len(group)
    chunk_bounds = [(np.array([c[0] for c in item[4]]), np.array([c[1] for c in item[4]])) for item in group]
    jobs = [(slot, window) for slot, item in enumerate(group) for window in item[5]]
    for job_states, (slot, (start, end, keep_from)) in _window_states(encoder, group, jobs, states_fn, batch_size):
        prompt_length = len(group[slot][1])
        kept = job_states[1 + prompt_length + (keep_from - start) : 1 + prompt_length + (end - start)]
        if sums[slot] is None:
            sums[slot] = np.zeros((len(group[slot][4]), kept.shape[-1]), np.float64)
        cumulative = np.concatenate([np.zeros((1, kept.shape[-1])), np.cumsum(kept, axis=0, dtype=np.float64)])
        chunk_starts, chunk_ends = chunk_bounds[slot]
        touched = np.flatnonzero((chunk_ends > keep_from) & (chunk_starts < end))
        first = np.maximum(chunk_starts[touched], keep_from) - keep_from
        last = np.minimum(chunk_ends[touched], end) - keep_from
        sums[slot][touched] += cumulative[last] - cumulative[first]
    return [
        (total / np.maximum(ends - starts, 1)[:, None]).astype(np.float32)
        for total, (starts, ends) in zip(sums, chunk_bounds)
    ]


def _window_states(encoder, group, jobs, states_fn, batch_size):
    """Yields (the pooled layers' states [len(row) + 2, p] of `[CLS] prompt window [SEP]`, job) for every
    job (slot, window) of `group`, rows batched by length (padded to the bucket ladder) with at most
    `batch_size` rows and `LATE_CHUNKING_TOKENS_A_CALL` padded tokens a call."""

    def row(job):
        slot, (start, end, _) = job
        return np.concatenate([group[slot][1], group[slot][2][start:end]]).astype(np.int32)

    lengths = [len(group[slot][1]) + window[1] - window[0] + 2 for slot, window in jobs]
    ladder = length_buckets(max(lengths))
    order = sorted(range(len(jobs)), key=lambda i: -lengths[i])
    first = 0
    while first < len(order):
        length = next(rung for rung in ladder if rung >= lengths[order[first]])
        rows_a_call = max(1, min(batch_size, LATE_CHUNKING_TOKENS_A_CALL // length))
        batch = order[first : first + rows_a_call]
        first += len(batch)
        token_ids, padding_mask = encoder.pack_batch([row(jobs[i]) for i in batch], length)
        batch_states = np.asarray(states_fn(tf.constant(token_ids), tf.constant(padding_mask)))
        for position, i in enumerate(batch):
            yield batch_states[position, : lengths[i]], jobs[i]

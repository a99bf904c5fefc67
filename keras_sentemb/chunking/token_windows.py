"""Windows over a document's word pieces: chunks (`token_windows`) and late chunking's context
windows (`context_windows`); linear in the document's length."""

import numpy as np

SENTENCE_END_CHARACTERS = frozenset(".!?。！？…")


def sentence_end_tokens(text, offsets):
    """bool [L]: word piece i ends a sentence — it is terminal punctuation (. ! ? 。 ！ ？ …) followed by
    whitespace or the end of the text, or a line break follows it.

    >>> text = "Dr. e.g. Yes. No!\\nNext"
    >>> offsets = [(0, 2), (2, 3), (4, 5), (5, 6), (6, 7), (7, 8), (9, 12), (12, 13), (14, 16), (16, 17), (18, 22)]
    >>> [text[s:e] for (s, e), end in zip(offsets, sentence_end_tokens(text, offsets)) if end]
    ['.', '.', '.', '!']
    """
    offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    ends = np.zeros(len(offsets), dtype=bool)
    for i, (start, end) in enumerate(offsets):
        following = text[end : offsets[i + 1][0]] if i + 1 < len(offsets) else text[end:] or " "
        piece = text[start:end]
        if "\n" in following:
            ends[i] = True
        elif piece and all(c in SENTENCE_END_CHARACTERS for c in piece) and following[:1].isspace():
            ends[i] = True
    return ends


def token_windows(length, size, overlap=0, sentence_ends=None):
    """[(start, end)] word-piece spans covering `length` pieces: windows of `size`, each starting
    `size − overlap` after the previous start; with `sentence_ends` (bool [length]) a window that
    does not reach the end is cut after the last sentence end in its second half
    (at least `overlap + 1` pieces in), and the next starts `overlap` before that cut.
    An empty document has one empty window.

    >>> token_windows(10, 4, overlap=1)
    [(0, 4), (3, 7), (6, 10)]
    >>> ends = [True, False, False, False, False, False, False, False, False, False]
    >>> token_windows(10, 4, sentence_ends=ends)  # a sentence end in a window's first half: not used
    [(0, 4), (4, 8), (8, 10)]
    >>> token_windows(10, 4, sentence_ends=[False, False, True] + [False] * 7)
    [(0, 3), (3, 7), (7, 10)]
    """
    if length == 0:
        return [(0, 0)]
    last_end = None
    if sentence_ends is not None:
        # last_end[i]: the largest j ≤ i that ends a sentence, or −1 (one pass: linear time)
        positions = np.where(np.asarray(sentence_ends, dtype=bool), np.arange(length), -1)
        last_end = np.maximum.accumulate(positions)
    spans, start = [], 0
    while True:
        end = min(start + size, length)
        if end < length and last_end is not None:
            cut = int(last_end[end - 1]) + 1
            if cut >= start + max(size // 2, overlap + 1):
                end = cut
        spans.append((start, end))
        if end >= length:
            return spans
        start = max(end - overlap, start + 1)


def context_windows(length, context, overlap):
    """Late chunking's context windows over `length` pieces: [(start, end, keep_from)], window
    k covering [start, end) with `end − start ≤ context`, consecutive windows sharing `overlap`
    pieces; each piece's state is taken from the window with `keep_from ≤ piece < end`
    (the first window keeps all its pieces, the others drop the `overlap` shared with the
    previous one), so the kept ranges partition [0, length).

    >>> context_windows(10, 4, 1)
    [(0, 4, 0), (3, 7, 4), (6, 10, 7)]
    >>> context_windows(3, 4, 1)
    [(0, 3, 0)]
    """
    if length <= context:
        return [(0, length, 0)]
    windows, start = [(0, context, 0)], context - overlap
    while windows[-1][1] < length:
        end = min(start + context, length)
        windows.append((start, end, start + overlap))
        start = end - overlap
    return windows

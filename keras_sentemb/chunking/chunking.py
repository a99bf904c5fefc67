"""Chunking: how `encode(texts, chunking=…)` cuts a long document into windows of word pieces."""

import dataclasses

from keras_sentemb.chunking.chunked_embeddings import CHUNK_POOLINGS


@dataclasses.dataclass(frozen=True)
class Chunking:
    """Windows of at most `size` word pieces, each starting `size − overlap` pieces after the
    previous one (`token_windows`), optionally ended at the last sentence end inside them.

    Naive chunking (`late=False`): each window is encoded on its own, as the text
    `[CLS] prompt window [SEP]`. Late chunking (`late=True`; Günther et al. 2024, "Late Chunking:
    Contextual Chunk Embeddings Using Long-Context Embedding Models"): the document is encoded
    once in context windows of up to `context` word pieces (the backbone's position limit by
    default: 510 content pieces for BERT and MPNet's 512 positions), consecutive context windows
    sharing `context_overlap` pieces whose states are taken from the earlier window, and a chunk's
    vector is the mean of its word pieces' final states, so every chunk sees its neighbours.

    A document's vector from its chunks: `pooling` "mean" (of the unit chunk vectors, then
    normalised), "max" (per feature), "first"; `pooling=None` keeps every chunk
    (`encode` returns a `ChunkedEmbeddings`: vectors, document index, character spans).

    Args:
        size: word pieces a chunk; None is the model's limit (tokenizer `max_length` − 2 − the
            prompt's pieces) for naive chunking, 256 for late chunking.
        overlap: word pieces shared by consecutive chunks (0 ≤ overlap < size).
        sentences: end a chunk after the last sentence end (". ", "! ", "? ", a line break) in
            its window's second half, when there is one; the next chunk starts there
            (minus `overlap`).
        pooling: "mean", "max", "first", or None (keep the chunks).
        late: late chunking (see above).
        context: late chunking's context window in word pieces (None: the backbone's limit).
        context_overlap: word pieces shared by consecutive context windows (None: context / 8).

    Example:
    >>> Chunking(size=128, overlap=16, sentences=True)
    Chunking(size=128, overlap=16, sentences=True, pooling='mean', late=False, context=None, context_overlap=None)
    >>> Chunking(size=128, overlap=128)
    Traceback (most recent call last):
    ValueError: Chunking overlap must be in [0, size=128), got 128
    """

    size: int | None = None
    overlap: int = 0
    sentences: bool = False
    pooling: str | None = "mean"
    late: bool = False
    context: int | None = None
    context_overlap: int | None = None

    def __post_init__(self):
        for name in ("sentences", "late"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"Chunking {name} must be True or False, got {getattr(self, name)!r}")
        for name in ("size", "context", "context_overlap"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                if not (name == "context_overlap" and value == 0):
                    raise ValueError(f"Chunking {name} must be a positive int or None, got {value!r}")
        if isinstance(self.overlap, bool) or not isinstance(self.overlap, int):
            raise ValueError(f"Chunking overlap must be an int, got {self.overlap!r}")
        if self.size is not None and not 0 <= self.overlap < self.size:
            raise ValueError(f"Chunking overlap must be in [0, size={self.size}), got {self.overlap}")
        if self.overlap < 0:
            raise ValueError(f"Chunking overlap must be ≥ 0, got {self.overlap}")
        if self.pooling is not None and self.pooling not in CHUNK_POOLINGS:
            raise ValueError(f"Chunking pooling must be one of {CHUNK_POOLINGS} or None, got {self.pooling!r}")
        if self.context is not None and self.context_overlap is not None and self.context_overlap >= self.context:
            raise ValueError(
                f"Chunking context_overlap must be below context={self.context}, got {self.context_overlap}"
            )

    @classmethod
    def of(cls, value):
        """`value` as a `Chunking`: a `Chunking` itself, or its keyword dict; TypeError for anything else.

        >>> Chunking.of({"size": 64}).size
        64
        """
        if isinstance(value, dict):
            value = cls(**value)
        if not isinstance(value, cls):
            raise TypeError(f"chunking must be a Chunking (or its keyword dict), got {type(value).__name__}")
        return value

    def window_size(self, limit, prompt_pieces=0):
        """The chunk size in word pieces where the model takes at most `limit` content pieces after a
        prompt of `prompt_pieces` (naive chunking: `size` or the limit; `ValueError` when `size`
        exceeds it, or when the prompt leaves no room)."""
        if limit < 1 or (self.size is None and limit <= self.overlap):
            if prompt_pieces == 0:  # nothing to shorten but the overlap
                raise ValueError(
                    f"Chunking overlap {self.overlap} must be below the chunk size, which with size=None is the "
                    f"{limit} word pieces this model takes a text: lower the overlap or give a size"
                )
            raise ValueError(
                f"the prompt takes {prompt_pieces} word pieces, leaving {max(limit, 0)} of a window for the text"
                + (f" (overlap {self.overlap})" if self.overlap else "")
                + ": shorten the prompt"
                + (" or the overlap" if self.overlap else "")
            )
        size = self.size if self.size is not None else (min(256, limit) if self.late else limit)
        if not self.late and size > limit:
            raise ValueError(f"Chunking size {size} exceeds the {limit} word pieces this model takes a text")
        if size <= self.overlap:
            raise ValueError(f"Chunking overlap {self.overlap} must be below the chunk size {size}")
        return size

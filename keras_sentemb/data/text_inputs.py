"""Validation of user texts before they reach the tokenizer."""

import numpy as np


def validate_texts(texts, check_utf8=True):
    """Returns `(list_of_utf8_bytes, was_single_string)` for `encode`.

    Accepts a `str`/`bytes` (one text) or a sequence of them (list, tuple, 1-D NumPy
    array). Each element must be `str` (including `np.str_`) or UTF-8 `bytes` (any bytes with
    `check_utf8=False`, for a runtime that reads invalid UTF-8 its own way: LiteRT files).

    Raises:
        TypeError: the container or an element has another type; the message names the
            element's index and type.
        ValueError: a `bytes` element is not valid UTF-8, or a `str` element cannot be
            encoded as UTF-8 (a lone surrogate); the message names the index.

    Example:
    >>> validate_texts(["a", b"b"])
    ([b'a', b'b'], False)
    """
    single = isinstance(texts, (str, bytes))
    if single:
        texts = [texts]
    elif isinstance(texts, np.ndarray):
        if texts.ndim != 1:
            raise ValueError(f"texts must be 1-D, got an array of shape {texts.shape}")
        texts = texts.tolist()
    elif isinstance(texts, dict) or not hasattr(texts, "__iter__"):
        raise TypeError(f"texts must be a string or a sequence of strings, got {type(texts).__name__}")
    encoded = []
    for index, text in enumerate(texts):
        if isinstance(text, str):
            try:
                encoded.append(text.encode("utf-8"))
            except UnicodeEncodeError as error:
                raise ValueError(
                    f"texts[{index}] cannot be encoded as UTF-8: {error.reason} at character {error.start}"
                ) from error
        elif isinstance(text, bytes) and not check_utf8:
            encoded.append(text)
        elif isinstance(text, bytes):
            try:
                text.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(
                    f"texts[{index}] is bytes that are not valid UTF-8: {error.reason} at byte {error.start}"
                ) from error
            encoded.append(text)
        else:
            raise TypeError(f"texts[{index}] must be str or bytes, got {type(text).__name__}: {text!r:.60}")
    return encoded, single

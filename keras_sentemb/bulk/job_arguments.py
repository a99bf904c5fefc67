"""The arguments every bulk job (Beam, Spark, Ray) checks before it starts any work."""

import os


def input_patterns(inputs):
    """File patterns as a list of str: one pattern (str or path) or several.

    Example:
        >>> input_patterns("corpus/*.txt"), input_patterns(["a.txt", "b.txt"])
        (['corpus/*.txt'], ['a.txt', 'b.txt'])
        >>> input_patterns([])
        Traceback (most recent call last):
        ...
        ValueError: give at least one input file pattern
    """
    patterns = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
    if not patterns:
        raise ValueError("give at least one input file pattern")
    return [os.fspath(pattern) for pattern in patterns]


def check_batch_size(batch_size):
    """`batch_size` when it is a positive int (not a bool); else a ValueError naming it.

    Example:
        >>> check_batch_size(256)
        256
        >>> check_batch_size(0)
        Traceback (most recent call last):
        ...
        ValueError: batch_size must be a positive int, got 0
    """
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    return batch_size

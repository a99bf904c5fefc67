"""Type aliases of the public API."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: What `encode` and friends take: one text (then one vector comes back) or a sequence of texts,
#: as `str` or UTF-8 `bytes` (a 1-D NumPy array of them works too).
Texts = str | bytes | Sequence[str | bytes] | np.ndarray

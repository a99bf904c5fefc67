"""The MiniLM word-vector table the zoo ships, so that its word-level models load in seconds.

inferlite-glove, bilstm-sra-minilm and bilstm-sra-minilm-hash256 embed words through the "minilm"
table of `build_word_vectors` (each of 100,000 GloVe words embedded alone by all-MiniLM-L6-v2,
PCA to 128 dims): about 70 s of MiniLM on 2 cores. The zoo folder carries that table once, in
float16, as an entry of `keras_sentemb.utils.array_cache` (`word-vectors/<name>-<key>.npy` + `.json`:
the same key, so it stands for exactly that computation, and the sha256 of its bytes), and
`zoo.load` searches it after the user's cache. Float16 moves the three models' outputs by at most
3.5e-5 (their probes allow 2e-4) and no hash bit; it halves the table to 25.6 MB.

    python -m zoo.recipes word-vectors     # from the repository root: writes zoo/word-vectors/
"""

import hashlib
import io
import json
import os

import numpy as np

from keras_sentemb.models.word_vector_tables import minilm_table_entry
from keras_sentemb.utils.atomic_files import atomic_open

SHIPPED_DTYPE = "float16"


def write_shipped_word_vectors(zoo_dir, cache_dir, top_n=100_000, dims=128):
    """Computes (or reloads from `cache_dir`) the float32 table, writes its float16 entry into
    `zoo_dir/word-vectors/`, and returns the path of the `.npy`."""
    name, key, table = minilm_table_entry(top_n, dims, cache_dir)
    buffer = io.BytesIO()
    np.save(buffer, table.astype(SHIPPED_DTYPE), allow_pickle=False)
    data = buffer.getvalue()
    stem = os.path.join(zoo_dir, "word-vectors", f"{name}-{key[:16]}")
    for old in os.listdir(os.path.dirname(stem)) if os.path.isdir(os.path.dirname(stem)) else []:
        if old.startswith(name) and not old.startswith(os.path.basename(stem)):
            os.remove(os.path.join(os.path.dirname(stem), old))  # a table of other weights or words
    with atomic_open(stem + ".npy", "wb") as f:
        f.write(data)
    meta = {"key": key, "sha256": hashlib.sha256(data).hexdigest(), "shape": list(table.shape), "dtype": SHIPPED_DTYPE}
    with atomic_open(stem + ".json", "w") as f:
        json.dump(meta, f, indent=1)
    return stem + ".npy"

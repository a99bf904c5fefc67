"""The MiniLM word-vector table the zoo ships, so that its word-level models load in seconds.

inferlite-glove, bilstm-sra-minilm and bilstm-sra-minilm-hash256 embed words through the "minilm"
table of `build_word_vectors` (each of 100,000 GloVe words embedded alone by all-MiniLM-L6-v2,
PCA to 128 dims): about 70 s of MiniLM on 2 cores. The zoo folder carries that table once, quantised
to 6 bits with a float32 scale per row (`keras_sentemb.utils.row_quantization`), as a row-quantised
entry of `keras_sentemb.utils.array_cache` (`word-vectors/<name>-int6-rows-<key>.npz` + `.json`): its
key is the float table's key and the encoding, so it stands for exactly that computation quantised,
which is what the members' sources name (`"minilm_encoding": "int6-rows"`), and `zoo.load` searches
it after the user's cache. 9.6 MB, within the 10 MB a zoo artifact may weigh (int8 rows: 13.2 MB,
float16: 25.6 MB, float32: 51.2 MB); measured again with it on 2026-11-29, the three models' STS-B test
Spearman is unchanged at two decimals (73.74, 76.40) and the hashed model's Hamming Spearman moves
73.92 → 73.85; their probes were recorded again (`zoo.recipes.word_member_rebase`). Int4 rows would
take 6.8 MB at −0.11 / −0.05 STS-B (measured 2026-11-25), beyond the rebase tolerance of 0.1.

    python -m zoo.recipes word-vectors --data DATA  # from the repository root: writes zoo/word-vectors/
"""

import os

from keras_sentemb.models.word_vector_tables import encoded_table_name_and_key, minilm_table_entry
from keras_sentemb.utils.array_cache import save_cached_rows

SHIPPED_ENCODING = "int6-rows"
WORD_VECTORS_DIR = "word-vectors"


def write_shipped_word_vectors(zoo_dir, cache_dir, top_n=100_000, dims=128, encoding=SHIPPED_ENCODING):
    """Computes (or reloads from `cache_dir`, then from the table the zoo ships now) the float
    table, writes its `encoding` entry into `zoo_dir/word-vectors/`, removes the entries of other
    encodings, weights or words, and returns the path of the new entry."""
    shipped = os.path.join(zoo_dir, WORD_VECTORS_DIR)
    name, key, table = minilm_table_entry(top_n, dims, [cache_dir, shipped])
    encoded_name, encoded_key = encoded_table_name_and_key(name, key, encoding)
    os.makedirs(shipped, exist_ok=True)
    path = save_cached_rows(shipped, encoded_name, encoded_key, table, encoding)
    stem = os.path.basename(path).rsplit(".", 1)[0]
    for old in os.listdir(shipped):
        if old.startswith(name) and not old.startswith(stem):
            os.remove(os.path.join(shipped, old))
    return path

"""The MiniLM word-vector table the zoo ships, so that its word-level models load in seconds.

inferlite-glove, bilstm-sra-minilm and bilstm-sra-minilm-hash256 embed words through the "minilm"
table of `build_word_vectors` (each of 100,000 GloVe words embedded alone by all-MiniLM-L6-v2,
PCA to 128 dims): about 70 s of MiniLM on 2 cores. The zoo folder carries that table once, quantised
to int8 with a float32 scale per row (`keras_sentemb.utils.row_quantization`), as a row-quantised
entry of `keras_sentemb.utils.array_cache` (`word-vectors/<name>-int8-rows-<key>.npz` + `.json`): its
key is the float table's key and the encoding, so it stands for exactly that computation quantised,
which is what the members' sources name (`"minilm_encoding": "int8-rows"`), and `zoo.load` searches
it after the user's cache. 13.2 MB instead of float16's 25.6 MB (float32: 51.2 MB); the three
models' STS-B test figures are unchanged at two decimals (73.74, 76.40, Hamming 73.94), and their
probes were recorded again with it (`rebase_word_members`). Int4 rows would take 6.8 MB at
−0.11 / −0.05 STS-B (measured 2026-11-25).

    python -m zoo.recipes word-vectors --data DATA  # from the repository root: writes zoo/word-vectors/
"""

import datetime
import json
import os

from keras_sentemb.models.word_vector_tables import encoded_table_name_and_key, minilm_table_entry
from keras_sentemb.utils.array_cache import save_cached_rows
from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.zoo.model_artifact import load_artifact
from keras_sentemb.zoo.zoo_index import read_zoo_index

SHIPPED_ENCODING = "int8-rows"
WORD_VECTORS_DIR = "word-vectors"
QUALITY_METRICS = ("stsb_test_spearman", "stsb_test_pearson", "stsb_test_hamming_spearman")


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


def rebase_word_members(zoo_dir, data_dir, encoding=SHIPPED_ENCODING, tolerance=0.1):
    """Points every committed word-level member at the shipped `encoding` of its word table: its
    source gains `"minilm_encoding"`, its probe is recorded again, and its STS-B figures are measured
    again with the table it now loads. A member whose quality figures move by more than `tolerance`
    is refused (nothing of it is written): it needs a rebuild. Returns {name: {metric: (recorded,
    measured)}} of the members rebased."""
    from zoo.recipes.zoo_build import index_entry, measure, write_config_and_card, write_probe, write_zoo_index

    rebased = {}
    for name in sorted(read_zoo_index(zoo_dir)["models"]):
        folder = os.path.join(zoo_dir, name)
        artifact_path = os.path.join(folder, "artifact.json")
        with open(artifact_path, encoding="utf-8") as f:
            description = json.load(f)
        words = [s for s in description["sources"] if s["kind"] == "word-vectors"]
        if not words or all(s.get("minilm_encoding") == encoding for s in words):
            continue
        for source in words:
            source["minilm_encoding"] = encoding
        sizes_before = sum(os.path.getsize(os.path.join(folder, n)) for n in ("artifact.json", "probe.json"))
        new_description = (json.dumps(description, indent=1) + "\n").encode("utf-8")
        with open(artifact_path, "rb") as f:
            old_description = f.read()
        with atomic_open(artifact_path, "wb") as f:
            f.write(new_description)
        try:
            model = load_artifact(folder, cache_dir=[os.path.join(zoo_dir, WORD_VECTORS_DIR)])
            measured, _ = measure(model, data_dir)
        except BaseException:
            with atomic_open(artifact_path, "wb") as f:
                f.write(old_description)
            raise
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        comparison = {k: (config["metrics"].get(k), measured[k]) for k in QUALITY_METRICS if k in measured}
        moved = {k: v for k, v in comparison.items() if v[0] is not None and abs(v[0] - v[1]) > tolerance}
        if moved:
            with atomic_open(artifact_path, "wb") as f:
                f.write(old_description)
            raise ValueError(f"{name}: the {encoding} word table moves {moved} (recorded, measured): rebuild it")
        write_probe(folder, model)
        sizes_after = sum(os.path.getsize(os.path.join(folder, n)) for n in ("artifact.json", "probe.json"))
        config["size_bytes"] += sizes_after - sizes_before
        config["sources"] = description["sources"]
        config["word_table"] = {
            "encoding": encoding,
            "date": datetime.date.today().isoformat(),
            "metrics": {k: v[1] for k, v in comparison.items()},
        }
        write_config_and_card(folder, config)
        index = read_zoo_index(zoo_dir)
        index["models"][name] = index_entry(config)
        write_zoo_index(zoo_dir, index)
        rebased[name] = comparison
    return rebased

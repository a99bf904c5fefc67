"""Points the zoo's word-level members at the word table it ships (`shipped_word_vectors`): each member's
source names the table's encoding, its probe is recorded again and its STS-B figures measured again.

    python -m zoo.recipes word-vectors --data DATA  # writes the table, then rebases the members
"""

import datetime
import json
import os

from keras_sentemb.utils.atomic_files import atomic_open
from keras_sentemb.zoo.model_artifact import load_artifact
from keras_sentemb.zoo.zoo_index import read_zoo_index
from zoo.recipes.shipped_word_vectors import SHIPPED_ENCODING, WORD_VECTORS_DIR
from zoo.recipes.zoo_build import index_entry, measure, write_config_and_card, write_probe, write_zoo_index

QUALITY_METRICS = ("stsb_test_spearman", "stsb_test_pearson", "stsb_test_hamming_spearman")


def rebase_word_members(zoo_dir, data_dir, encoding=SHIPPED_ENCODING, tolerance=0.1):
    """Points every committed word-level member at the shipped `encoding` of its word table: its
    source gains `"minilm_encoding"`, its probe is recorded again, and its STS-B figures are measured
    again with the table it now loads. A member whose quality figures move by more than `tolerance`
    is refused (nothing of it is written): it needs a rebuild. Returns {name: {metric: (recorded,
    measured)}} of the members rebased."""
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

"""Train SBERT with in-batch negatives (MNRL) under tf.distribute: several devices or workers.

Positive pairs: the entailment pairs of the SNLI sample (premise → hypothesis). The loss
gathers every replica's positives, so each anchor competes against the whole global batch,
exactly as on one device with that batch.

    python examples/train_distributed.py --replicas 2 --max-pairs 2048 --data DATA   # 2 CPU replicas, one machine
    # several machines (or processes): the same command on each, with its own TF_CONFIG, e.g.
    TF_CONFIG='{"cluster": {"worker": ["host1:12345", "host2:12345"]}, "task": {"type": "worker", "index": 0}}' \\
        python examples/train_distributed.py

Strategy: MultiWorkerMirroredStrategy when TF_CONFIG is set, else MirroredStrategy over the
GPUs, or over `--replicas` logical CPU devices when there is no GPU. Prints STS-B test
Spearman before and after (dev from TFDS, whose GLUE test labels are secret), and saves the
encoder (the chief only) to --output. `--data`: a folder in the layout of docs/data.md, `tfds` or
`tfds:DIR` (default `$KERAS_SENTEMB_DATA`).
"""

import argparse
import json
import os
import time

import tensorflow as tf


def make_strategy(cpu_replicas):
    """The strategy for this process; must run before any other TensorFlow op."""
    if os.environ.get("TF_CONFIG"):
        return tf.distribute.MultiWorkerMirroredStrategy()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        return tf.distribute.MirroredStrategy()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * cpu_replicas)
    return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(cpu_replicas)])


def is_chief():
    config = json.loads(os.environ.get("TF_CONFIG", "{}"))
    task = config.get("task", {})
    return task.get("type", "chief") == "chief" or (
        task.get("type") == "worker" and task.get("index", 0) == 0 and "chief" not in config.get("cluster", {})
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("KERAS_SENTEMB_DATA"), help="folder, tfds or tfds:DIR")
    parser.add_argument("--replicas", type=int, default=2, help="logical CPU replicas when there is no GPU")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64, help="global batch (all replicas together)")
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--max-pairs", type=int, default=None, help="use the first N entailment pairs")
    parser.add_argument("--output", default=os.path.join("out", "train_distributed"))
    args = parser.parse_args()
    strategy = make_strategy(args.replicas)

    import keras

    from keras_sentemb import SentenceEncoder
    from keras_sentemb.data.examples import NLI_LABELS, LabeledPairs
    from keras_sentemb.data.named_datasets import evaluation_split, read_split
    from keras_sentemb.data.pipelines import examples_dataset
    from keras_sentemb.evaluation import sts_spearman
    from keras_sentemb.models import SBERT

    keras.utils.set_random_seed(0)
    snli = read_split(args.data, "snli", "train")
    entailment = [i for i, label in enumerate(snli.labels) if label == NLI_LABELS.index("entailment")]
    entailment = entailment[: args.max_pairs] if args.max_pairs else entailment
    pairs = LabeledPairs(
        [snli.sentences1[i] for i in entailment], [snli.sentences2[i] for i in entailment], [0] * len(entailment)
    )
    sts_split = evaluation_split(args.data, "stsb")
    sts_test = read_split(args.data, "stsb", sts_split)

    with strategy.scope():
        encoder = SentenceEncoder.from_pretrained("minilm-l6")
        sbert = SBERT(encoder, objective="mnrl")
        sbert.compile(optimizer=keras.optimizers.AdamW(args.learning_rate))
    before = sts_spearman(encoder, sts_test, progress=False)
    data = examples_dataset(pairs, encoder.tokenizer, batch_size=args.batch_size)
    print(
        f"{type(strategy).__name__}: {strategy.num_replicas_in_sync} replicas, global batch "
        f"{args.batch_size} ({args.batch_size // strategy.num_replicas_in_sync} a replica), "
        f"{len(pairs)} entailment pairs, {len(data)} steps an epoch"
    )
    start = time.perf_counter()
    history = sbert.fit(data, epochs=args.epochs, verbose=2)
    seconds = time.perf_counter() - start
    after = sts_spearman(encoder, sts_test, progress=False)
    print(
        f"MNRL loss {history.history['loss'][0]:.4f} → {history.history['loss'][-1]:.4f} "
        f"in {seconds:.0f} s; STS-B {sts_split} Spearman {before:.2f} → {after:.2f}"
    )
    if is_chief():
        os.makedirs(args.output, exist_ok=True)
        encoder.save(os.path.join(args.output, "encoder.keras"))
        print(f"saved {args.output}/encoder.keras")


if __name__ == "__main__":
    main()

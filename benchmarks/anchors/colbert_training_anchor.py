"""The anchor of benchmarks/late_interaction.py: sentence-transformers' `MultiVectorEncoderTrainer` with its
`MultiVectorMultipleNegativesRankingLoss` on the (query, positive, negative) rows our run trained on, from the same
dense checkpoint and the same starting projection, in the anchor interpreter (`make anchor-venv`, PyTorch CPU):

    python colbert_training_anchor.py --triples T.json --model MINILM_FOLDER --projection P.npy --output FOLDER

The model is what `MultiVectorEncoder.from_sentence_encoder` builds, in sentence-transformers' modules:
`Transformer(model, query_expansion={"strategy": "fixed", "attend": False, "length": 32}, document_length=256)`,
`Dense(hidden → dim, bias=False, Identity, token_embeddings)` whose weight is ours' starting projection (`P.npy`,
Keras' kernel [hidden, dim]: so both runs start from one function), `MultiVectorMask(punctuation)` and a token-level
`Normalize`. Loss scale 1; AdamW (weight decay 0.01), linear warm-up then decay, gradient norm clipped at 1, the batch
sampler `NO_DUPLICATES` (no text twice in a batch: our run masks known relevant in-batch documents instead). The
trained folder is saved at `--output`; prints one JSON line: steps, seconds.
"""

import argparse
import json
import os
import string
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--triples", required=True, help="JSON list of [query, positive, negative]")
    parser.add_argument("--model", required=True)
    parser.add_argument("--projection", required=True, help=".npy of ours' starting projection kernel [hidden, dim]")
    parser.add_argument("--output", required=True)
    parser.add_argument("--query-length", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--warmup", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import numpy as np
    import torch
    from datasets import Dataset
    from sentence_transformers import MultiVectorEncoder
    from sentence_transformers.base.modules import Dense, Normalize, Transformer
    from sentence_transformers.base.training_args import BatchSamplers
    from sentence_transformers.multi_vector_encoder import (
        MultiVectorEncoderTrainer,
        MultiVectorEncoderTrainingArguments,
    )
    from sentence_transformers.multi_vector_encoder.losses import MultiVectorMultipleNegativesRankingLoss
    from sentence_transformers.multi_vector_encoder.modules import MultiVectorMask

    with open(args.triples, encoding="utf-8") as f:
        rows = json.load(f)
    data = Dataset.from_dict(
        {"query": [r[0] for r in rows], "positive": [r[1] for r in rows], "negative": [r[2] for r in rows]}
    )
    transformer = Transformer(
        args.model,
        query_expansion={"strategy": "fixed", "attend": False, "length": args.query_length},
        document_length=args.max_length,
    )
    kernel = np.load(args.projection)
    dense = Dense(
        in_features=kernel.shape[0],
        out_features=kernel.shape[1],
        bias=False,
        activation_function=torch.nn.Identity(),
        module_input_name="token_embeddings",
    )
    with torch.no_grad():
        dense.linear.weight.copy_(torch.from_numpy(kernel.T.copy()))
    model = MultiVectorEncoder(
        modules=[
            transformer,
            dense,
            MultiVectorMask(skiplist_words=list(string.punctuation)),
            Normalize(module_input_name="token_embeddings"),
        ],
        device="cpu",
    )
    loss = MultiVectorMultipleNegativesRankingLoss(model, scale=1.0)
    with tempfile.TemporaryDirectory() as scratch:
        training = MultiVectorEncoderTrainingArguments(
            output_dir=scratch,
            num_train_epochs=args.epochs,
            per_device_train_batch_size=args.batch_size,
            learning_rate=args.learning_rate,
            warmup_steps=args.warmup,  # a float: a fraction of the steps (transformers 5)
            weight_decay=0.01,
            max_grad_norm=1.0,
            seed=args.seed,
            batch_sampler=BatchSamplers.NO_DUPLICATES,
            save_strategy="no",
            logging_steps=10,
            report_to="none",
            use_cpu=True,
        )
        trainer = MultiVectorEncoderTrainer(model=model, args=training, train_dataset=data, loss=loss)
        start = time.perf_counter()
        state = trainer.train()
        seconds = time.perf_counter() - start
    os.makedirs(args.output, exist_ok=True)
    model.save(args.output)
    print(json.dumps({"steps": state.global_step, "fit_seconds": round(seconds, 1), "train_loss": state.training_loss}))


if __name__ == "__main__":
    main()

"""The anchor of benchmarks/sparse_retrieval.py: sentence-transformers' `SparseEncoderTrainer` with its `SpladeLoss`
on the (query, document) pairs our run trained on, from the same dense checkpoint, in the anchor interpreter
(`make anchor-venv`, PyTorch CPU, offline):

    python sparse_training_anchor.py --pairs P.json --model MINILM_FOLDER --output FOLDER [--batch-size 16 …]

The model is sentence-transformers' SPLADE of a dense checkpoint: `Transformer(model, transformer_task="fill-mask")`
(a BERT masked-LM whose head transformers initialises: the checkpoint has none; the decoder is tied to the word
embeddings) whose starting values are set to ours (`start_as_ours`: identity transform, decoder bias `--head-bias`)
+ `SpladePooling("max")`. Loss `SpladeLoss(SparseMultipleNegativesRankingLoss, document_regularizer_weight,
query_regularizer_weight)`; AdamW (weight decay 0.01), linear warm-up then decay, gradient norm clipped at 1, the
batch sampler `NO_DUPLICATES` (no text twice in a batch: our run masks such in-batch negatives instead). The trained
folder is saved at `--output`; prints one JSON line: steps, seconds.
"""

import argparse
import json
import os
import tempfile
import time


def start_as_ours(masked_lm, head_bias):
    """The new head's starting values of ours (`SparseEncoder.from_sentence_encoder`): the transform the identity
    (transformers draws it at random), the norm (1, 0), the decoder bias `head_bias` (transformers: 0), so both
    runs start from one function; the decoder stays tied to the word embeddings."""
    import torch

    head = masked_lm.get_output_embeddings()  # the decoder (tied)
    predictions = masked_lm.cls.predictions
    with torch.no_grad():
        dense = predictions.transform.dense
        dense.weight.copy_(torch.eye(dense.weight.shape[0]))
        dense.bias.zero_()
        predictions.transform.LayerNorm.weight.fill_(1.0)
        predictions.transform.LayerNorm.bias.zero_()
        predictions.bias.fill_(head_bias)
        if head.bias is not None and head.bias.data_ptr() != predictions.bias.data_ptr():
            head.bias.fill_(head_bias)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", required=True, help="JSON list of [query, document]")
    parser.add_argument("--model", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    parser.add_argument("--warmup", type=float, default=0.1)
    parser.add_argument("--document-regularizer-weight", type=float, default=3e-5)
    parser.add_argument("--query-regularizer-weight", type=float, default=5e-5)
    parser.add_argument("--head-bias", type=float, default=-5.0, help="the new head's starting decoder bias")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from datasets import Dataset
    from sentence_transformers import SparseEncoder, SparseEncoderTrainer, SparseEncoderTrainingArguments
    from sentence_transformers.base.modules import Transformer
    from sentence_transformers.base.training_args import BatchSamplers
    from sentence_transformers.sparse_encoder.losses import SparseMultipleNegativesRankingLoss, SpladeLoss
    from sentence_transformers.sparse_encoder.modules import SpladePooling

    with open(args.pairs, encoding="utf-8") as f:
        pairs = json.load(f)
    data = Dataset.from_dict({"query": [q for q, _ in pairs], "document": [d for _, d in pairs]})
    transformer = Transformer(args.model, transformer_task="fill-mask", max_seq_length=args.max_length)
    start_as_ours(transformer.auto_model, args.head_bias)
    model = SparseEncoder(modules=[transformer, SpladePooling("max")], device="cpu")
    loss = SpladeLoss(
        model,
        SparseMultipleNegativesRankingLoss(model),
        document_regularizer_weight=args.document_regularizer_weight,
        query_regularizer_weight=args.query_regularizer_weight,
    )
    with tempfile.TemporaryDirectory() as scratch:
        training = SparseEncoderTrainingArguments(
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
        trainer = SparseEncoderTrainer(model=model, args=training, train_dataset=data, loss=loss)
        start = time.perf_counter()
        state = trainer.train()
        seconds = time.perf_counter() - start
    os.makedirs(args.output, exist_ok=True)
    model.save(args.output)
    print(json.dumps({"steps": state.global_step, "fit_seconds": round(seconds, 1), "train_loss": state.training_loss}))


if __name__ == "__main__":
    main()

"""The --chunk-* options of the commands that encode long documents (`index build`, `evaluate --beir`), and the
`Chunking` they give (`keras_sentemb.chunking.Chunking`: windows of at most --chunk-size word pieces, each
starting size − overlap pieces after the last, cut at sentence ends with --chunk-sentences).

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_chunking_arguments(parser, "chunks of at most this many word pieces")
>>> chunking_of(parser.parse_args(["--chunk-size", "128", "--chunk-overlap", "16"]))
Chunking(size=128, overlap=16, sentences=False, pooling='mean', late=False, context=None, context_overlap=None)
>>> chunking_of(parser.parse_args([])) is None
True
"""

from keras_sentemb.chunking.chunking import Chunking


def add_chunking_arguments(parser, size_help):
    """Adds --chunk-size (helped by `size_help`), --chunk-overlap, --chunk-sentences and --late-chunking."""
    parser.add_argument("--chunk-size", type=int, help=size_help)
    parser.add_argument(
        "--chunk-overlap", type=int, default=0, help="word pieces shared by consecutive chunks (default 0)"
    )
    parser.add_argument("--chunk-sentences", action="store_true", help="end chunks at sentence ends")
    parser.add_argument(
        "--late-chunking", action="store_true", help="late chunking: chunks read the whole document's context"
    )


def chunking_of(args):
    """The `Chunking` of the --chunk-* options, or None without --chunk-size / --late-chunking.

    Raises:
        ValueError: --chunk-overlap or --chunk-sentences without --chunk-size / --late-chunking (they would be
            ignored); the values `Chunking` refuses (a size under 1, an overlap outside [0, size)).
    """
    if args.chunk_size is None and not args.late_chunking:
        given = [
            name
            for name, value in (("--chunk-overlap", args.chunk_overlap), ("--chunk-sentences", args.chunk_sentences))
            if value
        ]
        if given:
            raise ValueError(f"{given[0]} shapes chunks: give --chunk-size (or --late-chunking) with it")
        return None
    try:
        return Chunking(
            size=args.chunk_size, overlap=args.chunk_overlap, sentences=args.chunk_sentences, late=args.late_chunking
        )
    except ValueError as error:
        raise ValueError(f"--chunk-size {args.chunk_size} --chunk-overlap {args.chunk_overlap}: {error}") from None

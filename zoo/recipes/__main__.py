"""`python -m zoo.recipes build NAME --data DIR` and `python -m zoo.recipes measure NAME --data DIR`.

The zoo folder is `$KERAS_SENTEMB_ZOO`, by default this checkout's `zoo/`.

word-vectors: writes the MiniLM word table the zoo ships (zoo/word-vectors/, int6 rows), so that
the word-level models load in seconds, and points those members at it (probes recorded again).

seal: records the sha256 of every file of committed artifacts built before the manifest.

build: trains zoo model NAME by its recipe, packs the artifact into zoo/NAME, measures it and
writes config.json, card.md and the index entry. measure: measures a committed model again
and prints each recorded figure beside the one measured now.
"""

import argparse
import json
import os
import sys

from keras_sentemb import zoo  # noqa: E402
from zoo.recipes.shipped_word_vectors import write_shipped_word_vectors  # noqa: E402
from zoo.recipes.word_member_rebase import rebase_word_members  # noqa: E402
from zoo.recipes.zoo_build import build_model, remeasure_model, seal_model  # noqa: E402
from zoo.recipes.zoo_folder import REPO_DIR


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m zoo.recipes", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("build", "train and pack a model"), ("measure", "measure a committed model again")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("name", help="zoo model name (zoo/index.json)")
        sub.add_argument("--data", required=True, help="the benchmark data folder (docs/data.md)")
        if name == "build":
            sub.add_argument("--seed", type=int, default=0)
            sub.add_argument(
                "--reuse-training",
                action="store_true",
                help="re-pack the last training run in out/zoo_build/NAME (packing changed)",
            )
            sub.add_argument(
                "--pack-finished",
                action="store_true",
                help="publish the finished runs in out/zoo_build/NAME (and its stage folders), made by the "
                "recipe's commands outside the build, as a new version without training",
            )
        else:
            sub.add_argument(
                "--update-speed",
                action="store_true",
                help="record the speeds measured now (quality figures stay the build's)",
            )
    words = commands.add_parser(
        "word-vectors",
        help="write the MiniLM word table the zoo ships (zoo/word-vectors/) and point the word-level members at it",
    )
    words.add_argument("--data", required=True, help="the benchmark data folder: the members are measured again")
    seal = commands.add_parser("seal", help="record every file's sha256 in a committed artifact")
    seal.add_argument("names", nargs="+", help="zoo model names")
    args = parser.parse_args(argv)
    if args.command == "word-vectors":
        path = write_shipped_word_vectors(zoo.zoo_dir(), os.path.join(zoo.zoo_home(), "cache"))
        print(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB)")
        for name, comparison in rebase_word_members(zoo.zoo_dir(), args.data).items():
            print(f"{name}: " + ", ".join(f"{k} card {r} now {m}" for k, (r, m) in comparison.items()))
        return 0
    if args.command == "seal":
        for name in args.names:
            print(f"{name}: {'sealed' if seal_model(name, zoo.zoo_dir()) else 'already sealed'}")
        return 0
    if args.command == "build":
        config = build_model(
            args.name,
            zoo.zoo_dir(),
            args.data,
            REPO_DIR,
            seed=args.seed,
            load=zoo.load,
            reuse_training=args.reuse_training,
            pack_finished=args.pack_finished,
        )
        print(
            f"built {args.name} v{config['version']} in {config['build']['seconds']} s: {json.dumps(config['metrics'])}"
        )
        return 0
    comparison = remeasure_model(
        args.name, zoo.zoo_dir(), args.data, update=args.update_speed, cache_dir=os.path.join(zoo.zoo_home(), "cache")
    )
    for metric, (recorded, measured) in comparison.items():
        print(f"{metric:<32} card {recorded!s:>10}  now {measured!s:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

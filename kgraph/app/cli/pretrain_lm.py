"""``kgraph pretrain-lm --out models/lm [--corpus PATH ...]``: train the BPE tokenizer and masked-LM code encoder.

Texts: every corpus kernel source (``kgraph.data.corpus.all_specs()``) unless ``--no-specs``, plus every
``.cl/.cu/.cuh/.c/.h`` file under each ``--corpus`` path and the ``source`` column of each
``sources.parquet`` found there. The result is a local Hugging Face model directory that the token
encoder (``model.arch.tokens.path``) loads.
"""
from __future__ import annotations

from pathlib import Path

from kgraph.app.cli.common import add_progress_option, progress, progress_enabled
from kgraph.errors import InputError, UsageError

SUFFIXES = (".cl", ".cu", ".cuh", ".c", ".h")


def add_arguments(parser) -> None:
    from kgraph.models.lm_pretrain import LMConfig

    d = LMConfig()
    parser.add_argument("--out", default="models/lm", help="output model directory (default: models/lm)")
    parser.add_argument("--corpus", nargs="*", default=[], metavar="PATH",
                        help="extra source files/directories (kernel files, sources.parquet)")
    parser.add_argument("--no-specs", action="store_true", help="leave out the built-in corpus kernels")
    for name, help_text in (("vocab_size", "BPE vocabulary size"), ("hidden", "hidden width"),
                            ("layers", "transformer layers"), ("heads", "attention heads"),
                            ("max_length", "tokens per window"), ("steps", "optimiser steps"),
                            ("batch_size", "windows per step"), ("seed", "random seed")):
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(d, name),
                            help=f"{help_text} (default: {getattr(d, name)})")
    parser.add_argument("--lr", type=float, default=d.lr, help=f"peak learning rate (default: {d.lr})")
    add_progress_option(parser)


def to_texts(corpus: list[str], with_specs: bool) -> list[str]:
    """Distinct source texts, in a deterministic order."""
    import pandas as pd

    texts: list[str] = []
    if with_specs:
        from kgraph.data.corpus import all_specs

        texts += [spec.source for spec in all_specs()]
    for entry in corpus:
        path = Path(entry)
        if not path.exists():
            raise UsageError(f"--corpus: {entry} does not exist")
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for f in files:
            if f.suffix in SUFFIXES and f.is_file():
                texts.append(f.read_text(encoding="utf-8", errors="replace"))
            elif f.name == "sources.parquet":
                texts += pd.read_parquet(f, columns=["source"])["source"].tolist()
    return list(dict.fromkeys(t for t in texts if t.strip()))


def run(args) -> int:
    from kgraph.models.lm_pretrain import LMConfig, pretrain

    for name in ("vocab_size", "hidden", "layers", "heads", "max_length", "steps", "batch_size"):
        if getattr(args, name) <= 0:
            raise UsageError(f"--{name.replace('_', '-')}: must be positive, got {getattr(args, name)}")
    if args.hidden % args.heads:
        raise UsageError(f"--hidden: {args.hidden} must be divisible by --heads {args.heads}")
    texts = to_texts(args.corpus, not args.no_specs)
    if not texts:
        raise InputError("pretrain-lm: no source text found (give --corpus PATH or drop --no-specs)")
    config = LMConfig(vocab_size=args.vocab_size, hidden=args.hidden, layers=args.layers, heads=args.heads,
                      max_length=args.max_length, steps=args.steps, batch_size=args.batch_size, lr=args.lr,
                      seed=args.seed)
    if not progress_enabled(args):  # nor transformers' own bars (saving the model)
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    with progress(args, total=config.steps, desc="pretrain-lm", unit="step") as bar:
        def on_step(step: int, loss: float) -> None:
            bar.update(1)
            if step % 10 == 0:
                bar.set_postfix_str(f"mlm loss {loss:.3f}", refresh=False)

        stats = pretrain(texts, args.out, config, on_step=on_step)
    print(f"pretrain-lm: {len(texts)} sources, {int(stats['windows'])} windows, {config.steps} steps; "
          f"MLM loss {stats['first_loss']:.3f} -> {stats['last_loss']:.3f}; saved to {args.out}")
    return 0

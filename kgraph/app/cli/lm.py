"""``kgraph lm corpus|tokenizer|pretrain|embed``: build the code-LM pretraining corpus and its tokenizer, pretrain
the code LM (docs/LM.md).

``kgraph lm corpus --out DIR`` fetches the packages of ``conf/lm/corpus.json`` (Debian archive, PyPI) into
``DIR/cache`` (a rerun skips fetched and extracted packages), filters, de-duplicates, splits by package,
writes text shards and a GPU-sized xz subset under ``DIR``, trains the tokenizer when ``--tokenizer`` is
missing, and writes the committed manifest with token counts. ``kgraph lm tokenizer --corpus DIR``
(re)trains the byte-level BPE alone. ``kgraph lm pretrain --corpus DIR`` is
:mod:`kgraph.models.code_lm.pretrain` (also ``python -m kgraph.models.code_lm.pretrain``, same options);
``kgraph lm embed --datasets ... --out FILE`` writes the LM's vectors of the datasets' kernels, per kernel
and per graph node (:mod:`kgraph.models.code_lm.graph_features`), for ``--data.lm_features``;
its options import torch, so ``kgraph lm`` starts slower than the corpus steps alone would.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from kgraph.errors import UsageError

DEFAULT_TOKENIZER_DIR = "models/code_lm/weights"


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="lm_command", metavar="STEP")
    corpus = sub.add_parser("corpus", help="fetch, filter, dedup, split and shard the corpus; manifest")
    corpus.add_argument("--out", required=True, help="corpus folder (text shards, cache; never committed)")
    corpus.add_argument("--config", default="conf/lm/corpus.json", help="sources (default: conf/lm/corpus.json)")
    corpus.add_argument("--strict", action="store_true", help="fail when the archive does not serve a package")
    corpus.add_argument("--gpu-mb", type=float, default=22.0,
                        help="compressed size of the GPU-host subset DIR/gpu/train.jsonl.xz (default: 22)")
    corpus.add_argument("--manifest", default="conf/lm/corpus_manifest.json.xz", help="manifest to write")
    corpus.add_argument("--packages-table", default="conf/lm/corpus_packages.tsv", help="per-package table")
    corpus.add_argument("--retrain-tokenizer", action="store_true", help="train the tokenizer even if present")
    _tokenizer_options(corpus)
    tok = sub.add_parser("tokenizer", help="train the byte-level BPE tokenizer on a built corpus")
    tok.add_argument("--corpus", required=True, help="corpus folder made by `kgraph lm corpus`")
    _tokenizer_options(tok)
    from kgraph.models.code_lm import pretrain

    pretrain.add_arguments(sub.add_parser("pretrain", help="masked-LM pretraining of the code LM (one GPU)"))
    from kgraph.models.code_lm import graph_features

    graph_features.add_arguments(sub.add_parser(
        "embed", help="the code LM's vectors per kernel and per graph node of datasets' kernels (--data.lm_features)"))


def _tokenizer_options(p) -> None:
    p.add_argument("--tokenizer", default=DEFAULT_TOKENIZER_DIR,
                   help=f"folder of tokenizer.json (default: {DEFAULT_TOKENIZER_DIR})")
    p.add_argument("--vocab-size", type=int, default=8192, help="BPE vocabulary size (default: 8192)")
    p.add_argument("--sample-mb", type=float, default=120.0, help="text the tokenizer trains on (default: 120)")
    p.add_argument("--qualifiers", default="conf/lm/qualifiers.json", help="identifiers kept as single tokens")


def train(corpus: Path, args) -> dict:
    from kgraph.data.lm_corpus.build import iter_shards, tokenizer_sample
    from kgraph.data.lm_corpus.tokenizer import load_qualifiers, save_tokenizer, stats, train_tokenizer

    if not (corpus / "summary.json").exists():
        raise UsageError(f"lm tokenizer: {corpus} holds no built corpus (run `kgraph lm corpus --out {corpus}`)")
    if not 300 <= args.vocab_size <= 65535:
        raise UsageError(f"--vocab-size: must be in 300..65535 (uint16 token ids), got {args.vocab_size}")
    qualifiers = load_qualifiers(args.qualifiers)
    t0 = time.time()
    tok = train_tokenizer(tokenizer_sample(corpus, args.sample_mb), args.vocab_size, qualifiers)
    path = save_tokenizer(tok, args.tokenizer)
    held_out = [d["text"] for _, d in zip(range(2000), iter_shards(corpus, "validation"))]
    info = {**stats(tok, held_out, qualifiers), "train_seconds": round(time.time() - t0, 1), "path": str(path)}
    print(f"lm tokenizer: {info['vocab_size']} ids, {info['bytes_per_token']:.2f} bytes/token on held-out "
          f"packages, {info['qualifiers_single_token']}/{info['qualifiers']} qualifiers single tokens; {path}")
    return info


def run(args) -> int:
    if args.lm_command is None:
        raise UsageError("lm: give a step: corpus, tokenizer, pretrain or embed")
    if args.lm_command == "embed":
        from kgraph.models.code_lm import graph_features

        return graph_features.run(args)
    if args.lm_command == "pretrain":
        from kgraph.models.code_lm import pretrain

        return pretrain.run(args)
    if args.lm_command == "tokenizer":
        info = train(Path(args.corpus), args)
        (Path(args.corpus) / "tokenizer_stats.json").write_text(json.dumps(info, indent=1) + "\n")
        return 0
    from kgraph.data.lm_corpus.build import build, finish_manifest
    from kgraph.data.lm_corpus.sources import load_config
    from kgraph.data.lm_corpus.tokenizer import load_tokenizer

    if args.gpu_mb <= 0:
        raise UsageError(f"--gpu-mb: must be positive, got {args.gpu_mb}")
    config = load_config(args.config)
    out = Path(args.out)
    summary = build(config, out, strict=args.strict, gpu_mb=args.gpu_mb)
    tok_json = Path(args.tokenizer) / "tokenizer.json"
    if args.retrain_tokenizer or not tok_json.exists():
        info = train(out, args)
        (out / "tokenizer_stats.json").write_text(json.dumps(info, indent=1) + "\n")
    totals = finish_manifest(out, load_tokenizer(tok_json), Path(args.manifest), Path(args.packages_table))
    gpu = summary["gpu_subset"]
    print(f"lm corpus: {summary['files']} files, {summary['bytes'] / 1e6:.1f} MB "
          f"({summary['gpu_kernel_bytes'] / 1e6:.1f} MB GPU kernel code), {totals['tokens'] / 1e6:.1f} M tokens "
          f"({totals['train_tokens'] / 1e6:.1f} M train, {totals['validation_tokens'] / 1e6:.1f} M validation); "
          f"GPU subset {gpu['train']['compressed_bytes'] / 1e6:.1f} MB xz ({gpu['train']['text_bytes'] / 1e6:.0f} MB "
          f"text); manifest {args.manifest}")
    return 0

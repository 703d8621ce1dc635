"""``kgraph export``: write the compact head as ONNX or as dependency-free C99.

    kgraph export [--ckpt compact.pt] --format onnx --out DIR
    kgraph export [--ckpt compact.pt] --format c --out DIR [--kernels a.cl b.cl ...]

Without ``--ckpt`` the shipped compact head ``models/default_compact/compact.pt`` is exported (its
size and metrics: ``models/default_compact/README.md``).

``--kernels`` registers kernel sources for the C ``kgraph_features`` helper (their static counts are
compiled to C); a kernel must also be in the checkpoint's code-embedding table to be predicted.
The ONNX export is checked against torch with onnxruntime (max abs error <= 1e-5) before returning.
"""
from __future__ import annotations

from pathlib import Path

from kgraph.app.cli.common import add_progress_option, progress
from kgraph.errors import InputError, UsageError

FORMATS = ("onnx", "c")


def add_arguments(parser) -> None:
    from kgraph.models.shipped import COMPACT_CKPT

    parser.add_argument("--ckpt", default=str(COMPACT_CKPT),
                        help="compact-head checkpoint (kgraph.models.compact.to_checkpoint); default: the shipped head")
    parser.add_argument("--format", required=True, choices=FORMATS, help="onnx or c")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--kernels", nargs="+", default=[], metavar="FILE",
                        help="kernel sources (.cl/.cu/.c) whose kernels the C feature helper knows")
    add_progress_option(parser)


def run(args) -> int:
    with progress(args, total=3, desc="export", unit="step") as bar:
        message = _export(args, bar)
    print(message)
    return 0


def _export(args, bar) -> str:
    from kgraph.models.compact import from_checkpoint

    bar.set_postfix_str("loading the checkpoint")
    bundle = from_checkpoint(args.ckpt)
    bar.update(1)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out: {out} exists and is not a directory")
    if args.format == "onnx":
        import torch

        from kgraph.models.export import check_onnx, to_onnx

        bar.set_postfix_str("writing ONNX")
        path = to_onnx(bundle.head, out / "kgraph_model.onnx")
        bar.update(1)
        bar.set_postfix_str("checking against torch")
        g = torch.Generator().manual_seed(0)
        probe = bundle.head.feature_mean + bundle.head.feature_std * torch.randn(
            64, bundle.head.config.in_dim, generator=g)
        err = check_onnx(bundle.head, path, probe)
        bar.update(1)
        return f"wrote {path} (max abs error against torch {err:.2e})"
    from kgraph.models.export import to_c
    from kgraph.parsers.frontend import kernel_sources
    from kgraph.models.export.features_c import to_features_c

    sources = dict(bundle.sources)
    try:
        sources.update(kernel_sources(args.kernels))
    except (UsageError, InputError) as exc:
        raise type(exc)(f"--kernels: {exc}") from None
    features_c = ""
    if set(bundle.head.config.launch_names) >= {"launch_dims", "static_known"}:
        bar.total = 2 + len(bundle.code_table)
        bar.set_postfix_str("static counts of the kernels")
        bar.refresh()
        features_c = to_features_c(sorted(bundle.code_table), sources, bundle.head.config.device_names,
                                   on_kernel=lambda name: bar.update(1))
    else:
        bar.total = 2
    bar.set_postfix_str("writing C")
    h, c = to_c(bundle.head, out, bundle.code_table, bundle.devices, features_c)
    bar.update(1)
    return (f"wrote {h} and {c} ({len(bundle.code_table)} kernels, {len(bundle.devices)} devices); "
            f"build: gcc -O2 -std=c99 -c {c}")

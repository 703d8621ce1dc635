"""``kgraph export``: write the compact head as ONNX or as dependency-free C99.

    kgraph export [--ckpt compact.pt] --format onnx --out DIR
    kgraph export [--ckpt compact.pt] --format c --out DIR [--kernels my.cl my.cu ...] [--only]
                  [--device device.json ...] [--encoder DIR]

Without ``--ckpt`` the shipped compact head ``models/default_compact/compact.pt`` is exported (its
size and metrics: ``models/default_compact/README.md``).

C only:

- ``--kernels``: every kernel of these files gets its code embedding from the encoder the head was
  trained on (``--encoder``, default the shipped head's; checked against the head's own table first) and
  its static counts compiled to C, and joins the C table under its function name, next to the head's
  kernels (a kernel of the same name is replaced) or, with ``--only``, instead of them. A file that
  does not parse, or a kernel the static analysis cannot handle, is an error at ``file:line:col``.
- ``--device``: a ``device.json`` (measured, or made by ``kgraph device from-spec``), repeatable;
  added to the head's devices (one of the same device id is replaced).

The ONNX export is checked against torch with onnxruntime (max abs error <= 1e-5) before returning.
"""
from __future__ import annotations

from pathlib import Path

from kgraph.app.cli.common import add_progress_option, progress
from kgraph.errors import InputError, SourceError, UsageError

FORMATS = ("onnx", "c")


def add_arguments(parser) -> None:
    from kgraph.models.shipped import COMPACT_CKPT

    parser.add_argument("--ckpt", default=str(COMPACT_CKPT),
                        help="compact-head checkpoint (kgraph.models.compact.to_checkpoint); default: the shipped head")
    parser.add_argument("--format", required=True, choices=FORMATS, help="onnx or c")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--kernels", nargs="+", default=[], metavar="FILE",
                        help="C only: kernel sources (.cl/.cu/.c) whose kernels join the C table")
    parser.add_argument("--only", action="store_true",
                        help="C only: the C table holds the --kernels alone (not the head's kernels)")
    parser.add_argument("--device", action="append", default=[], metavar="PATH",
                        help="C only: a device.json (or its dataset folder) to export too; repeatable")
    parser.add_argument("--encoder", default=None, metavar="DIR",
                        help="C only: the full model that made the head's code table "
                             "(default: models/default_compact/encoder)")
    add_progress_option(parser)


def run(args) -> int:
    _check_options(args)
    with progress(args, total=3, desc="export", unit="step") as bar:
        message = _export_onnx(args, bar) if args.format == "onnx" else _export_c(args, bar)
    print(message)
    return 0


def _check_options(args) -> None:
    """UsageError for options that do not fit together (before anything is loaded)."""
    c_only = [flag for flag, given in (("--kernels", args.kernels), ("--only", args.only),
                                       ("--device", args.device), ("--encoder", args.encoder)) if given]
    if args.format != "c" and c_only:
        raise UsageError(f"{', '.join(c_only)}: only for --format c (ONNX takes the code embedding as an input)")
    if args.only and not args.kernels:
        raise UsageError("--only: give the kernels to export with --kernels")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out: {out} exists and is not a directory")


def _load(args, bar):
    from kgraph.models.compact import from_checkpoint

    bar.set_postfix_str("loading the checkpoint")
    bundle = from_checkpoint(args.ckpt)
    bar.update(1)
    return bundle


def _export_onnx(args, bar) -> str:
    import torch

    from kgraph.models.export import check_onnx, to_onnx

    bundle = _load(args, bar)
    bar.set_postfix_str("writing ONNX")
    path = to_onnx(bundle.head, Path(args.out) / "kgraph_model.onnx")
    bar.update(1)
    bar.set_postfix_str("checking against torch")
    g = torch.Generator().manual_seed(0)
    probe = bundle.head.feature_mean + bundle.head.feature_std * torch.randn(
        64, bundle.head.config.in_dim, generator=g)
    err = check_onnx(bundle.head, path, probe)
    bar.update(1)
    return f"wrote {path} (max abs error against torch {err:.2e})"


def _export_c(args, bar) -> str:
    from kgraph.models.export import to_c
    from kgraph.models.export.features_c import to_features_c
    from kgraph.models.export.tables import read_devices

    user = _read_user_kernels(args.kernels)  # parse errors before any model is loaded
    bundle = _load(args, bar)
    try:
        devices = read_devices(args.device, bundle.head.config.device_names)
    except (UsageError, InputError) as exc:
        raise type(exc)(f"--device: {exc}") from None
    code_table, sources = ({}, {}) if args.only else (dict(bundle.code_table), dict(bundle.sources))
    if user:
        bar.set_postfix_str("code embeddings of your kernels")
        _embed_user_kernels(args, bundle, user)
        for k in user:
            code_table[k.name], sources[k.name] = k.embedding, (k.source, k.lang, k.name)
    all_devices = {**bundle.devices, **devices}
    features_c = ""
    if set(bundle.head.config.launch_names) >= {"launch_dims", "static_known"}:
        bar.total = 2 + len(code_table)
        bar.set_postfix_str("static counts of the kernels")
        bar.refresh()
        features_c = to_features_c(sorted(code_table), sources, bundle.head.config.device_names,
                                   on_kernel=lambda name: bar.update(1),
                                   launch_names=bundle.head.config.launch_names)
    else:
        bar.total = 2
    bar.set_postfix_str("writing C")
    h, c = to_c(bundle.head, args.out, code_table, all_devices, features_c)
    bar.update(1)
    return _summary(h, c, code_table, all_devices, user)


def _read_user_kernels(paths: list[str]) -> list:
    from kgraph.models.export.tables import read_kernels

    try:
        return read_kernels(paths)
    except (UsageError, InputError) as exc:
        raise type(exc)(f"--kernels: {exc}") from None
    except SourceError:
        raise  # its diagnostics say file:line:col


def _embed_user_kernels(args, bundle, user: list) -> None:
    """Check the encoder against the head's table, then embed ``user`` with it."""
    from kgraph.models.export.tables import ENCODER_DIR, check_encoder, embed, load_encoder

    encoder_dir = Path(args.encoder) if args.encoder else ENCODER_DIR
    encoder = load_encoder(encoder_dir)
    check_encoder(bundle, encoder, encoder_dir)
    embed(user, encoder, bundle.head.config.code_dim)


def _summary(h: Path, c: Path, code_table: dict, devices: dict, user: list) -> str:
    """What was written, the user's kernels with their C indices, and the devices with theirs."""
    names = sorted(code_table)
    lines = [f"wrote {h} and {c} ({len(names)} kernels, {len(devices)} devices); build: gcc -O2 -std=c99 -c {c}"]
    if user:
        lines.append("your kernels (kgraph_kernel_index): " +
                     ", ".join(f"{k.name} = {names.index(k.name)}" for k in sorted(user, key=lambda k: k.name)))
    lines.append("devices (kgraph_device_index): " + ", ".join(f"{d} = {i}" for i, d in enumerate(devices)))
    return "\n".join(lines)

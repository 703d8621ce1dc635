"""Check exported C and ONNX against the torch head of a compact checkpoint.

    kgraph export-verify --ckpt compact.pt --c-dir DIR [--onnx DIR/kgraph_model.onnx] [--rows 2000]
    (or python -m kgraph.models.export.verify ...)

Probe rows: every registered kernel × every device of the checkpoint, launch features drawn around
the head's feature normalisation (seeded), so the check covers each code-table entry and each
precomputed kernel/device share of the C first layer. Prints the largest absolute differences of the
log targets and bound logits/probabilities; exits 1 when C exceeds ``--c-tol`` (relative on
log targets, or relative on the natural-unit outputs: time_ns, bandwidth_gbs, ... against torch's log
targets inverted through ``kgraph.data.targets``, relative to the quantity inside each log, and, for a
head with interval outputs, on the ends of the time interval) or ONNX exceeds 1e-5 absolute on the log
targets and the interval (1e-5 relative on the bound logits).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from kgraph.errors import module_main


def probe_rows(bundle, rows: int, seed: int = 0) -> tuple[list[str], list[int], torch.Tensor, torch.Tensor]:
    """(kernel names, device indices, launch features [N, n_launch], full inputs [N, in_dim])."""
    head = bundle.head
    cfg = head.config
    names, devs = sorted(bundle.code_table), list(bundle.devices)
    g = torch.Generator().manual_seed(seed)
    n = max(rows, len(names) * len(devs))
    k_idx = [i % len(names) for i in range(n)]
    d_idx = [(i // len(names)) % len(devs) for i in range(n)]
    lo, hi = cfg.code_dim, cfg.code_dim + len(cfg.launch_names)
    launch = head.feature_mean[lo:hi] + head.feature_std[lo:hi] * torch.randn(n, hi - lo, generator=g)
    x = torch.cat([torch.stack([bundle.code_table[names[k]] for k in k_idx]), launch,
                   torch.stack([bundle.devices[devs[d]] for d in d_idx])], dim=1)
    return [names[k] for k in k_idx], d_idx, launch, x


def add_arguments(p) -> None:
    """The options of ``kgraph export-verify`` and ``python -m kgraph.models.export.verify``.

    Args:
        p: the argparse parser to fill.
    """
    p.add_argument("--ckpt", required=True, help="compact checkpoint (the torch reference)")
    p.add_argument("--c-dir", default=None, help="directory of kgraph_model.c (kgraph export --format c)")
    p.add_argument("--onnx", default=None, help="kgraph_model.onnx (kgraph export --format onnx)")
    p.add_argument("--rows", type=int, default=2000, help="probe rows (at least kernels x devices)")
    p.add_argument("--c-tol", type=float, default=1e-4, help="largest relative C error accepted")


def run(args) -> int:
    """Compare the exports with torch on probe rows; 0 when every check passes, 1 otherwise."""
    from kgraph.data.targets import TARGETS
    from kgraph.errors import ModelError, UsageError
    from kgraph.models.compact import from_checkpoint
    from kgraph.models.export.c_driver import INTERVAL_COLUMNS, NATURAL_COLUMNS, build_driver, predict_c
    from kgraph.models.export.onnx_graph import check_onnx

    if args.rows < 1 or not args.c_tol > 0:
        raise UsageError("--rows must be >= 1 and --c-tol > 0")
    bundle = from_checkpoint(args.ckpt)
    kernels, devs, launch, x = probe_rows(bundle, args.rows)
    with torch.no_grad():
        y, logits = bundle.head(x)
        ends = bundle.head.log_time_interval(x).double().numpy() if bundle.head.config.interval else None
    ok = True
    if args.onnx:
        try:
            err = check_onnx(bundle.head, Path(args.onnx), x)
            print(f"ONNX vs torch: {len(x)} rows, max abs log-output error {err:.2e} (bound logits within 1e-5 relative)")
        except ModelError as exc:
            print(f"ONNX vs torch: {exc}")
            ok = False
    if args.c_dir:
        out = predict_c(build_driver(args.c_dir), kernels, devs, launch.double().numpy())
        if (out[:, 0] != 0).any():
            print(f"C: {(out[:, 0] != 0).sum()} rows returned an error code")
            ok = False
        c_log = out[:, 2:7]
        ref = y.double().numpy()
        rel = np.abs(c_log - ref) / np.maximum(np.abs(ref), 1.0)
        prob = np.abs(out[:, 8:11] - torch.softmax(logits.double(), -1).numpy()).max()
        print(f"C vs torch: {len(x)} rows ({len(set(kernels))} kernels x {len(set(devs))} devices), "
              f"max abs log-target error {np.abs(c_log - ref).max():.2e} (rel {rel.max():.2e}), "
              f"max bound-probability error {prob:.2e}, bound agreement "
              f"{(out[:, 7] == logits.argmax(-1).numpy()).mean():.4f}")
        natural = out[:, NATURAL_COLUMNS]
        nat_rel = {t.key: float((np.abs(natural[:, j] - t.inverse(ref[:, j]))
                                 / (np.abs(t.inverse(ref[:, j])) + (1.0 / t.scale if t.log1p else 0.0))).max())
                   for j, t in enumerate(TARGETS)}
        if ends is not None:  # the interval's ends, relative like time_ns
            nat_rel["time_interval"] = float((np.abs(out[:, INTERVAL_COLUMNS] - np.exp(ends)) / np.exp(ends)).max())
        print("C vs torch natural units (relative): " + ", ".join(f"{k} {v:.2e}" for k, v in nat_rel.items()))
        ok &= rel.max() <= args.c_tol and max(nat_rel.values()) <= args.c_tol
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.models.export.verify", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    raise SystemExit(main())

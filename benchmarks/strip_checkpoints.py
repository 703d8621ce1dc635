"""Strip Lightning checkpoints for shipping back from the GPU host: optimizer and scheduler states dropped,
read and written as plain tensors and data (``weights_only=True``).

    python -m benchmarks.strip_checkpoints 'runs/bounded*/*/ckpt/best-*.ckpt' --out /tmp/ck   # <run>.ckpt each
    python -m benchmarks.strip_checkpoints 'runs/default/*/ckpt/best-*.ckpt' --to runs/default/best.ckpt
"""
from __future__ import annotations

import argparse
import glob
import sys
from pathlib import Path


def strip(path: str | Path, out: str | Path, half: bool = False) -> Path:
    """Write ``path`` without ``optimizer_states``/``lr_schedulers`` to ``out``; ``half`` stores the state
    dict's floating-point tensors as float16 (a fine-tuned LM's weights then fit what a device call returns;
    loading copies them back into the model's float32 parameters)."""
    import torch

    ck = torch.load(str(path), map_location="cpu", weights_only=True)
    ck.pop("optimizer_states", None)
    ck.pop("lr_schedulers", None)
    if half:
        ck["state_dict"] = {k: v.half() if torch.is_floating_point(v) else v for k, v in ck["state_dict"].items()}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.save(ck, str(out))
    return Path(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.strip_checkpoints", description=__doc__.splitlines()[0])
    parser.add_argument("pattern", help="glob of checkpoints (runs/<grid>/<run>/ckpt/best-*.ckpt)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", help="folder: one <run>.ckpt per match, <run> = the folder above ckpt/")
    where.add_argument("--to", help="file: the one match (the last in sorted order) written here")
    parser.add_argument("--half", action="store_true", help="store floating-point weights as float16")
    args = parser.parse_args(argv)
    paths = sorted(glob.glob(args.pattern))
    if not paths:
        print(f"strip_checkpoints: no checkpoint matches {args.pattern}", file=sys.stderr)
        return 1
    if args.to:
        strip(paths[-1], args.to, args.half)
    else:
        for p in paths:
            strip(p, Path(args.out) / f"{Path(p).parent.parent.name}.ckpt", args.half)
    return 0


if __name__ == "__main__":
    sys.exit(main())

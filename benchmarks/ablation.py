"""The ablation grid: every model variant on every split, trained and predicted side by side.

Each (variant, split) run is two LightningCLI processes (``fit`` then ``predict`` with the
:class:`kgraph.models.predictions.PredictionWriter` callback), run ``--parallel`` at a time; a run that fails
is recorded in ``status.json`` and the grid goes on. The prediction folders feed ``kgraph report``.

Usage (the H200 host; see BENCHMARKS.md for the exact command used)::

    python -m benchmarks.ablation --datasets data/datasets/nvidia-h200 --out runs/ablation \\
        --variants hybrid graph_only tokens_only static_only no_hardware \\
        --splits unseen_launch leave_kernel_out leave_family_out --trainer conf/trainer/gpu.yaml \\
        --max-time 00:00:04:00 --parallel 8
    kgraph report runs/ablation/*/pred runs/baselines/* --out runs/report
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kgraph.data.splits import SPLITS

ROOT = Path(__file__).resolve().parents[1]
#: every model variant: the hybrid base and each switch file of conf/model/ (read there, not listed again)
VARIANTS = ("hybrid", *sorted(p.stem for p in (ROOT / "conf/model").glob("*.yaml") if p.stem != "hybrid"))


def run_configs(variant: str, split: str, trainer: str | None) -> list[str]:
    """The ``--config`` arguments of one run: the hybrid base, the variant's switches, the split."""
    configs = [ROOT / "conf/model/hybrid.yaml"]
    if variant != "hybrid":
        configs.append(ROOT / f"conf/model/{variant}.yaml")
    configs.append(ROOT / f"conf/split/{split}.yaml")
    if trainer:
        configs.append(Path(trainer))
    return [arg for c in configs for arg in ("--config", str(c))]


def one_run(variant: str, split: str, args) -> dict:
    """Fit then predict one (variant, split); returns its status record."""
    name = f"{variant}-{split}"
    out = Path(args.out) / name
    out.mkdir(parents=True, exist_ok=True)
    common = run_configs(variant, split, args.trainer) + [
        f"--data.datasets={json.dumps(args.datasets)}", f"--data.cache_dir={args.cache_dir or out / 'cache'}",
        f"--data.num_workers={args.num_workers}",
        *(["--trainer.logger=lightning.pytorch.loggers.CSVLogger"] if args.logger == "csv" else []),
        f"--trainer.logger.init_args.save_dir={out}",
        *(f"--data.test_devices={json.dumps(args.test_devices)}" for _ in [0] if split == "leave_device_out"),
        *args.extra]
    fit = [sys.executable, "-m", "kgraph.models.cli", "fit", *common, f"--trainer.max_time={args.max_time}",
           f"--checkpoint.dirpath={out / 'ckpt'}"]
    record = {"run": name, "variant": variant, "split": split}
    start = time.perf_counter()
    with open(out / "fit.log", "w") as log:
        done = subprocess.run(fit, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    record["fit_s"] = round(time.perf_counter() - start, 1)
    best = sorted((out / "ckpt").glob("best-*.ckpt"))
    if done.returncode != 0 or not best:
        record.update(status="fit_failed", returncode=done.returncode)
        return record
    record["ckpt"] = str(best[-1])
    predict = [sys.executable, "-m", "kgraph.models.cli", "predict", *common, f"--ckpt_path={best[-1]}",
               "--trainer.callbacks+=kgraph.models.predictions.PredictionWriter",
               f"--trainer.callbacks.out_dir={out / 'pred'}", f"--trainer.callbacks.model_name={variant}"]
    with open(out / "predict.log", "w") as log:
        done = subprocess.run(predict, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    record["status"] = "ok" if done.returncode == 0 else "predict_failed"
    record["total_s"] = round(time.perf_counter() - start, 1)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ablation", description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", required=True, help="dataset folders")
    parser.add_argument("--out", default="runs/ablation", help="one sub-folder per run")
    parser.add_argument("--variants", nargs="+", default=["hybrid", "graph_only", "tokens_only", "static_only", "no_hardware"],
                        choices=VARIANTS)
    parser.add_argument("--splits", nargs="+", default=["unseen_launch", "leave_kernel_out", "leave_family_out"],
                        choices=SPLITS)
    parser.add_argument("--test-devices", nargs="+", default=[], help="held-out devices of leave_device_out")
    parser.add_argument("--trainer", help="trainer config, e.g. conf/trainer/gpu.yaml")
    parser.add_argument("--max-time", default="00:00:04:00", help="Lightning max_time of each fit (DD:HH:MM:SS)")
    parser.add_argument("--cache-dir", help="graph cache shared by every run (default: one per run); "
                        "pre-built, it saves each run the parsing of every kernel")
    parser.add_argument("--logger", choices=["wandb", "csv"], default="wandb",
                        help="W&B (offline; the default) or Lightning's CSV logger (no wandb installed)")
    parser.add_argument("--parallel", type=int, default=1, help="runs at once")
    parser.add_argument("--num-workers", type=int, default=0, help="DataLoader workers per run")
    parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="more LightningCLI arguments")
    args = parser.parse_args(argv)
    if "leave_device_out" in args.splits and not args.test_devices:
        parser.error("--splits leave_device_out needs --test-devices (the held-out device ids)")
    for folder in args.datasets:
        if not (Path(folder) / "device.json").exists():
            parser.error(f"--datasets {folder}: no device.json there (not a measured dataset)")
    grid = [(v, s) for s in args.splits for v in args.variants]
    Path(args.out).mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(args.parallel, 1)) as pool:
        records = list(pool.map(lambda vs: one_run(*vs, args), grid))
    (Path(args.out) / "status.json").write_text(json.dumps(records, indent=1))
    for r in records:
        print(f"{r['run']:40s} {r['status']:15s} fit {r.get('fit_s', '-')} s")
    return 0 if all(r["status"] == "ok" for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())

"""DDP speed-up: the same ``kgraph fit`` on 1 and on K devices for a fixed number of epochs.

Every run is ``python -m kgraph.models.cli fit`` (= ``kgraph fit``) with ``--trainer.strategy ddp
--trainer.devices K``, a fixed ``--trainer.max_epochs`` (no time cap, no step cap), W&B off, in its own
subprocess. The :class:`EpochClock` callback (rank 0) records per epoch the training seconds (epoch
minus its validation), the validation seconds and the last validation metrics. Reported per run: wall
seconds of the process (start-up, data setup, all epochs), mean training seconds per epoch excluding
the first (data loader start-up, cuDNN/allocator warm-up), training samples/s = launches trained on per
epoch by all ranks (the training split, plus at most K-1 padding launches) / that mean, and the final
``val/*`` metrics. Speed-up = samples/s at K devices / at 1.

Batch size under DDP: Lightning gives every rank ``data.batch_size`` launches per step (each rank a
1/K shard of the epoch, DistributedSampler). ``--batch-mode per_device`` keeps ``--batch-size`` per rank
(global batch K times larger, K times fewer optimiser steps per epoch); ``global`` keeps the global
batch at ``--batch-size`` (``batch_size / K`` per rank, same steps and optimisation as one device);
``both`` runs both for K > 1 (with one device they are the same run).

The graph/token cache (``data.cache_dir``) is built once, in this process, before the timed runs, so
the K rank processes only load it (they would otherwise all process and write the same file).

Usage (2 GPUs; CPU check: ``--accelerator cpu --config conf/tiny.yaml --data data/datasets/ci-tiny``)::

    python -m benchmarks.ddp_speedup --config conf/model/graph_only.yaml --data data/datasets/nvidia-h200 \\
        --devices 1 2 --max-epochs 8 --out runs/ddp_speedup
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lightning.pytorch.callbacks import Callback

from kgraph.errors import KGraphError

ROOT = Path(__file__).resolve().parents[1]


class EpochClock(Callback):
    """Per-epoch wall clock of training and validation, written as JSON by global rank 0 at fit end.

    Args:
        path: output JSON (``epochs``: [{epoch, train_s, val_s, steps, samples}] with ``samples`` the
            launches trained on by all ranks (DistributedSampler pads to equal shards), ``val``: last val metrics,
            ``world_size``, ``per_device_batch``, ``train_samples``).
    """

    def __init__(self, path: str):
        self.path = path
        self.epochs: list[dict] = []
        self.val: dict[str, float] = {}
        self._start = self._val_start = self._val_s = 0.0
        self._step0 = self._samples = 0

    @staticmethod
    def _now(pl_module) -> float:
        if pl_module.device.type == "cuda":
            import torch

            torch.cuda.synchronize(pl_module.device)
        return time.perf_counter()

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        self._start, self._val_s, self._step0 = self._now(pl_module), 0.0, trainer.global_step
        self._samples = 0

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        self._samples += len(batch)

    def on_validation_start(self, trainer, pl_module) -> None:
        if not trainer.sanity_checking:
            self._val_start = self._now(pl_module)

    def on_validation_end(self, trainer, pl_module) -> None:
        if trainer.sanity_checking:
            return
        self._val_s += self._now(pl_module) - self._val_start
        self.val = {k: float(v) for k, v in trainer.callback_metrics.items() if k.startswith("val/")}

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        total = self._now(pl_module) - self._start
        self.epochs.append({"epoch": trainer.current_epoch, "train_s": total - self._val_s, "val_s": self._val_s,
                            "steps": trainer.global_step - self._step0,
                            "samples": self._samples * trainer.world_size})  # equal shards per rank

    def on_fit_end(self, trainer, pl_module) -> None:
        if not trainer.is_global_zero:
            return
        dm = trainer.datamodule
        record = {"world_size": trainer.world_size, "per_device_batch": dm.batch_size,
                  "train_samples": int(len(dm.splits["train"])), "epochs": self.epochs, "val": self.val}
        Path(self.path).write_text(json.dumps(record, indent=1) + "\n")


def to_result(clock: dict, wall_s: float) -> dict:
    """One run's summary from its :class:`EpochClock` record (epochs after the first are averaged)."""
    later = clock["epochs"][1:] or clock["epochs"]
    train_s = statistics.fmean(e["train_s"] for e in later)
    samples = statistics.fmean(e["samples"] for e in later)
    return {"devices": clock["world_size"], "per_device_batch": clock["per_device_batch"],
            "global_batch": clock["per_device_batch"] * clock["world_size"], "epochs": len(clock["epochs"]),
            "wall_s": wall_s, "first_epoch_train_s": clock["epochs"][0]["train_s"],
            "mean_train_epoch_s": train_s, "mean_val_epoch_s": statistics.fmean(e["val_s"] for e in later),
            "steps_per_epoch": later[-1]["steps"], "train_samples": clock["train_samples"],
            "samples_per_epoch": samples, "samples_per_s": samples / train_s, "val": clock["val"]}


def add_speedups(results: list[dict]) -> list[dict]:
    """``speedup`` = samples/s / samples/s of the one-device run, ``efficiency`` = speedup / devices."""
    base = next((r for r in results if r["devices"] == 1), None)
    for r in results:
        r["speedup"] = r["samples_per_s"] / base["samples_per_s"] if base else None
        r["efficiency"] = r["speedup"] / r["devices"] if base else None
    return results


def to_markdown(results: list[dict]) -> str:
    """One row per run: batch semantics, times, samples/s, speed-up and the final val metrics."""
    lines = ["| devices | batch mode | per-device batch | global batch | steps/epoch | wall s | first epoch s | "
             "train s/epoch (2..N) | samples/s | speed-up | efficiency | val time_mape | val time_spearman |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['devices']} | {r['batch_mode']} | failed: {r['error']} |" + " |" * 10)
            continue
        speed = f"{r['speedup']:.2f}" if r.get("speedup") is not None else "-"
        eff = f"{r['efficiency']:.2f}" if r.get("efficiency") is not None else "-"
        mape, rho = r["val"].get("val/time_mape", float("nan")), r["val"].get("val/time_spearman", float("nan"))
        lines.append(f"| {r['devices']} | {r['batch_mode']} | {r['per_device_batch']} | {r['global_batch']} | "
                     f"{r['steps_per_epoch']} | {r['wall_s']:.1f} | {r['first_epoch_train_s']:.2f} | "
                     f"{r['mean_train_epoch_s']:.2f} | {r['samples_per_s']:.0f} | {speed} | {eff} | "
                     f"{mape:.3f} | {rho:.3f} |")
    return "\n".join(lines) + "\n"


def config_args(configs: list[str]) -> list[str]:
    """``--config`` arguments; a ``conf/model/`` variant alone gets ``conf/model/hybrid.yaml`` before it
    (variant files only set switches, see docs/MODELS.md)."""
    paths = [Path(c) for c in configs]
    if paths[0].parent.name == "model" and paths[0].name != "hybrid.yaml":
        paths.insert(0, paths[0].parent / "hybrid.yaml")
    return [a for p in paths for a in ("--config", str(p))]


def prepare_cache(common: list[str]) -> float:
    """Build the DataModule (graphs/tokens cache included) once, on one CPU process; returns seconds."""
    from kgraph.models.cli import build_cli

    start = time.perf_counter()
    cli = build_cli([*common, "--trainer.accelerator=cpu", "--trainer.devices=1", "--trainer.strategy=auto"],
                    run=False)
    cli.datamodule.setup("fit")
    return time.perf_counter() - start


def one_run(devices: int, mode: str, per_device_batch: int, common: list[str], args, out: Path) -> dict:
    """Fit with ``devices`` DDP ranks; the run's summary (or its error)."""
    name = f"devices{devices}-{mode}"
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    clock = folder / "epochs.json"
    clock.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "kgraph.models.cli", "fit", *common, f"--trainer.accelerator={args.accelerator}",
           f"--trainer.devices={devices}", "--trainer.strategy=ddp", f"--data.batch_size={per_device_batch}",
           f"--checkpoint.dirpath={folder / 'ckpt'}", f"--trainer.default_root_dir={folder}",
           "--trainer.callbacks+=benchmarks.ddp_speedup.EpochClock", f"--trainer.callbacks.path={clock}"]
    start = time.perf_counter()
    with open(folder / "fit.log", "w") as log:
        done = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    record = {"devices": devices, "batch_mode": mode, "command": " ".join(cmd)}
    if done.returncode != 0 or not clock.is_file():
        tail = (folder / "fit.log").read_text().strip().splitlines()[-1:] or ["no output"]
        return {**record, "error": f"exit {done.returncode}: {tail[0][:200]} (see {folder / 'fit.log'})"}
    return {**record, **to_result(json.loads(clock.read_text()), wall)}


def write_report(out: Path, results: list[dict], prepare_s: float, args) -> list[dict]:
    """``ddp_speedup.json`` and ``ddp_speedup.md`` of the runs so far; returns the successful ones."""
    ok = add_speedups([r for r in results if "error" not in r])
    report = {"prepare_cache_s": prepare_s, "max_epochs": args.max_epochs, "accelerator": args.accelerator,
              "batch_size": args.batch_size, "runs": results}
    (out / "ddp_speedup.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "ddp_speedup.md").write_text(to_markdown(results))
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ddp_speedup", description=__doc__.splitlines()[0])
    parser.add_argument("--config", nargs="+", required=True, help="kgraph fit config files, in order")
    parser.add_argument("--data", nargs="+", required=True, help="dataset folders (data.datasets)")
    parser.add_argument("--devices", nargs="+", type=int, default=[1, 2], help="device counts to run")
    parser.add_argument("--max-epochs", type=int, default=8, help="epochs of every run (first one not timed)")
    parser.add_argument("--accelerator", default="gpu", help="trainer.accelerator (cpu: DDP over gloo)")
    parser.add_argument("--trainer", help="trainer config after --config, e.g. conf/trainer/gpu.yaml")
    parser.add_argument("--batch-size", type=int, default=256, help="reference batch size (see --batch-mode)")
    parser.add_argument("--batch-mode", choices=("per_device", "global", "both"), default="both")
    parser.add_argument("--num-workers", type=int, default=4, help="DataLoader workers per rank")
    parser.add_argument("--out", default="runs/ddp_speedup", help="output folder")
    parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="more LightningCLI arguments")
    args = parser.parse_args(argv)
    for path in [*args.config, *([args.trainer] if args.trainer else [])]:
        if not Path(path).is_file():
            parser.error(f"--config/--trainer {path}: no such file")
    for folder in args.data:
        if not (Path(folder) / "device.json").is_file():
            parser.error(f"--data {folder}: no device.json there (not a measured dataset)")
    if args.max_epochs < 2 or min(args.devices) < 1 or args.batch_size < 1:
        parser.error("--max-epochs must be at least 2 (the first is not timed); --devices and --batch-size >= 1")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    common = [*config_args(args.config), *(["--config", args.trainer] if args.trainer else []),
              f"--data.datasets={json.dumps(args.data)}", f"--data.cache_dir={out / 'cache'}",
              f"--data.num_workers={args.num_workers}", f"--trainer.max_epochs={args.max_epochs}",
              "--trainer.max_steps=-1", "--trainer.max_time=null", "--trainer.val_check_interval=1.0",
              "--trainer.limit_val_batches=1.0", "--trainer.logger=false", "--trainer.enable_progress_bar=false",
              *args.extra]
    runs = []
    for k in sorted(set(args.devices)):
        both = args.batch_mode == "both"
        modes = (["per_device", "global"] if k > 1 else ["per_device"]) if both else [args.batch_mode]
        for mode in modes:
            if mode == "global" and args.batch_size % k:
                parser.error(f"--batch-size {args.batch_size}: not divisible by {k} devices (batch-mode global)")
            runs.append((k, mode, args.batch_size // k if mode == "global" else args.batch_size))
    try:
        prepare_s = prepare_cache(common)
    except KGraphError as exc:
        print(f"benchmarks.ddp_speedup: error: {exc}", file=sys.stderr)
        return 1
    print(f"data cache prepared in {prepare_s:.1f} s", flush=True)
    results: list[dict] = []
    for k, mode, batch in runs:
        results.append(one_run(k, mode, batch, common, args, out))
        print(to_markdown(results[-1:]).splitlines()[-1], flush=True)
        ok = write_report(out, results, prepare_s, args)  # after every run: a timeout keeps what was done
    print(to_markdown(results))
    return 0 if len(ok) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())

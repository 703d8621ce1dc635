"""Inference throughput (launches/s) of the shipped model's batch prediction path, per device.

The path timed is the one ``kgraph estimate --batch`` runs (:mod:`kgraph.models.predictor`): each distinct
source parsed once (``kgraph.from_source``, as ``kernels_of`` does once per file), every launch
validated (``make_launch``), :meth:`Predictor.featurise` (static counts lambdified and evaluated,
kernel graphs built once per distinct kernel of a 1024-launch chunk, device/launch features) and
:meth:`Predictor.forward` (the model, chunk by chunk). Each stage is timed separately; the numbers
are the median of ``--repeats`` timed repeats after one untimed warm-up repeat.

Devices: ``cpu1`` = one CPU core (the process is pinned with ``os.sched_setaffinity`` to one core and
runs ``torch.set_num_threads(1)``, OMP/MKL threads 1); ``cpu`` = every core the process may use;
``cuda`` = the model on the first GPU (featurisation stays on the CPU; forward includes the
host-to-device copies and a synchronisation). Each device is measured in its own subprocess so the
pinning of one never leaks into another. Usage::

    python -m benchmarks.inference_throughput --model models/default --data data/datasets/nvidia-h200 \\
        --n 5000 --devices cpu1 cuda --out runs/inference_throughput
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEVICES = ("cpu1", "cpu", "cuda")
STAGES = ("parse_s", "validate_s", "featurise_s", "forward_s")


def sample_requests(dataset: str | Path, n: int, seed: int = 0) -> tuple[list[dict], dict, dict]:
    """``n`` launches of a measured dataset (a seeded sample without replacement while the dataset has
    enough, else every launch repeated): rows ``{source_id, kernel, global, local, args}``, the
    sources ``source_id -> (source, lang)`` and the dataset's device descriptor."""
    import numpy as np

    from kgraph.data.datamodule import read_dataset

    launches, sources, device = read_dataset(dataset)
    order = np.random.default_rng(seed).permutation(len(launches))
    order = np.resize(order, n)  # repeats the permutation when n > len(launches)
    rows = []
    for r in launches.iloc[order].itertuples(index=False):
        dims = int(r.dims)
        rows.append({"source_id": r.source_id, "kernel": r.kernel_name,
                     "global": [int(r.g0), int(r.g1), int(r.g2)][:dims],
                     "local": [int(r.l0), int(r.l1), int(r.l2)][:dims], "args": json.loads(r.args)})
    used = {row["source_id"] for row in rows}
    texts = {s.source_id: (s.source, s.lang) for s in sources.itertuples(index=False) if s.source_id in used}
    return rows, texts, device


def time_once(predictor, rows: list[dict], texts: dict, device: dict, sync=None) -> tuple[dict, list[dict]]:
    """One pass over ``rows``: seconds per stage (``STAGES``) and the predictions."""
    import kgraph
    from kgraph.models.launches import make_launch

    t0 = time.perf_counter()
    graphs = {sid: {g.name: g for g in kgraph.from_source(src, lang, filename=f"{sid}.{lang}")}
              for sid, (src, lang) in texts.items()}
    t1 = time.perf_counter()
    launches = [make_launch(graphs[r["source_id"]], r["kernel"], r["global"], r["local"], r["args"], device)
                for r in rows]
    t2 = time.perf_counter()
    chunks = predictor.featurise(launches)
    t3 = time.perf_counter()
    predictions = [p for chunk in chunks for p in predictor.forward(chunk)]
    if sync is not None:
        sync()
    t4 = time.perf_counter()
    return dict(zip(STAGES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3))), predictions


def summarize(n: int, repeats: list[dict]) -> dict:
    """Median seconds per stage over the repeats, and launches/s end to end and per stage."""
    median = {k: statistics.median(r[k] for r in repeats) for k in STAGES}
    total = statistics.median(sum(r[k] for k in STAGES) for r in repeats)
    featurise = median["parse_s"] + median["validate_s"] + median["featurise_s"]
    return {"median_s": {**median, "featurisation_s": featurise, "total_s": total},
            "launches_per_s": {"end_to_end": n / total, "featurisation": n / featurise,
                               "forward": n / median["forward_s"]}}


def run_device(name: str, model_dir: str, dataset: str, n: int, repeats: int, core: int | None) -> dict:
    """Measure one device in this process (``cpu1`` pins this process first)."""
    record: dict = {"device": name, "launches": n}
    if name == "cpu1":
        allowed = sorted(os.sched_getaffinity(0))
        core = allowed[-1] if core is None else core
        if core not in allowed:
            raise SystemExit(f"--core {core}: not among the cores this process may use ({allowed})")
        os.sched_setaffinity(0, {core})
        record["core"] = core
    import numpy as np
    import torch

    from kgraph.models.predictor import Predictor

    if name == "cuda" and not torch.cuda.is_available():
        return {**record, "skipped": "no CUDA device visible to torch"}
    rows, texts, device = sample_requests(dataset, n)
    predictor = Predictor.from_directory(model_dir)
    torch.set_num_threads(1 if name == "cpu1" else len(os.sched_getaffinity(0)))
    sync = None
    if name == "cuda":
        predictor.model.to("cuda")
        sync = torch.cuda.synchronize
        record["gpu"] = torch.cuda.get_device_name(0)
    record.update(torch_threads=torch.get_num_threads(), cpu_cores=len(os.sched_getaffinity(0)),
                  distinct_sources=len(texts), distinct_kernels=len({(r["source_id"], r["kernel"]) for r in rows}),
                  torch=torch.__version__)
    time_once(predictor, rows[:1024], texts, device, sync)  # warm-up: imports, sympy caches, CUDA kernels
    timed = []
    for _ in range(repeats):
        seconds, predictions = time_once(predictor, rows, texts, device, sync)
        timed.append(seconds)
    record["repeats"] = timed
    record.update(summarize(n, timed))
    record["mean_log_time_prediction"] = float(np.mean([np.log(p["time_ns"]) for p in predictions]))
    return record


def to_markdown(records: list[dict]) -> str:
    """One row per device: launches/s end to end, featurisation and forward, and median seconds."""
    lines = ["| device | launches | end-to-end launches/s | featurisation launches/s | forward launches/s | "
             "parse s | validate s | featurise s | forward s |", "|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        if "skipped" in r:
            lines.append(f"| {r['device']} | {r['launches']} | skipped: {r['skipped']} | | | | | | |")
            continue
        m, t = r["median_s"], r["launches_per_s"]
        label = r["device"] + (f" ({r['gpu']})" if "gpu" in r else f" (core {r['core']})" if "core" in r else "")
        lines.append(f"| {label} | {r['launches']} | {t['end_to_end']:.0f} | {t['featurisation']:.0f} | "
                     f"{t['forward']:.0f} | {m['parse_s']:.3f} | {m['validate_s']:.3f} | {m['featurise_s']:.3f} | "
                     f"{m['forward_s']:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.inference_throughput",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="models/default", help="default-model directory")
    parser.add_argument("--data", default="data/datasets/nvidia-h200", help="measured dataset whose launches to predict")
    parser.add_argument("--n", type=int, default=5000, help="launches per repeat")
    parser.add_argument("--devices", nargs="+", default=["cpu1", "cuda"], choices=DEVICES)
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (the median is reported)")
    parser.add_argument("--core", type=int, help="the core of cpu1 (default: the last one allowed)")
    parser.add_argument("--out", default="runs/inference_throughput", help="output folder")
    parser.add_argument("--worker", choices=DEVICES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.n < 1 or args.repeats < 1:
        parser.error(f"--n {args.n} / --repeats {args.repeats}: both must be at least 1")
    if not (Path(args.data) / "device.json").is_file():
        parser.error(f"--data {args.data}: no device.json there (not a measured dataset)")
    if not (Path(args.model) / "config.json").is_file():
        parser.error(f"--model {args.model}: no config.json there (not a default-model directory)")
    if args.worker:
        record = run_device(args.worker, args.model, args.data, args.n, args.repeats, args.core)
        print(json.dumps(record))
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records = []
    for name in args.devices:
        env = dict(os.environ)
        if name == "cpu1":
            env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        cmd = [sys.executable, "-m", "benchmarks.inference_throughput", "--worker", name, "--model", args.model,
               "--data", args.data, "--n", str(args.n), "--repeats", str(args.repeats),
               *(["--core", str(args.core)] if args.core is not None else [])]
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            records.append({"device": name, "launches": args.n, "skipped": "failed: " + " / ".join(tail)})
        else:
            records.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(to_markdown(records[-1:]).splitlines()[-1], flush=True)
    (out / "inference_throughput.json").write_text(json.dumps(records, indent=1) + "\n")
    (out / "inference_throughput.md").write_text(to_markdown(records))
    print(to_markdown(records))
    return 0 if all("skipped" not in r or r["skipped"].startswith("no CUDA") for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Replay the H200 host's five-run StarPU comparison (issue 12 §6) with the dmda simulator, run by run.

    python -m benchmarks.starpu_replay [--real benchmarks/results/starpu_five_runs_h200]
        [--out benchmarks/results/starpu_replay_h200] [--bus-gbs 25] [--seeds 5]

Truth: the real run's own per-task times (times-{gpu,cpu}.csv.gz, every task of every run; the trace is in
submission order, so it is cut back into runs with the row counts of five_runs-*.csv). Platform: what StarPU
really enabled: 4 CPU workers (8 requested, StarPU 1.3 built with 4 max CPUs; 5 cost calls per task = 4 CPU
+ 1 OpenCL) + the H200 as one OpenCL worker, fp32 tiles over a 25 GB/s, 10 µs bus. Models, each from a
cold start and keeping its state over 5 consecutive replays as the real runs did:

- oracle: the median measured time of (kind, tile, device);
- kgraph: the static predictions the run used: the shipped compact head (models/default_compact, exported
  with the tile kernels as the run did) on nvidia-h200 for OpenCL, and the C-function head the run was
  built with (models/c_functions/head.pt of e33fde1, before bb4a464 retrained it) on the dev box's
  one-core descriptor (c-intel-xeon-1c, the run's mistake) for CPU workers;
  ``kgraph-hostdesc``: the same head on the host's own c-xeon-gpu-host-1c; ``kgraph-fixed``: the
  retrained head (HEAD) on the host's descriptor (what the fix changes);
- kgraph-adaptive: kgraph_adaptive.c's rule (version 3, kgraph.app.runtime.adaptive_rule), persisted across
  runs; kgraph-adaptive-v2: the rule before (w0 = 0.2^2 / s0^2, s0 from the GPU head's interval);
- history: STARPU_HISTORY_BASED with STARPU_CALIBRATE_MINIMUM=3 (an entry is used from 3 executions on);
- regression: a·n^b from the workload's own executions (one tile size: it never fits, as in reality);
- eager: one central FIFO, the first idle worker takes the oldest ready task (no model).

Two replays: ``median`` (every task its median: deterministic) and ``sampled`` (a random measured time of its
(kind, tile, device), a run's first task of each key from the runs' first tasks; mean over ``--seeds``).
Writes replay.csv (one row per workload, size, model, run) and replay.md.
"""
from __future__ import annotations

import argparse
import glob
import heapq
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from kgraph.app.runtime.adaptive_rule import AdaptiveRule
from kgraph.app.scheduling.beliefs import HistoryBelief, OracleBelief, RegressionBelief, TableBelief
from kgraph.app.scheduling.dag import Task, _Builder, cholesky_dag
from kgraph.app.scheduling.simulator import Platform, simulate
from kgraph.app.scheduling.time_table import TimeTable

KINDS = ("potrf", "trsm", "syrk", "gemm")
CPU_ARGS = {"potrf": 2, "trsm": 4, "syrk": 4, "gemm": 6}  # tile_cpu_call: every argument = n
MODELS = ("oracle", "kgraph", "kgraph-hostdesc", "kgraph-fixed", "kgraph-adaptive-v2", "kgraph-adaptive", "history", "regression", "eager")
REAL = {"kgraph": "kgraph", "kgraph-hostdesc": "kgraph", "kgraph-fixed": "kgraph", "kgraph-adaptive": "kgraph-adaptive", "kgraph-adaptive-v2": "kgraph-adaptive",
        "history": "history", "regression": "regression", "eager": "eager"}
OLD_CPU_HEAD = "e33fde1"  # the C-function head the real run was built with (bb4a464 retrained it afterwards)


def gemm_dag(tiles: int, tile: int) -> list[Task]:
    """tiled_workload.c's GEMM: C[i,j] += A[i,k] B[j,k]^T, submitted i, j, k (t^3 tasks, chains on C[i,j])."""
    b = _Builder(tile)
    for i in range(tiles):
        for j in range(tiles):
            for k in range(tiles):
                b.add("gemm", [("a", i, k), ("b", j, k)], [("c", i, j)])
    return b.tasks


DAGS = {"cholesky": cholesky_dag, "gemm": gemm_dag}


# ------------------------------------------------------------------ predictions
def gpu_predictions(tiles: list[int], alpha: float) -> dict:
    """{(kind, tile, 'gpu'): (µs, sigma of ln time from the 80% interval)} of the shipped compact head
    (GEMM's alpha is a launch argument: -1 in Cholesky, +1 in GEMM)."""
    from kgraph.data.corpus import tile_kernel_files
    from kgraph.models.export.c_driver import INTERVAL_COLUMNS, build_driver, features_c, predict_c

    out_dir = Path(tempfile.mkdtemp(prefix="kgraph_replay_export"))
    subprocess.run([sys.executable, "-m", "kgraph.app.cli.main", "export", "--format", "c", "--out", str(out_dir),
                    "--kernels", *map(str, tile_kernel_files())], check=True, capture_output=True)
    driver = build_driver(out_dir)
    rows, keys = [], []
    for kind in KINDS:
        for n in tiles:  # tile_ndrange + tile_launch (tiled_workload.c)
            l8 = 8 if n % 8 == 0 else 1
            if kind == "potrf":
                dims, g, l = 1, (n, 1, 1), (n, 1, 1)
            elif kind == "trsm":
                dims, g, l = 1, (n, 1, 1), (32 if n % 32 == 0 else 1, 1, 1)
            else:
                dims, g, l = 2, (n, n, 1), (l8, l8, 1)
            args = [float(n), alpha] if kind == "gemm" else [float(n)]
            rows.append((f"tile_{kind}", 0, dims, g, l, args))  # device 0 = nvidia-h200 (export.log)
            keys.append((kind, n, "gpu"))
    feats = features_c(driver, rows)
    assert (feats[:, 0] == 0).all()
    pred = predict_c(driver, [r[0] for r in rows], [0] * len(rows), feats[:, 1:])
    out = {}
    for key, p in zip(keys, pred):
        lo, hi = p[INTERVAL_COLUMNS]
        out[key] = (p[1], (math.log(hi) - math.log(lo)) / (2 * 1.2816) if lo > 0 and hi > lo else 1.04)
    return out


def cpu_predictions(tiles: list[int], checkpoint: str, descriptor_dir: str) -> dict:
    """{(kind, tile, 'cpu'): (µs, 1.04)} of a C-function head on a one-core descriptor (Python path of the
    C export, tests/test_starpu_cpu_model.py checks they agree to 1e-4 in ln)."""
    import torch

    from kgraph.app.runtime.cpu_functions import TILE_FUNCTIONS
    from kgraph.data.corpus.c import SIGNATURES
    from kgraph.data.features import to_launch_features
    from kgraph.data.harness.descriptor import load_descriptor
    from kgraph.models.compact import from_checkpoint, to_compact_inputs

    desc = load_descriptor(descriptor_dir)
    bundle = from_checkpoint(checkpoint)
    rows, keys = [], []
    for kind in KINDS:
        fn = TILE_FUNCTIONS[f"tile_{kind}"]
        names = [a.lower() for a in SIGNATURES[fn.split("_")[0]] if a.islower() or a.startswith("ld")]
        assert len(names) == CPU_ARGS[kind], (fn, names)
        for n in tiles:
            rows.append({"device_id": desc["device_id"], "dims": 1, "g0": 1, "g1": 1, "g2": 1, "l0": 1, "l1": 1,
                         "l2": 1, "args": json.dumps({a: n for a in names}), "source_id": fn, "kernel_name": fn,
                         "key": str(len(rows)), "kernel_id": fn})
            keys.append((kind, n, "cpu"))
    sources = pd.DataFrame([{"source_id": fn, "source": src, "lang": lang}
                            for fn, (src, lang, _) in bundle.sources.items()])
    feats = to_launch_features(pd.DataFrame(rows), sources, {desc["device_id"]: desc})
    with torch.no_grad():
        log_ns = bundle.head.double()(to_compact_inputs(feats, config=bundle.head.config).double())[0][:, 0].numpy()
    return {k: (math.exp(v) / 1e3, 1.04) for k, v in zip(keys, log_ns)}


# ------------------------------------------------------------------ beliefs and truth
class AdaptiveBeliefV2:
    """kgraph_adaptive.c before version 3: exp((w0 ln prior + sum ln t) / (w0 + n)), w0 = obs_sigma^2 / s0^2."""
    name = "kgraph-adaptive-v2"

    def __init__(self, priors: dict, obs_sigma: float = 0.2):
        self.priors, self.obs, self.n, self.sum_log = priors, obs_sigma, defaultdict(int), defaultdict(float)

    def predict(self, kind, tile, device):
        (prior, s0), key = self.priors[(kind, tile, device)], (kind, tile, device)
        return math.exp((self.obs ** 2 / s0 ** 2 * math.log(prior) + self.sum_log[key]) / (self.obs ** 2 / s0 ** 2 + self.n[key]))

    def observe(self, kind, tile, device, time_us):
        self.n[(kind, tile, device)], self.sum_log[(kind, tile, device)] = (self.n[(kind, tile, device)] + 1,
                                                                          self.sum_log[(kind, tile, device)] + math.log(time_us))


class AdaptiveBelief:
    """kgraph_adaptive.c (version 3, kgraph.app.runtime.adaptive_rule): series = (kind, device), arch = device;
    the C head's priors carry no interval (the global sigma). ``new_run`` = a new process (warm-up again)."""
    name = "kgraph-adaptive"

    def __init__(self, priors: dict, **rule):
        self.priors, self.rule = priors, AdaptiveRule(**rule)

    def new_run(self): self.rule.seen.clear()  # noqa: E704 (a new process)

    def predict(self, kind, tile, device):
        (prior, s0), _ = self.priors[(kind, tile, device)], self.rule.series((kind, device), device)
        est = self.rule.estimate((kind, device), tile, prior, s0 if device != "cpu" else math.nan)  # NaN: calibrate
        return None if math.isnan(est) else est

    def observe(self, kind, tile, device, time_us): self.rule.observe((kind, device), tile, time_us)  # noqa: E704


class MedianTruth(TimeTable):
    """The table's medians, computed once (TimeTable.time_us sorts the samples on every call)."""

    def __init__(self, table: TimeTable):
        self.samples, self._sizes = table.samples, table._sizes
        self.medians = {k: statistics.median(v) for k, v in table.samples.items()}

    def time_us(self, kind, tile, device):
        return self.medians[(kind, tile, device)]


class SampledTruth(TimeTable):
    """Every question for a time draws one of the measured times of that (kind, tile, device); with ``first``
    (the real runs' first task of each (kind, device) in a process), one run's first task of each key draws
    from those instead (the first launch in a process: up to e^4.8 x the steady time on the H200)."""

    def __init__(self, table: TimeTable, seed: int, first: dict | None = None):
        self.samples, self._sizes, self.rng = table.samples, table._sizes, random.Random(seed)
        self.first, self.asked = first or {}, set()

    def time_us(self, kind, tile, device):
        key, fresh = (kind, tile, device), (kind, tile, device) not in self.asked
        self.asked.add(key)
        return self.rng.choice((self.first.get(key) if fresh else None) or self.samples[key])


def eager(tasks: list[Task], truth: TimeTable, platform: Platform) -> float:
    """StarPU's eager: one central FIFO of ready tasks; an idle worker takes the oldest (idle workers in
    worker order: the OpenCL worker first, as it is worker 0 of the platform). Same transfers as simulate."""
    n = len(tasks)
    remaining = [len(t.deps) for t in tasks]
    children = [[] for _ in range(n)]
    for t in tasks:
        for d in t.deps:
            children[d].append(t.id)
    device = dict(platform.workers)
    free = {w: 0.0 for w, _ in platform.workers}
    ready = [t.id for t in tasks if remaining[t.id] == 0]
    location: dict = {}
    events, now, seq = [], 0.0, 0
    while ready or events:
        idle = [w for w, _ in platform.workers if free[w] <= now]
        while ready and idle:
            w, task = idle.pop(0), tasks[ready.pop(0)]
            node = platform.node(device[w])
            miss = sum(1 for x in (*task.reads, *task.writes) if node not in location.get(x, {"host"}))
            end = now + miss * platform.transfer_us(task.tile) + truth.time_us(task.kind, task.tile, device[w])
            for x in task.reads:
                location.setdefault(x, {"host"}).add(node)
            for x in task.writes:
                location[x] = {node}
            free[w] = end
            heapq.heappush(events, (end, seq, task.id))
            seq += 1
        if not events:
            break
        now, _, tid = heapq.heappop(events)
        for c in children[tid]:
            remaining[c] -= 1
            if remaining[c] == 0:
                ready.append(c)
    return max(free.values())


def replay_series(model: str, dag: list[Task], truth_for_run, oracle_table: TimeTable, tables: dict, platform,
                  runs: int = 5) -> list[tuple[float, dict, int]]:
    """Makespans (µs), tasks per device and uncalibrated tasks of ``runs`` consecutive replays, state kept."""
    belief = {"oracle": lambda: OracleBelief(oracle_table),
              "history": lambda: HistoryBelief(min_samples=3),
              "regression": lambda: RegressionBelief(),
              "kgraph-adaptive": lambda: AdaptiveBelief(tables["kgraph"]),
              "kgraph-adaptive-v2": lambda: AdaptiveBeliefV2(tables["kgraph"]),
              }.get(model, lambda: TableBelief(model, {k: v[0] for k, v in tables.get(model, {}).items()}))()
    out = []
    for run in range(runs):
        truth = truth_for_run(run)
        getattr(belief, "new_run", lambda: None)()
        if model == "eager":
            out.append((eager(dag, truth, platform), {}, 0))
        else:
            r = simulate(dag, truth, belief, platform)
            out.append((r.makespan_us, r.per_device, r.uncalibrated))
    return out


# ------------------------------------------------------------------ the real runs
def real_runs(real: Path, tag: str) -> tuple[pd.DataFrame, TimeTable]:
    """five_runs-TAG.csv with the busy time of each run (its slice of times-TAG.csv.gz) added."""
    rows = pd.read_csv(real / f"five_runs-{tag}.csv")
    times = pd.read_csv(real / f"times-{tag}.csv.gz")
    assert len(times) == rows.tasks.sum(), "trace and run table disagree"
    i, gpu_busy, cpu_busy, first = 0, [], [], defaultdict(list)
    for r in rows.itertuples():
        seg = times.iloc[i:i + r.tasks]
        i += r.tasks
        for (kind, device), g in seg.groupby(["kind", "device"]):
            first[(kind, int(g.tile.iloc[0]), device)].append(float(g.time_us.iloc[0]))
        assert (seg.device == "gpu").sum() == r.on_opencl and (seg.tile == int(r.size.split("x")[1])).all()
        gpu_busy.append(seg.time_us[seg.device == "gpu"].sum() / 1e3)
        cpu_busy.append(seg.time_us[seg.device == "cpu"].sum() / 1e3)
    rows["gpu_busy_ms"], rows["cpu_busy_ms"] = gpu_busy, cpu_busy
    table = TimeTable(times.itertuples(index=False, name=None))
    table.first = dict(first)  # the first task of each key in each real run (process)
    return rows, table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--real", default="benchmarks/results/starpu_five_runs_h200")
    p.add_argument("--out", default="benchmarks/results/starpu_replay_h200")
    p.add_argument("--ncpu", type=int, default=4)
    p.add_argument("--bus-gbs", type=float, default=25.0)
    p.add_argument("--seeds", type=int, default=5)
    args = p.parse_args(argv)
    real, out = Path(args.real), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    old_head = Path(tempfile.mkdtemp(prefix="kgraph_replay_head")) / "head.pt"
    old_head.write_bytes(subprocess.run(["git", "show", f"{OLD_CPU_HEAD}:models/c_functions/head.pt"],
                                        capture_output=True, check=True).stdout)
    dev_box, host = "data/datasets/c-intel-xeon/cpu-c-intel-xeon-1c", "data/datasets/c-xeon-gpu-host/cpu-c-xeon-gpu-host-1c"
    tiles = [128, 256, 512, 1024]
    cpu = {"kgraph": cpu_predictions(tiles, str(old_head), dev_box),
           "kgraph-hostdesc": cpu_predictions(tiles, str(old_head), host),
           "kgraph-fixed": cpu_predictions(tiles, "models/c_functions/head.pt", host)}
    by_workload = {w: {m: {**gpu_predictions(tiles, a), **c} for m, c in cpu.items()}
                   for w, a in (("cholesky", -1.0), ("gemm", 1.0))}

    results, checks = [], []
    for tag in ("gpu", "cpu"):
        rows, table = real_runs(real, tag)
        first, table = table.first, MedianTruth(table)
        times = pd.read_csv(real / f"times-{tag}.csv.gz")
        platform = (Platform.gpu_and_cpus(args.ncpu, bus_gbs=args.bus_gbs, elem_bytes=4) if tag == "gpu" else
                    Platform([(f"cpu{i}", "cpu") for i in range(args.ncpu)], bus_gbs=args.bus_gbs, elem_bytes=4))
        # the predictions are the run's: mean |ln(pred/meas)| over the static runs' tasks, ours vs the run's own
        i = 0
        for r in rows.itertuples():
            seg = times.iloc[i:i + r.tasks]
            i += r.tasks
            tables = by_workload[r.workload]
            if r.model == "kgraph":
                ours = np.mean([abs(math.log(tables["kgraph"][(k, t, d)][0] / m)) for k, t, d, m in seg.itertuples(index=False)])
                checks.append((tag, r.workload, r.size, r.run, r.mean_abs_log_error, ours))
        for (workload, size), real_rows in rows.groupby(["workload", "size"], sort=False):
            tiles_n, tile = map(int, size.split("x"))
            dag = DAGS[workload](tiles_n, tile)
            tables = by_workload[workload]
            for model in MODELS:
                med = replay_series(model, dag, lambda run: table, table, tables, platform)
                sampled = [replay_series(model, dag, lambda run, s=s: SampledTruth(table, 1000 * s + run, first), table,
                                         tables, platform) for s in range(args.seeds)]
                for run in range(5):
                    rr = real_rows[(real_rows.model == REAL.get(model, "")) & (real_rows.run == run + 1)]
                    rec = rr.iloc[0] if len(rr) else None
                    results.append({
                        "platform": tag, "workload": workload, "size": size, "model": model, "run": run + 1,
                        "real_ms": rec.makespan_ms if rec is not None else math.nan,
                        "real_on_gpu": rec.on_opencl if rec is not None else math.nan,
                        "real_gpu_busy_ms": round(rec.gpu_busy_ms, 3) if rec is not None else math.nan,
                        "real_cpu_busy_per_worker_ms": round(rec.cpu_busy_ms / args.ncpu, 3) if rec is not None else math.nan,
                        "replay_median_ms": round(med[run][0] / 1e3, 3),
                        "replay_median_on_gpu": med[run][1].get("gpu", math.nan) if med[run][1] else math.nan,
                        "replay_median_uncalibrated": med[run][2],
                        "replay_sampled_ms": round(statistics.mean(s[run][0] for s in sampled) / 1e3, 3),
                        "replay_sampled_sd_ms": round(statistics.pstdev(s[run][0] for s in sampled) / 1e3, 3),
                        "replay_sampled_on_gpu": round(statistics.mean(s[run][1].get("gpu", 0) for s in sampled), 1)
                        if med[run][1] else math.nan,
                    })
                print(tag, workload, size, model, [round(m[0] / 1e3, 1) for m in med], file=sys.stderr, flush=True)
    df = pd.DataFrame(results)
    df.to_csv(out / "replay.csv", index=False)
    pred = pd.DataFrame([{"kind": k, "tile": t, "device": d, "measured_median_us": round(statistics.median(v), 1),
                          **{f"{m}_{w}_us" if d == "gpu" and k == "gemm" else f"{m}_us":
                             float(f"{by_workload[w][m][(k, t, d)][0]:.4g}") for w in ("cholesky", "gemm") for m in cpu
                             if d == "cpu" or m == "kgraph"}}
                         for (k, t, d), v in sorted({**real_runs(real, "gpu")[1].samples,
                                                     **real_runs(real, "cpu")[1].samples}.items())])
    pred.to_csv(out / "predictions.csv", index=False)
    write_md(df, pred, checks, out / "replay.md", args)
    return 0


def write_md(df: pd.DataFrame, pred: pd.DataFrame, checks, path: Path, args) -> None:
    f = lambda x: "-" if x != x else f"{x:.1f}"  # noqa: E731
    lines = ["# dmda replay vs the real StarPU runs on the H200 host (2026-11-26)", "",
             f"`python -m benchmarks.starpu_replay` — platform: {args.ncpu} CPU workers (+ 1 OpenCL worker = H200 on "
             f"the gpu platform), bus {args.bus_gbs:g} GB/s; truth = the run's own per-task times. median: every task "
             f"its median time; sampled: a random measured time per task, mean of {args.seeds} seeds. Ratio = "
             "replay (sampled) / real, same run index. Models keep their state over the 5 replays (history: "
             "min 3 samples, regression: never fits at one size, adaptive: kgraph_adaptive.c's rule).", ""]
    for tag, part in df.groupby("platform", sort=False):
        lines += [f"## {tag} platform", "",
                  "| workload | size | model | real run1 | real run5 | real mean | replay median run1 / run5 | "
                  "replay sampled run1 / run5 (mean) | ratio mean | real / replay tasks on GPU (run 5) |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for (w, s, m), g in part.groupby(["workload", "size", "model"], sort=False):
            g = g.sort_values("run")
            r1, r5 = g.iloc[0], g.iloc[-1]
            ratio = g.replay_sampled_ms.mean() / g.real_ms.mean() if g.real_ms.notna().all() else math.nan
            lines.append(f"| {w} | {s} | {m} | {f(r1.real_ms)} | {f(r5.real_ms)} | {f(g.real_ms.mean())} | "
                         f"{f(r1.replay_median_ms)} / {f(r5.replay_median_ms)} | {f(r1.replay_sampled_ms)} / "
                         f"{f(r5.replay_sampled_ms)} ({f(g.replay_sampled_ms.mean())}) | "
                         f"{'-' if ratio != ratio else f'{ratio:.2f}'} | "
                         f"{f(r5.real_on_gpu) if tag == 'gpu' else '-'} / {f(r5.replay_sampled_on_gpu) if tag == 'gpu' else '-'} |")
        lines.append("")
    lines += ["## Busy-time bound of the real runs", "",
              "max(GPU busy, CPU busy / workers) from the run's own trace, against its makespan (mean over the 5 runs).",
              "", "| platform | workload | size | model | real makespan | GPU busy | CPU busy / worker | makespan / bound |",
              "|---|---|---|---|---|---|---|---|"]
    real = df[df.model.isin(["kgraph", "kgraph-adaptive", "history", "regression", "eager"])]
    for (tag, w, s, m), g in real.groupby(["platform", "workload", "size", "model"], sort=False):
        bound = np.maximum(g.real_gpu_busy_ms.fillna(0), g.real_cpu_busy_per_worker_ms)
        lines.append(f"| {tag} | {w} | {s} | {m} | {f(g.real_ms.mean())} | {f(g.real_gpu_busy_ms.mean())} | "
                     f"{f(g.real_cpu_busy_per_worker_ms.mean())} | {(g.real_ms / bound).mean():.2f} |")
    lines += ["", "## Predictions (µs) against the measured medians", "", "| " + " | ".join(pred.columns) + " |", "|" + "---|" * len(pred.columns),
              *["| " + " | ".join(str(v) for v in r) + " |" for r in pred.itertuples(index=False)], "",
              "Check: mean |ln(pred/meas)| of the static kgraph runs, as the run reported it / recomputed from these "
              "predictions on the run's own tasks:", "",
              "| platform | workload | size | run | real | recomputed |", "|---|---|---|---|---|---|"]
    lines += [f"| {t} | {w} | {s} | {r} | {a:.3f} | {b:.3f} |" for t, w, s, r, a, b in checks if r in (1, 5)]
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())

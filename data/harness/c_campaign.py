"""Measure the C corpus on CPU cores: ``python -m kgraph.data.harness.c_campaign --out DIR --budget-s N --cores 1 2``.

For each core count k the rows go to ``DIR/cpu-c-<model>-<k>c/`` (a dataset folder of the usual format,
:mod:`kgraph.data.harness.store`, with its ``device.json``). Single-threaded variants are measured on
one core only; the OpenMP variants on every k. The launches are the catalog of
:mod:`kgraph.data.corpus.c.launches` (~21,600 for k = 1 2 4 8 14: rectangular shapes, free sizes,
leading dimensions larger than the rows), visited round-robin over (k, kernel) in a seeded order, so a
short budget covers every kernel evenly (``--tiles``: the square tiles only, smallest first).
``--workers W`` runs W single-core workers side by side, each pinned to its own CPU, and W // k workers
of k disjoint CPUs for the k-core launches (core counts one after another, each given its share of the
budget). Resumable: launches whose key is in the folder are skipped; a kernel that timed out or crashed
at some work is not tried at more work (the store's ceilings). Counts come from the catalog's formulas
(``counts_source = "c-formula"``: flops, square roots and compulsory bytes; ``int_ops`` and ``atomics``
are written as 0, not counted).
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import zlib
from datetime import datetime, timezone
from pathlib import Path

from kgraph.data.corpus.c import (C_DIR, NAIVE_MAX_TILE, TILES, bytes_moved, catalog, flops, sizes_for,
                                  transcendentals)
from kgraph.data.corpus.c.launches import CORE_COUNTS, launches, visit_order
from kgraph.errors import module_main

from .cpu_host import (cache_sizes, check_same_machine, clock_mhz, cpu_model, mem_bytes,  # noqa: F401 - re-exported
                       model_slug, vendor)
from .c_build import CBuildError, build_kernel, build_library, compiler_version, flags_for
from .c_sources import call_args, source_row
from .c_runner import CTimingPolicy, CWorker, coefficient_of_variation, policy_dict
from .columns import COUNT_COLUMNS, empty_row, launch_key
from .descriptor import load_descriptor, save_descriptor, validate_descriptor
from .store import DatasetStore

C_HARNESS_VERSION = "c-1.0"


# -- the machine --------------------------------------------------------------------------------
def device_id_for(cores: int, slug: str | None = None) -> str:
    return f"cpu-c-{slug or model_slug()}-{cores}c"


def measure_cpu(cores: list[int], timeout_s: float = 300.0, cpus: list[int] | None = None) -> dict:
    """Run the micro-benchmarks (``microbench.c``) on 1 and on each k threads in a worker on max(cores)
    CPUs (the first of ``cpus`` when given)."""
    caches = cache_sizes()
    llc = max((c["bytes"] for c in caches if c["type"] in ("Unified", "Data")), default=32 << 20)
    lib = build_library(C_DIR / "microbench.c", openmp=True)
    threads = sorted({1, *cores})
    with CWorker(max(cores), cpus=list(cpus)[:max(cores)] if cpus else None) as worker:
        answer = worker.request({"t": "describe", "lib": str(lib), "threads": threads,
                                 "copy_bytes": max(64 << 20, 4 * llc)}, timeout_s)
    if answer.get("status") != "ok":
        raise RuntimeError(f"CPU micro-benchmarks failed: {answer.get('status')}: {answer.get('message')}")
    return {"caches": caches, **answer}


def descriptor_for(cores: int, measured: dict, slug: str | None = None) -> dict:
    """The ``device.json`` of ``cores`` cores: the usual fields (roofline on k threads) plus ``per_core``
    (one-core FMA peaks and copy bandwidth, all-core copy bandwidth, caches)."""
    caches = measured["caches"]
    l1 = next((c["bytes"] for c in caches if c["level"] == 1 and c["type"] in ("Data", "Unified")), 32768)
    llc = max((c["bytes"] for c in caches), default=32 << 20)
    by_t = measured["threads"]
    one, k = by_t["1"], by_t[str(cores)]
    all_t = by_t[str(max(int(t) for t in by_t))]
    return validate_descriptor({
        "device_id": device_id_for(cores, slug), "name": cpu_model(), "vendor": vendor(),
        "type": "CPU", "platform": "C functions via ctypes (kgraph.data.harness.c_runner)",
        "driver": compiler_version(), "compiler_flags": " ".join(flags_for(True)),
        "opencl_version": "none", "compute_units": cores, "max_clock_mhz": clock_mhz(),
        "global_mem_bytes": mem_bytes(), "local_mem_bytes": l1, "max_work_group_size": 1,
        "global_cache_bytes": llc, "llc_bytes": llc, "has_fp64": True,
        "roofline": {"copy_bw_gbs": round(k["copy_bw_gbs"], 4), "fp32_gflops": round(k["fp32_gflops"], 4),
                     "fp64_gflops": round(k["fp64_gflops"], 4), "local_bw_gbs": round(k["l1_copy_gbs"], 4),
                     "launch_overhead_us": round(measured["call_overhead_us"], 4)},
        "per_core": {"fp32_fma_gflops": round(one["fp32_gflops"], 4), "fp64_fma_gflops": round(one["fp64_gflops"], 4),
                     "copy_bw_gbs_one_core": round(one["copy_bw_gbs"], 4),
                     "copy_bw_gbs_all_cores": round(all_t["copy_bw_gbs"], 4),
                     "all_cores": max(int(t) for t in by_t),
                     "l1_copy_gbs_one_core": round(one["l1_copy_gbs"], 4), "caches": caches},
    }, f"descriptor of {cores} core(s)")


# -- rows ---------------------------------------------------------------------------------------
def counts_of(kernel, sizes: dict) -> dict:
    """The count columns of one call from the catalog's formulas."""
    itemsize = 4 if kernel.dtype == "fp32" else 8
    loads, stores = bytes_moved(kernel.family, sizes, itemsize)
    fl = flops(kernel.family, sizes)
    out = {name: 0 for name in COUNT_COLUMNS}
    out.update(flops_fp32=fl if kernel.dtype == "fp32" else 0, flops_fp64=fl if kernel.dtype == "fp64" else 0,
               transcendental=transcendentals(kernel.family, sizes), global_load_bytes=loads,
               global_store_bytes=stores, footprint_bytes=max(loads, stores) if kernel.family in ("potrf", "getrf")
               else loads + stores - (stores if kernel.family in ("gemm", "syrk", "trsm") else 0))
    return out


def make_row(device_id: str, kernel, sizes: dict, cores: int, source_id: str, answer: dict,
             policy: CTimingPolicy) -> dict:
    """One launch row (``columns.LAUNCH_SCHEMA``) of a worker's answer."""
    row = empty_row()
    row.update(key=launch_key(device_id, kernel.kernel_id, sizes, (cores,), (1,)), device_id=device_id,
               kernel_id=kernel.kernel_id, family=f"c_{kernel.family}", source_id=source_id,
               kernel_name=kernel.symbol, sizes=json.dumps(sizes, sort_keys=True),
               args=json.dumps(call_args(kernel.family, sizes)),
               dims=1, g0=cores, g1=1, g2=1, l0=1, l1=1, l2=1, status=answer["status"],
               message=str(answer.get("message", ""))[:2000], harness_version=C_HARNESS_VERSION,
               timestamp=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    if answer["status"] == "ok":
        times = answer["times_ns"]
        srt = sorted(times)
        row.update(median_time_ns=float(srt[len(srt) // 2] if len(srt) % 2 else (srt[len(srt) // 2 - 1] + srt[len(srt) // 2]) / 2),
                   min_time_ns=float(srt[0]), max_time_ns=float(srt[-1]), cv=coefficient_of_variation(times),
                   repeats=len(times), launches_per_sample=int(answer.get("calls_per_sample", 1)),
                   counts_source="c-formula", **counts_of(kernel, sizes))
        dropped = len(answer.get("all_times_ns", times)) - len(times)
        raw_cv = coefficient_of_variation(answer.get("all_times_ns", times))
        row["message"] = f"dropped {dropped} interrupted sample(s) (> {policy.outlier_factor:g}x median); raw cv {raw_cv:.4f}"
    return row


# -- the campaign -------------------------------------------------------------------------------
def plan(cores: list[int], kernels, tiles=TILES) -> list[tuple]:
    """(tile, k, kernel, sizes) in visit order: by tile, then core count, then catalog order (the square
    tiles only: ``--tiles`` campaigns and the tests; the default is :func:`launch_plan`)."""
    out = []
    for b in tiles:
        for k in cores:
            for kernel in kernels:
                if k > 1 and not kernel.uses_openmp:
                    continue
                if kernel.variant == "naive" and b > NAIVE_MAX_TILE:
                    continue
                for sizes in sizes_for(kernel.family, b):
                    out.append((b, k, kernel, sizes))
    return out


def launch_plan(cores: list[int], kernels, seed: int = 0, per_kernel: dict | None = None) -> list[tuple]:
    """(seed, k, kernel, sizes) of the launch catalog (:mod:`kgraph.data.corpus.c.launches`) in its visit
    order: round-robin over (core count, kernel), seeded, the same on every run (resumable)."""
    items = visit_order(launches(cores, kernels, seed, per_kernel), seed)
    return [(zlib.crc32(item.sizes_key.encode()) % 1000, item.cores, item.kernel, item.sizes) for item in items]


def cpu_pool(workers: int | None = None) -> list[int]:
    """The CPUs a campaign may use: this process's affinity (``taskset`` narrows it), one per physical
    core first (SMT siblings last), the first ``workers`` of them."""
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))

    def core_of(cpu: int) -> tuple:
        base = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            siblings = (base / "thread_siblings_list").read_text().strip()
            first = int(re.split(r"[,-]", siblings)[0])
        except (OSError, ValueError):
            first = cpu
        return (cpu != first, cpu)  # a core's first thread before any second thread

    ordered = sorted(allowed, key=core_of)
    return ordered[:workers] if workers else ordered


def lanes_for(k: int, pool: list[int]) -> list[list[int]]:
    """Disjoint sets of ``k`` CPUs of ``pool`` (one worker each): ``len(pool) // k`` of them."""
    return [pool[i * k:(i + 1) * k] for i in range(len(pool) // k)]


class _Shared:
    """What the lanes of a phase share: the job list, the stores, the summary, one lock for all."""

    def __init__(self, jobs, stores, slug, policy, timeout_s, deadline, summary, quiet):
        self.jobs, self.next = jobs, 0
        self.stores, self.slug = stores, slug
        self.policy, self.timeout_s, self.deadline = policy, timeout_s, deadline
        self.summary, self.quiet = summary, quiet
        self.lock = threading.Lock()

    def take(self):
        """The next job to run (skipping stored keys and kernels over their ceiling); None when done or
        out of time (the jobs left are counted)."""
        with self.lock:
            while self.next < len(self.jobs):
                seed, k, kernel, sizes = self.jobs[self.next]
                store = self.stores[k]
                key = launch_key(device_id_for(k, self.slug), kernel.kernel_id, sizes, (k,), (1,))
                if key in store.completed_keys:
                    self.next += 1
                    self.summary["skipped_done"] += 1
                    continue
                ceiling = store.ceilings.get(kernel.kernel_id)
                if ceiling is not None and flops(kernel.family, sizes) >= ceiling:
                    self.next += 1
                    continue
                if time.monotonic() >= self.deadline:
                    return None
                self.next += 1
                return seed, k, kernel, sizes, store.add_source(source_row(kernel))
            return None

    def left(self) -> int:
        with self.lock:
            return len(self.jobs) - self.next


def _lane(shared: _Shared, k: int, cpus: list[int]) -> None:
    """One worker pinned to ``cpus`` running jobs until none is left or the phase's time is up."""
    device_id = device_id_for(k, shared.slug)
    with CWorker(k, cpus=cpus) as worker:
        while True:
            job = shared.take()
            if job is None:
                return
            seed, _, kernel, sizes, source_id = job
            try:
                with _BUILD_LOCK:
                    lib = build_kernel(kernel)
            except CBuildError as exc:
                answer = {"status": "build_error", "message": str(exc)}
            else:
                answer = worker.request({"t": "run", "lib": str(lib), "symbol": kernel.symbol, "family": kernel.family,
                                         "dtype": kernel.dtype, "sizes": sizes, "seed": seed,
                                         "policy": policy_dict(shared.policy)}, shared.timeout_s)
            row = make_row(device_id, kernel, sizes, k, source_id, answer, shared.policy)
            with shared.lock:
                store, summary = shared.stores[k], shared.summary
                if answer["status"] in ("timeout", "crash"):
                    store.add_ceiling(kernel.kernel_id, flops(kernel.family, sizes))
                if store.append(row):
                    summary["rows"] += 1
                    summary["statuses"][row["status"]] = summary["statuses"].get(row["status"], 0) + 1
                    summary["rows_by_cores"][str(k)] = summary["rows_by_cores"].get(str(k), 0) + 1
                    if row["status"] == "ok":
                        summary["cv"].append(row["cv"])
            if not shared.quiet:
                t = row["median_time_ns"]
                print(f"{device_id} cpus {cpus[0]}{'-' + str(cpus[-1]) if len(cpus) > 1 else ''} {kernel.kernel_id} "
                      f"{json.dumps(sizes)} {row['status']}"
                      + (f" {t / 1e3:.1f} us cv {row['cv']:.3f} x{row['repeats']}" if t else f" {row['message'][:120]}"),
                      file=sys.stderr, flush=True)


_BUILD_LOCK = threading.Lock()  # one compile at a time (the cache's temporary file is named by pid)


def run_campaign(out: Path, budget_s: float, cores: list[int], families=None, dtypes=None, variants=None,
        tiles=None, timeout_s: float = 60.0, policy: CTimingPolicy = CTimingPolicy(), quiet: bool = False,
        workers: int | None = 1, seed: int = 0, per_kernel: dict | None = None) -> dict:
    """Measure until done or ``budget_s`` is spent; returns a summary.

    ``tiles`` given: the square tiles of :func:`plan` (smallest first); else the launch catalog of
    :func:`launch_plan`. ``workers``: how many CPUs of :func:`cpu_pool` to use (None: all this process may
    use; 1: one worker at a time, on the first k CPUs for k cores). The core counts go one after another
    (phases); a phase of ``k`` runs ``max(1, workers // k)`` workers
    side by side, each pinned to its own ``k`` CPUs, drawing the next job of the phase's list; a phase gets
    the budget left times its share of the work left (jobs left / workers, summed over the phases still to
    run), so a cut run measures every core count.
    """
    start = time.monotonic()
    deadline = start + budget_s
    slug = model_slug()
    cores = sorted(set(cores))
    pool = cpu_pool(max(workers, *cores) if workers else None)
    too_many = [k for k in cores if k > len(pool)]
    if too_many:
        raise ValueError(f"--cores {too_many}: more than the {len(pool)} CPU(s) this campaign may use")
    width = {k: max(workers or len(pool), k) for k in cores}  # CPUs a phase of k uses (one lane at least)
    kernels = [k for k in catalog() if (not families or k.family in families)
               and (not dtypes or k.dtype in dtypes) and (not variants or k.variant in variants)]
    stores, descriptors = {}, {}
    measured = None
    for k in cores:
        folder = Path(out) / device_id_for(k, slug)
        stores[k] = DatasetStore(folder, device_id=device_id_for(k, slug), flush_s=30.0)
        if (folder / "device.json").exists():
            descriptors[k] = load_descriptor(folder)
            check_same_machine(descriptors[k], folder)
        else:
            measured = measured or measure_cpu(cores, cpus=pool)
            descriptors[k] = descriptor_for(k, measured, slug)
            save_descriptor(descriptors[k], folder)
    summary = {"rows": 0, "statuses": {}, "rows_by_cores": {}, "cv": [], "skipped_done": 0, "left": 0,
               "cpus": pool, "workers": {}}
    try:
        jobs = plan(cores, kernels, tiles) if tiles else launch_plan(cores, kernels, seed, per_kernel)
        by_k = {k: [j for j in jobs if j[1] == k] for k in cores}
        todo = {}
        for k in cores:
            device_id = device_id_for(k, slug)
            fresh = [j for j in by_k[k] if launch_key(device_id, j[2].kernel_id, j[3], (k,), (1,))
                     not in stores[k].completed_keys]
            summary["skipped_done"] += len(by_k[k]) - len(fresh)
            by_k[k] = fresh
            todo[k] = len(by_k[k]) / len(lanes_for(k, pool[:width[k]]))
        for i, k in enumerate(cores):
            now = time.monotonic()
            weight = sum(todo[c] for c in cores[i:])
            share = (deadline - now) * (todo[k] / weight if weight else 0.0)
            lanes = lanes_for(k, pool[:width[k]])
            summary["workers"][str(k)] = len(lanes)
            shared = _Shared(by_k[k], stores, slug, policy, timeout_s, min(deadline, now + share),
                             summary, quiet)
            threads = [threading.Thread(target=_lane, args=(shared, k, cpus), name=f"c-lane-{k}c-{cpus[0]}",
                                        daemon=True) for cpus in lanes]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            summary["left"] += shared.left()
    finally:
        for s in stores.values():
            s.close()
    summary["wall_s"] = round(time.monotonic() - start, 1)
    return summary


def add_arguments(p) -> None:
    """The options of ``kgraph c-campaign`` and ``python -m kgraph.data.harness.c_campaign``.

    Args:
        p: the argparse parser to fill.
    """
    p.add_argument("--out", required=True, type=Path, help="parent folder; rows go to OUT/cpu-c-<model>-<k>c/")
    p.add_argument("--budget-s", type=float, default=300.0, help="stop starting launches after this many seconds")
    p.add_argument("--cores", type=int, nargs="+", default=[1],
                   help=f"core counts k (OpenMP variants on each; the catalog's default set is {' '.join(map(str, CORE_COUNTS))})")
    p.add_argument("--workers", type=int, default=1,
                   help="CPUs to use (0: all this process may use, see taskset): WORKERS single-core workers side by "
                        "side, WORKERS // k workers of k cores each, each pinned to its own CPUs")
    p.add_argument("--families", nargs="*", help="only these families (gemm syrk trsm potrf getrf)")
    p.add_argument("--dtypes", nargs="*", help="only fp32 / fp64")
    p.add_argument("--variants", nargs="*", help="only these variants (naive vec blocked omp)")
    p.add_argument("--tiles", action="store_true",
                   help="only the square tiles (16 ... --max-tile, smallest first) instead of the launch catalog")
    p.add_argument("--max-tile", type=int, default=max(TILES), help="largest tile size visited (with --tiles)")
    p.add_argument("--seed", type=int, default=0, help="the launch catalog's seed (its sizes and visit order)")
    p.add_argument("--timeout-s", type=float, default=60.0, help="a call (check + timing) answered later is a timeout")
    p.add_argument("--target-cv", type=float, default=0.02)
    p.add_argument("--max-repeats", type=int, default=200)
    p.add_argument("--time-cap-s", type=float, default=0.5, help="summed call time per launch")
    p.add_argument("--quiet", action="store_true")


def run(args) -> int:
    """Run the campaign and print its summary (JSON, with the CV quantiles).

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    policy = CTimingPolicy(target_cv=args.target_cv, max_repeats=args.max_repeats, time_cap_s=args.time_cap_s)
    tiles = tuple(t for t in TILES if t <= args.max_tile) if args.tiles else None
    summary = run_campaign(args.out, args.budget_s, args.cores, args.families, args.dtypes, args.variants,
                           tiles, args.timeout_s, policy, args.quiet, workers=args.workers or None, seed=args.seed)
    cvs = sorted(summary.pop("cv"))
    if cvs:
        q = lambda f: cvs[min(len(cvs) - 1, int(f * len(cvs)))]
        summary["cv_quantiles"] = {"p10": q(0.1), "p50": q(0.5), "p90": q(0.9), "max": cvs[-1]}
        summary["cv_le_target"] = sum(c <= args.target_cv for c in cvs) / len(cvs)
    print(json.dumps(summary, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.data.harness.c_campaign", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())

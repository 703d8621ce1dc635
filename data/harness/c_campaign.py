"""Measure the C corpus on CPU cores: ``python -m kgraph.data.harness.c_campaign --out DIR --budget-s N --cores 1 2``.

For each core count k the rows go to ``DIR/cpu-c-<model>-<k>c/`` (a dataset folder of the usual format,
:mod:`kgraph.data.harness.store`, with its ``device.json``). Single-threaded variants are measured on
one core only; the OpenMP variants on every k. Visits go by tile size, smallest first, over every
kernel, so a short budget covers the whole catalog at small sizes. Resumable: launches whose key is in
the folder are skipped; a kernel that timed out or crashed at some work is not tried at larger work
(the store's ceilings). Counts come from the catalog's formulas (``counts_source = "c-formula"``:
flops, square roots and compulsory bytes; ``int_ops`` and ``atomics`` are written as 0, not counted).
"""
from __future__ import annotations

import json
import re
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from kgraph.data.corpus.c import (C_DIR, NAIVE_MAX_TILE, TILES, bytes_moved, catalog, flops, sizes_for,
                                  transcendentals)
from kgraph.errors import module_main

from .c_build import CBuildError, build_kernel, build_library, compiler_version, flags_for
from .c_sources import call_args, source_row
from .c_runner import CTimingPolicy, CWorker, coefficient_of_variation, policy_dict
from .columns import COUNT_COLUMNS, empty_row, launch_key
from .derived import derive
from .descriptor import load_descriptor, save_descriptor, validate_descriptor
from .store import DatasetStore

C_HARNESS_VERSION = "c-1.0"


# -- the machine --------------------------------------------------------------------------------
def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "cpu"


def model_slug(name: str | None = None) -> str:
    """``AMD EPYC 9654 96-Core Processor`` -> ``amd-epyc-9654``: a device-id friendly model name."""
    name = (name or cpu_model()).lower()
    name = re.sub(r"\(r\)|\(tm\)|cpu|processor|@.*$|\d+-core", " ", name)
    return "-".join(re.findall(r"[a-z0-9]+", name)[:4]) or "cpu"


def device_id_for(cores: int, slug: str | None = None) -> str:
    return f"cpu-c-{slug or model_slug()}-{cores}c"


def cache_sizes(cpu: int = 0) -> list[dict]:
    """The caches of ``cpu`` from ``/sys/devices/system/cpu/cpuN/cache``: level, type, bytes, sharing CPUs."""
    out = []
    base = Path(f"/sys/devices/system/cpu/cpu{cpu}/cache")
    for index in sorted(base.glob("index*")):
        try:
            size = (index / "size").read_text().strip()
            mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(size[-1], 1)
            out.append({"level": int((index / "level").read_text()), "type": (index / "type").read_text().strip(),
                        "bytes": int(size.rstrip("KMG")) * mult,
                        "shared_cpu_list": (index / "shared_cpu_list").read_text().strip()})
        except (OSError, ValueError):
            continue
    return out


def _clock_mhz() -> int:
    for path in ("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",):
        try:
            return int(Path(path).read_text()) // 1000
        except (OSError, ValueError):
            pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return int(float(line.split(":", 1)[1]))
    except OSError:
        pass
    return 1000


def _mem_bytes() -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 30


def measure_cpu(cores: list[int], timeout_s: float = 300.0) -> dict:
    """Run the micro-benchmarks (``microbench.c``) on 1 and on each k threads in a worker on max(cores)."""
    caches = cache_sizes()
    llc = max((c["bytes"] for c in caches if c["type"] in ("Unified", "Data")), default=32 << 20)
    lib = build_library(C_DIR / "microbench.c", openmp=True)
    threads = sorted({1, *cores})
    with CWorker(max(cores)) as worker:
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
        "device_id": device_id_for(cores, slug), "name": cpu_model(), "vendor": _vendor(),
        "type": "CPU", "platform": "C functions via ctypes (kgraph.data.harness.c_runner)",
        "driver": compiler_version(), "compiler_flags": " ".join(flags_for(True)),
        "opencl_version": "none", "compute_units": cores, "max_clock_mhz": _clock_mhz(),
        "global_mem_bytes": _mem_bytes(), "local_mem_bytes": l1, "max_work_group_size": 1,
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


def _vendor() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("vendor_id"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


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


def make_row(device_id: str, kernel, sizes: dict, cores: int, source_id: str, answer: dict, roofline: dict,
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
    row.update(derive(row, roofline))
    return row


# -- the campaign -------------------------------------------------------------------------------
def plan(cores: list[int], kernels, tiles=TILES) -> list[tuple]:
    """(tile, k, kernel, sizes) in visit order: by tile, then core count, then catalog order."""
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


def run_campaign(out: Path, budget_s: float, cores: list[int], families=None, dtypes=None, variants=None,
        tiles=TILES, timeout_s: float = 60.0, policy: CTimingPolicy = CTimingPolicy(), quiet: bool = False) -> dict:
    """Measure until done or ``budget_s`` is spent; returns a summary."""
    deadline = time.monotonic() + budget_s
    slug = model_slug()
    kernels = [k for k in catalog() if (not families or k.family in families)
               and (not dtypes or k.dtype in dtypes) and (not variants or k.variant in variants)]
    stores, descriptors = {}, {}
    measured = None
    for k in cores:
        folder = Path(out) / device_id_for(k, slug)
        stores[k] = DatasetStore(folder, device_id=device_id_for(k, slug), flush_s=30.0)
        if (folder / "device.json").exists():
            descriptors[k] = load_descriptor(folder)
        else:
            measured = measured or measure_cpu(cores)
            descriptors[k] = descriptor_for(k, measured, slug)
            save_descriptor(descriptors[k], folder)
    workers = {k: CWorker(k) for k in cores}
    summary = {"rows": 0, "statuses": {}, "cv": [], "skipped_done": 0, "left": 0}
    try:
        jobs = plan(cores, kernels, tiles)
        for i, (b, k, kernel, sizes) in enumerate(jobs):
            store, device_id = stores[k], device_id_for(k, slug)
            key = launch_key(device_id, kernel.kernel_id, sizes, (k,), (1,))
            if key in store.completed_keys:
                summary["skipped_done"] += 1
                continue
            work = flops(kernel.family, sizes)
            ceiling = store.ceilings.get(kernel.kernel_id)
            if ceiling is not None and work >= ceiling:
                continue
            if time.monotonic() >= deadline:
                summary["left"] = len(jobs) - i
                break
            source_id = store.add_source(source_row(kernel))  # the file with kg_c.h resolved for the dtype
            try:
                lib = build_kernel(kernel)
            except CBuildError as exc:
                answer = {"status": "build_error", "message": str(exc)}
            else:
                answer = workers[k].request({"t": "run", "lib": str(lib), "symbol": kernel.symbol, "family": kernel.family,
                                             "dtype": kernel.dtype, "sizes": sizes, "seed": b,
                                             "policy": policy_dict(policy)}, timeout_s)
            if answer["status"] in ("timeout", "crash"):
                store.add_ceiling(kernel.kernel_id, work)
            row = make_row(device_id, kernel, sizes, k, source_id, answer, descriptors[k]["roofline"], policy)
            if store.append(row):
                summary["rows"] += 1
                summary["statuses"][row["status"]] = summary["statuses"].get(row["status"], 0) + 1
                if row["status"] == "ok":
                    summary["cv"].append(row["cv"])
            if not quiet:
                t = row["median_time_ns"]
                print(f"{device_id} {kernel.kernel_id} {json.dumps(sizes)} {row['status']}"
                      + (f" {t / 1e3:.1f} us cv {row['cv']:.3f} x{row['repeats']}" if t else f" {row['message'][:120]}"),
                      file=sys.stderr, flush=True)
    finally:
        for w in workers.values():
            w.close()
        for s in stores.values():
            s.close()
    return summary


def add_arguments(p) -> None:
    """The options of ``kgraph c-campaign`` and ``python -m kgraph.data.harness.c_campaign``.

    Args:
        p: the argparse parser to fill.
    """
    p.add_argument("--out", required=True, type=Path, help="parent folder; rows go to OUT/cpu-c-<model>-<k>c/")
    p.add_argument("--budget-s", type=float, default=300.0, help="stop starting launches after this many seconds")
    p.add_argument("--cores", type=int, nargs="+", default=[1], help="core counts k (OpenMP variants on each)")
    p.add_argument("--families", nargs="*", help="only these families (gemm syrk trsm potrf getrf)")
    p.add_argument("--dtypes", nargs="*", help="only fp32 / fp64")
    p.add_argument("--variants", nargs="*", help="only these variants (naive vec blocked omp)")
    p.add_argument("--max-tile", type=int, default=max(TILES), help="largest tile size visited")
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
    summary = run_campaign(args.out, args.budget_s, args.cores, args.families, args.dtypes, args.variants,
                  tuple(t for t in TILES if t <= args.max_tile), args.timeout_s, policy, args.quiet)
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

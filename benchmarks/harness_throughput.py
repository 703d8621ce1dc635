"""Harness throughput: launches per minute (all, and at CV <= 2%) of a campaign on a fixed kernel subset.

Runs ``kgraph.data.harness.campaign.run_campaign`` into a fresh temporary folder, on a fixed subset of the
corpus (the first ``--per-family`` kernels of every ``--family-step``-th family, sorted by family
name), under a time budget, with cold build caches by default (a fresh ``POCL_CACHE_DIR`` and
harness binary cache, like a fresh GPU machine). Prints one markdown row and, when the harness
reports it, the worker's time per phase (build, check, inputs, timing, counts, ...).

    python -m benchmarks.harness_throughput --device pocl --budget-s 120
    python -m benchmarks.harness_throughput --device nvidia --budget-s 120 --warm-cache

The device descriptor (roofline, a few seconds) is measured once before the clock starts.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HEADER = ("| device | kernels | budget s | wall s | rows | ok | launches/min | launches/min at CV<=2% "
          "| counts instrumented |\n|---|---|---|---|---|---|---|---|---|")


def kernel_subset(per_family: int, family_step: int) -> list[str]:
    """The benchmark's kernel ids: deterministic, spread over the families."""
    from kgraph.data.corpus import all_specs

    by_family: dict[str, list[str]] = {}
    for spec in all_specs():
        by_family.setdefault(spec.family, []).append(spec.kernel_id)
    families = sorted(by_family)[::family_step]
    return [kid for fam in families for kid in by_family[fam][:per_family]]


def run(device: str, budget_s: float, per_family: int, family_step: int, warm_cache: bool,
        extra: list[str]) -> int:
    from kgraph.data.harness.campaign import add_arguments, options_from_args, run_campaign
    from kgraph.data.harness.descriptor import measure_descriptor, save_descriptor
    from kgraph.data.harness.devices import pick_device
    from kgraph.data.harness.store import read_launches

    kernels = kernel_subset(per_family, family_step)
    scratch = Path(tempfile.mkdtemp(prefix="kgraph-throughput-"))
    if not warm_cache:
        os.environ["POCL_CACHE_DIR"] = str(scratch / "pocl-cache")
        os.environ["KGRAPH_BUILD_CACHE"] = str(scratch / "build-cache")
    out = scratch / "dataset"
    out.mkdir()
    save_descriptor(measure_descriptor(pick_device(device)), out)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--device", device, "--out", str(out), "--budget-s", str(budget_s),
                              "--kernels", *kernels, "--no-progress", *extra])
    start = time.monotonic()
    summary = run_campaign(options_from_args(args))
    wall = time.monotonic() - start
    df = read_launches(out)
    ok = df[df.status == "ok"]
    instrumented = int((ok.counts_source == "instrumented").sum())
    print(HEADER)
    print(f"| {summary.device_id} | {len(kernels)} | {budget_s:g} | {wall:.0f} | {len(df)} | {len(ok)} "
          f"| {len(df) / wall * 60:.0f} | {int((ok.cv <= 0.02).sum()) / wall * 60:.0f} | {instrumented} |")
    phases = getattr(summary, "phases", None)
    if phases:
        total = sum(phases.values())
        print("\nworker time per phase (s): " + ", ".join(
            f"{name} {sec:.1f} ({sec / max(total, 1e-9):.0%})" for name, sec in
            sorted(phases.items(), key=lambda kv: -kv[1])))
    print(f"statuses: {summary.statuses}; dataset: {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.harness_throughput",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="pocl", help="device substring (as for the campaign)")
    parser.add_argument("--budget-s", type=float, default=120.0, help="campaign budget in seconds")
    parser.add_argument("--per-family", type=int, default=2, help="kernels taken from each chosen family")
    parser.add_argument("--family-step", type=int, default=3, help="take every n-th family (sorted by name)")
    parser.add_argument("--warm-cache", action="store_true", help="keep the usual build caches")
    args, extra = parser.parse_known_args(argv)
    return run(args.device, args.budget_s, args.per_family, args.family_step, args.warm_cache, extra)


if __name__ == "__main__":
    sys.exit(main())

"""Resumable measurement campaigns: every corpus kernel, round-robin, under a time budget.

    python -m kgraph.data.harness.campaign --device nvidia --budget-s 500 --out data/datasets/nvidia-h200

Pass 0 gives every kernel ``--first-chunk`` launches (so a time-limited run covers all kernels);
later passes deepen by ``--chunk`` launches per kernel until ``--max-per-kernel`` or the budget.
Re-running the same command resumes: stored keys are skipped, failed kernels are not retried.
At start, a pool of ``--build-jobs`` processes pre-builds every source (and its instrumented
version) in visit order into the binary cache (:mod:`kgraph.data.harness.builds`) while the measuring
worker starts at once.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from kgraph.errors import InputError, UsageError, module_main

from .builds import Prebuilder, default_jobs
from .columns import source_id_of
from .counts import COUNT_MODES, INSTRUMENTED_MODES, CountCache
from .descriptor import load_descriptor, save_descriptor
from .devices import pick_device
from .planner import PlanAhead, ReferencesAhead
from .runner import base_row
from .sampling import DeviceLimits, sample_launches
from .store import DatasetStore, damaged
from .timing import TimingPolicy
from .worker import Worker, WorkerDied, WorkerTimeout, load_specs, work_of

DEFAULT_PROVIDER = "kgraph.data.corpus:all_specs"


@dataclass
class CampaignOptions:
    """Everything a campaign needs (the CLI options one to one)."""

    device: str | None = None
    out: str | None = None
    budget_s: float | None = None
    max_per_kernel: int | None = None
    families: list[str] | None = None
    kernels: list[str] | None = None
    seed: int = 0
    specs: str = DEFAULT_PROVIDER
    first_chunk: int = 4
    chunk: int = 16
    build_timeout_s: float = 120.0
    launch_timeout_s: float = 60.0
    shard_rows: int = 2000
    counts: str = "auto"
    max_instrumented_time_s: float = 0.02
    max_launch_mb: float | None = None
    policy: TimingPolicy = field(default_factory=TimingPolicy)
    slow_launch_s: float | None = None  # overrides policy.slow_launch_s; None: 0.05 on GPUs, 0.25 else
    build_jobs: int | None = None       # None: default_jobs(); 0: no pre-build pool
    progress: bool = True


@dataclass
class CampaignSummary:
    device_id: str
    out: str
    rows_written: int = 0
    ok_rows: int = 0
    ok_rows_cv_ok: int = 0
    failed_kernels: int = 0
    elapsed_s: float = 0.0
    statuses: dict = field(default_factory=dict)
    phases: dict = field(default_factory=dict)  # seconds: the worker's phases, plus plan/store here

    @property
    def launches_per_min_cv_ok(self) -> float:
        return self.ok_rows_cv_ok / self.elapsed_s * 60 if self.elapsed_s > 0 else 0.0


def device_limits(descriptor: dict) -> DeviceLimits:
    return DeviceLimits(descriptor["compute_units"], descriptor["max_work_group_size"],
                        tuple(descriptor.get("max_work_item_sizes", [descriptor["max_work_group_size"]] * 3)),
                        descriptor["max_mem_alloc_bytes"], descriptor["global_mem_bytes"])


def run_campaign(opts: CampaignOptions) -> CampaignSummary:
    start = time.monotonic()
    deadline = start + opts.budget_s if opts.budget_s else float("inf")
    info = pick_device(opts.device)
    out = Path(opts.out) if opts.out else Path("data/datasets") / info.device_id
    specs = load_specs(opts.specs)
    if opts.families:
        unknown = sorted(set(opts.families) - {s.family for s in specs})
        if unknown:
            raise UsageError(f"--families: unknown {', '.join(unknown)}; known: "
                             f"{', '.join(sorted({s.family for s in specs}))}")
        specs = [s for s in specs if s.family in opts.families]
    if opts.kernels:
        specs = [s for s in specs if s.kernel_id in opts.kernels]
    if not specs:
        raise UsageError("no kernel selected (check --families/--kernels)")
    summary = CampaignSummary(info.device_id, str(out))
    slow = opts.slow_launch_s if opts.slow_launch_s is not None else (0.05 if info.type == "GPU" else 0.25)
    opts = replace(opts, policy=replace(opts.policy, slow_launch_s=slow))
    worker = Worker(info, opts.specs, opts.policy, opts.seed, opts.counts,
                    max_instrumented_time_s=opts.max_instrumented_time_s)
    static_counts = CountCache(opts.counts)
    store = DatasetStore(out, info.device_id, shard_rows=opts.shard_rows)
    prebuilder = planner = references = None
    try:
        if not (out / "device.json").exists():
            worker.send(("descriptor",))
            save_descriptor(worker.recv(opts.build_timeout_s)[1], out)
        descriptor = _folder_descriptor(out)
        limits = device_limits(descriptor)
        max_bytes = int(opts.max_launch_mb * 2**20) if opts.max_launch_mb else None

        def plan_of(spec):  # on the plan-ahead thread, while the worker measures the kernels before
            ceiling = store.ceilings.get(spec.kernel_id)
            return [c for c in sample_launches(spec, limits, opts.seed, opts.max_per_kernel, max_launch_bytes=max_bytes)
                    if c.key(info.device_id, spec.kernel_id) not in store.completed_keys
                    and (ceiling is None or work_of(c.sizes) < ceiling)]

        planner = PlanAhead([s for s in specs if s.kernel_id not in store.failed_kernels], plan_of)
        references = ReferencesAhead(list(planner.specs.values()), opts.seed)
        try:
            prebuilder = Prebuilder(info, _build_jobs(list(planner.specs.values()), opts.counts),
                                    default_jobs() if opts.build_jobs is None else opts.build_jobs)
        except (OSError, RuntimeError) as exc:  # builds then happen in the worker, as without a pool
            print(f"campaign: no pre-build pool ({exc})", file=sys.stderr)
        worker.ensure_started()
        bar = _progress(None, opts.progress, info.device_id)
        plans = {}
        pass_index = 0
        while (plans or pass_index == 0) and time.monotonic() < deadline:
            size = opts.first_chunk if pass_index == 0 else opts.chunk
            order = planner.order if pass_index == 0 else list(plans)
            for position, kernel_id in enumerate(order):
                if time.monotonic() >= deadline:
                    break
                if pass_index == 0:
                    plan = planner.get(kernel_id)
                    expected = references.take(kernel_id)
                    if not plan:
                        continue
                    plans[kernel_id] = (planner.specs[kernel_id], plan)
                _prefetch_next(worker, plans, order[position + 1:], size, store.ceilings, planner)
                spec, plan = plans[kernel_id]
                visit, plans[kernel_id] = plan[:size], (spec, plan[size:])
                ceiling = store.ceilings.get(kernel_id)
                visit = [c for c in visit if ceiling is None or work_of(c.sizes) < ceiling]
                if visit:
                    try:
                        _visit(worker, store, spec, visit, opts, deadline, summary, bar, static_counts,
                               expected if pass_index == 0 else None)
                    except Exception as exc:  # a supervisor-side surprise: skip this visit, never end the campaign
                        print(f"campaign: {kernel_id}: visit abandoned ({type(exc).__name__}: {exc})", file=sys.stderr)
                        worker.kill()
                if kernel_id in store.failed_kernels or not plans[kernel_id][1]:
                    del plans[kernel_id]
            pass_index += 1
        summary.phases["plan (ahead)"] = planner.busy_s
        summary.phases["plan (waited)"] = planner.waited_s
        summary.phases["reference (ahead)"] = references.busy_s
        if bar is not None:
            bar.close()
    finally:
        for ahead in (planner, references):
            if ahead is not None:
                ahead.close()
        if prebuilder is not None:
            prebuilder.close()
        worker.close()
        store.close()
    summary.failed_kernels = len(store.failed_kernels)
    summary.elapsed_s = time.monotonic() - start
    return summary


def _folder_descriptor(out: Path) -> dict:
    """The dataset folder's ``device.json`` (InputError saying how to repair a damaged one)."""
    try:
        return load_descriptor(out)
    except InputError as exc:
        raise damaged(out, f"device.json cannot be used ({exc})") from None


def _build_jobs(specs, counts_mode: str) -> list[tuple]:
    """Pre-build jobs in visit order: each kernel's source, then its instrumented version."""
    jobs = []
    for spec in specs:
        if spec.lang != "opencl":
            continue
        jobs.append(("source", spec.source))
        if counts_mode in INSTRUMENTED_MODES:
            jobs.append(("instrumented", spec.source, spec.kernel_name))
    return jobs


PREFETCH_VISITS = 3  # structured-input visits whose host inputs the worker makes ahead


def _prefetch_next(worker, plans: dict, later: list, size: int, ceilings: dict, planner=None) -> None:
    """Tell the worker the problem sizes of the next few visits that need host-made inputs (in the first
    pass, of kernels the planner got to already)."""
    hints = []
    for kernel_id in later:
        if kernel_id in plans:
            spec, plan = plans[kernel_id]
        elif planner is not None and planner.peek(kernel_id) is not None:
            spec, plan = planner.specs[kernel_id], planner.peek(kernel_id)
        else:
            continue
        if spec.make_inputs is None:
            continue
        ceiling = ceilings.get(kernel_id)
        sizes = [c.sizes_dict for c in plan[:size] if ceiling is None or work_of(c.sizes) < ceiling]
        unique = [dict(t) for t in dict.fromkeys(tuple(sorted(d.items())) for d in sizes)]
        if unique:
            hints.append((kernel_id, unique))
        if len(hints) >= PREFETCH_VISITS:
            break
    if hints:
        try:
            worker.ensure_started()
            worker.send(("prefetch", hints))
        except Exception:  # noqa: BLE001 - a hint only: the visit makes its inputs itself
            pass


def _visit(worker, store, spec, visit, opts, deadline, summary, bar, static_counts, expected=None) -> None:
    device_id = summary.device_id
    source_id = store.add_source({"source_id": source_id_of(spec.source), "lang": spec.lang,
                                  "kernel_id": spec.kernel_id, "family": spec.family,
                                  "kernel_name": spec.kernel_name, "source": spec.source,
                                  "spec_json": json.dumps(spec.to_json(), sort_keys=True)})
    by_key = {c.key(device_id, spec.kernel_id): c for c in visit}
    in_flight = visit[0]

    def record(row):
        start = time.perf_counter()
        if row["status"] == "ok" and row.get("counts_source") is None and opts.counts != "none":
            values, source = static_counts.static(spec, by_key[row["key"]])
            row.update(values)
            row["counts_source"] = source
        if store.append(row):
            summary.rows_written += 1
            summary.statuses[row["status"]] = summary.statuses.get(row["status"], 0) + 1
            if row["status"] == "ok":
                summary.ok_rows += 1
                summary.ok_rows_cv_ok += row["cv"] <= opts.policy.target_cv
        if bar is not None:
            bar.update(1)
        summary.phases["record"] = summary.phases.get("record", 0.0) + time.perf_counter() - start

    def fail(status, message, kernel_level=True):
        row = base_row(device_id, spec, in_flight, source_id)
        row.update(status=status, message=message)
        record(row)
        if kernel_level:
            store.mark_failed(spec.kernel_id, status, message)

    try:
        worker.send(("kernel", spec.kernel_id, [c.to_json() for c in visit], store.ceilings.get(spec.kernel_id),
                     time.time() + max(deadline - time.monotonic(), 0), {"expected": expected}))
        msg = worker.recv(opts.build_timeout_s)
        if msg[1] != "ok":
            fail(msg[1], msg[2])
            _add_phases(summary, worker.recv(opts.build_timeout_s))  # ("done", phases)
            return
        while True:
            msg = worker.recv(opts.launch_timeout_s)
            if msg[0] == "start":
                in_flight = by_key[msg[1]]
            elif msg[0] == "ceiling":
                store.add_ceiling(spec.kernel_id, msg[1])
            elif msg[0] == "row":
                record(msg[1])
                if msg[1]["status"] != "ok":
                    worker.kill()  # a fresh context for the next visit; the rest of this visit waits for a later pass
                    return
            elif msg[0] == "done":
                _add_phases(summary, msg)
                return
    except WorkerTimeout as exc:
        fail("timeout", f"{exc} (launch {in_flight.to_json()})")
    except WorkerDied as exc:
        fail("crash", f"{exc} (launch {in_flight.to_json()})")
    except (BrokenPipeError, OSError) as exc:
        worker.kill()
        fail("crash", f"worker pipe broken: {exc}")


def _add_phases(summary, msg) -> None:
    if len(msg) > 1 and isinstance(msg[1], dict):
        for name, seconds in msg[1].items():
            summary.phases[name] = summary.phases.get(name, 0.0) + seconds


def _progress(total: int, enabled: bool, device_id: str):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=f"measure {device_id}", unit="launch", dynamic_ncols=True, smoothing=0.05)


def add_arguments(parser) -> None:
    """The options of ``kgraph dataset campaign`` and ``python -m kgraph.data.harness.campaign``.

    Args:
        parser: the argparse parser to fill.
    """
    parser.add_argument("--device", help="substring of the device id, platform or device name (default: first GPU)")
    parser.add_argument("--out", help="dataset folder (default: data/datasets/<device_id>)")
    parser.add_argument("--budget-s", type=float, help="stop after this many seconds (resumable)")
    parser.add_argument("--max-per-kernel", type=int, help="launch configurations per kernel at most")
    parser.add_argument("--families", nargs="+", help="only these kernel families")
    parser.add_argument("--kernels", nargs="+", help="only these kernel ids")
    parser.add_argument("--seed", type=int, default=0, help="seed of launch sampling and inputs")
    parser.add_argument("--specs", default=DEFAULT_PROVIDER, help="MODULE:FUNCTION or FILE.py:FUNCTION giving KernelSpecs")
    parser.add_argument("--first-chunk", type=int, default=4, help="launches per kernel in the first pass")
    parser.add_argument("--chunk", type=int, default=16, help="launches per kernel in later passes")
    parser.add_argument("--build-timeout-s", type=float, default=120.0, help="limit on build + correctness check")
    parser.add_argument("--launch-timeout-s", type=float, default=60.0, help="limit on one launch's measurement")
    parser.add_argument("--shard-rows", type=int, default=2000, help="rows per parquet shard")
    parser.add_argument("--counts", choices=COUNT_MODES, default="auto",
                        help="where work counts come from (auto: an instrumented run on the campaign's device "
                             "when affordable, else static; instrumented: always try it; dependent: static, "
                             "and an instrumented run only where the counts depend on data)")
    parser.add_argument("--max-instrumented-time-s", type=float, default=0.02,
                        help="auto counts: static counts instead for launches slower than this (median)")
    parser.add_argument("--build-jobs", type=int,
                        help=f"processes pre-building the kernels (default {default_jobs()} here; 0: none)")
    parser.add_argument("--max-launch-mb", type=float, help="skip problem sizes whose buffers exceed this (MiB)")
    parser.add_argument("--target-cv", type=float, default=0.02, help="stop repeating at this CV")
    parser.add_argument("--max-repeats", type=int, default=50, help="timed repeats per launch at most")
    parser.add_argument("--slow-repeats", type=int, default=3, help="timed repeats of a launch slower than --slow-launch-s")
    parser.add_argument("--time-cap-s", type=float, default=0.2, help="summed kernel time per launch config at most")
    parser.add_argument("--slow-launch-s", type=float,
                        help="a launch slower than this caps the kernel's problem sizes on this device "
                             "(default 0.05 on GPUs, 0.25 on CPUs)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def options_from_args(args) -> CampaignOptions:
    for name in ("budget_s", "max_per_kernel", "max_launch_mb", "first_chunk", "chunk", "shard_rows", "max_repeats",
                 "slow_repeats", "time_cap_s", "slow_launch_s", "max_instrumented_time_s"):
        value = getattr(args, name, None)
        if value is not None and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')} {value}: must be positive")
    if args.build_jobs is not None and args.build_jobs < 0:
        raise UsageError(f"--build-jobs {args.build_jobs}: must be 0 (no pre-build) or more")
    if args.slow_repeats > args.max_repeats:
        raise UsageError(f"--slow-repeats {args.slow_repeats}: more than --max-repeats {args.max_repeats}")
    policy = TimingPolicy(target_cv=args.target_cv, max_repeats=args.max_repeats, time_cap_s=args.time_cap_s,
                          slow_repeats=args.slow_repeats)
    return CampaignOptions(device=args.device, out=args.out, budget_s=args.budget_s,
                           max_per_kernel=args.max_per_kernel, families=args.families, kernels=args.kernels,
                           seed=args.seed, specs=args.specs, first_chunk=args.first_chunk, chunk=args.chunk,
                           build_timeout_s=args.build_timeout_s, launch_timeout_s=args.launch_timeout_s,
                           shard_rows=args.shard_rows, counts=args.counts, policy=policy,
                           max_launch_mb=args.max_launch_mb, slow_launch_s=args.slow_launch_s,
                           build_jobs=args.build_jobs, max_instrumented_time_s=args.max_instrumented_time_s,
                           progress=not args.no_progress)


def print_summary(summary: CampaignSummary) -> None:
    statuses = ", ".join(f"{k}={v}" for k, v in sorted(summary.statuses.items())) or "none"
    print(f"{summary.device_id}: {summary.rows_written} new rows in {summary.elapsed_s:.0f} s "
          f"({summary.launches_per_min_cv_ok:.0f} launches/min at CV<=2%; ok={summary.ok_rows}, "
          f"cv_ok={summary.ok_rows_cv_ok}); statuses: {statuses}; failed kernels: {summary.failed_kernels}; "
          f"dataset: {summary.out}")
    if summary.phases:
        print("time per phase (s): " + ", ".join(f"{name} {sec:.1f}" for name, sec in
                                                 sorted(summary.phases.items(), key=lambda kv: -kv[1])))


def run(args) -> int:
    """Run the campaign and print its summary; Ctrl-C leaves a resumable folder.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    try:
        print_summary(run_campaign(options_from_args(args)))
    except KeyboardInterrupt:
        print("campaign: interrupted (re-run the same command to resume)", file=sys.stderr)
        return 130
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.data.harness.campaign", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())

"""``kgraph dataset fill-counts``: work counts for ok rows that have none, from other datasets or from an
instrumented run on a local device.

Rows without counts are launches whose counts neither the instrumented run (``--counts static``
campaigns, launches above ``--max-instrumented-time-s``) nor the static analysis (data-dependent trip
counts: escape-time loops, CSR rows) could give. Counts are device independent, so:

1. **Donors.** A row takes the counts (and ``counts_source``) of an ok row with complete counts in a
   ``--from`` dataset describing the same launch on the same inputs (the rules:
   :mod:`kgraph.data.harness.count_donors`).
2. **Instrumented runs.** Rows still missing are counted by the harness itself on a local device
   (``--device``, PoCL by default): the campaign worker (:mod:`kgraph.data.harness.worker`) runs
   :meth:`KernelRunner.measure` with ``timed=False`` on the inputs the campaign made (``--seed``),
   i.e. the same build, correctness check, buffers, input generation and instrumented run
   (:meth:`CountCache.instrumented`) as a campaign's ``--counts instrumented``, without the timing.
   Only rows whose input generation equals the current harness's can be run. Smallest launches
   first, within ``--budget-s`` (the worker gets the deadline and is killed at it) and ``--max-rows``.
3. **Irreproducible rows** (``--drop-irreproducible``): rows whose input generation no harness can
   repeat and no donor covers are removed (:meth:`DatasetStore.remove_rows`) and their keys forgotten,
   so the next campaign measures those launches anew.

Rows with ``counts_source = "static-inexact"`` (static counts of a kernel the analysis does not count exactly:
a data-dependent branch or ``break``, an approximation note) have counts, but a donor's exact ones replace
them (step 1; donors never give inexact counts: :func:`~kgraph.data.harness.count_donors.replaceable_counts`).
They get no instrumented run here and are never dropped: without a donor they keep their static counts.

Updates go through :meth:`DatasetStore.update_rows` (under the store's lock; each touched shard
rewritten to a temporary name and renamed), in batches every few seconds, so a kill loses at most
the last batch and a re-run resumes with the rows still missing. Derived columns (bandwidth,
FLOP/s, bound) are not stored: readers compute them from the new counts and the dataset's ``device.json``.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from kgraph.errors import UsageError

from .columns import COUNT_COLUMNS, HARNESS_VERSION, source_id_of
from .count_donors import (GENERATION_REASONS, donor_matches, inexact_counts, input_generation, missing_counts,
                           replaceable_counts, same_buffers_for_locals, workgroup_independent)

FLUSH_S = 5.0  # seconds of filled rows kept in memory before the shards are rewritten




@dataclass
class FillOptions:
    directory: str
    donors: list = field(default_factory=list)
    device: str | None = "pocl"        # None or "none": no instrumented runs
    max_rows: int | None = None        # instrumented runs at most
    budget_s: float | None = None      # seconds of instrumented runs at most
    seed: int = 0
    specs: str = "kgraph.data.corpus:all_specs"
    build_timeout_s: float = 120.0
    launch_timeout_s: float = 120.0
    drop_irreproducible: bool = False  # remove rows whose inputs cannot be made again (re-measured later)


@dataclass
class FillReport:
    directory: str
    missing: int = 0
    inexact: int = 0                                     # ok rows with static-inexact counts (a donor may replace)
    inexact_left: int = 0                                # of those, still static-inexact after the donors
    from_donors: dict = field(default_factory=dict)      # donor folder -> {counts_source: rows}
    ran: int = 0
    run_s: float = 0.0
    run_device: str | None = None
    copied_twins: int = 0                                # rows given a run's counts (other local size)
    dropped: dict = field(default_factory=dict)          # family -> rows removed (--drop-irreproducible)
    remaining: dict = field(default_factory=dict)        # reason -> {family: rows}

    def lines(self) -> list[str]:
        out = [f"{self.directory}: {self.missing} ok row(s) without counts"]
        if self.inexact:
            out[0] += (f", {self.inexact} with inexact static counts (static-inexact: a donor's exact ones "
                       "replace them)")
        for donor, by_source in self.from_donors.items():
            parts = ", ".join(f"{n} {src}" for src, n in sorted(by_source.items()))
            out.append(f"filled {sum(by_source.values())} row(s) from {donor} ({parts})")
        if self.run_device is not None:
            per = f", {self.run_s / self.ran:.2f} s/run" if self.ran else ""
            twins = (f" (+{self.copied_twins} row(s) of the same launches with another local size)"
                     if self.copied_twins else "")
            out.append(f"filled {self.ran} row(s) by instrumented runs on {self.run_device} "
                       f"in {self.run_s:.0f} s{per}{twins}")
        if self.dropped:
            fams = ", ".join(f"{k} {v}" for k, v in sorted(self.dropped.items()))
            out.append(f"removed {sum(self.dropped.values())} row(s) whose inputs cannot be made again "
                       f"({fams}); a later campaign measures those launches anew")
        left = sum(sum(f.values()) for f in self.remaining.values())
        out.append(f"{left} row(s) remain without counts")
        if self.inexact:
            out.append(f"{self.inexact_left} row(s) keep inexact static counts (no donor with exact ones)")
        for reason, families in sorted(self.remaining.items(), key=lambda kv: -sum(kv[1].values())):
            fams = ", ".join(f"{k} {v}" for k, v in sorted(families.items()))
            out.append(f"  {sum(families.values())}: {reason} ({fams})")
        return out


def _check_options(opts: FillOptions) -> None:
    directory = Path(opts.directory)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory}: a file, not a dataset folder")
    if not (directory / "manifest.json").exists():
        raise UsageError(f"{directory}: not a dataset folder (no manifest.json)")
    for donor in opts.donors:
        if not (Path(donor) / "manifest.json").exists():
            raise UsageError(f"--from {donor}: not a dataset folder (no manifest.json)")
        if Path(donor).resolve() == directory.resolve():
            raise UsageError(f"--from {donor}: is the dataset being filled")
    for name in ("max_rows", "budget_s"):
        value = getattr(opts, name)
        if value is not None and value < 0:
            raise UsageError(f"--{name.replace('_', '-')} {value}: must be 0 or more")
    for name in ("build_timeout_s", "launch_timeout_s"):
        if getattr(opts, name) <= 0:
            raise UsageError(f"--{name.replace('_', '-')} {getattr(opts, name)}: must be positive")


def fill_counts(opts: FillOptions) -> FillReport:
    """Fill what can be filled in ``opts.directory``; returns what was filled from where and what remains."""
    from .store import DatasetStore, read_launches
    from .worker import load_specs

    _check_options(opts)
    directory = Path(opts.directory)
    report = FillReport(str(directory))
    store = DatasetStore(directory)  # the lock; commits a journal left by a killed campaign
    try:
        df = read_launches(directory)
        todo = df[replaceable_counts(df)].copy()
        report.missing = int(missing_counts(df).sum())
        inexact = set(df["key"][inexact_counts(df)])  # they have counts: no instrumented run, never dropped
        report.inexact = len(inexact)
        if todo.empty:
            return report
        specs = {s.kernel_id: s for s in load_specs(opts.specs) if s.kernel_id in set(todo["kernel_id"])}
        reasons: dict[str, str] = {}
        generation: dict[str, str | None] = {}
        for row in todo.itertuples(index=False):
            spec = specs.get(row.kernel_id)
            if spec is None:
                reasons[row.key] = "kernel not in the corpus (--specs)"
            elif source_id_of(spec.source) != row.source_id:
                reasons[row.key] = "the corpus source changed since the campaign"
            else:
                generation[row.key] = input_generation(spec, row.harness_version)
                if generation[row.key] is None:
                    reasons[row.key] = GENERATION_REASONS.get(str(row.harness_version),
                                                               f"harness {row.harness_version}: inputs unknown here")
        rows = {r["key"]: r for r in todo.to_dict("records")}

        # 1. donors
        filled: dict[str, dict] = {}
        candidates = [k for k in rows if k not in reasons]
        if opts.donors and candidates:
            matches = donor_matches(opts.donors, [rows[k] for k in candidates], generation, specs,
                                     store_device=df["device_id"].iloc[0])
            for key, found in matches.items():
                if isinstance(found, str):
                    reasons[key] = found
                    continue
                donor, values = found
                filled[key] = values
                by_source = report.from_donors.setdefault(donor, {})
                by_source[values["counts_source"]] = by_source.get(values["counts_source"], 0) + 1
            _commit(store, filled)

        # 2. instrumented runs
        current = {}
        for key in candidates:
            if key in filled or key in inexact:
                continue
            spec = specs[rows[key]["kernel_id"]]
            if generation[key] != input_generation(spec, HARNESS_VERSION):
                reasons[key] = (f"inputs of harness {rows[key]['harness_version']} differ from this harness's "
                                f"({HARNESS_VERSION}); no donor")
            else:
                current[key] = rows[key]
        if current and opts.device not in (None, "none") and opts.max_rows != 0 and opts.budget_s != 0:
            _run_instrumented(opts, store, current, specs, report, reasons)
        elif current:
            why = "no donor; instrumented runs not asked for" if opts.device in (None, "none") else \
                  "no donor; --max-rows 0 / --budget-s 0"
            for key in current:
                reasons.setdefault(key, why)

        # irreproducible inputs: removed on request, so a campaign measures them again
        if opts.drop_irreproducible:
            lost = {k for k in rows if k not in filled and k not in inexact
                    and reasons.get(k) in GENERATION_REASONS.values()}
            if lost:
                store.remove_rows(lost)
                for key in lost:
                    family = rows[key]["family"]
                    report.dropped[family] = report.dropped.get(family, 0) + 1

        # what remains
        after = read_launches(directory)
        report.inexact_left = int(inexact_counts(after).sum()) if report.inexact else 0
        still = after[missing_counts(after)]
        for row in still.itertuples(index=False):
            reason = reasons.get(row.key, "no donor; not reached within --budget-s / --max-rows")
            families = report.remaining.setdefault(reason, {})
            families[row.family] = families.get(row.family, 0) + 1
        return report
    finally:
        store.close()


def _commit(store, filled: dict) -> None:
    """Write ``filled`` ({key: counts + counts_source}); the derived columns are computed on read."""
    if not filled:
        return
    updates = {}
    for key, values in filled.items():
        update = {name: int(values[name]) for name in COUNT_COLUMNS}
        update["counts_source"] = values["counts_source"]
        updates[key] = update
    store.update_rows(updates)


def _config_of(row: dict):
    from .sampling import LaunchConfig

    dims = int(row["dims"])
    sizes = json.loads(row["sizes"])
    return LaunchConfig(tuple(sorted(sizes.items())), tuple(int(row[f"g{d}"]) for d in range(dims)),
                        tuple(int(row[f"l{d}"]) for d in range(dims)))


def _run_instrumented(opts: FillOptions, store, rows: dict, specs: dict, report: FillReport,
                      reasons: dict) -> None:
    """Count ``rows`` with the campaign worker in count-only mode, smallest launches first."""
    import math

    from .devices import pick_device
    from .timing import TimingPolicy
    from .worker import Worker, WorkerDied, WorkerTimeout

    info = pick_device(opts.device)
    report.run_device = info.device_id
    start = time.monotonic()
    deadline = start + opts.budget_s if opts.budget_s is not None else float("inf")
    # one visit per (kernel, sizes): buffers sized for that problem only; cheapest visits first
    # launches differing only in the local size of a work-group-independent kernel are run once
    visits: dict[tuple, list] = {}
    twins: dict[str, list] = {}
    first_of: dict[tuple, str] = {}
    local_of: dict[str, tuple] = {}
    for key, row in rows.items():
        config = _config_of(row)
        if config.key(row["device_id"], row["kernel_id"]) != key:
            reasons[key] = "key does not match its columns"
            continue
        spec = specs[row["kernel_id"]]
        shape = (row["kernel_id"], config.sizes, config.global_size)
        if shape in first_of and workgroup_independent(spec) and same_buffers_for_locals(
                spec, config.sizes_dict, [list(config.local_size), list(local_of[first_of[shape]])]):
            twins[first_of[shape]].append(key)
            continue
        first_of.setdefault(shape, key)
        twins[key] = []
        local_of[key] = config.local_size
        visits.setdefault((row["kernel_id"], config.sizes), []).append((key, config))
    order = sorted(visits, key=lambda v: (min(math.prod(c.global_size) for _, c in visits[v]), v[0], v[1]))
    worker = Worker(info, opts.specs, TimingPolicy(), opts.seed, counts_mode="instrumented")
    failed_kernels: dict[str, str] = {}
    pending: dict[str, dict] = {}
    last_flush = time.monotonic()
    budget_left = opts.max_rows if opts.max_rows is not None else float("inf")
    try:
        for kernel_id, sizes in order:
            if time.monotonic() >= deadline or budget_left <= 0:
                break
            if kernel_id in failed_kernels:
                for key, _ in visits[(kernel_id, sizes)]:
                    reasons[key] = failed_kernels[kernel_id]
                continue
            visit = sorted(visits[(kernel_id, sizes)], key=lambda kc: math.prod(kc[1].global_size))
            visit = visit[:int(min(len(visit), budget_left))]
            by_worker_key = {c.key(info.device_id, kernel_id): key for key, c in visit}
            in_flight = None
            try:
                worker.send(("kernel", kernel_id, [c.to_json() for _, c in visit], None,
                             time.time() + max(deadline - time.monotonic(), 0), "count_only"))
                msg = worker.recv(min(opts.build_timeout_s, max(deadline - time.monotonic(), 1.0)))
                if msg[1] != "ok":
                    failed_kernels[kernel_id] = f"{msg[1]} on {info.device_id}: {str(msg[2])[:200]}"
                    for key, _ in visit:
                        reasons[key] = failed_kernels[kernel_id]
                    worker.recv(opts.build_timeout_s)  # ("done", phases)
                    continue
                while True:
                    msg = worker.recv(min(opts.launch_timeout_s, max(deadline - time.monotonic(), 1.0)))
                    if msg[0] == "start":
                        in_flight = by_worker_key.get(msg[1])
                    elif msg[0] == "row":
                        key = by_worker_key[msg[1]["key"]]
                        in_flight = None
                        got = msg[1]
                        if got["status"] == "ok" and got.get("counts_source") is not None:
                            for same in [key, *twins[key]]:
                                pending[same] = {**{c: got[c] for c in COUNT_COLUMNS},
                                                 "counts_source": got["counts_source"]}
                            report.ran += 1
                            report.copied_twins += len(twins[key])
                            budget_left -= 1
                        else:
                            for same in [key, *twins[key]]:
                                reasons[same] = f"instrumented run on {info.device_id}: {got['status']} " \
                                                f"{str(got.get('message') or '')[:200]}".rstrip()
                            if got["status"] != "ok":
                                worker.kill()
                                break
                    elif msg[0] == "done":
                        break
            except WorkerTimeout:
                over = time.monotonic() >= deadline - 1.0
                if in_flight is not None:
                    for same in [in_flight, *twins[in_flight]]:
                        reasons[same] = ("not reached within --budget-s (killed in flight)" if over else
                                         f"instrumented run longer than --launch-timeout-s {opts.launch_timeout_s:g}")
                if over:
                    break
            except (WorkerDied, BrokenPipeError, OSError) as exc:
                worker.kill()
                if in_flight is not None:
                    reasons[in_flight] = f"instrumented run on {info.device_id} crashed ({exc})"
            if pending and time.monotonic() - last_flush >= FLUSH_S:
                _commit(store, pending)
                pending, last_flush = {}, time.monotonic()
    finally:
        _commit(store, pending)
        worker.close()
    report.run_s = time.monotonic() - start


def add_fill_arguments(parser) -> None:
    parser.add_argument("dir", help="dataset folder whose ok rows without counts are filled (in place)")
    parser.add_argument("--from", dest="donors", nargs="+", default=[], metavar="OTHER_DIR",
                        help="datasets of other devices to copy counts from (same launch, same inputs)")
    parser.add_argument("--device", default="pocl",
                        help="device for instrumented runs of rows no donor has (substring, default pocl; "
                             "'none': no runs)")
    parser.add_argument("--max-rows", type=int, help="instrumented runs at most (donor copies are not limited)")
    parser.add_argument("--budget-s", type=float, help="seconds of instrumented runs at most (resumable)")
    parser.add_argument("--seed", type=int, default=0, help="the campaigns' --seed (inputs; default 0)")
    parser.add_argument("--specs", default="kgraph.data.corpus:all_specs",
                        help="MODULE:FUNCTION or FILE.py:FUNCTION giving the KernelSpecs the campaign used")
    parser.add_argument("--launch-timeout-s", type=float, default=120.0,
                        help="limit on one instrumented run (the worker is killed and restarted)")
    parser.add_argument("--build-timeout-s", type=float, default=120.0, help="limit on build + correctness check")
    parser.add_argument("--drop-irreproducible", action="store_true",
                        help="remove rows whose inputs no harness can make again (1.0/1.1 inputs, no donor) "
                             "and forget their keys, so the next campaign measures those launches anew")


def options_from_args(args) -> FillOptions:
    return FillOptions(directory=args.dir, donors=list(args.donors), device=args.device, max_rows=args.max_rows,
                       budget_s=args.budget_s, seed=args.seed, specs=args.specs,
                       build_timeout_s=args.build_timeout_s, launch_timeout_s=args.launch_timeout_s,
                       drop_irreproducible=args.drop_irreproducible)

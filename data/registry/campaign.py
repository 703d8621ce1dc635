"""Time the registry's sized launches on one device into a dataset folder.

Each ``ok`` launch of a plan (:mod:`.plan`) is measured with its buffers given (no sizing run) by one reused
measuring worker (:func:`kgraph.data.harness.foreign_run.measure_foreign`: timeouts, a crashed or hung kernel
recorded with its status and the worker restarted), and stored as a dataset row (:class:`DatasetStore`) with
the kernel id ``registry.<unit id>.<kernel>``: never trained on (:func:`kgraph.data.holdout.is_holdout`). The
folder resumes: a launch already stored is skipped. The unit's text goes into the folder's ``sources.parquet``,
which stays out of the repository (third-party text; ``kgraph registry sources`` rebuilds it from the archives).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from . import PREFIX
from .plan import PlannedLaunch


def kernel_id_of(launch: PlannedLaunch) -> str:
    """``registry.<unit id>.<kernel>``."""
    return f"{PREFIX}.{launch.unit_id}.{launch.kernel}"


def read_plan(plan_path: str | Path) -> list[PlannedLaunch]:
    """The plan's launches, the last entry of each launch winning."""
    out = {}
    for line in Path(plan_path).read_text().splitlines():
        if line.strip():
            launch = PlannedLaunch.from_json(json.loads(line))
            out[launch.key] = launch
    return list(out.values())


def relabel(row: dict, launch: PlannedLaunch) -> dict:
    """A measure row as a registry row: its kernel id, family (the unit) and key."""
    from kgraph.data.harness.keys import launch_key

    kernel_id = kernel_id_of(launch)
    row = dict(row, kernel_id=kernel_id, family=f"{PREFIX}.{launch.unit_id}")
    row["key"] = launch_key(row["device_id"], kernel_id, {}, list(launch.global_size), list(launch.local_size))
    return row


def measure_plan(plan_path: str | Path, units_dir: str | Path, out: str | Path, device: str,
                 timeout_s: float = 10.0, budget_s: float = 0.0, log=print, source: str | None = None) -> dict:
    """Measure every ``ok`` launch of the plan on ``device`` into the dataset folder ``out``; returns counts by
    status. ``budget_s`` > 0 stops after that many seconds (a rerun goes on); ``source`` keeps the launches of
    that source's units only (its name, e.g. ``ufo-filters-data``)."""
    from kgraph.data.harness.columns import source_id_of
    from kgraph.data.harness.foreign import ForeignRequest
    from kgraph.data.harness.foreign_run import foreign_worker, measure_foreign
    from kgraph.data.harness.keys import launch_key
    from kgraph.data.harness.store import DatasetStore
    from kgraph.errors import KGraphError

    prefix = source.lower().replace("-", "_") + "." if source else ""
    todo = [launch for launch in read_plan(plan_path) if launch.status == "ok" and launch.unit_id.startswith(prefix)]
    worker = foreign_worker(device)
    counts: dict[str, int] = {}
    start = time.monotonic()
    try:
        _descriptor(worker, out)
        with DatasetStore(out, worker.info.device_id) as store:
            for launch in todo:
                key = launch_key(worker.info.device_id, kernel_id_of(launch), {}, list(launch.global_size),
                                 list(launch.local_size))
                if key in store.completed_keys:
                    counts["stored"] = counts.get("stored", 0) + 1
                    continue
                if budget_s and time.monotonic() - start > budget_s:
                    counts["left"] = counts.get("left", 0) + 1
                    continue
                path = Path(units_dir) / f"{launch.unit_id}.cl"
                request = ForeignRequest(str(path), launch.kernel, launch.global_size, launch.local_size, {},
                                         {k: str(v) for k, v in launch.buffers.items()}, {}, launch.index_range)
                try:
                    result = measure_foreign(request, device, timeout_s=timeout_s, worker=worker)
                except KGraphError as exc:
                    worker.kill()  # a failed build or launch may leave the driver's context unusable: a fresh one
                    counts["error"] = counts.get("error", 0) + 1
                    log(f"{launch.key}: error {' '.join(str(exc).split())[:400]}")
                    continue
                row = relabel(result.row, launch)
                if row["status"] != "ok":
                    worker.kill()
                elif launch.counts:  # the sizing run counted this launch's work on the same buffers and inputs
                    row.update(launch.counts, counts_source="instrumented")
                source = result.spec.source if result.spec is not None else path.read_text()
                row["source_id"] = source_id_of(source)
                store.add_source({"source_id": row["source_id"], "lang": "opencl", "kernel_id": row["kernel_id"],
                                  "family": row["family"], "kernel_name": launch.kernel, "source": source,
                                  "spec_json": (json.dumps(result.spec.to_json(), sort_keys=True)
                                                if result.spec else "{}")})
                store.append(row)
                counts[row["status"]] = counts.get(row["status"], 0) + 1
                log(f"{launch.key}: {row['status']} {row.get('median_time_ns') or ''}")
    finally:
        worker.close()
    return counts


def fill_counts(plan_path: str | Path, folders: list, log=print) -> int:
    """Give the ok rows of registry dataset folders the work their plan's sizing runs counted (exact,
    ``counts_source`` "instrumented": the same buffers and inputs as the measured launch); returns the rows
    changed. Rows whose launch the plan did not count keep their static counts."""
    from kgraph.data.harness.keys import launch_key
    from kgraph.data.harness.store import DatasetStore
    from kgraph.data.harness.store_read import read_launches

    plan = [launch for launch in read_plan(plan_path) if launch.status == "ok" and launch.counts]
    changed = 0
    for folder in folders:
        rows = read_launches(folder)
        ok = rows[rows["status"] == "ok"]
        if ok.empty:
            continue
        device_id = str(ok["device_id"].iloc[0])
        by_key = {launch_key(device_id, kernel_id_of(l), {}, list(l.global_size), list(l.local_size)): l for l in plan}
        updates = {key: {**by_key[key].counts, "counts_source": "instrumented"}
                   for key, source in zip(ok["key"], ok["counts_source"]) if key in by_key and source != "instrumented"}
        with DatasetStore(folder, device_id) as store:
            n = store.update_rows(updates)
        log(f"{folder}: {n} rows given their sizing run's counts ({len(ok)} ok rows)")
        changed += n
    return changed


def _descriptor(worker, out: str | Path) -> None:
    """``out/device.json``: the device's own dataset folder's descriptor, else measured by the worker."""
    from kgraph.data import datasets_dir
    from kgraph.data.harness.descriptor import load_descriptor, save_descriptor
    from kgraph.errors import KGraphError

    if (Path(out) / "device.json").exists():
        return
    try:
        descriptor = load_descriptor(datasets_dir() / worker.info.device_id)
    except KGraphError:
        worker.send(("descriptor",))
        descriptor = worker.recv(300.0)[1]
    Path(out).mkdir(parents=True, exist_ok=True)
    save_descriptor(descriptor, out)

"""``kgraph measure``'s supervisor: one :class:`~kgraph.data.harness.foreign.ForeignRequest` measured
in the campaign's isolated worker process (:mod:`kgraph.data.harness.worker`), with timeouts.

The worker side is :func:`kgraph.data.harness.foreign.serve_foreign`; this module only waits for its
messages (a sizing run, the build, the launch), kills a silent worker (``timeout``), reports a dead
one (``crash``), and adds static counts and derived columns to an ok row.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgraph.errors import InputError, KGraphError, MeasurementError, UsageError

from .foreign import (BUILD_TIMEOUT_S, DEFAULT_TIMEOUT_S, SIZING_BUILD_S, ForeignRequest, _config_of,
                      _with_defines)
from .worker import WorkerDied, WorkerTimeout


@dataclass
class ForeignResult:
    """What :func:`measure_foreign` found: the dataset row, the spec it measured, the worker's phases, and
    what the sizing run found (``extents``: element counts of the buffers it sized, parameter units;
    ``index_range``: the range its index-like buffers' values were drawn from, None without a sizing run;
    ``counts``: the work it counted on the measured launch's buffers and inputs, row columns, {} when not exact)."""

    row: dict
    spec: object
    phases: dict = field(default_factory=dict)
    extents: dict = field(default_factory=dict)
    index_range: int | None = None
    counts: dict = field(default_factory=dict)


def measure_foreign(request: ForeignRequest, device_query: str | None, policy=None,
                    timeout_s: float = DEFAULT_TIMEOUT_S, worker=None) -> ForeignResult:
    """Size (when needed), build and time the request's kernel once, in the campaign's isolated
    worker process (:mod:`kgraph.data.harness.worker`); returns the row (with derived columns).

    A launch (or sizing run) silent for ``timeout_s`` is killed (status ``timeout``), a worker that
    dies (segfault, illegal instruction in the driver) gives ``crash``; a launch needing more memory
    than the device has gives ``out_of_resources``. Raises MeasurementError with the whole build log
    when the kernel does not build, UsageError for bad arguments (before any device work).

    Args:
        request: the ``ForeignRequest``; device_query: ``--device``; policy: ``TimingPolicy``;
        timeout_s: ``--timeout-s``; worker: a started :func:`foreign_worker` to reuse (many requests, one
            worker: it is left open, and restarted by its next request after a timeout or crash); None:
            a worker of its own, closed on return.
    """
    own = worker is None
    if not timeout_s > 0:
        raise UsageError(f"--timeout-s {timeout_s}: must be positive")
    unsized = request.unsized()
    if own:
        worker = foreign_worker(device_query, policy)
    info = worker.info
    result = ForeignResult(row={}, spec=None)
    stage = "sizing run" if unsized else "build"
    config = None
    try:
        worker.ensure_started()
        worker.send(("foreign", request))
        while True:
            wait = {"sizing run": timeout_s + SIZING_BUILD_S, "launch": timeout_s}.get(
                stage, max(BUILD_TIMEOUT_S, timeout_s))
            msg = worker.recv(wait)
            if msg[0] == "error":
                raise _worker_error(msg[1], msg[2])
            if msg[0] == "sized":
                result.extents, result.index_range, result.counts = dict(msg[1]), msg[2], dict(msg[3])
                result.spec = request.spec(msg[1], msg[2])
                config = _config_of(result.spec, request)
                stage = "build"
            elif msg[0] == "start":
                stage = "launch"
            elif msg[0] == "row":
                result.row = msg[1]
            elif msg[0] == "done":
                result.phases = msg[1]
                break
    except (WorkerTimeout, WorkerDied, BrokenPipeError, OSError) as exc:
        worker.kill()
        status = "timeout" if isinstance(exc, WorkerTimeout) else "crash"
        why = f"{stage}: {exc}"
        if status == "timeout" and stage != "build":
            why += (f" (--timeout-s {timeout_s:g}" +
                    (f", plus {SIZING_BUILD_S:g} s to build the sizing run)" if stage == "sizing run" else ")"))
        result.row = _failed_row(result, request, info.device_id, config, status, why, unsized)
    except BaseException:
        if own:
            worker.close()
        raise
    try:
        _finish_row(result, request, worker, info, timeout_s)
    finally:
        if own:
            worker.close()
    return result


def foreign_worker(device_query: str | None, policy=None):
    """A measuring worker for :func:`measure_foreign` (started by its first request; close it when done).

    Args:
        device_query: ``--device``; policy: ``TimingPolicy`` (None: the default).
    """
    from .devices import pick_device
    from .timing import TimingPolicy
    from .worker import Worker

    return Worker(pick_device(device_query), "", policy or TimingPolicy(), counts_mode="none")


def _worker_error(kind: str, message: str) -> KGraphError:
    """The exception a worker's ``("error", kind, message)`` stands for."""
    if kind == "internal":
        return MeasurementError(f"the measuring worker failed: {message}")
    classes = {"UsageError": UsageError, "InputError": InputError, "MeasurementError": MeasurementError}
    return classes.get(kind, MeasurementError)(message)


def _failed_row(result: ForeignResult, request: ForeignRequest, device_id: str, config, status: str,
                message: str, unsized: list[str]) -> dict:
    """The row of a launch (or sizing run) whose worker timed out or died.

    Args:
        result: what is known so far (``spec``: None before the sizing run answered);
        request: the request; device_id: the device's slug; config: the launch (None: not built yet);
        status: "timeout" or "crash"; message: what happened; unsized: buffers the sizing run sizes.
    """
    from .columns import source_id_of
    from .runner import base_row

    if result.spec is None:  # the sizing run never answered: the row shows one element per unsized buffer
        result.spec = request.spec({name: 1 for name in unsized})
        message += (f" (the bounds-checked sizing run of buffer(s) {', '.join(unsized)}; give "
                    f"--buffer NAME=ELEMENTS for each to skip it)")
    config = config or _config_of(result.spec, request)
    row = base_row(device_id, result.spec, config, source_id_of(result.spec.source))
    row.update(status=status, message=message)
    return row


def _finish_row(result: ForeignResult, request: ForeignRequest, worker, info, timeout_s: float) -> None:
    """Static counts and derived columns of an ok row (the descriptor: the device's dataset folder, else
    measured by the worker)."""
    from kgraph.data import datasets_dir

    from .counts import static_counts, static_source
    from .derived import derive
    from .descriptor import load_descriptor
    from .worker import WorkerDied, WorkerTimeout

    row = result.row
    if row.get("status") != "ok":
        return
    spec = result.spec
    scalars = {a.name: float(a.count) for a in spec.args if a.kind == "scalar"}
    local = list(request.local_size) if request.local_size else None
    try:
        source = _with_defines(spec.source, request.defines)
        row.update(static_counts(source, spec.lang, spec.kernel_name, scalars, list(request.global_size), local))
        row["counts_source"] = static_source(source, spec.lang, spec.kernel_name)  # "static-inexact" if not exact
    except Exception:  # noqa: BLE001 - counts are optional in a measure row
        pass
    try:
        descriptor = load_descriptor(datasets_dir() / info.device_id)
    except KGraphError:
        try:
            worker.send(("descriptor",))
            descriptor = worker.recv(max(BUILD_TIMEOUT_S, timeout_s))[1]
        except (WorkerTimeout, WorkerDied, BrokenPipeError, OSError) as exc:
            row["message"] = f"no derived columns: measuring the device descriptor failed ({exc})"
            return
    row.update(derive(row, descriptor["roofline"]))

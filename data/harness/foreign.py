"""Measure a kernel nobody wrote host code for (``kgraph measure``).

The kernel's parameters come from the project's parser. Scalars take ``--arg NAME=VALUE`` or a
default (integers: the NDRange's total work-items in dim 0, floats: 1.0). Buffer element counts
take ``--buffer NAME=ELEMENTS`` (or ``--arg NAME=ELEMENTS``); when every global buffer has one, no
probe runs. Otherwise the missing extents come from instrumented sizing runs on PoCL
(:func:`kgraph.data.instrumented.extents.infer_extents`: every access bounds-checked against the
buffers it allocates, buffers grown until the recorded extents are stable); when that cannot be
done the command says why and names the buffers that need a size. ``__local`` pointers default to
one element per work-item of the group. ``-D NAME=VALUE`` macros reach the parser, the probe and the
OpenCL build. Inputs are those of the sizing run (:mod:`kgraph.data.instrumented.contents`: integer
buffers read as indices hold valid indices, row-pointer-like ones monotone offsets, floats uniform in
[-1, 1)), so the measured launch stays inside the extents the bounds-checked run found. Vector scalars
(``uint2``, ``float4``) take ``--arg NAME=a,b,...``. Rows of the foreign test set's kernels
(:mod:`kgraph.data.foreign_set`) carry the id ``foreign_set.<kernel>`` (never trained on). There is no
reference, so no correctness check.

Every argument is checked before any device work (finite scalars that fit their type, positive
whole sizes below ``MAX_ELEMENTS``). The sizing run, the build and the launch happen in the
campaign's worker process (:func:`serve_foreign`, driven by
:func:`kgraph.data.harness.foreign_run.measure_foreign` with timeouts), never in the command's own.

This module is that worker side; the argument checks live in :mod:`.foreign_args`, the sizing runs in
:mod:`.foreign_sizing`, the spec and the request in :mod:`.foreign_spec` (re-exported here).
"""
from __future__ import annotations

from kgraph.errors import KGraphError, MeasurementError

from .foreign_args import (  # noqa: F401 - re-exported: defined there, imported from here
    MAX_ELEMENTS, _check_arguments, _components, _count, _default_local, _default_scalar, _kernel_params, _scalar,
    _with_defines)
from .foreign_sizing import _inferred_extents  # noqa: F401 - re-exported
from .foreign_spec import (  # noqa: F401 - re-exported: defined there, imported from here
    ForeignRequest, ForeignSpec, VectorValue, _assemble, _inputs_maker, _kernel_id, _vector_bytes, foreign_spec,
    scalar_args, unsized_buffers)

DEFAULT_TIMEOUT_S = 60.0      # ``kgraph measure --timeout-s``: one launch's measurement, one sizing run
BUILD_TIMEOUT_S = 120.0       # parsing and building in the worker (at least --timeout-s)
SIZING_BUILD_S = 30.0         # a sizing run may take this much longer: it builds its instrumented program


def serve_foreign(conn, ctx, queue, device_id: str, policy, request: ForeignRequest) -> None:
    """Worker side of ``kgraph measure`` (called by :func:`~kgraph.data.harness.worker.worker_main`).

    Sends ``("sized", extents, index_range, counts)`` after the sizing run (if any), ``("prepared", "ok", "")``
    after the build, ``("start", key)`` and ``("row", row)`` for the launch, then ``("done", phases)``;
    ``("error", kind, message)`` instead when the request cannot be measured (``kind``: the
    exception's class name).

    Args:
        conn: the pipe to the supervisor; ctx, queue: the worker's OpenCL context and profiling queue;
        device_id: the device's slug; policy: ``TimingPolicy``; request: the ``ForeignRequest``.
    """
    import time

    phases = {}
    try:
        start = time.perf_counter()
        spec, extents, index_range, counts = request.sized_spec()
        if extents:
            phases["sizing run"] = time.perf_counter() - start
        conn.send(("sized", extents, index_range, counts))
        runner = _built_runner(ctx, queue, device_id, spec, policy, request.defines)
    except KGraphError as exc:
        conn.send(("error", type(exc).__name__, str(exc)))
        return
    except Exception as exc:  # noqa: BLE001 - a bug must reach the user as a message, not kill the worker
        conn.send(("error", "internal", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("prepared", "ok", ""))
    config = _config_of(spec, request)
    try:
        for row in runner.measure([config], on_start=lambda key: conn.send(("start", key))):
            conn.send(("row", row))
    except Exception as exc:  # noqa: BLE001 - e.g. a driver error while writing the inputs
        conn.send(("row", _error_row(runner, config, exc)))
    phases.update(runner.phases)
    conn.send(("done", phases))


def _error_row(runner, config, exc: Exception) -> dict:
    """The row of a launch whose inputs or buffers failed outside the launch itself.

    Args:
        runner: the ``KernelRunner``; config: the launch; exc: what was raised (a ``pyopencl.Error``
            gives ``out_of_resources`` or ``launch_error``, anything else ``launch_error``).
    """
    import pyopencl as cl

    from .runner import base_row, status_of_cl_error

    row = base_row(runner.device_id, runner.spec, config, runner.source_id)
    status = status_of_cl_error(exc) if isinstance(exc, cl.Error) else (
        "out_of_resources" if isinstance(exc, MemoryError) else "launch_error")
    row.update(status=status, message=f"{type(exc).__name__}: {str(exc)[:2000]}")
    return row


def _built_runner(ctx, queue, device_id: str, spec, policy, defines: dict):
    """A ``KernelRunner`` with the kernel built under the request's macros (MeasurementError with the
    whole build log when it does not build)."""
    import pyopencl as cl

    from kgraph.data.instrumented.extents import build_options

    from .runner import KernelRunner

    runner = KernelRunner(ctx, queue, device_id, spec, policy)
    try:
        runner.program = cl.Program(ctx, spec.source).build(options=build_options(defines))
    except cl.Error as err:
        raise MeasurementError(f"kernel '{spec.kernel_name}' does not build on {device_id}:\n"
                               f"{str(err).strip()}") from None
    return runner


def _config_of(spec, request: ForeignRequest):
    """The one ``LaunchConfig`` of a request."""
    from .sampling import LaunchConfig

    local = tuple(request.local_size) if request.local_size else tuple(spec.local_sizes[0])
    return LaunchConfig((), tuple(request.global_size), local)

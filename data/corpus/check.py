"""Runs one corpus kernel through pyopencl at its check sizes and compares it with its numpy reference.

Used by the corpus tests and by the harness's pre-timing correctness check::

    ctx = cl.Context([device]); queue = cl.CommandQueue(ctx)
    ok, max_err = check_spec(get_spec("axpy.v1.c1.fp32"), ctx, queue)

``python -m kgraph.data.corpus.check [FAMILY_OR_ID ...]`` checks specs on the first OpenCL device.
"""
from __future__ import annotations

import sys
import time
from typing import Optional

import numpy as np

from kgraph.parsers.errors import KGraphError, MeasurementError, UsageError, module_main

from .spec import KernelSpec


def run_spec(spec: KernelSpec, ctx, queue, sizes: dict, local: Optional[list[int]] = None,
             inputs: Optional[dict[str, np.ndarray]] = None, seed: int = 0,
             program=None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Builds (unless ``program`` is given) and launches ``spec`` once; returns (inputs, outputs).

    ``outputs`` maps every out/inout buffer to its contents after the launch.
    Raises MeasurementError when the build or the launch fails.
    """
    import pyopencl as cl

    device = queue.device
    if program is None:
        try:
            program = cl.Program(ctx, spec.source).build()
        except cl.Error as err:
            raise MeasurementError(f"{spec.kernel_id}: build failed: {err}") from None
    if inputs is None:
        inputs = spec.inputs(np.random.default_rng(seed), sizes)
    if local is None:
        valid = spec.valid_local_sizes(sizes, device.max_work_group_size, device.max_work_item_sizes)
        if not valid:
            raise MeasurementError(f"{spec.kernel_id}: no valid work-group shape at {sizes}")
        local = valid[0]
    counts = spec.buffer_counts(sizes, local)
    scalars = spec.scalar_values(sizes)
    mf = cl.mem_flags
    buffers, kernel_args = {}, []
    for arg in spec.args:
        if arg.kind == "buffer":
            host = inputs[arg.name]
            nbytes = max(host.nbytes, 1)
            buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, size=nbytes,
                            hostbuf=host if host.nbytes else np.zeros(1, np.uint8))
            buffers[arg.name] = buf
            kernel_args.append(buf)
        elif arg.kind == "local":
            kernel_args.append(cl.LocalMemory(max(counts[arg.name] * np.dtype(arg.dtype).itemsize, 1)))
        else:
            kernel_args.append(scalars[arg.name])
    try:
        kernel = getattr(program, spec.kernel_name)
        kernel(queue, tuple(spec.global_size_of(sizes)), tuple(local), *kernel_args)
        outputs = {}
        for arg in spec.args:
            if arg.kind == "buffer" and arg.role in ("out", "inout"):
                host = np.empty_like(inputs[arg.name])
                cl.enqueue_copy(queue, host, buffers[arg.name])
                outputs[arg.name] = host
        queue.finish()
    except cl.Error as err:
        raise MeasurementError(f"{spec.kernel_id}: launch failed: {err}") from None
    finally:
        for buf in buffers.values():
            buf.release()
    return inputs, outputs


def compare(spec: KernelSpec, inputs: dict, outputs: dict, sizes: dict,
            expected: Optional[dict] = None) -> tuple[bool, float]:
    """Compares a launch's outputs with ``spec.reference`` (or its ``expected`` outputs for these
    inputs, made ahead); returns (ok, max absolute error)."""
    if expected is None:
        expected = reference_outputs(spec, inputs, sizes)
    ok, max_err = True, 0.0
    for name, want in expected.items():
        got = outputs[name]
        want = np.asarray(want).reshape(-1)
        if want.size != got.size:
            raise MeasurementError(f"{spec.kernel_id}: reference of {name} has {want.size} elements, "
                                   f"the kernel wrote {got.size}")
        if got.dtype.kind in "iub":
            diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
            ok &= bool(np.all(diff == 0))
        else:
            got64, want64 = got.astype(np.float64), want.astype(np.float64)
            if not np.all(np.isfinite(got64)):
                return False, float("inf")
            diff = np.abs(got64 - want64)
            ok &= bool(np.all(diff <= spec.atol + spec.rtol * np.abs(want64)))
        if diff.size:
            max_err = max(max_err, float(diff.max()))
    return ok, max_err


def check_spec(spec: KernelSpec, ctx, queue, sizes: Optional[dict] = None,
               local: Optional[list[int]] = None, seed: int = 0, program=None,
               expected: Optional[tuple[str, dict]] = None) -> tuple[bool, float]:
    """Builds and runs ``spec`` at ``sizes`` (default: its check sizes); returns (ok, max_abs_err).

    ``expected``: :func:`expected_outputs` made elsewhere; used only when its digest is that of the
    inputs this run used, else the reference runs here.

    Raises MeasurementError when the kernel does not build or launch.
    """
    sizes = dict(spec.check_sizes if sizes is None else sizes)
    inputs, outputs = run_spec(spec, ctx, queue, sizes, local=local, seed=seed, program=program)
    if expected is not None and expected[0] != inputs_digest(inputs):
        expected = None  # made from other inputs: compute it here
    return compare(spec, inputs, outputs, sizes, None if expected is None else expected[1])


def inputs_digest(inputs: dict) -> str:
    """sha1 over every input array's name, dtype, shape and bytes (which inputs a reference saw)."""
    import hashlib

    h = hashlib.sha1()
    for name in sorted(inputs):
        arr = np.ascontiguousarray(inputs[name])
        h.update(f"{name}|{arr.dtype.str}|{arr.shape}|".encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def expected_outputs(spec: KernelSpec, seed: int = 0, sizes: Optional[dict] = None) -> tuple[str, dict]:
    """(inputs_digest, reference outputs) of ``check_spec`` at the check sizes, computed without a device:
    the campaign's supervisor makes them ahead of the worker's check (``check_spec(expected=...)``)."""
    sizes = dict(spec.check_sizes if sizes is None else sizes)
    inputs = spec.inputs(np.random.default_rng(seed), sizes)
    return inputs_digest(inputs), reference_outputs(spec, inputs, sizes)


def reference_outputs(spec: KernelSpec, inputs: dict, sizes: dict) -> dict:
    """``spec.reference`` on copies of ``inputs`` plus the scalars at ``sizes``."""
    ref_inputs = dict(inputs)
    ref_inputs.update(spec.scalar_values(sizes))
    return spec.reference({k: v.copy() if isinstance(v, np.ndarray) else v for k, v in ref_inputs.items()}, sizes)


def add_arguments(parser) -> None:
    """The options of ``kgraph corpus-check`` and ``python -m kgraph.data.corpus.check``.

    Args:
        parser: the argparse parser to fill.
    """
    parser.add_argument("select", nargs="*", help="families or kernel ids (default: all)")
    parser.add_argument("--platform", type=int, default=0, help="OpenCL platform index")


def run(args) -> int:
    """Check the selected kernels on the platform's first device; exit status 1 when one fails.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    import pyopencl as cl

    from . import all_specs

    platforms = cl.get_platforms()
    if not 0 <= args.platform < len(platforms):
        raise UsageError(f"--platform {args.platform}: only {len(platforms)} OpenCL platform(s)")
    device = platforms[args.platform].get_devices()[0]
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    specs = [s for s in all_specs()
             if not args.select or s.family in args.select or s.kernel_id in args.select]
    if not specs:
        raise UsageError(f"no kernel matches {' '.join(args.select)}")
    failed = 0
    start = time.time()
    for spec in specs:
        try:
            ok, err = check_spec(spec, ctx, queue)
            status = "ok" if ok else "wrong_result"
        except KGraphError as exc:
            ok, err, status = False, float("nan"), f"error: {exc}"
        failed += not ok
        print(f"{spec.kernel_id:48s} {status:14s} max_err={err:.3g}", flush=True)
    print(f"{len(specs) - failed}/{len(specs)} pass on {device.name.strip()} "
          f"in {time.time() - start:.1f} s")
    return 1 if failed else 0


def main(argv: Optional[list[str]] = None) -> int:
    return module_main(argv, "python -m kgraph.data.corpus.check", "Check corpus kernels against their references.",
                       add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())

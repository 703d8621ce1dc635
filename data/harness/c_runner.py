"""Run C functions on CPU cores in an isolated worker process: check against numpy, then time.

A :class:`CWorker` is one spawned process (a fresh interpreter, never a fork: a parent that has run
torch holds an initialised libgomp whose thread pool a forked child inherits without its threads, and
the child's first parallel region then waits forever) pinned to ``cores`` CPUs
(``os.sched_setaffinity``) with ``OMP_NUM_THREADS=cores`` (``OMP_PROC_BIND=close``,
``OMP_PLACES=cores``) set in the child before it loads any library (libgomp reads them when it loads),
so OpenMP functions use exactly those cores and single-threaded ones run on one.
A request gets an answer dict; a function that kills the process (segfault, abort) is answered
``{"status": "crash"}`` and one that does not return within the timeout ``{"status": "timeout"}``
(the worker is killed); the next request starts a fresh worker.

A run (:func:`run_call`): make the catalog's inputs, call once and compare every output with the numpy
reference (relative Frobenius error, ``TOLERANCE`` per dtype; status ``wrong_result`` beyond it), then
time. Each timed sample is one call, timed with ``perf_counter_ns`` around the ctypes call (the call's
overhead, ``launch_overhead_us`` in device.json, is included); the written operands are restored from
pristine copies before every call (outside the timed region), so every call does the same work on
operands that are warm in cache. A sample is the mean of ``ceil(sample_ns / fastest warm-up call)``
calls (1 for calls of ``sample_ns`` or more); samples longer than ``outlier_factor`` x the median are
dropped as interrupted (preemption on a shared machine) and counted. Repeats stop when the CV of the samples is at most ``target_cv``
(after ``min_repeats``), at ``max_repeats``, or after ``time_cap_s`` of summed call time; a warm-up call
slower than ``slow_call_s`` gets only ``min_repeats``.
"""
from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import time
from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class CTimingPolicy:
    """When to stop repeating a call (the ideas of :class:`kgraph.data.harness.timing.TimingPolicy`)."""

    target_cv: float = 0.02
    min_repeats: int = 5
    max_repeats: int = 200
    warmup: int = 2
    time_cap_s: float = 0.5
    slow_call_s: float = 0.5
    sample_ns: float = 50_000.0  # a sample averages ceil(sample_ns / fastest warm-up call) calls
    max_calls_per_sample: int = 64
    outlier_factor: float = 2.0  # samples longer than this x the median are dropped (0: keep all)


def coefficient_of_variation(times) -> float:
    t = np.asarray(times, dtype=np.float64)
    if t.size < 2 or t.mean() <= 0:
        return 0.0
    return float(t.std(ddof=1) / t.mean())


# -- inside the worker ----------------------------------------------------------------------------
def _call_args(family: str, sizes: dict, arrays: dict) -> list:
    from kgraph.data.corpus.c import SIGNATURES

    out = []
    for token in SIGNATURES[family]:
        if token.startswith("ld"):
            out.append(ctypes.c_int(arrays[token[2:]].shape[0]))
        elif token in arrays:
            out.append(ctypes.c_void_p(arrays[token].ctypes.data))
        else:
            out.append(ctypes.c_int(int(sizes[token])))
    return out


def run_call(job: dict, libs: dict) -> dict:
    """Check, then time one call (``job``: lib, symbol, family, dtype, sizes, seed, policy); the answer's
    ``status`` is ok, wrong_result or launch_error, with ``times_ns`` for ok."""
    from kgraph.data.corpus.c import DTYPES, OUTPUTS, TOLERANCE, make_inputs, reference, relative_error

    family, sizes = job["family"], job["sizes"]
    policy = CTimingPolicy(**job.get("policy", {}))
    lib = libs.get(job["lib"])
    if lib is None:
        lib = libs[job["lib"]] = ctypes.CDLL(job["lib"])
    try:
        fn = getattr(lib, job["symbol"])
    except AttributeError:
        return {"status": "launch_error", "message": f"{job['symbol']}: no such function in {job['lib']}"}
    fn.restype = None
    pristine = make_inputs(family, sizes, DTYPES[job["dtype"]][1], job.get("seed", 0))
    work = {name: a.copy(order="F") for name, a in pristine.items()}
    outputs = OUTPUTS[family]
    args = _call_args(family, sizes, work)

    def call() -> int:
        for name in outputs:
            np.copyto(work[name], pristine[name])
        t0 = time.perf_counter_ns()
        fn(*args)
        return time.perf_counter_ns() - t0

    first_ns = call()
    want = reference(family, pristine, sizes)
    errors = {}
    for name in outputs:
        got = work[name]
        err = relative_error(family, name, got, want[name]) if np.isfinite(got).all() else float("inf")
        errors[name] = err
    worst = max(errors.values())
    if not worst <= TOLERANCE[job["dtype"]]:
        return {"status": "wrong_result", "check_error": worst,
                "message": f"relative error {worst:.3g} > {TOLERANCE[job['dtype']]:g} against numpy ({errors})"}
    warm = [first_ns] + [call() for _ in range(max(policy.warmup - 1, 0))]
    fastest = max(min(warm), 1)
    k = 1 if policy.sample_ns <= 0 else int(min(policy.max_calls_per_sample, -(-policy.sample_ns // fastest)))
    max_repeats = policy.min_repeats if fastest > policy.slow_call_s * 1e9 else policy.max_repeats
    samples: list[float] = []
    spent = 0
    start = time.perf_counter()
    while True:
        calls = [call() for _ in range(k)]
        samples.append(sum(calls) / k)
        spent += sum(calls)
        kept = kept_samples(samples, policy.outlier_factor)
        if len(kept) >= policy.min_repeats and coefficient_of_variation(kept) <= policy.target_cv:
            break
        if len(samples) >= max_repeats or spent >= policy.time_cap_s * 1e9:
            break
    return {"status": "ok", "times_ns": kept, "all_times_ns": samples, "calls_per_sample": k,
            "warmup_ns": float(fastest), "check_error": worst, "wall_s": time.perf_counter() - start,
            "message": ""}


def kept_samples(samples, factor: float) -> list[float]:
    """The samples at most ``factor`` x their median (longer ones were interrupted: preemption on a shared
    machine, page faults), all of them when ``factor`` <= 0."""
    if factor <= 0 or not samples:
        return list(samples)
    limit = factor * float(np.median(samples))
    return [t for t in samples if t <= limit]


def describe_cpu(job: dict, libs: dict) -> dict:
    """Micro-benchmarks for the descriptor (``job``: lib = microbench.so, threads = [t, ...], copy_bytes)."""
    lib = libs.get(job["lib"])
    if lib is None:
        lib = libs[job["lib"]] = ctypes.CDLL(job["lib"])
    lib.kg_fma_gflops.restype = ctypes.c_double
    lib.kg_fma_gflops.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_int]
    lib.kg_copy_gbs.restype = ctypes.c_double
    lib.kg_copy_gbs.argtypes = [ctypes.c_int, ctypes.c_long, ctypes.c_int, ctypes.c_int]
    out = {"threads": {}}
    for t in job["threads"]:
        out["threads"][str(t)] = {
            "fp64_gflops": lib.kg_fma_gflops(1, t, job.get("fma_iters", 2_000_000), 5),
            "fp32_gflops": lib.kg_fma_gflops(0, t, job.get("fma_iters", 2_000_000), 5),
            "copy_bw_gbs": lib.kg_copy_gbs(t, job["copy_bytes"], 1, 5),
            "l1_copy_gbs": lib.kg_copy_gbs(t, 8192 * t, 20000, 3),
        }
    empty = lib.kg_empty
    empty.restype = None
    samples = []
    for _ in range(5):
        t0 = time.perf_counter_ns()
        for _ in range(2000):
            empty()
        samples.append((time.perf_counter_ns() - t0) / 2000)
    out["call_overhead_us"] = min(samples) / 1000
    return {"status": "ok", **out}


def worker_main(conn, cpus: list[int], env: dict | None = None) -> None:
    """The worker's loop: answer ``{"t": "run" | "describe", ...}`` requests until ``None``."""
    os.environ.update(env or {})
    try:
        import faulthandler
        faulthandler.disable()  # a crashing C function is an expected status here, not a traceback to print
    except (ImportError, RuntimeError):
        pass
    try:
        os.sched_setaffinity(0, set(cpus))
    except (AttributeError, OSError):
        pass
    libs: dict = {}
    while True:
        try:
            msg = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if msg is None:
            return
        try:
            if msg["t"] == "run":
                answer = run_call(msg, libs)
            elif msg["t"] == "describe":
                answer = describe_cpu(msg, libs)
            else:
                answer = {"status": "launch_error", "message": f"unknown request {msg['t']!r}"}
        except Exception as exc:  # noqa: BLE001 - a Python-side failure of one call is a status, not a crash
            answer = {"status": "launch_error", "message": f"{exc.__class__.__name__}: {exc}"[:2000]}
        conn.send(answer)


# -- the parent's side ----------------------------------------------------------------------------
def _signal_name(code) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"


class CWorker:
    """A worker process on ``cores`` CPUs (the first ``cores`` this process may use, or ``cpus``)."""

    def __init__(self, cores: int = 1, cpus: list[int] | None = None):
        allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))
        self.cores = int(cores)
        if self.cores < 1 or self.cores > len(allowed):
            raise ValueError(f"cores={cores}: this process may use {len(allowed)} CPU(s)")
        self.cpus = list(cpus) if cpus is not None else allowed[:self.cores]
        self.proc = None
        self.conn = None
        self.restarts = 0

    def env(self) -> dict:
        k = str(self.cores)
        return {"OMP_NUM_THREADS": k, "OMP_PROC_BIND": "close", "OMP_PLACES": "cores", "OMP_DYNAMIC": "false",
                "OMP_WAIT_POLICY": "passive"}

    def ensure_started(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            return
        self._reset()
        ctx = mp.get_context("spawn")  # not fork: see the module docstring (libgomp after torch)
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, self.cpus, self.env()), daemon=True,
                                name=f"kgraph-c-worker-{self.cores}c")
        self.proc.start()
        child.close()
        self.conn = parent

    def request(self, msg: dict, timeout_s: float) -> dict:
        """The worker's answer to ``msg``; ``crash``/``timeout`` answers when it dies or does not answer."""
        self.ensure_started()
        try:
            self.conn.send(msg)
            ready = self.conn.poll(timeout_s)
        except (BrokenPipeError, OSError) as exc:
            return self._died(f"pipe broken: {exc}")
        if not ready:
            self.kill()
            return {"status": "timeout", "message": f"no answer within {timeout_s:g} s; worker killed"}
        try:
            return self.conn.recv()
        except (EOFError, ConnectionResetError, OSError):
            return self._died("worker died")

    def _died(self, what: str) -> dict:
        code = None
        if self.proc is not None:
            self.proc.join(5)
            code = self.proc.exitcode
        self._reset()
        return {"status": "crash", "message": f"{what} ({_signal_name(code)})"}

    def kill(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        self._reset()

    def _reset(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
        if self.proc is not None:
            self.restarts += 1
        self.proc, self.conn = None, None

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(5)
            except (BrokenPipeError, OSError):
                pass
        self.kill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def policy_dict(policy: CTimingPolicy) -> dict:
    return asdict(policy)

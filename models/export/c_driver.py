"""Compile an exported C model with the runtime's driver and run it from Python (tests, benchmarks)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

from kgraph.data.targets import BOUND_CLASSES, TARGETS, TIME_INTERVAL
from kgraph.parsers.errors import ModelError

CFLAGS = ("-O2", "-std=c99")
# AddressSanitizer + UndefinedBehaviorSanitizer (and float casts/divisions), every report fatal (tests of hostile inputs)
SANITIZE_FLAGS = ("-g", "-fsanitize=address,undefined,float-cast-overflow,float-divide-by-zero",
                  "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")
DRIVER_SOURCE = Path(__file__).resolve().parent / "c" / "kgraph_driver.c"
# columns of predict_c: the natural-unit fields (time_ns, bandwidth_gbs, ...) follow rc, time_us,
# the log targets, bound and the bound probabilities
NATURAL_COLUMNS = slice(2 + len(TARGETS) + 1 + len(BOUND_CLASSES), 2 + 2 * len(TARGETS) + 1 + len(BOUND_CLASSES))
# then the two ends of the time interval (TIME_INTERVAL.keys; NaN for a head without interval)
INTERVAL_COLUMNS = slice(NATURAL_COLUMNS.stop, NATURAL_COLUMNS.stop + len(TIME_INTERVAL.keys))


def build_driver(export_dir: str | Path, out: str | Path | None = None, cc: str = "gcc",
                 extra_flags: tuple[str, ...] = ()) -> Path:
    """``cc -O2 -std=c99`` the driver against ``export_dir/kgraph_model.c``; returns the binary path.

    Args:
        export_dir: folder of ``kgraph_model.h/.c``.
        out: the binary (default ``export_dir/kgraph_driver``).
        cc: the C compiler.
        extra_flags: more flags, e.g. ``SANITIZE_FLAGS``.
    """
    export_dir = Path(export_dir)
    if shutil.which(cc) is None:
        raise ModelError(f"C compiler {cc!r} not found on PATH")
    out = Path(out) if out else export_dir / "kgraph_driver"
    cmd = [cc, *CFLAGS, *extra_flags, "-Wall", "-I", str(export_dir), str(DRIVER_SOURCE),
           str(export_dir / "kgraph_model.c"), "-o", str(out), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ModelError(f"compiling the exported model failed:\n{' '.join(cmd)}\n{proc.stderr}")
    return out


def predict_c(driver: str | Path, kernels: list[str], devices: list[int], launch: np.ndarray) -> np.ndarray:
    """Predict rows with the compiled driver.

    Returns ``[N, 18]`` float64: rc, time_us, 5 log targets, bound, 3 bound probabilities, the 5
    natural-unit fields in :data:`kgraph.data.targets.TARGETS` order (``NATURAL_COLUMNS``), then the
    ends of the time interval (``INTERVAL_COLUMNS``).
    """
    lines = [f"{k} {d} " + " ".join(f"{v:.17g}" for v in row) for k, d, row in zip(kernels, devices, launch)]
    proc = subprocess.run([str(driver)], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if proc.returncode != 0:
        raise ModelError(f"{driver} failed: {proc.stderr.strip()}")
    return np.array([[float(v) for v in line.split()] for line in proc.stdout.splitlines()])


def predict_embedding_c(driver: str | Path, code: np.ndarray, launch: np.ndarray, device: np.ndarray) -> np.ndarray:
    """``kgraph_predict_embedding`` through the driver, one row per row of ``code``, ``launch`` and
    ``device`` (``[N, code_dim]``, ``[N, n_launch]``, ``[N, n_device]``); returns ``[N, 2]``: rc, time_us."""
    lines = [" ".join(f"{v:.17g}" for v in (*c, *x, *d)) for c, x, d in zip(code, launch, device)]
    proc = subprocess.run([str(driver), "--embedding"], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if proc.returncode != 0:
        raise ModelError(f"{driver} --embedding failed: {proc.stderr.strip()}")
    return np.array([[float(v) for v in line.split()] for line in proc.stdout.splitlines()])


def bench_c(driver: str | Path, kernel: str, device: int, launch: np.ndarray, calls: int = 200_000) -> float:
    """Median nanoseconds per ``kgraph_predict`` call (7 rounds of ``calls``)."""
    args = [str(driver), "--bench", str(calls), kernel, str(device), *(f"{v:.17g}" for v in launch)]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ModelError(f"{driver} --bench failed: {proc.stderr.strip()}")
    return float(proc.stdout.split()[1])


def features_c(driver: str | Path, rows: list[tuple]) -> np.ndarray:
    """``kgraph_features`` through the driver; rows are ``(kernel, device, dims, g[3], l[3], args)``.

    Returns ``[N, 1 + n_launch]``: rc then the features.
    """
    lines = []
    for kernel, device, dims, g, l, args in rows:
        vals = [kernel, device, dims, *g, *l, len(args), *args]
        lines.append(" ".join(f"{v:.17g}" if isinstance(v, float) else str(v) for v in vals))
    proc = subprocess.run([str(driver), "--features"], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if proc.returncode != 0:
        raise ModelError(f"{driver} --features failed: {proc.stderr.strip()}")
    return np.array([[float(v) for v in line.split()] for line in proc.stdout.splitlines()])

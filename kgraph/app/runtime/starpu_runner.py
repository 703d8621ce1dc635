"""Build and run the StarPU workload (``kgraph/app/runtime/starpu``) from Python: tests and benchmarks.

:func:`build` runs the project's Makefile against an exported model; :func:`run_workload` runs
``tiled_workload`` with StarPU's environment (PoCL ICD, worker counts, scheduler, STARPU_HOME) and
parses its summary line and per-task trace.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from kgraph.errors import KGraphError, MeasurementError, module_main
from kgraph.app.runtime import runtime_dir


def starpu_available() -> str | None:
    """None when StarPU 1.3 can be built against here, else the reason why not.

    KGRAPH_STARPU_CFLAGS and KGRAPH_STARPU_LIBS in the environment (a bundle made by
    ``benchmarks/starpu_bundle.sh``) replace pkg-config."""
    bundled = os.environ.get("KGRAPH_STARPU_CFLAGS") and os.environ.get("KGRAPH_STARPU_LIBS")
    if not bundled and shutil.which("pkg-config") is None:
        return "pkg-config is not installed (or set KGRAPH_STARPU_CFLAGS/KGRAPH_STARPU_LIBS)"
    if not bundled and subprocess.run(["pkg-config", "--exists", "starpu-1.3"]).returncode != 0:
        return "libstarpu-dev (pkg-config starpu-1.3) is not installed: apt-get install -y libstarpu-dev"
    if shutil.which("make") is None or shutil.which("gcc") is None:
        return "make/gcc not installed"
    return None


def pocl_icd_dir(work: Path) -> Path | None:
    """A vendors directory for the OpenCL ICD loader: $OCL_ICD_VENDORS if set to a directory listing
    an ICD, /etc/OpenCL/vendors if it lists one, else one written under ``work`` pointing at the PoCL
    library shipped with pyopencl / pocl-binary-distribution."""
    given = os.environ.get("OCL_ICD_VENDORS")
    if given and Path(given).is_dir() and any(Path(given).glob("*.icd")):
        return Path(given)
    system = Path("/etc/OpenCL/vendors")
    if system.is_dir() and any(system.glob("*.icd")):
        return system
    try:
        import pyopencl
    except ImportError:
        return None
    libs = sorted((Path(pyopencl.__file__).parent.parent / "pyopencl.libs").glob("libpocl*.so*")) + \
        sorted((Path(pyopencl.__file__).parent / ".libs").glob("libpocl*.so*"))
    if not libs:
        return None
    vendors = work / "vendors"
    vendors.mkdir(parents=True, exist_ok=True)
    (vendors / "pocl.icd").write_text(str(libs[0].resolve()) + "\n")
    return vendors


def _make(model_dir: str | Path, build_dir: str | Path, *targets_and_vars: str) -> None:
    """``make -C kgraph/app/runtime/starpu MODEL_DIR=... BUILD=... [targets and variables]``."""
    reason = starpu_available()
    if reason:
        raise KGraphError(reason)
    proc = subprocess.run(["make", "-s", "-C", str(runtime_dir() / "starpu"), f"MODEL_DIR={Path(model_dir).resolve()}",
                           f"BUILD={Path(build_dir).resolve()}", *targets_and_vars], capture_output=True, text=True)
    if proc.returncode != 0:
        raise KGraphError(f"building the StarPU programs failed:\n{proc.stdout}\n{proc.stderr}")


def build(model_dir: str | Path, build_dir: str | Path, cpu_model_dir: str | Path | None = None) -> Path:
    """``make -C kgraph/app/runtime/starpu MODEL_DIR=... BUILD=... KERNEL_DIR=... C_CORPUS_DIR=...``
    [``CPU_MODEL_DIR=...``: the C-function head of CPU workers, :mod:`kgraph.app.runtime.cpu_functions`];
    returns the workload binary."""
    from kgraph.data.corpus import tile_kernel_files
    from kgraph.data.corpus.c import C_DIR

    extra = [f"CPU_MODEL_DIR={Path(cpu_model_dir).resolve()}"] if cpu_model_dir else []
    _make(model_dir, build_dir, f"KERNEL_DIR={tile_kernel_files()[0].parent}", f"C_CORPUS_DIR={C_DIR}", *extra)
    return Path(build_dir) / "tiled_workload"


def build_example(model_dir: str | Path, build_dir: str | Path) -> Path:
    """``make ... example``: the walk-through's ``user_codelet`` against an export holding ``user_saxpy``."""
    _make(model_dir, build_dir, "example")
    return Path(build_dir) / "user_codelet"


def build_adaptive(model_dir: str | Path, build_dir: str | Path) -> tuple[Path, Path]:
    """``make ... adaptive``: the adaptive perfmodel's ``adaptive_codelet`` (against an export holding
    ``user_saxpy``) and its StarPU-free test program ``test_adaptive``."""
    _make(model_dir, build_dir, "adaptive")
    return Path(build_dir) / "adaptive_codelet", Path(build_dir) / "test_adaptive"


def build_adaptive_test(build_dir: str | Path) -> Path:
    """The adaptive perfmodel's test program alone (gcc only: no StarPU, no export)."""
    proc = subprocess.run(["make", "-s", "-C", str(runtime_dir() / "starpu"), f"BUILD={Path(build_dir).resolve()}",
                           "test-adaptive"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise KGraphError(f"building test_adaptive failed:\n{proc.stdout}\n{proc.stderr}")
    return Path(build_dir) / "test_adaptive"


def run_adaptive(binary: Path, kernel: Path, device_id: str, *, work: Path, perfmodel_dir: Path, rounds: int = 4,
                 tasks: int = 6, n: int = 1 << 18, env: dict | None = None, timeout: float = 300.0) -> dict:
    """Run ``adaptive_codelet`` (dmda, one PoCL OpenCL worker) with its histories in ``perfmodel_dir``;
    returns its summary line as a dict, ``rounds_trace`` (round, predicted_us, measured_us), ``returncode``
    and ``stderr``."""
    work.mkdir(parents=True, exist_ok=True)
    full_env = starpu_env(work, work / "starpu-home", "dmda", 0, 1, {"KGRAPH_PERFMODEL_DIR": str(perfmodel_dir),
                                                                      **(env or {})})
    proc = subprocess.run([str(binary), str(kernel), device_id, str(rounds), str(tasks), str(n)], env=full_env,
                          capture_output=True, text=True, timeout=timeout)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("adaptive_codelet ")), None)
    if line is None:
        raise MeasurementError(f"{binary.name} failed ({proc.returncode}):\n{proc.stderr.strip()[-2000:]}")
    words = line.split()[1:]
    trace = [dict(zip(("round", "predicted_us", "measured_us"), (float(w) for w in ln.split()[1::2])))
             for ln in proc.stdout.splitlines() if ln.startswith("adaptive_round ")]
    return {"returncode": proc.returncode, "stderr": proc.stderr, "rounds_trace": trace,
            **{k: float(v) for k, v in zip(words[::2], words[1::2])}}


def example_kernel() -> Path:
    """The walk-through's user kernel, ``user_saxpy.cl``."""
    return runtime_dir() / "starpu" / "user_saxpy.cl"


def starpu_env(work: Path, starpu_home: Path, sched: str = "dmda", ncpu: int = 1, nopencl: int = 1,
               env: dict | None = None) -> dict:
    """The environment of a StarPU run: scheduler, worker counts, OpenCL on CPUs through PoCL (its ICD
    under ``work`` when the system has none), STARPU_HOME (its perfmodel files) and ``env`` on top."""
    full_env = dict(os.environ, STARPU_HOME=str(starpu_home), STARPU_SCHED=sched, STARPU_NCPU=str(ncpu),
                    STARPU_NOPENCL=str(nopencl), STARPU_OPENCL_ON_CPUS="1", STARPU_NCUDA="0", STARPU_SILENT="1",
                    STARPU_OPENCL_ONLY_ON_CPUS="1")
    icd = pocl_icd_dir(work)
    if icd is not None:
        full_env["OCL_ICD_VENDORS"] = str(icd)
    full_env.update(env or {})
    return full_env


def run_example(binary: Path, kernel: Path, device_id: str, *, work: Path, tasks: int = 8, n: int = 1 << 16,
                ncpu: int = 0, env: dict | None = None, timeout: float = 300.0) -> dict:
    """Run the walk-through's ``user_codelet`` under dmda with one PoCL OpenCL worker; returns its
    summary line as a dict (``tasks, cost_calls, cost_failures, predicted_us, model_agrees, correct``)
    and ``returncode`` (0 when every check of the program held)."""
    work.mkdir(parents=True, exist_ok=True)
    full_env = starpu_env(work, work / "starpu-home", "dmda", ncpu, 1, env)
    proc = subprocess.run([str(binary), str(kernel), device_id, str(tasks), str(n)], env=full_env,
                          capture_output=True, text=True, timeout=timeout)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("user_codelet ")), None)
    if line is None:
        raise MeasurementError(f"{binary.name} failed ({proc.returncode}):\n{proc.stderr.strip()[-2000:]}")
    words = line.split()[1:]
    return {"returncode": proc.returncode, **{k: float(v) for k, v in zip(words[::2], words[1::2])}}


@dataclass
class WorkloadRun:
    summary: dict          # the summary line's key/value pairs (numbers as float)
    trace: list[dict]      # kind, tile, arch, predicted_us, measured_us per task


def run_workload(binary: Path, workload: str, tiles: int, tile: int, model: str, *, work: Path,
                 starpu_home: Path, sched: str = "dmda", ncpu: int = 1, nopencl: int = 1,
                 env: dict | None = None, timeout: float = 300.0) -> WorkloadRun:
    """Run ``tiled_workload`` once; ``model`` in ``kgraph|kgraph-adaptive|history|regression|none``
    (kgraph-adaptive: histories in ``env["KGRAPH_PERFMODEL_DIR"]``, default ~/.kgraph/perfmodel)."""
    work.mkdir(parents=True, exist_ok=True)
    trace = work / f"trace-{workload}-{tiles}-{tile}-{model}-{sched}.csv"
    full_env = starpu_env(work, starpu_home, sched, ncpu, nopencl, env)
    proc = subprocess.run([str(binary), workload, str(tiles), str(tile), model, str(trace)], env=full_env,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise MeasurementError(f"{binary.name} {workload} {tiles} {tile} {model} failed ({proc.returncode}):\n"
                               f"{proc.stderr.strip()[-2000:]}")
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("workload ")), None)
    if line is None:
        raise MeasurementError(f"{binary.name}: no summary line in its output:\n{proc.stdout}")
    words = line.split()
    summary = {}
    for key, value in zip(words[::2], words[1::2]):
        try:
            summary[key] = float(value)
        except ValueError:
            summary[key] = value
    rows = []
    lines = trace.read_text().splitlines()
    for ln in lines[1:]:
        kind, t, arch, pred, meas = ln.split(",")
        rows.append({"kind": kind, "tile": int(t), "arch": arch, "predicted_us": float(pred), "measured_us": float(meas)})
    return WorkloadRun(summary, rows)


def add_arguments(p) -> None:
    """The options of ``kgraph starpu-run`` and ``python -m kgraph.app.runtime.starpu_runner``.

    Args:
        p: the argparse parser to fill.
    """
    p.add_argument("--model-dir", required=True, help="kgraph export --format c ... --kernels user_saxpy.cl")
    p.add_argument("--build", required=True, help="build folder")
    p.add_argument("--device", default="pocl-skylake-avx512-intel-xeon",
                   help="device id of the export the OpenCL workers are mapped to")
    p.add_argument("--tasks", type=int, default=8)
    p.add_argument("--n", type=int, default=1 << 16, help="floats per task")
    p.add_argument("--adaptive", action="store_true",
                   help="run adaptive_codelet instead (the adaptive perfmodel over --rounds rounds; histories in "
                        "$KGRAPH_PERFMODEL_DIR, default ~/.kgraph/perfmodel)")
    p.add_argument("--rounds", type=int, default=4)


def run(args) -> int:
    """Build and run the walk-through's ``user_codelet`` (docs/RUNTIME.md) against an export holding
    ``user_saxpy``; its exit status.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    if args.adaptive:
        binary, _ = build_adaptive(args.model_dir, args.build)
        pm = Path(os.environ.get("KGRAPH_PERFMODEL_DIR") or Path.home() / ".kgraph" / "perfmodel")
        summary = run_adaptive(binary, example_kernel(), args.device, work=Path(args.build) / "run-adaptive",
                               perfmodel_dir=pm, rounds=args.rounds, tasks=args.tasks, n=args.n)
        for row in summary.pop("rounds_trace"):
            print(f"round {row['round']:g} predicted_us {row['predicted_us']:.6g} measured_us {row['measured_us']:.6g}")
        sys.stderr.write(summary.pop("stderr"))
        print(" ".join(f"{k} {v:.6g}" for k, v in summary.items()))
        return int(summary["returncode"])
    binary = build_example(args.model_dir, args.build)
    summary = run_example(binary, example_kernel(), args.device, work=Path(args.build) / "run", tasks=args.tasks,
                          n=args.n)
    print(" ".join(f"{k} {v:g}" for k, v in summary.items()))
    return int(summary["returncode"])


def main(argv: list[str] | None = None) -> int:
    return module_main(argv, "python -m kgraph.app.runtime.starpu_runner",
                       "build and run the StarPU walk-through codelet (docs/RUNTIME.md)", add_arguments, run)


if __name__ == "__main__":
    raise SystemExit(main())

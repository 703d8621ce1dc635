"""Estimate throughput (issue 13 §4, "analyse once, predict fast"): the path ``kgraph estimate`` and
``kgraph.load_model().estimate(...)`` share (:meth:`kgraph.app.api.Model.estimate_many`), on one core.

Three numbers, each the median of ``--repeats`` timed repeats (after one untimed warm-up that loads the
model, so the model load is not in the first two):

- ``distinct``: distinct kernels/s *including the analysis*: ``--kernels`` distinct (source, kernel)
  pairs of the corpus (``kgraph.data.corpus.all_specs()``, each source written once to a file), one
  launch each (the spec's ``check_sizes``), in one ``estimate_many`` call: parse, graph, static
  analysis, static counts/footprint/exact counts, features, forward. Every repeat starts from the files
  and takes the *next* ``--kernels`` corpus kernels (disjoint sets, the same in every run), so neither
  kgraph nor sympy's expression cache has seen them (the warm-up takes kernels from the corpus' end).
- ``launches``: launches/s of an analysed kernel: ``--launches`` launches of ``examples/opencl/saxpy.cl``
  in one ``estimate_many`` call, every launch a different size (``n`` = global = 256·k); and
  ``launches_corpus``: as many launches of ``--launch-kernels`` corpus kernels, cycling through four
  sizes of each (repeated launches). The one or few kernels' analysis is included but negligible.
- ``cold``: wall and CPU (user+sys) seconds of a cold ``kgraph estimate examples/opencl/saxpy.cl ...``
  subprocess (a new interpreter each time: imports, model load, one launch, output).

The process pins itself to one core (``os.sched_setaffinity``, torch/OMP/MKL threads 1); the cold
subprocesses inherit the pinning. CPU seconds are reported next to wall seconds: on a shared box the
wall clock includes time the process waited for the core. Usage::

    python -m benchmarks.estimate_throughput --out runs/estimate_throughput/after.json \\
        [--compare runs/estimate_throughput/before.json]

``--compare`` prints the records side by side. ``--code DIR`` measures another copy of the package
(``DIR/kgraph`` with ``parsers``, ``data``, ``models`` and ``examples`` mapped in as installed) instead
of the installed one, in this process and in the cold subprocesses: how the "before" column of
BENCHMARKS.md was measured in the same session as the "after" one.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLD_ARGS = ["estimate", "examples/opencl/saxpy.cl", "--kernel", "saxpy", "--global", "1048576",
             "--arg", "n=1048576", "--arg", "a=2", "--device", "h200"]


def mapped_package(code: str) -> str:
    """A folder whose ``kgraph/`` is the checkout ``code`` laid out as installed (pyproject's ``package-dir``:
    ``kgraph.parsers``, ``.data``, ``.models`` and ``.examples`` are the checkout's top-level folders), made of
    symbolic links in a temporary folder; put first on ``sys.path``, every ``kgraph.*`` import reads the copy, not
    the editable install's folders."""
    from benchmarks.package_layout import link_subpackages

    src = Path(code).resolve()
    root = Path(tempfile.mkdtemp(prefix="kgraph_code_"))
    (root / "kgraph").mkdir()
    for entry in (src / "kgraph").iterdir():
        (root / "kgraph" / entry.name).symlink_to(entry)
    link_subpackages(src, root / "kgraph")
    return str(root)


def pin_one_core(core: int | None = None) -> int:
    allowed = sorted(os.sched_getaffinity(0))
    core = allowed[-1] if core is None else core
    os.sched_setaffinity(0, {core})
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
    return core


def corpus_requests(folder: Path, kernels: int, sizes_per_kernel: int = 1, offset: int = 0,
                    skip: int = 0) -> list[dict]:
    """Requests of ``kernels`` distinct corpus (source, kernel) pairs, ``sizes_per_kernel`` launches each
    (the spec's ``check_sizes`` first, then its size grid); each distinct source written once to ``folder``.
    ``offset``: specs passed over first; ``skip``: distinct kernels passed over after them."""
    from kgraph.data.corpus import all_specs
    from kgraph.data.harness.columns import source_id_of

    seen, out = set(), []
    for spec in all_specs()[offset:]:
        key = (spec.source, spec.kernel_name)
        if key in seen:
            continue
        grid = [dict(spec.check_sizes)] + [s for s in spec.size_grid()[:4 * sizes_per_kernel]]
        made = []
        for sizes in grid:
            g = spec.global_size_of(sizes)
            local = next((l for l in spec.local_sizes if spec.check(sizes, l)
                          and all(gd % ld == 0 for gd, ld in zip(g, l))), None)
            if local is None:
                continue
            made.append({"kernel": spec.kernel_name, "global": g, "local": list(local),
                         "args": {k: float(v) for k, v in spec.scalar_values(sizes).items()},
                         "device": "nvidia-h200"})
            if len(made) == sizes_per_kernel:
                break
        if not made:
            continue
        seen.add(key)
        if len(seen) > skip:
            path = folder / f"{source_id_of(spec.source)}.cl"
            if not path.exists():
                path.write_text(spec.source)
            out.extend({"file": str(path), **r} for r in made)
        if len(seen) == skip + kernels:
            break
    return out


def _timed(fn) -> tuple[float, float, object]:
    w0, c0 = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - w0, time.process_time() - c0, result


def measure_in_process(args) -> dict:
    import torch

    import kgraph
    from kgraph.data.corpus import all_specs

    torch.set_num_threads(1)
    model = kgraph.load_model(args.model)
    record: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        warm = corpus_requests(folder, 3, offset=len(all_specs()) - 12)
        model.estimate_many(warm)  # model load, sympy/torch first-call costs
        walls, cpus = [], []
        for r in range(args.repeats):
            distinct = corpus_requests(folder, args.kernels, skip=r * args.kernels)
            wall, cpu, out = _timed(lambda: model.estimate_many(distinct))
            walls.append(wall)
            cpus.append(cpu)
        n = len(distinct)
        record["distinct"] = {"kernels": n, "wall_s": walls, "cpu_s": cpus,
                              "kernels_per_s_wall": n / statistics.median(walls),
                              "kernels_per_s_cpu": n / statistics.median(cpus),
                              "mean_log_time": sum(__import__("math").log(r["time_ns"]) for r in out) / n}
        saxpy = str(ROOT / "examples/opencl/saxpy.cl")
        runs = {"launches": [{"file": saxpy, "kernel": "saxpy", "global": [256 * k], "local": [256],
                              "args": {"n": 256 * k, "a": 2.0}, "device": "nvidia-h200"}
                             for k in range(1, args.launches + 1)]}
        base = corpus_requests(folder, args.launch_kernels, sizes_per_kernel=4)
        runs["launches_corpus"] = [base[i % len(base)] for i in range(args.launches)]
        for name, many in runs.items():
            walls, cpus = [], []
            for _ in range(args.repeats):
                wall, cpu, out = _timed(lambda: model.estimate_many(many))
                walls.append(wall)
                cpus.append(cpu)
            record[name] = {"launches": len(many), "distinct_kernels": len({r["file"] + r["kernel"] for r in many}),
                            "wall_s": walls, "cpu_s": cpus,
                            "launches_per_s_wall": len(many) / statistics.median(walls),
                            "launches_per_s_cpu": len(many) / statistics.median(cpus)}
    return record


def measure_cold(args) -> dict:
    exe = Path(sys.executable).with_name("kgraph")
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-m", "kgraph.app.cli.main"]
    if args.code:  # the console script's three lines, importing the copy
        cmd = [sys.executable, "-c", f"import sys; sys.path.insert(0, {args.code!r}); "
               "from kgraph.app.cli.main import main; sys.exit(main())"]
    walls, cpus = [], []
    for _ in range(args.cold_repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        done = subprocess.run(cmd + COLD_ARGS + (["--model", args.model] if args.model else []), cwd=ROOT,
                              capture_output=True, text=True)
        walls.append(time.perf_counter() - w0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if done.returncode != 0:
            raise SystemExit(f"cold kgraph estimate failed: {done.stderr.strip()[-500:]}")
    floor_walls, floor_cpus = [], []
    for _ in range(args.cold_repeats):  # the imports the shipped graph model cannot run without
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch, torch_geometric"], cwd=ROOT, check=True)
        floor_walls.append(time.perf_counter() - w0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        floor_cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return {"command": "kgraph " + " ".join(COLD_ARGS), "wall_s": walls, "cpu_s": cpus,
            "median_wall_s": statistics.median(walls), "median_cpu_s": statistics.median(cpus),
            "import_torch_geometric": {"wall_s": floor_walls, "cpu_s": floor_cpus,
                                       "median_wall_s": statistics.median(floor_walls),
                                       "median_cpu_s": statistics.median(floor_cpus)}}


def to_markdown(records: dict[str, dict]) -> str:
    """Rows: the three numbers; one column per record (``before``, ``after``)."""
    names = list(records)
    rows = [
        ("distinct kernels/s incl. analysis (wall)", lambda r: f"{r['distinct']['kernels_per_s_wall']:.1f}"),
        ("distinct kernels/s incl. analysis (CPU)", lambda r: f"{r['distinct']['kernels_per_s_cpu']:.1f}"),
        ("saxpy launches/s, all sizes distinct (wall)", lambda r: f"{r['launches']['launches_per_s_wall']:,.0f}"),
        ("saxpy launches/s, all sizes distinct (CPU)", lambda r: f"{r['launches']['launches_per_s_cpu']:,.0f}"),
        ("corpus launches/s, 5 kernels x 4 sizes (wall)",
         lambda r: f"{r['launches_corpus']['launches_per_s_wall']:,.0f}"),
        ("corpus launches/s, 5 kernels x 4 sizes (CPU)",
         lambda r: f"{r['launches_corpus']['launches_per_s_cpu']:,.0f}"),
        ("cold `kgraph estimate` wall s", lambda r: f"{r['cold']['median_wall_s']:.2f}"),
        ("cold `kgraph estimate` CPU s", lambda r: f"{r['cold']['median_cpu_s']:.2f}"),
        ("cold `python -c 'import torch, torch_geometric'` wall s",
         lambda r: f"{r['cold']['import_torch_geometric']['median_wall_s']:.2f}"),
        ("cold `python -c 'import torch, torch_geometric'` CPU s",
         lambda r: f"{r['cold']['import_torch_geometric']['median_cpu_s']:.2f}"),
    ]
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for label, fmt in rows:
        cells = []
        for n in names:
            try:
                cells.append(fmt(records[n]))
            except KeyError:
                cells.append("-")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.estimate_throughput",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model directory (default: the shipped one)")
    parser.add_argument("--kernels", type=int, default=60, help="distinct corpus kernels per repeat")
    parser.add_argument("--launches", type=int, default=20000, help="launches per repeat of analysed kernels")
    parser.add_argument("--launch-kernels", type=int, default=5, help="distinct kernels among --launches")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cold-repeats", type=int, default=5)
    parser.add_argument("--skip", nargs="*", default=[], choices=("throughput", "cold"))
    parser.add_argument("--core", type=int, help="the core to pin to (default: the last one allowed)")
    parser.add_argument("--label", default="after", help="name of this record in the side-by-side table")
    parser.add_argument("--code", metavar="DIR", help="measure the package copy DIR/kgraph (see the module doc)")
    parser.add_argument("--out", help="write the record (JSON) here")
    parser.add_argument("--compare", nargs="*", default=[], metavar="JSON",
                        help="earlier records (their --label) to print side by side")
    args = parser.parse_args(argv)
    for path in args.compare:  # before minutes of measuring, not after
        try:
            json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            parser.error(f"--compare {path}: not a readable record ({type(exc).__name__}: {exc})")
    if args.code and not (Path(args.code) / "kgraph").is_dir():
        parser.error(f"--code {args.code}: no kgraph/ folder there (a checkout of the repository)")
    code = args.code
    core = pin_one_core(args.core)
    if args.code:
        args.code = mapped_package(args.code)  # the checkout as installed
        sys.path.insert(0, args.code)
    record = {"label": args.label, "code": code or "installed", "core": core, "date": datetime.date.today().isoformat(),
              "host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
              "load_avg_start": os.getloadavg()}
    if "throughput" not in args.skip:
        record.update(measure_in_process(args))
    if "cold" not in args.skip:
        record["cold"] = measure_cold(args)
    record["load_avg_end"] = os.getloadavg()
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    records = {}
    for path in args.compare:
        earlier = json.loads(Path(path).read_text())
        records[earlier.get("label", Path(path).stem)] = earlier
    records[args.label] = record
    print(to_markdown(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())

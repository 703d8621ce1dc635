"""``kgraph registry``: fetch the registry's pinned archives, plan and size the launches of their kernels, measure
them on a device, and rebuild a registry dataset folder's sources (docs/REGISTRY.md).

    kgraph registry fetch   [--cache DIR]
    kgraph registry plan    [--cache DIR] [--device pocl] [--timeout-s 20] [--only UNIT ...]
    kgraph registry measure [--cache DIR] --device nvidia --out data/datasets/registry-nvidia-h200 [--budget-s S]
    kgraph registry sources FOLDER [FOLDER ...] [--cache DIR]
    kgraph registry counts  FOLDER [FOLDER ...] [--cache DIR] [--plan FILE]
"""
from __future__ import annotations

import json
from pathlib import Path

from kgraph.errors import UsageError

DEFAULT_CACHE = ".cache/registry"


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="step", required=True, metavar="STEP")
    for name, text in (("fetch", "download the pinned archives (sha256 checked)"),
                       ("plan", "make the units, plan their launches and size them on PoCL"),
                       ("measure", "time the planned launches on one device into a dataset folder"),
                       ("sources", "rebuild registry dataset folders' sources.parquet from the archives"),
                       ("counts", "give registry dataset folders' ok rows the work their sizing runs counted")):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--cache", default=DEFAULT_CACHE, help=f"archives, units and the plan (default {DEFAULT_CACHE})")
        p.add_argument("--config", default=None, help="the sources file (default conf/registry/sources.json)")
        if name == "plan":
            p.add_argument("--device", default="pocl", help="the sizing device (default pocl)")
            p.add_argument("--timeout-s", type=float, default=8.0, help="one sizing run's limit (default 8)")
            p.add_argument("--only", nargs="*", default=None, metavar="UNIT", help="only these units")
            p.add_argument("--shard", default="0/1", metavar="I/N",
                           help="only the units whose place in the list is I modulo N (parallel planners; default 0/1)")
        if name in ("plan", "measure"):
            p.add_argument("--plan", default=None, metavar="FILE",
                           help="the plan's file name in the cache (default plan.jsonl; plan: where this "
                                "planner writes)")
        if name == "measure":
            p.add_argument("--device", required=True, help="substring of the device id (nvidia, pocl)")
            p.add_argument("--out", required=True, help="the dataset folder (resumed when it exists)")
            p.add_argument("--timeout-s", type=float, default=10.0, help="one launch's limit (default 10)")
            p.add_argument("--budget-s", type=float, default=0.0, help="stop after this many seconds (0: none)")
            p.add_argument("--source", default=None, metavar="NAME",
                           help="only the kernels of this source (its name in sources.json; a slice of its own)")
        if name in ("sources", "counts"):
            p.add_argument("folders", nargs="+", metavar="FOLDER", help="registry dataset folders")
        if name == "counts":
            p.add_argument("--plan", default=None, metavar="FILE",
                           help="the plan's file name in the cache (default plan.jsonl)")


def units_of(cache: Path, config):
    """Every unit of the fetched archives (:func:`.units.resolve`, built on this machine's PoCL), kept in
    ``cache/units.jsonl``: a source already there is read back as it is (its units stay those it was measured
    with); a source added to the configuration since is resolved and appended."""
    from .sources import archive_path, kernel_files
    from .units import Unit, pocl_builder, resolve

    path = cache / "units.jsonl"
    known = [Unit.from_json(json.loads(line)) for line in path.read_text().splitlines() if line.strip()] \
        if path.is_file() else []
    have = {u.package for u in known}
    missing = [src for src in config.sources if src.package not in have]
    if not missing:
        return known
    per, library = {}, []
    for src in config.sources:
        archive = archive_path(src, cache)
        if not archive.is_file():
            if src in missing:
                raise UsageError(f"--cache {cache}: {src.package} is not fetched; run kgraph registry fetch first")
            continue
        per[src.package] = dict(kernel_files(src, archive))
        library += [(src.package, p, t) for p, t in per[src.package].items()]
    build = pocl_builder()
    new = [resolve(src.package, p, per[src.package], library, config.macros, build, src.name)
           for src in missing for p in per[src.package]]
    new = [u for u in new if u.kernels]
    with path.open("a") as fh:
        fh.write("".join(json.dumps(u.to_json()) + "\n" for u in new))
    return known + new


def run(args) -> int:
    from .sources import fetch, load_config

    cache = Path(args.cache)
    if args.step == "measure":  # needs only the plan and the unit files (a GPU host has no archives)
        from .campaign import measure_plan

        plan = cache / (args.plan or "plan.jsonl")
        if not plan.is_file():
            raise UsageError(f"--plan {plan}: no such file; run kgraph registry plan first")
        counts = measure_plan(plan, cache / "units", args.out, args.device, args.timeout_s, args.budget_s,
                              source=args.source)
        print("measure:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        return 0
    if args.step == "counts":
        from .campaign import fill_counts

        plan = cache / (args.plan or "plan.jsonl")
        if not plan.is_file():
            raise UsageError(f"--plan {plan}: no such file; run kgraph registry plan first")
        fill_counts(plan, args.folders)
        return 0
    config = load_config(args.config) if args.config else load_config()
    if args.step == "fetch":
        for src in config.sources:
            print(f"{src.package}: {fetch(src, cache, config.pypi_url)}")
        return 0
    if args.step == "sources":
        return _sources(args.folders, cache, config)
    if args.step == "plan":  # else: the argument parser allows no other step
        from .plan import plan_unit, size_launches

        index, count = _shard(args.shard)  # options first, before any archive is read
        units = units_of(cache, config)
        if args.only:
            units = [u for u in units if u.unit_id in set(args.only)]
        units = units[index::count]
        launches = [launch for u in units for launch in plan_unit(u, cache / "units")]
        done = size_launches(launches, cache / "units", cache / (args.plan or "plan.jsonl"), args.device,
                             args.timeout_s)
        counts = {}
        for launch in done:
            counts[launch.status] = counts.get(launch.status, 0) + 1
        print("plan:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


def _shard(text: str) -> tuple[int, int]:
    """``I/N`` -> (I, N) (UsageError naming --shard when it is not two whole numbers with 0 <= I < N)."""
    try:
        index, count = (int(v) for v in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard {text}: give I/N, two whole numbers (e.g. 0/4)") from None
    if not 0 <= index < count:
        raise UsageError(f"--shard {text}: I must be at least 0 and below N")
    return index, count


def main(argv: list[str] | None = None) -> int:
    from kgraph.errors import module_main

    return module_main(argv, "python -m kgraph.data.registry.cli", __doc__.splitlines()[0], add_arguments, run)


def _sources(folders: list[str], cache: Path, config) -> int:
    """Each folder's ``sources.parquet`` from the units its rows name (UsageError for a unit not in the cache): each
    unit's text as ``measure`` stored it, statement macros expanded by the front end (its ``source_id``)."""
    import pandas as pd

    from kgraph import parsers
    from kgraph.data.harness.columns import SOURCE_SCHEMA, source_id_of
    from kgraph.data.harness.store_read import read_launches

    from . import PREFIX
    from .plan import unit_file

    units = {u.unit_id: u for u in units_of(cache, config)}
    for folder in folders:
        rows = read_launches(folder)
        out, texts = {}, {}
        for kernel_id, name in rows[["kernel_id", "kernel_name"]].drop_duplicates().itertuples(index=False):
            unit_id = kernel_id[len(PREFIX) + 1:-len(name) - 1]
            if unit_id not in units:
                raise UsageError(f"{folder}: unit {unit_id} is not in {cache / 'units.jsonl'}; run kgraph "
                                 f"registry fetch first (its units are made from the archives)")
            if unit_id not in texts:  # one parse a unit, whatever its kernels: the text as measure stored it
                texts[unit_id] = parsers.parse_file(str(unit_file(cache / "units", units[unit_id]))).text
            text = texts[unit_id]
            out[source_id_of(text)] = {"source_id": source_id_of(text), "lang": "opencl", "kernel_id": kernel_id,
                                       "family": f"{PREFIX}.{unit_id}", "kernel_name": name, "source": text,
                                       "spec_json": "{}"}
        frame = pd.DataFrame(list(out.values()), columns=SOURCE_SCHEMA.names)
        frame.to_parquet(Path(folder) / "sources.parquet", index=False)
        print(f"{folder}: {len(frame)} sources")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The C-function cost model of StarPU's CPU workers: a code-free compact head on the measured C corpus.

StarPU's CPU workers of the tiled workload run functions of the C corpus (``data/corpus/c``: the
``blocked`` fp32 variants of potrf/trsm/syrk/gemm, column-major, ``tile_codelets.c``), the same code the
C datasets (``data/datasets/c-*/cpu-c-*-1c``) measured on one core. This module

- ``train``: fits the code-free ``base`` compact head of ``benchmarks/c_functions_model.py`` (launch +
  static-count + device features, no code embedding) on **all** rows of every one-core C dataset present
  (300 epochs, batch 64, seed 0) and saves it as a compact checkpoint (``models/c_functions/head.pt``:
  the four tile functions with their sources, and every measured one-core descriptor);
- ``export``: writes ``kgcpu_model.h``/``kgcpu_model.c`` (the C export of ``kgraph export --format c``
  with ``kgraph_features`` of the four functions, every symbol renamed ``kgraph_`` -> ``kgcpu_`` so it
  links next to the main export) into a folder that ``make -C kgraph/app/runtime/starpu
  CPU_MODEL_DIR=<folder>`` compiles into ``kgraph_starpu.c``. Device 0 of that export is the one-core
  descriptor of *this* host (:func:`pick_descriptor`), the measured ones follow.

    python -m kgraph.app.runtime.cpu_functions train [--out models/c_functions/head.pt]
    python -m kgraph.app.runtime.cpu_functions export --out DIR [--descriptor device.json] [--measure]

Descriptor choice (``export``): ``--descriptor`` or ``$KGRAPH_CPU_DESCRIPTOR`` (a ``device.json`` or a
dataset folder); else ``c-<slug>/cpu-c-<slug>-1c/device.json`` under ``$KGRAPH_DATASETS`` (default
``data/datasets``) for this host's CPU model
(``cpu_host.model_slug``; a host campaign's folder); else with ``--measure`` the C campaign's
micro-benchmarks on one core (``measure_cpu``, ~5 s: FMA peaks, copy bandwidths, caches -> the same
per-core descriptor the campaign writes); else the nearest measured CPU (same vendor first, then the
most words of the CPU model name in common) with a warning on stderr.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from kgraph.errors import KGraphError

#: tile codelet -> the C corpus function its CPU implementation calls (tile_codelets.c)
TILE_FUNCTIONS = {"tile_potrf": "potrf_blocked_s", "tile_trsm": "trsm_blocked_s",
                  "tile_syrk": "syrk_blocked_s", "tile_gemm": "gemm_blocked_s"}
#: rows whose timed repeats did not settle are left out of training: a campaign of many single-core
#: workers side by side on a VM (the GPU host's 12) measures contention, not the function (p50 CV 12%,
#: times 1.4x the quiet dev box's at CV <= 10% and 5x above 20%; a StarPU worker there ran potrf 1024 in
#: 21 ms where the contended campaign row says 87 ms at CV 0.28)
MAX_TRAIN_CV = 0.10
PREFIX = "kgcpu"
HEADER = f"{PREFIX}_model.h"
SOURCE = f"{PREFIX}_model.c"


def repo_root() -> Path:
    """The source tree this module is in (an installed kgraph, e.g. /tmp/kg on the GPU host, is not one:
    then the working directory, where the device scripts run, the repository root)."""
    here = Path(__file__).resolve().parents[3]
    return here if (here / "models" / "c_functions").is_dir() else Path.cwd()


def default_checkpoint() -> Path:
    """``$KGRAPH_CPU_MODEL_CHECKPOINT``, else ``models/c_functions/head.pt`` of the source tree."""
    given = os.environ.get("KGRAPH_CPU_MODEL_CHECKPOINT")
    return Path(given) if given else repo_root() / "models" / "c_functions" / "head.pt"


def datasets_root() -> Path:
    """``$KGRAPH_DATASETS`` (set by benchmarks/device_env.sh), else ``data/datasets`` of the source tree."""
    given = os.environ.get("KGRAPH_DATASETS")
    return Path(given) if given else repo_root() / "data" / "datasets"


def one_core_datasets(root: Path | None = None) -> list[Path]:
    """Every ``c-*/cpu-c-*-1c`` dataset folder with launches (sorted) under ``root`` (default :func:`datasets_root`)."""
    base = root or datasets_root()
    return sorted(d for d in base.glob("c-*/cpu-c-*-1c") if any(d.glob("launches-*.parquet")))


def _function_sources(datasets: list[Path], functions) -> dict[str, tuple[str, str, str]]:
    """function -> (stored source text, "c", function) from the datasets' sources.parquet (the text the
    features of the training rows were computed from)."""
    import pandas as pd

    out: dict[str, tuple[str, str, str]] = {}
    for d in datasets:  # one stored text per corpus file and dtype: find it through the launches' source_id
        s = pd.read_parquet(d / "sources.parquet").set_index("source_id")
        rows = pd.concat([pd.read_parquet(f, columns=["kernel_name", "source_id"]) for f in d.glob("launches-*.parquet")])
        for name, sid in rows.drop_duplicates("kernel_name").itertuples(index=False):
            if name in functions and name not in out and sid in s.index:
                out[name] = (s.loc[sid, "source"], s.loc[sid, "lang"], name)
    missing = sorted(set(functions) - set(out))
    if missing:
        raise SystemExit(f"no source for {missing} in {', '.join(map(str, datasets))}")
    return out


def train(out: Path, datasets: list[Path] | None = None, epochs: int = 300, seed: int = 0,
          cache_dir: str = "runs/cache/c_functions_all") -> dict:
    """Fit the code-free base head on the settled rows (CV <= :data:`MAX_TRAIN_CV`) of ``datasets`` (default:
    every one-core C dataset) and save it with the tile functions' sources and the datasets' descriptors;
    returns its metrics."""
    import numpy as np
    import torch

    from kgraph.data.datamodule import KGraphDataModule
    from kgraph.data.harness.descriptor import load_descriptor
    from kgraph.models.compact import CompactConfig, CompactHead, fit_compact, to_checkpoint, to_compact_inputs
    from kgraph.models.export.tables import device_vector

    datasets = datasets or one_core_datasets()
    torch.set_num_threads(1)
    xs, ys, bs, devices, dropped = [], [], [], {}, {}
    for d in datasets:
        dm = KGraphDataModule([str(d)], split="unseen_launch", seed=0, cache_dir=cache_dir, with_graphs=False)
        dm.setup()
        keep = torch.from_numpy((dm.table["cv"] <= MAX_TRAIN_CV).to_numpy().copy())
        xs.append(to_compact_inputs(dm.features)[keep])
        ys.append(dm.targets.float()[keep])
        bs.append(dm.bound.long()[keep])
        dropped[f"{d.parent.name}/{d.name}"] = int((~keep).sum())
    x, y, bound = torch.cat(xs), torch.cat(ys), torch.cat(bs)
    torch.manual_seed(seed)
    head = CompactHead(CompactConfig.for_dataset_features(0, "base"))
    fit_compact(head, x, y, bound, epochs=epochs, batch_size=64, seed=seed)
    head.eval()
    with torch.no_grad():
        pred = head(x)[0][:, 0].numpy().astype(np.float64)
    true = y[:, 0].numpy().astype(np.float64)
    ok = np.isfinite(true)
    metrics = {"rows": int(len(true)), "datasets": [f"{d.parent.name}/{d.name}" for d in datasets],
               "train_mean_abs_log_error": float(np.abs(pred[ok] - true[ok]).mean()), "epochs": epochs, "seed": seed,
               "max_cv": MAX_TRAIN_CV, "rows_dropped_unsettled": dropped}
    for d in datasets:
        desc = load_descriptor(d)
        devices[desc["device_id"]] = device_vector(desc, head.config.device_names)
    sources = _function_sources(datasets, set(TILE_FUNCTIONS.values()))
    code = {f: torch.zeros(0) for f in sources}
    to_checkpoint(head, out, code, devices, metrics, sources)
    (Path(out).parent / "descriptors.json").write_text(json.dumps(
        {load_descriptor(d)["device_id"]: load_descriptor(d) for d in datasets}, indent=1, sort_keys=True))
    return metrics


def _measured_descriptors(checkpoint: Path) -> dict[str, dict]:
    path = checkpoint.parent / "descriptors.json"
    if path.is_file():
        return json.loads(path.read_text())
    from kgraph.data.harness.descriptor import load_descriptor
    return {load_descriptor(d)["device_id"]: load_descriptor(d) for d in one_core_datasets()}


def pick_descriptor(checkpoint: Path, descriptor: str | None = None, measure: bool = False,
                    log=lambda m: print(m, file=sys.stderr)) -> tuple[dict, str]:
    """(one-core ``device.json`` of this host, how it was found); see the module doc for the order."""
    from kgraph.data.harness.cpu_host import check_same_machine, model_slug, vendor
    from kgraph.data.harness.descriptor import load_descriptor

    given = descriptor or os.environ.get("KGRAPH_CPU_DESCRIPTOR")
    if given:
        return load_descriptor(given), f"given: {given}"
    slug = model_slug()
    own = datasets_root() / f"c-{slug}" / f"cpu-c-{slug}-1c"
    if (own / "device.json").is_file():
        found = load_descriptor(own)
        try:  # two VMs can share a model name (and so a slug): the folder must be this machine's
            check_same_machine(found, own)
            return found, f"this host's C campaign: {own}"
        except KGraphError as exc:
            log(f"kgraph cpu model: {own} is not this machine's ({str(exc).splitlines()[0]}); not used")
    if measure:
        try:
            from kgraph.data.harness.c_campaign import descriptor_for, measure_cpu
            d = descriptor_for(1, measure_cpu([1], timeout_s=120.0), slug)
            return d, "measured here (C campaign micro-benchmarks, one core)"
        except Exception as exc:  # no compiler, no OpenMP, a crash: the nearest measured CPU instead
            log(f"kgraph cpu model: warning: measuring this CPU failed ({exc.__class__.__name__}: {exc})")
    measured = _measured_descriptors(checkpoint)
    here = vendor()

    def rank(item):  # same vendor first, then the most words of the model name in common
        did, d = item
        return (d.get("vendor") != here, -len(set(slug.split("-")) & set(model_slug(d.get("name", "")).split("-"))), did)
    did, d = sorted(measured.items(), key=rank)[0]
    log(f"kgraph cpu model: warning: no one-core descriptor of this CPU ({slug}); using the nearest measured "
        f"CPU {did} ({d.get('name')}, {d.get('vendor')}); pass --measure or --descriptor for this host's own")
    return d, f"nearest measured CPU: {did}"


def prefixed(text: str, prefix: str = PREFIX) -> str:
    """The C export's text with every ``kgraph_``/``KGRAPH_`` identifier renamed ``<prefix>_``/``<PREFIX>_``
    (so a second export links next to the main one)."""
    import re
    text = re.sub(r"\bkgraph_", f"{prefix}_", text)
    return re.sub(r"\bKGRAPH_", f"{prefix.upper()}_", text)


def export(checkpoint: Path, out_dir: Path, descriptor: dict, note: str = "") -> tuple[Path, Path]:
    """Write ``kgcpu_model.h/.c`` (prefixed C export of the head, ``kgcpu_features`` of the tile functions,
    device 0 = ``descriptor`` as ``host-1core``, then the measured descriptors) into ``out_dir``."""
    import tempfile

    from kgraph.models.compact import from_checkpoint
    from kgraph.models.export.c_source import to_c
    from kgraph.models.export.features_c import to_features_c
    from kgraph.models.export.tables import device_vector

    bundle = from_checkpoint(checkpoint)
    cfg = bundle.head.config
    devices = {"host-1core": device_vector(descriptor, cfg.device_names), **bundle.devices}
    names = sorted(bundle.code_table)
    feats = to_features_c(names, bundle.sources, cfg.device_names, launch_names=cfg.launch_names)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        h, c = to_c(bundle.head, tmp, bundle.code_table, devices, feats)
        (out_dir / HEADER).write_text(prefixed(h.read_text()))
        (out_dir / SOURCE).write_text(prefixed(c.read_text()))
    (out_dir / "host-1core.json").write_text(json.dumps({**descriptor, "kgraph_note": note}, indent=1, sort_keys=True))
    return out_dir / HEADER, out_dir / SOURCE


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--out", type=Path, default=default_checkpoint())
    t.add_argument("--datasets", nargs="*", type=Path)
    t.add_argument("--epochs", type=int, default=300)
    e = sub.add_parser("export")
    e.add_argument("--checkpoint", type=Path, default=default_checkpoint())
    e.add_argument("--out", type=Path, required=True)
    e.add_argument("--descriptor", help="one-core device.json (or dataset folder) of this host")
    e.add_argument("--measure", action="store_true", help="measure this host's one-core descriptor if none is stored")
    args = p.parse_args(argv)
    if args.cmd == "train":
        print(json.dumps(train(args.out, args.datasets, args.epochs), indent=1))
        return 0
    desc, note = pick_descriptor(args.checkpoint, args.descriptor, args.measure)
    h, c = export(args.checkpoint, args.out, desc, note)
    print(f"kgraph cpu model: {h} {c}; device 0 = host-1core from {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

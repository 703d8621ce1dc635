"""Move one machine's C-campaign rows out of folders that another machine's rows share, under their own
device id (issue 12 §3).

    python -m benchmarks.c_host_import SRC --since 2026-11-26T18:40 --slug xeon-gpu-host \
        --out data/datasets/c-xeon-gpu-host

Why: two VMs can report the same CPU model name ("Intel(R) Xeon(R) Processor"), so their folders got the
same device id, and a campaign on the GPU host resumed into the dev box's committed 1- and 2-core folders
(``benchmarks/c_host_campaign.sh`` copied them in). The campaign now refuses that
(``kgraph.data.harness.c_campaign.check_same_machine``, ``KGRAPH_C_SLUG``). Here, for every
``SRC/cpu-c-*-<k>c`` folder: the rows measured at or after ``--since`` (the host's), a descriptor of that
machine — the folder's own when it was measured there (its ``per_core`` caches differ from the other
machine's), else the k = 1 one rebuilt from that machine's one-core micro-benchmarks, which every host
descriptor carries (``per_core``; the campaign's rule: the 1-core roofline *is* the one-core numbers) — and
the rows re-keyed for the new device id (their derived columns are computed on read from its descriptor).
A k > 1 folder without its own host descriptor is skipped with a message (its k-thread roofline was not
kept).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

from kgraph.data.harness.store_read import read_parquet


def host_descriptor(folders: list[Path], since: str) -> dict | None:
    """A descriptor measured on the host: one whose folder's rows all come at or after ``since``."""
    for folder in folders:
        rows = pd.concat([pd.read_parquet(p, columns=["timestamp"]) for p in sorted(folder.glob("launches-*.parquet"))])
        if len(rows) and (rows.timestamp >= since).all():
            return json.loads((folder / "device.json").read_text())
    return None


def one_core(host: dict, device_id: str) -> dict:
    """The 1-core descriptor of the machine ``host`` describes (``descriptor_for(1, ...)``'s values)."""
    pc = host["per_core"]
    out = json.loads(json.dumps(host))
    out.update(device_id=device_id, compute_units=1)
    out["roofline"].update(copy_bw_gbs=pc["copy_bw_gbs_one_core"], fp32_gflops=pc["fp32_fma_gflops"],
                           fp64_gflops=pc["fp64_fma_gflops"], local_bw_gbs=pc["l1_copy_gbs_one_core"])
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.c_host_import", description=__doc__.splitlines()[0])
    p.add_argument("src", help="a campaign's output folder (holds cpu-c-<slug>-<k>c/)")
    p.add_argument("--since", required=True, help="ISO time: rows at or after it are the host's")
    p.add_argument("--slug", required=True, help="the host's device-id slug")
    p.add_argument("--out", required=True, help="parent folder of the new dataset folders")
    args = p.parse_args(argv)
    from kgraph.data.harness.descriptor import save_descriptor, validate_descriptor
    from kgraph.data.harness.keys import launch_key
    from kgraph.data.harness.store import DatasetStore

    folders = sorted(Path(args.src).glob("cpu-c-*-*c"))
    host = host_descriptor(folders, args.since)
    if host is None:
        print("c_host_import: no folder holds only rows after --since; no host descriptor", file=sys.stderr)
        return 1
    for folder in folders:
        k = int(re.fullmatch(r"cpu-c-.*-(\d+)c", folder.name).group(1))
        rows = pd.concat([read_parquet(p).to_pandas() for p in sorted(folder.glob("launches-*.parquet"))],
                         ignore_index=True)
        new = rows[rows.timestamp >= args.since]
        device_id = f"cpu-c-{args.slug}-{k}c"
        own = json.loads((folder / "device.json").read_text())
        if len(new) == len(rows):
            desc = {**own, "device_id": device_id}
        elif k == 1:
            desc = one_core(host, device_id)
        else:
            print(f"{folder.name}: {len(new)} host rows skipped: no {k}-core descriptor of the host was kept")
            continue
        desc = validate_descriptor(desc, f"{device_id} descriptor")
        dest = Path(args.out) / device_id
        save_descriptor(desc, dest)
        sources = pd.read_parquet(folder / "sources.parquet")
        with DatasetStore(dest, device_id=device_id) as store:
            for s in sources[sources.source_id.isin(new.source_id)].to_dict("records"):
                store.add_source(s)
            for row in new.to_dict("records"):
                sizes = json.loads(row["sizes"])
                row.update(device_id=device_id, key=launch_key(device_id, row["kernel_id"], sizes, (k,), (1,)))
                store.append(row)
        print(f"{folder.name} -> {dest}: {len(new)} rows ({len(rows) - len(new)} of the other machine left out)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

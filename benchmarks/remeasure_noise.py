"""How far two measurements of the same launch disagree: the error no model of the launch can go below.

    python -m benchmarks.remeasure_noise NEW_FOLDER OLD_FOLDER [--csv out.csv]

Both folders are datasets of one device (``kgraph dataset`` layout). Their ok rows with the same ``key`` (the
same kernel, sizes, arguments, NDRange and device id) were timed twice: by two campaigns, usually on two hosts
of the same GPU model, days apart. Prints, per decade of the older measurement's time and overall, how many
launches matched, the median and mean of ``|new / old - 1|`` in percent, the share within 10%, and the median
ratio. The mean is on the scale of a model's MAPE: a model scored on one measurement cannot be expected to
beat the other measurement of the same launch.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from benchmarks.tables import emit

#: edges of the time decades (ns) of the table
DECADES = (1e3, 1e4, 10 ** 4.5, 1e5, 1e6, 1e7, 1e10)


def paired(new: pd.DataFrame, old: pd.DataFrame) -> pd.DataFrame:
    """The ok launches measured in both (``key, old_ns, new_ns``)."""
    pick = lambda f: f.loc[f["status"] == "ok", ["key", "median_time_ns"]].drop_duplicates("key")  # noqa: E731
    both = pick(new).merge(pick(old), on="key", suffixes=("_new", "_old"))
    both = both.rename(columns={"median_time_ns_new": "new_ns", "median_time_ns_old": "old_ns"})
    return both[(both["new_ns"] > 0) & (both["old_ns"] > 0)].reset_index(drop=True)


def table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per time decade of ``old_ns`` and ``all``: n, median and mean |new/old - 1| (%), share within 10%,
    median new/old."""
    ratio = pairs["new_ns"] / pairs["old_ns"]
    ape = (ratio - 1).abs() * 100
    decade = pd.cut(pairs["old_ns"], DECADES, right=False)
    rows = []
    for label, idx in [*((str(k), v) for k, v in ape.groupby(decade, observed=True).groups.items()),
                       ("all", ape.index)]:
        a, r = ape.loc[idx], ratio.loc[idx]
        rows.append({"time_ns": label, "n": len(a), "median_pct": a.median(), "mean_pct": a.mean(),
                     "within_10pct": (a < 10).mean() * 100, "median_ratio": r.median()})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    from kgraph.data.datamodule import read_dataset
    from kgraph.errors import KGraphError

    parser = argparse.ArgumentParser(prog="python -m benchmarks.remeasure_noise", description=__doc__.splitlines()[0])
    parser.add_argument("new", help="a dataset folder")
    parser.add_argument("old", help="a dataset folder of the same device")
    parser.add_argument("--csv", help="write the table here")
    args = parser.parse_args(argv)
    try:
        (new, _, dev_new), (old, _, dev_old) = read_dataset(args.new), read_dataset(args.old)
    except KGraphError as exc:
        print(f"remeasure_noise: {exc}", file=sys.stderr)
        return 2
    if dev_new.get("device_id") != dev_old.get("device_id"):
        print(f"remeasure_noise: {args.new} is {dev_new.get('device_id')}, {args.old} is {dev_old.get('device_id')}: "
              "not the same device", file=sys.stderr)
        return 2
    pairs = paired(new, old)
    if pairs.empty:
        print("remeasure_noise: no ok launch is in both folders", file=sys.stderr)
        return 1
    return emit(table(pairs), args.csv, 2)


if __name__ == "__main__":
    sys.exit(main())

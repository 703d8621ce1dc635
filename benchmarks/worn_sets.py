"""The scores a shipping rule reads, from an output folder of ``benchmarks/lm_ablation_eval.sh``.

Per model: time MAPE on the five worn sets (the hand-written holdout on the H200, H100 and Xeon; the foreign set on
the H200 and H100) and their sum; on the second holdout, the MAPE over the families no decision has looked at
(``--exclude``, the worn ones) on each device and their sum; on the third to sixth holdouts (``data/holdout3`` to
``data/holdout7``, where their folders were scored) the MAPE and the share within 2x on each device and the MAPEs'
sum (``holdout3_sum`` to ``holdout7_sum``); and the predictions below the floor on every set.

    python -m benchmarks.worn_sets runs/s17/v25eval \\
        --exclude holdout2.pattern_match_uchar holdout2.newton_cubic_fp64 [--csv out.csv]
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

from benchmarks.family_subset import subset_metrics
from benchmarks.tables import emit

HOLDOUT = ("holdout-nvidia-h200", "holdout-nvidia-h100", "holdout-pocl-xeon")
FOREIGN = ("foreign_h200", "foreign_h100")
SECOND = ("holdout2-nvidia-h200", "holdout2-nvidia-h100", "holdout2-pocl-xeon")
#: the later hand-written sets, each scored whole: name -> its folders
LATER = {name: (f"{name}-nvidia-h200", f"{name}-nvidia-h100", f"{name}-pocl-xeon")
         for name in ("holdout3", "holdout4", "holdout5", "holdout6", "holdout7", "holdout8", "holdout9", "holdout10",
                                "holdout11", "holdout12", "holdout13", "holdout14", "holdout15", "holdout16")}
_FOREIGN_LINE = re.compile(r"kernels on \S+: MAPE ([0-9.]+)%")
_BELOW = re.compile(r"predictions below the physical floor: (\d+)")


def _foreign(log: Path) -> tuple[float, int]:
    text = log.read_text()
    mape, below = _FOREIGN_LINE.search(text), _BELOW.search(text)
    if not mape or not below:
        raise ValueError(f"{log}: no 'MAPE' or 'below the physical floor' line (did foreign_predict finish?)")
    return float(mape.group(1)), int(below.group(1))


def _overall(path: Path) -> pd.DataFrame:
    """The whole-set rows (no family) of a dataset_eval summary."""
    table = pd.read_csv(path)
    return table[table["family"].isna()] if "family" in table else table


def worn_table(folder: Path, exclude: set[str]) -> pd.DataFrame:
    """One row per model of the folder: ``<set>`` MAPEs, ``worn_sum``, ``<second holdout set>`` subset MAPEs,
    ``untouched_sum``, ``<later holdout set>`` MAPEs and ``<set>:within_2x``, ``holdout3_sum`` to ``holdout7_sum``,
    ``below_floor`` (summed over every set)."""
    rows: dict[str, dict] = {}
    for name in HOLDOUT:
        for _, r in _overall(folder / name / "summary.csv").iterrows():
            row = rows.setdefault(r["model"], {"below_floor": 0})
            row[name], row["below_floor"] = float(r["mape"]), row["below_floor"] + int(r["below_floor"])
    for name in FOREIGN:
        for model, row in rows.items():
            row[name], below = _foreign(folder / f"{name}-{model}.log")
            row["below_floor"] += below
    for name in SECOND:
        if not (folder / name / "predictions.parquet").is_file():
            continue
        for _, r in subset_metrics(pd.read_parquet(folder / name / "predictions.parquet"), exclude).iterrows():
            rows[r["model"]][name] = float(r["mape"])
            rows[r["model"]]["below_floor"] += int(r["below_floor"])
    for name in (n for names in LATER.values() for n in names):
        if not (folder / name / "summary.csv").is_file():
            continue
        for _, r in _overall(folder / name / "summary.csv").iterrows():
            row = rows[r["model"]]
            row[name], row[f"{name}:within_2x"] = float(r["mape"]), float(r["within_2x"])
            row["below_floor"] += int(r["below_floor"])
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("model").reset_index()
    table["worn_sum"] = table[list(HOLDOUT + FOREIGN)].sum(axis=1)
    for names, total in ((SECOND, "untouched_sum"), *((names, f"{set_}_sum") for set_, names in LATER.items())):
        present = [n for n in names if n in table]
        if present:
            table[total] = table[present].sum(axis=1)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.worn_sets", description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="an output folder of benchmarks/lm_ablation_eval.sh")
    parser.add_argument("--exclude", nargs="*", default=[], metavar="FAMILY",
                        help="second-holdout families a decision has already looked at")
    parser.add_argument("--csv", help="write the table here too")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    missing = [n for n in HOLDOUT if not (folder / n / "summary.csv").is_file()]
    if missing:
        parser.error(f"{folder}: no {', '.join(missing)} summary (not an lm_ablation_eval.sh output folder?)")
    try:
        table = worn_table(folder, set(args.exclude))
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    return emit(table, args.csv, 2)


if __name__ == "__main__":
    sys.exit(main())

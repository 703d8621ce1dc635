"""benchmarks/refresh_static_counts.py: rows whose static counts no longer match the analysis are recounted
(the derived columns follow on read), nothing else changes, --dry-run writes nothing, the folder stays valid."""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from benchmarks.refresh_static_counts import main
from kgraph.data.harness.store import DatasetStore, read_launches

REPO = Path(__file__).resolve().parents[1]


def rows(folder: Path) -> pd.DataFrame:
    return read_launches(folder)


def test_stale_static_counts_are_recounted(tmp_path, capsys):
    folder = tmp_path / "ds"
    shutil.copytree(REPO / "data" / "datasets" / "ci-tiny", folder)
    old = rows(folder)
    # static rows measured before 2026-11-27 lack the footprint: it is written where the analysis is exact
    assert main([str(folder)]) == 0
    before = rows(folder)
    was_static = (old.status == "ok") & (old.counts_source == "static")
    filled = was_static & (old.footprint_bytes < 0) & (before.footprint_bytes > 0)
    assert filled.any() and (old.footprint_bytes[~was_static] == before.footprint_bytes[~was_static]).all()
    pd.testing.assert_frame_equal(old.drop(columns=["footprint_bytes"]), before.drop(columns=["footprint_bytes"]))
    static = before[(before.status == "ok") & (before.counts_source == "static") & (before.flops_fp32 > 0)]
    key = static.key.iloc[0]
    truth = int(static.flops_fp32.iloc[0])
    with DatasetStore(folder, device_id=before.device_id.iloc[0]) as store:  # a stale count, as an old analysis left
        store.update_rows({key: {"flops_fp32": truth * 3 + 1}})
    assert main([str(folder), "--dry-run"]) == 0
    assert "1 recounted" in capsys.readouterr().out
    assert int(rows(folder).set_index("key").loc[key, "flops_fp32"]) == truth * 3 + 1  # dry run: nothing written
    assert main([str(folder)]) == 0
    after = rows(folder).set_index("key")
    assert int(after.loc[key, "flops_fp32"]) == truth
    unchanged = before.set_index("key").drop(index=key)
    pd.testing.assert_frame_equal(after.drop(index=key).loc[unchanged.index], unchanged, check_dtype=False)
    assert main([str(folder), "--dry-run"]) == 0 and "0 recounted" in capsys.readouterr().out.splitlines()[-1]


def test_inexact_rows_are_recounted_and_relabelled_only_when_asked(tmp_path, capsys):
    """A static-inexact row is recounted like a static one; --relabel writes today's label (ci-tiny's kernels are all
    counted exactly, so a row labelled inexact becomes static) and leaves every other column as it was."""
    folder = tmp_path / "ds"
    shutil.copytree(REPO / "data" / "datasets" / "ci-tiny", folder)
    assert main([str(folder)]) == 0  # bring the old rows' footprints up to date first
    before = rows(folder)
    static = before[(before.status == "ok") & (before.counts_source == "static") & (before.flops_fp32 > 0)]
    key, truth = static.key.iloc[0], int(static.flops_fp32.iloc[0])
    with DatasetStore(folder, device_id=before.device_id.iloc[0]) as store:
        store.update_rows({key: {"flops_fp32": truth + 7, "counts_source": "static-inexact"}})
    capsys.readouterr()
    assert main([str(folder)]) == 0
    assert "1 recounted" in capsys.readouterr().out
    row = rows(folder).set_index("key").loc[key]
    assert int(row.flops_fp32) == truth and row.counts_source == "static-inexact"  # recounted, label kept
    assert main([str(folder), "--relabel", "--dry-run"]) == 0
    assert "0 recounted (none), 1 relabelled" in capsys.readouterr().out
    assert rows(folder).set_index("key").loc[key, "counts_source"] == "static-inexact"
    assert main([str(folder), "--relabel"]) == 0
    after = rows(folder).set_index("key")
    assert after.loc[key, "counts_source"] == "static"
    pd.testing.assert_frame_equal(after, before.set_index("key").loc[after.index], check_dtype=False)

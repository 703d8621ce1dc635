"""``kgraph dataset merge``: rows of a folder of the same device are copied once (keys the target lacks),
with their sources, failed kernels and ceilings; another device or the target itself is refused."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kgraph.data.harness.merge import merge_datasets
from kgraph.data.harness.store import DatasetStore, read_launches, read_manifest, read_sources
from kgraph.errors import UsageError
from test_hardening_harness import _row, _source

CI_DEVICE = Path(__file__).resolve().parents[1] / "data" / "datasets" / "ci-tiny" / "device.json"


def _folder(path, device_id, rows, roof=1.0):
    with DatasetStore(path, device_id, shard_rows=2) as store:
        store.add_source(_source())
        for i in rows:
            store.append({**_row(i), "device_id": device_id})
        store.mark_failed(f"bad-{path.name}", "build_error", "x")
        store.add_ceiling("k", 1000.0 * roof)
    device = json.loads(CI_DEVICE.read_text())
    device.update(device_id=device_id, roofline={**device["roofline"], "copy_bw_gbs": 100.0 * roof})
    (path / "device.json").write_text(json.dumps(device))
    return path


def test_merge_adds_missing_rows_once(tmp_path):
    dst = _folder(tmp_path / "dst", "dev", [1, 2, 3])
    src = _folder(tmp_path / "src", "dev", [3, 4, 5], roof=1.25)
    lines = merge_datasets(dst, [src])
    assert "2 of 3 row(s) added" in lines[0] and "up to 25%" in lines[0]
    rows = read_launches(dst)
    assert sorted(rows["g0"]) == [1, 2, 3, 4, 5] and rows["key"].is_unique
    # derived columns come from the target's device.json (bandwidth 100 GB/s), not the source's
    assert rows["bw_util"].max() == pytest.approx((4 * 5 / 500.0) / 100.0)
    manifest = read_manifest(dst)
    assert set(manifest["failed_kernels"]) == {"bad-dst", "bad-src"} and manifest["ceilings"]["k"] == 1000.0
    assert len(read_sources(dst)) == 1
    assert "0 of 3 row(s) added" in merge_datasets(dst, [src])[0]  # a second run adds nothing


def test_merge_refuses_another_device_and_itself(tmp_path):
    dst = _folder(tmp_path / "dst", "dev", [1])
    other = _folder(tmp_path / "other", "gpu", [2])
    with pytest.raises(UsageError, match="holds device 'gpu'"):
        merge_datasets(dst, [other])
    with pytest.raises(UsageError, match="target folder itself"):
        merge_datasets(dst, [dst])
    shutil.rmtree(tmp_path / "missing", ignore_errors=True)
    from kgraph.errors import InputError
    with pytest.raises(InputError):
        merge_datasets(tmp_path / "missing", [other])
    assert len(read_launches(dst)) == 1


def test_cli_merge_and_its_misuse(tmp_path, capsys):
    from kgraph.app.cli.main import main

    dst = _folder(tmp_path / "dst", "dev", [1])
    src = _folder(tmp_path / "src", "dev", [2])
    assert main(["dataset", "merge", str(src), "--into", str(dst)]) == 0
    assert "1 of 1 row(s) added" in capsys.readouterr().out
    other = _folder(tmp_path / "other", "gpu", [3])
    assert main(["dataset", "merge", str(other), "--into", str(dst)]) == 2
    assert "only folders of one device are merged" in capsys.readouterr().err
    assert main(["dataset", "merge", str(src), "--into", str(tmp_path / "none")]) != 0
    assert "not a dataset folder" in capsys.readouterr().err
    assert not (tmp_path / "none").exists() and len(read_launches(dst)) == 2


def test_merge_keeps_each_campaigns_roofline_once_and_the_device_median_counts_them(tmp_path):
    from kgraph.data.device_descriptors import read_descriptors

    dst = _folder(tmp_path / "dst", "dev", [1, 2])
    b = _folder(tmp_path / "b", "dev", [3], roof=0.3)
    c = _folder(tmp_path / "c", "dev", [4], roof=0.2)
    for _ in range(2):  # merging twice keeps each measurement once
        merge_datasets(dst, [b, c])
    kept = json.loads((dst / "device.json").read_text())
    assert kept["roofline"]["copy_bw_gbs"] == 100.0  # the target's own roofline is unchanged
    assert [r["copy_bw_gbs"] for r in kept["campaign_rooflines"]] == [pytest.approx(30.0), pytest.approx(20.0)]
    merged = read_descriptors([dst])["dev"]
    assert merged["roofline"]["copy_bw_gbs"] == pytest.approx(30.0)  # the median of 100, 30 and 20
    assert "campaign_rooflines" not in merged and "roofline_method" not in merged  # version 1 only: as before


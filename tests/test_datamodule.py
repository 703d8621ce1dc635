"""DataModule tests on a small dataset written in the documented parquet format (docs/DESIGN.md)."""
from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pandas as pd
import pytest
import torch

from kgraph.data.datamodule import KGraphDataModule
from kgraph.data.splits import TEST_FRACTION, VAL_FRACTION, to_splits
from kgraph.data.features import LAUNCH_FEATURES, feature_names
from kgraph.data.static_counts import KNOWN_ASSUMED, KNOWN_EXACT

KERNELS = {  # kernel_id: (family, kernel_name, source)
    "saxpy": ("blas1", "saxpy", "__kernel void saxpy(__global float* y, __global const float* x, float a, int n)"
              "{int i = get_global_id(0); if (i < n) y[i] = a * x[i] + y[i];}"),
    "scale": ("blas1", "scale", "__kernel void scale(__global float* x, float s, int n)"
              "{int i = get_global_id(0); if (i < n) x[i] *= s;}"),
    "copy": ("memory", "copy", "__kernel void copy(__global float* d, __global const float* s, int n)"
             "{int i = get_global_id(0); if (i < n) d[i] = s[i];}"),
    "fill": ("memory", "fill", "__kernel void fill(__global int* d, int v, int n)"
             "{int i = get_global_id(0); if (i < n) d[i] = v;}"),
}
SIZES, LOCALS = [1024, 2048, 4096, 8192], [64, 128]


def device(device_id: str, gpu: bool) -> dict:
    return {"device_id": device_id, "name": device_id, "vendor": "v", "type": "GPU" if gpu else "CPU",
            "platform": "p", "driver": "d", "compute_units": 64 if gpu else 8, "max_clock_mhz": 1500,
            "global_mem_bytes": 2**34, "local_mem_bytes": 2**16, "max_work_group_size": 1024,
            "global_cache_bytes": 2**22, "roofline": {"copy_bw_gbs": 1000.0 if gpu else 50.0,
                                                      "fp32_gflops": 20000.0 if gpu else 500.0,
                                                      "fp64_gflops": 10000.0 if gpu else 250.0,
                                                      "local_bw_gbs": 5000.0, "launch_overhead_us": 5.0}}


def write_dataset(root, device_id: str, gpu: bool):
    d = root / device_id
    d.mkdir(parents=True)
    (d / "device.json").write_text(json.dumps(device(device_id, gpu)))
    sources, rows = [], []
    for kid, (family, name, src) in KERNELS.items():
        sid = hashlib.sha1(src.encode()).hexdigest()[:16]
        sources.append({"source_id": sid, "lang": "opencl", "kernel_id": kid, "family": family,
                        "kernel_name": name, "source": src, "spec_json": "{}"})
        for n in SIZES:
            for lsz in LOCALS:
                time = 1000.0 + n * (0.5 if gpu else 4.0)
                rows.append({"key": f"{device_id}|{kid}|{n}|{lsz}", "device_id": device_id, "kernel_id": kid,
                             "family": family, "source_id": sid, "kernel_name": name,
                             "sizes": json.dumps({"N": n}), "args": json.dumps({"n": n}), "dims": 1,
                             "g0": n, "g1": 1, "g2": 1, "l0": lsz, "l1": 1, "l2": 1,
                             "status": "timeout" if (n == 8192 and lsz == 128 and kid == "fill") else "ok",
                             "median_time_ns": time, "achieved_bw_gbs": 8.0 * n / time,
                             "footprint_bytes": 8 * n if kid != "copy" else -1, "flops_fp32": 2 * n,
                             "flops_fp64": 0, "global_load_bytes": 4 * n, "global_store_bytes": 4 * n,
                             "bound": "memory" if kid != "scale" else "latency"})
    pd.DataFrame(sources).to_parquet(d / "sources.parquet")
    pd.DataFrame(rows).to_parquet(d / "launches-00000.parquet")
    return d


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("datasets")
    return [str(write_dataset(root, "gpu-a", True)), str(write_dataset(root, "cpu-b", False))]


def make(datasets, tmp_path, **kw) -> KGraphDataModule:
    dm = KGraphDataModule(datasets=datasets, cache_dir=str(tmp_path / "cache"), batch_size=8, **kw)
    dm.setup("fit")
    return dm


def test_setup_rows_features_targets(datasets, tmp_path):
    dm = make(datasets, tmp_path)
    assert len(dm.table) == 2 * (4 * 8 - 1)  # one timeout per device dropped
    assert dm.features.shape == (62, len(feature_names()))
    col = feature_names().index("launch_log2_g0")
    row = dm.table.index[(dm.table.kernel_id == "copy") & (dm.table.g0 == 2048)][0]
    assert dm.features[row, col].item() == pytest.approx(11.0)
    assert dm.features[row, feature_names().index("launch_log2_groups")].item() in (
        pytest.approx(5.0), pytest.approx(4.0))  # 2048/64 or 2048/128 work-groups
    assert dm.targets[row, 0].item() == pytest.approx(math.log(dm.table.median_time_ns[row]))
    assert math.isnan(dm.targets[row, 2].item())  # copy's footprint is unknown (-1)
    assert dm.families == ["blas1", "memory"]
    assert sorted(dm.bound.unique().tolist()) == [0, 2]
    assert len(LAUNCH_FEATURES) == 15


def test_collate_gathers_each_kernel_once(datasets, tmp_path):
    dm = make(datasets, tmp_path)
    rows = [0, 1, 8, 2, 40]
    batch = dm.collate(rows)
    keys = (dm.table.source_id + ":" + dm.table.kernel_name).to_numpy()
    assert batch.graphs.num_graphs == len(set(keys[rows]))
    graph_keys = [dm.graphs.items[u].key for u in np.unique(dm.item[rows])]
    assert [graph_keys[i] for i in batch.source_index.tolist()] == list(keys[rows])
    assert batch.features.shape == (5, len(feature_names())) and batch.targets.shape == (5, 5)
    assert batch.tokens is None and batch.row.tolist() == rows


def test_graph_cache_is_reused(datasets, tmp_path):
    dm = make(datasets, tmp_path)
    files = sorted((tmp_path / "cache" / "processed").glob("kernels-*.pt"))
    assert len(files) == 1 and len(dm.graphs) == 4
    mtime = files[0].stat().st_mtime_ns
    make(datasets, tmp_path)
    assert files[0].stat().st_mtime_ns == mtime


@pytest.mark.parametrize("split,unit", [("leave_kernel_out", "kernel_id"), ("leave_family_out", "family"),
                                        ("leave_device_out", "device_id"), ("unseen_launch", "config")])
def test_no_unit_crosses_its_split(datasets, tmp_path, split, unit):
    dm = make(datasets, tmp_path, split=split, val_fraction=0.25, test_fraction=0.25, test_devices=["cpu-b"])
    t = dm.table.assign(config=dm.table.kernel_id + dm.table.sizes + dm.table.g0.astype(str) + dm.table.l0.astype(str))
    parts = {k: set(t[unit].iloc[v]) for k, v in dm.splits.items()}
    assert parts["train"] and parts["test"]
    assert not parts["train"] & parts["test"] and not parts["val"] & parts["test"]
    if split != "leave_device_out":  # there, val is a random share of the training devices' launches
        assert not parts["train"] & parts["val"]
    assert sum(len(v) for v in dm.splits.values()) == len(t)
    if split == "unseen_launch":  # every test kernel is seen in training
        assert set(t.kernel_id.iloc[dm.splits["test"]]) <= set(t.kernel_id.iloc[dm.splits["train"]])
        assert len(dm.splits["test"]) == 4 * 2 * 2  # round(8 * 0.25) configs per kernel, on both devices
    if split == "leave_device_out":
        assert parts["test"] == {"cpu-b"} and len(dm.splits["test"]) == 31


def test_random_split_is_seeded(datasets, tmp_path):
    a = make(datasets, tmp_path, split="random", seed=3).splits
    b = make(datasets, tmp_path, split="random", seed=3).splits
    c = make(datasets, tmp_path, split="random", seed=4).splits
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["test"], c["test"])
    n_test, n_val = round(62 * TEST_FRACTION), round(62 * VAL_FRACTION)  # the DataModule's default shares
    assert [len(a[k]) for k in ("train", "val", "test")] == [62 - n_test - n_val, n_val, n_test]


def test_bad_split_and_device_are_usage_errors(datasets, tmp_path):
    from kgraph.errors import InputError, UsageError

    with pytest.raises(UsageError, match="--data.split"):
        KGraphDataModule(datasets=datasets, split="by_moon")
    with pytest.raises(UsageError, match="--data.test_devices"):
        to_splits(pd.DataFrame({"device_id": ["a"]}), "leave_device_out", 0.1, 0.1, 0, ["zz"])
    with pytest.raises(InputError, match="not a measured dataset"):
        make([str(tmp_path / "nowhere")], tmp_path)


def test_statistics_use_training_rows_only(datasets, tmp_path):
    dm = make(datasets, tmp_path, split="leave_device_out", test_devices=["cpu-b"], val_fraction=0.0)
    mean, std = dm.target_statistics()
    train_times = torch.log(torch.tensor(dm.table.median_time_ns.iloc[dm.splits["train"]].to_numpy()))
    assert mean[0].item() == pytest.approx(train_times.mean().item(), rel=1e-5)
    assert std[0].item() == pytest.approx(train_times.std(unbiased=False).item(), rel=1e-4)


def test_generated_and_written_splits_train_on_one_side_only():
    import pandas as pd

    from kgraph.data.splits import to_splits
    from kgraph.errors import UsageError

    table = pd.DataFrame({"kernel_id": [f"gen.0.{i % 20}" for i in range(60)] + [f"gemm.v{i % 7}" for i in range(40)],
                          "device_id": "d"})
    gen = table.kernel_id.str.startswith("gen.").to_numpy()
    s = to_splits(table, "generated_to_written", 0.1, 0.2, 0)
    assert set(s["test"]) == set(np.flatnonzero(~gen)) and gen[s["train"]].all() and gen[s["val"]].all()
    assert len(set(table.kernel_id.iloc[s["val"]]) & set(table.kernel_id.iloc[s["train"]])) == 0  # whole kernels
    r = to_splits(table, "written_to_generated", 0.1, 0.2, 0)
    assert set(r["test"]) == set(np.flatnonzero(gen)) and (~gen[r["train"]]).all()
    with pytest.raises(UsageError, match="needs both generated"):
        to_splits(table[gen], "generated_to_written", 0.1, 0.2, 0)


def test_campaign_folder_is_read_through_the_store_and_damage_is_a_clean_error(tmp_path):
    """A dataset with a manifest reads only its committed shards, checked against the manifest; a
    truncated shard is an InputError naming the repair, not a pyarrow traceback."""
    import shutil

    from kgraph.data.datamodule import read_dataset
    from kgraph.errors import InputError

    folder = tmp_path / "ds"
    shutil.copytree("data/datasets/ci-tiny", folder)
    launches, sources, device = read_dataset(folder)
    assert len(launches) > 0 and device["device_id"]
    orphan = folder / "launches-09999.parquet"
    shutil.copy(next(folder.glob("launches-*.parquet")), orphan)  # not in the manifest: not read
    assert len(read_dataset(folder)[0]) == len(launches)
    orphan.unlink()
    shard = sorted(folder.glob("launches-*.parquet"))[0]
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])
    with pytest.raises(InputError, match="repair"):
        read_dataset(folder)


def test_train_known_counts_drops_unknown_count_launches_from_training_only(tmp_path, monkeypatch):
    walk = ("graph", "walk", "__kernel void walk(__global const int* p, __global float* d, int n)"
            "{int i = get_global_id(0); if (i < n) {float s = 0.0f; for (int j = p[i]; j < p[i + 1]; j++) s += 1.0f;"
            " d[i] = s;}}")  # a loop of data-dependent trip count: its counts evaluate at an assumed count
    blind = ("graph", "blind", "__kernel void blind(__global float* d, int n, int m)"
             "{int i = get_global_id(0); if (i < n) for (int j = 0; j < m; j++) d[i] += 1.0f;}")  # no value for m
    monkeypatch.setitem(KERNELS, "walk", walk)
    monkeypatch.setitem(KERNELS, "blind", blind)
    data = [str(write_dataset(tmp_path / "data", "gpu-a", True))]
    every = make(data, tmp_path, split="random")
    known = make(data, tmp_path, split="random", train_known_counts=True)
    kernel = every.table.kernel_id.to_numpy()
    col = feature_names().index("static_known")
    assert (every.features[kernel == "walk", col] == KNOWN_ASSUMED).all()
    assert (every.features[kernel == "blind", col] == 0).all()
    assert (every.features[~np.isin(kernel, ["walk", "blind"]), col] == KNOWN_EXACT).all()
    inexact = np.isin(kernel, ["walk", "blind"])  # assumed counts train no more than unknown ones
    assert inexact[every.splits["train"]].any() and not inexact[known.splits["train"]].any()
    np.testing.assert_array_equal(known.splits["train"], every.splits["train"][~inexact[every.splits["train"]]])
    for name in ("val", "test"):  # scored as `kgraph estimate` sees them: every launch
        np.testing.assert_array_equal(known.splits[name], every.splits[name])
    assumed = make(data, tmp_path, split="random", train_known_counts=True, train_assumed_counts=True)
    blind_rows = kernel == "blind"  # assumed counts train too, counts that do not evaluate still do not
    np.testing.assert_array_equal(assumed.splits["train"], every.splits["train"][~blind_rows[every.splits["train"]]])
    assert (kernel[assumed.splits["train"]] == "walk").any()
    from kgraph.errors import UsageError

    with pytest.raises(UsageError, match="train_assumed_counts"):
        KGraphDataModule(datasets=data, train_assumed_counts=True)


def test_val_unit_kernel_reaches_the_splits_and_a_bad_unit_is_a_usage_error(datasets, tmp_path):
    from kgraph.errors import UsageError

    dm = make(datasets, tmp_path, val_unit="kernel", split="unseen_launch")
    val = set(dm.table["kernel_id"].to_numpy()[dm.splits["val"]])
    assert len(val) == 1 and not val & set(dm.table["kernel_id"].to_numpy()[dm.splits["train"]])
    with pytest.raises(UsageError, match="val_unit"):
        KGraphDataModule(datasets=datasets, val_unit="launch")

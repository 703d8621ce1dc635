"""Physical floors (kgraph.data.floors) and the roofline-bounded time head: no prediction below the floor."""
from __future__ import annotations

import glob
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from kgraph.data.floors import FLOORS, NO_FLOOR_LOG_NS, device_rates, floors_ns, log_floors, rates_of_rows

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "data" / "datasets"


def descriptors() -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(DATASETS.glob("*/device.json"))}


def test_floor_arithmetic():
    h200 = descriptors()["nvidia-h200"]
    rates = rates_of_rows(["nvidia-h200"] * 3, {"nvidia-h200": h200})
    cache = rates["cache"][0]
    assert cache == 50 * 2**20  # the spec-sheet L2, larger than what OpenCL reports
    f = floors_ns([2e12, 0, np.nan], [0, 1e12, 0], [cache + 4.25e9, 1.0, np.nan], rates)
    r = h200["roofline"]
    assert f[0, FLOORS.index("fp32")] == pytest.approx(2e12 / r["fp32_gflops"])
    assert f[1, FLOORS.index("fp64")] == pytest.approx(1e12 / r["fp64_gflops"])
    assert f[0, FLOORS.index("dram")] == pytest.approx(4.25e9 / r["copy_bw_gbs"])  # only the bytes past the cache
    assert f[1, FLOORS.index("dram")] == 0 and f[2, FLOORS.index("dram")] == 0  # fits in cache / unknown
    assert (f[:, FLOORS.index("launch")] == r["launch_overhead_us"] * 1e3).all()
    logs = log_floors(f)
    assert logs[2, FLOORS.index("fp32")] == pytest.approx(NO_FLOOR_LOG_NS) and np.isfinite(logs).all()


def test_device_without_fp64_uses_the_fp32_peak():
    d = {"has_fp64": False, "global_cache_bytes": 1, "roofline": {"fp32_gflops": 10.0, "fp64_gflops": 0.0,
                                                                   "copy_bw_gbs": 1.0, "launch_overhead_us": 1.0}}
    assert device_rates(d)["fp64"] == 10.0


def _floor_ratios(strides: dict[str, int]) -> dict[str, np.ndarray]:
    """Measured time ÷ largest floor of every ``stride``-th ok row of each device's dataset (so every kernel), the
    devices' features made in one call (each source analysed once for all of them)."""
    from kgraph.data.features import feature_names, to_launch_features

    rows, sources = [], []
    for device, stride in strides.items():
        d = DATASETS / device
        frame = pd.concat([pd.read_parquet(p) for p in sorted(glob.glob(f"{d}/launches-*.parquet"))])
        rows.append(frame[frame.status == "ok"].iloc[::stride])
        sources.append(pd.read_parquet(d / "sources.parquet"))
    rows = pd.concat(rows, ignore_index=True)
    x = to_launch_features(rows, pd.concat(sources).drop_duplicates("source_id"),
                           {device: descriptors()[device] for device in strides})
    names = feature_names()
    ratio = rows["median_time_ns"].to_numpy() / np.exp(x[:, [names.index(f"floor_{n}") for n in FLOORS]]).max(1)
    return {device: ratio[(rows["device_id"] == device).to_numpy()] for device in strides}


def _assert_bounds(device: str, ratio: np.ndarray) -> None:
    assert len(ratio) > 1000
    assert (ratio < 1).mean() <= 0.005
    if descriptors()[device]["type"] == "GPU":  # PoCL's empty-kernel time on a CPU is noisy (0.13x seen once)
        assert ratio.min() > 0.8


def test_measured_launches_respect_their_floors():
    """The floors are bounds: on a sample of the GPUs' measured launches (static counts at each launch,
    instrumented footprint) at most 0.5% run below the largest floor (timing noise: 0.02% of all 101k H200
    launches), none by more than 20%."""
    for device, ratio in _floor_ratios({"nvidia-h200": 10, "nvidia-h100": 1}).items():
        _assert_bounds(device, ratio)


@pytest.mark.slow
def test_measured_xeon_launches_respect_their_floors():
    _assert_bounds("pocl-skylake-avx512-intel-xeon", _floor_ratios({"pocl-skylake-avx512-intel-xeon": 1})[
        "pocl-skylake-avx512-intel-xeon"])


@pytest.mark.parametrize("memory_term", [False, True])
def test_bounded_head_never_goes_below_any_floor(memory_term):
    from kgraph.models.heads import BoundedTime

    torch.manual_seed(0)
    head = BoundedTime(8, 16, memory_term=memory_term)
    with torch.no_grad():
        for p in head.parameters():
            p.mul_(20.0)  # extreme weights: efficiencies and sharpness far from their initial range
    fused = torch.randn(4096, 8) * 5
    floors = torch.rand(4096, len(FLOORS)) * 30 - 5
    memory = torch.rand(4096) * 40 - 20 if memory_term else None
    out = head(fused, floors, memory)
    assert torch.isfinite(out).all()
    assert (out >= floors.max(1).values - 1e-4).all()


def test_traffic_anchor_scales_with_the_bytes_moved():
    """The traffic anchor's memory term: with the network's outputs fixed, a launch moving 64x the bytes
    takes nearly 64x the time once that term dominates; the launch-anchored head has no such term."""
    from kgraph.data.features import feature_names
    from kgraph.models.kgraph_model import MEMORY_TERM_FEATURES, KGraphModel, ModelConfig

    names = feature_names()
    config = ModelConfig(use_graph=False, use_tokens=False)
    config.head.time, config.head.anchor = "bounded", "traffic"
    torch.manual_seed(0)
    model = KGraphModel(config, names).eval()
    features = torch.zeros(2, len(names))
    floor = {f"floor_{n}": float(np.log(1e-3)) for n in FLOORS}
    floor["floor_launch"] = float(np.log(4e3))  # 4 us
    for n, v in floor.items():
        features[:, names.index(n)] = v
    sector, bw = (names.index(n) for n in MEMORY_TERM_FEATURES)
    features[:, bw] = np.log10(4000.0)  # 4 TB/s = 4000 bytes/ns
    features[:, sector] = torch.log1p(torch.tensor([2.0 ** 30, 2.0 ** 36]))  # 1 GiB, 64 GiB
    log_memory = model.log_memory(features)
    assert torch.allclose(log_memory, torch.log(torch.tensor([2.0 ** 30, 2.0 ** 36]) / 4000.0), rtol=1e-5)
    time = model(None, None, torch.zeros(2, dtype=torch.long), features).log_time.exp()
    assert 50 < float(time[1] / time[0]) <= 64.5
    config.head.anchor = "launch"
    assert KGraphModel(config, names).log_memory(features) is None


def corpus_launches(kernel_stride: int, per_kernel: int, seed: int = 0):
    """Random launches of every ``kernel_stride``-th corpus kernel on every measured device."""
    from kgraph.data.corpus import all_specs
    from kgraph.graphs import from_source
    from kgraph.models.launches import make_launch

    rng = np.random.default_rng(seed)
    devices = [d for k, d in descriptors().items() if k != "ci-tiny"]
    launches = []
    for spec in all_specs()[::kernel_stride]:
        graph = next(g for g in from_source(spec.source, spec.lang, analyze=False) if g.name == spec.kernel_name)
        grid = [s for s in spec.size_grid() if spec.valid_local_sizes(s, 1024)]
        for _ in range(per_kernel):
            sizes = grid[rng.integers(len(grid))]
            shapes = spec.valid_local_sizes(sizes, 1024)
            local = shapes[rng.integers(len(shapes))]
            args = {k: float(v) for k, v in spec.scalar_values(sizes).items()}
            device = devices[rng.integers(len(devices))]
            launches.append(make_launch({graph.name: graph}, graph.name, spec.global_size_of(sizes), local, args, device))
    return launches


def bounded_predictor(use_graph: bool, anchor: str = "launch"):
    from kgraph.data.features import feature_names
    from kgraph.models.kgraph_model import KGraphModel, ModelConfig
    from kgraph.models.predictor import Predictor

    config = ModelConfig(use_graph=use_graph, use_tokens=False)
    config.head.time, config.head.anchor = "bounded", anchor
    config.graph.hidden, config.graph.layers = 16, 1
    torch.manual_seed(0)
    model = KGraphModel(config, feature_names()).eval()
    with torch.no_grad():
        model.head.bounded.mlp[-1].bias.add_(torch.randn(len(FLOORS) + 2 + (anchor == "traffic")) * 5)
    return Predictor(model, {"feature_names": feature_names()}, ROOT)


def check_no_prediction_below_floor(launches, predictor):
    preds = predictor.predict(launches)
    floors = np.array([p["floor_ns"] for p in preds])
    times = np.array([p["time_ns"] for p in preds])
    assert (floors > 0).all() and np.isfinite(times).all()
    assert (times >= floors * (1 - 1e-5)).all(), np.nonzero(times < floors * (1 - 1e-5))[0][:5]
    return preds


@pytest.mark.parametrize("anchor", ["launch", "traffic"])
def test_no_prediction_below_the_floor_on_corpus_launches(anchor):
    preds = check_no_prediction_below_floor(corpus_launches(kernel_stride=12, per_kernel=6),
                                            bounded_predictor(use_graph=False, anchor=anchor))
    assert {p["floor"] for p in preds} >= {"launch", "dram"}
    assert all(p["dram_bw_gbs"] >= 0 for p in preds)


@pytest.mark.slow
def test_no_prediction_below_the_floor_on_every_corpus_kernel():
    check_no_prediction_below_floor(corpus_launches(kernel_stride=1, per_kernel=8, seed=1),
                                    bounded_predictor(use_graph=True))


def test_parallel_fraction_of_work_groups():
    from kgraph.data.floors import parallel_fraction

    share = parallel_fraction([[1024, 1, 1], [1 << 20, 1, 1], [1024, 1024, 1], [64, 1, 1], [64, 1, 1]],
                              [[1024, 1, 1], [256, 1, 1], [16, 16, 1], [0, 1, 1], [64, 1, 1]],
                              [132, 132, 132, 132, float("nan")])
    assert share.tolist() == [1 / 132, 1.0, 1.0, 1.0, 1.0]  # one group; 4096 groups; 4096; unknown x2
    assert parallel_fraction([[96, 4, 1]], [[32, 4, 1]], [8]).tolist() == [3 / 8]  # 3 groups of 8 units


@pytest.mark.parametrize("device", ["nvidia-h200", "pocl-skylake-avx512-intel-xeon"])
def test_measured_launches_respect_the_work_group_share(device):
    """A launch of G < CU work-groups can use G of the CU compute units: its FLOP floor scaled by CU / G
    still holds for every measured corpus launch (none more than 15% below: timing noise)."""
    from kgraph.data.datamodule import read_dataset
    from kgraph.data.floors import parallel_fraction

    launches, _, desc = read_dataset(DATASETS / device)
    rates = device_rates(desc)
    share = parallel_fraction(launches[["g0", "g1", "g2"]].to_numpy(), launches[["l0", "l1", "l2"]].to_numpy(),
                              np.full(len(launches), desc["compute_units"]))
    scaled = np.maximum(launches.flops_fp32.fillna(0) / rates["fp32"], launches.flops_fp64.fillna(0) / rates["fp64"]) / share
    few = (share < 1) & (scaled > 0)
    assert few.sum() > 500  # many launches have fewer groups than units: the check is not vacuous
    assert (launches.median_time_ns[few] >= 0.85 * scaled[few]).all()


def test_estimate_respects_the_work_group_share(tmp_path):
    """One work-group of an FMA loop on the H200: the estimate stays at or above its FLOPs on 1 of 132 units."""
    import kgraph

    src = """__kernel void chain(__global float *out, const int n) {
        float a = out[get_global_id(0)];
        for (int k = 0; k < n; ++k) a = a * 1.0001f + 0.5f;
        out[get_global_id(0)] = a;
    }"""
    path = tmp_path / "chain.cl"
    path.write_text(src)
    model = kgraph.load_model()
    one = model.estimate(path, kernel="chain", global_size=256, local_size=256, args={"n": 1 << 20}, device="h200",
                         lang="opencl")
    many = model.estimate(path, kernel="chain", global_size=256 * 132, local_size=256, args={"n": 1 << 20},
                          device="h200", lang="opencl")
    peak = model.devices["nvidia-h200"]["roofline"]["fp32_gflops"]  # the device as the model describes it
    assert one["flops"] == pytest.approx(2 * 256 * (1 << 20), rel=1e-6)
    assert one["time_ns"] >= one["flops"] / (peak / 132) * (1 - 1e-6)   # one of 132 units
    assert one["floor_ns"] == pytest.approx(one["flops"] / (peak / 132), rel=1e-6)
    assert many["floor_ns"] == pytest.approx(many["flops"] / peak, rel=1e-6) or many["floor"] != "fp32"

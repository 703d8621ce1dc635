"""Trip counts solved from measured counts (kgraph.data.solved_trips) and the DataModule's ``solved_trips``."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from kgraph.data.features import feature_names
from kgraph.data.solved_trips import WORK, cached_solved_args, solved_args
from kgraph.data.static_counts import KNOWN_EXACT, compile_counts, graph_of, STATIC_COUNTS

WALK = ("__kernel void walk(__global const int* len, __global float* d, int n)\n"
        "{ int i = get_global_id(0); if (i >= n) return; float s = 0.0f;\n"
        "  for (int j = 0; j < len[i]; j++) s += 1.5f * s + 1.0f;\n"
        "  d[i] = s; }\n")
TWO = ("__kernel void two(__global const int* a, __global const int* b, __global float* d)\n"
       "{ int i = get_global_id(0); float s = 0.0f;\n"
       "  for (int j = 0; j < a[i]; j++) s += 1.0f;\n"
       "  for (int k = 0; k < b[i]; k++) s *= 2.0f;\n"
       "  d[i] = s; }\n")


def per_item_work(source: str, name: str, env: dict) -> float:
    counts = compile_counts(graph_of(source, "opencl", name).analysis)({k: np.array([v]) for k, v in env.items()})
    return float(sum(counts[STATIC_COUNTS.index(c)][0] for c in WORK))


def rows(source_id: str, name: str, counts_source: str, work: float, n: int = 4096) -> dict:
    flops = {"flops_fp32": work, "flops_fp64": 0.0, "global_load_bytes": 0.0, "global_store_bytes": 0.0}
    return {"source_id": source_id, "kernel_name": name, "device_id": "gpu", "dims": 1, "g0": n, "g1": 1, "g2": 1,
            "l0": 64, "l1": 1, "l2": 1, "args": json.dumps({"n": n}), "counts_source": counts_source, **flops}


def sources() -> pd.DataFrame:
    return pd.DataFrame({"source_id": ["w", "t"], "lang": ["opencl", "opencl"], "source": [WALK, TWO]})


def test_an_instrumented_launch_of_a_one_loop_kernel_gets_the_mean_its_counts_imply(tmp_path):
    env = {"n": 4096, "gsz0": 4096, "lsz0": 64, "ngrp0": 64, "gsz1": 1, "lsz1": 1, "ngrp1": 1, "gsz2": 1,
           "lsz2": 1, "ngrp2": 1}
    measured = per_item_work(WALK, "walk", {**env, "trip_3": 7.25}) * 4096  # the work of a mean of 7.25 iterations
    launches = pd.DataFrame([rows("w", "walk", "instrumented", measured),
                             rows("w", "walk", "static", measured),  # static counts: not measured, left
                             rows("t", "two", "instrumented", 1e6)])  # two assumed loops: one equation, left
    args = solved_args(launches, sources())
    solved = json.loads(args.iloc[0])
    assert set(solved) == {"n", "trip_3"} and abs(solved["trip_3"] - 7.25) < 1e-6
    assert list(args.iloc[1:]) == list(launches["args"].iloc[1:])
    # a work the loop cannot make (below one iteration's, beyond zero) has no positive mean: left
    below = launches.iloc[[0]].assign(flops_fp32=0.0)
    assert list(solved_args(below, sources())) == list(below["args"])
    # a table without counts (hand-made) is left as it is, cached or not
    bare = launches.drop(columns=["counts_source"])
    assert list(cached_solved_args(tmp_path / "bare", bare, sources())) == list(bare["args"])
    # cached: the same answer, read back; a change of the measured counts is another key
    first = cached_solved_args(tmp_path, launches, sources())
    assert list(first) == list(args) and len(list((tmp_path / "processed").glob("solved-*.parquet"))) == 1
    assert list(cached_solved_args(tmp_path, launches, sources())) == list(args)
    cached_solved_args(tmp_path, launches.assign(flops_fp32=launches["flops_fp32"] * 2), sources())
    assert len(list((tmp_path / "processed").glob("solved-*.parquet"))) == 2


def test_the_datamodule_trains_on_solved_launches_at_exact_counts(tmp_path, monkeypatch):
    from tests.test_datamodule import KERNELS, make, write_dataset

    monkeypatch.setitem(KERNELS, "walk", ("graph", "walk", WALK))
    folder = write_dataset(tmp_path / "data", "gpu-a", True)
    shard = next(folder.glob("launches-*.parquet"))
    table = pd.read_parquet(shard)
    table["counts_source"] = np.where(table["kernel_id"] == "walk", "instrumented", "static")
    table.to_parquet(shard)
    data = [str(folder)]
    plain = make(data, tmp_path, split="random", train_known_counts=True)
    solved = make(data, tmp_path, split="random", train_known_counts=True, solved_trips=True)
    walk = solved.table["kernel_id"].to_numpy() == "walk"
    col = feature_names().index("static_known")
    assert (solved.features[walk, col] == KNOWN_EXACT).all() and (plain.features[walk, col] < KNOWN_EXACT).all()
    assert walk[solved.splits["train"]].any() and not walk[plain.splits["train"]].any()
    assert all("trip_3" in json.loads(a) for a in solved.table["args"][walk])
    # the other kernels' rows are as they were
    np.testing.assert_array_equal(solved.features[~walk].numpy(), plain.features[~walk].numpy())

"""The C launch catalog (data/corpus/c/launches.py) and the parallel, pinned C campaign (CPU only)."""
from __future__ import annotations

import os
import shutil
from collections import Counter

import numpy as np
import pytest

from kgraph.data.corpus.c import by_id, catalog, flops, leading_dims, make_inputs, reference, shapes
from kgraph.data.corpus.c.launches import CORE_COUNTS, flop_range, launches, valid, visit_order

HAS_CC = shutil.which("cc") is not None or shutil.which("gcc") is not None
QUICK = {"target_cv": 1.0, "min_repeats": 1, "max_repeats": 2, "warmup": 1, "time_cap_s": 0.01, "sample_ns": 0}


@pytest.fixture(scope="module")
def all_launches():
    return launches()


def test_catalog_has_20000_distinct_valid_launches(all_launches):
    keys = {(x.cores, x.kernel.kernel_id, x.sizes_key) for x in all_launches}
    assert len(all_launches) >= 20_000 and len(keys) == len(all_launches)
    assert {x.cores for x in all_launches} == set(CORE_COUNTS)
    assert all(x.kernel.uses_openmp for x in all_launches if x.cores > 1)
    per_group = Counter((x.cores, x.kernel.kernel_id) for x in all_launches)
    assert len(per_group) == 40 + 10 * (len(CORE_COUNTS) - 1) and min(per_group.values()) >= 200


def test_launch_shapes_are_valid_and_varied(all_launches):
    for x in all_launches:
        family, s = x.kernel.family, x.sizes
        assert valid(family, s), (x.kernel.kernel_id, s)
        low, high = flop_range(x.kernel.variant, x.cores)
        assert low <= flops(family, s) <= high
        assert all(ld >= shapes(family, s)[name][0] for name, ld in leading_dims(family, s).items())
    gemm = [x.sizes for x in all_launches if x.kernel.family == "gemm"]
    assert sum(len({s["m"], s["n"], s["k"]}) == 3 for s in gemm) > len(gemm) / 2  # rectangular
    dims = [v for x in all_launches for name, v in x.sizes.items() if not name.startswith("ld")]
    assert sum(v & (v - 1) != 0 for v in dims) > len(dims) / 2  # mostly not powers of two
    padded = [x for x in all_launches if any(k.startswith("ld") for k in x.sizes)]
    assert len(padded) > len(all_launches) / 3
    assert any(x.sizes["m"] > x.sizes["n"] for x in all_launches if x.kernel.family == "getrf")
    assert {"m": 64, "n": 64, "k": 64} in gemm  # the square tiles measured before are kept


def test_leading_dims_and_padded_reference():
    s = {"m": 5, "n": 4, "k": 3, "lda": 9, "ldc": 6}
    assert leading_dims("gemm", s) == {"A": 9, "B": 4, "C": 6}
    x = make_inputs("gemm", s, np.float64, 2)
    assert x["A"].shape == (9, 3) and x["C"].shape == (6, 4) and x["A"].flags.f_contiguous
    want = reference("gemm", x, s)["C"]
    assert want.shape == (6, 4) and np.array_equal(want[5:], x["C"][5:])
    assert np.allclose(want[:5], x["C"][:5] - x["A"][:5] @ x["B"].T)
    tight = make_inputs("gemm", {"m": 5, "n": 4, "k": 3}, np.float64, 2)
    assert np.array_equal(tight["A"], x["A"][:5])  # a tight array draws what it did before
    with pytest.raises(ValueError):
        leading_dims("potrf", {"n": 8, "lda": 7})
    from kgraph.data.harness.c_sources import call_args
    assert call_args("gemm", s) == {"m": 5, "n": 4, "k": 3, "lda": 9, "ldb": 4, "ldc": 6}


def test_order_is_deterministic_and_even(all_launches):
    again = launches()
    assert [(x.cores, x.kernel.kernel_id, x.sizes_key) for x in again] == \
           [(x.cores, x.kernel.kernel_id, x.sizes_key) for x in all_launches]
    order = visit_order(all_launches)
    assert [x.sizes_key for x in order] == [x.sizes_key for x in visit_order(again)]
    assert [x.sizes_key for x in order] != [x.sizes_key for x in all_launches]
    groups = len({(x.cores, x.kernel.kernel_id) for x in all_launches})
    head = Counter((x.cores, x.kernel.kernel_id) for x in order[:3 * groups])
    assert len(head) == groups and set(head.values()) == {3}  # any prefix covers every kernel evenly
    assert [x.sizes_key for x in visit_order(all_launches, seed=1)] != [x.sizes_key for x in order]


def test_cpu_pool_and_lanes_are_disjoint():
    from kgraph.data.harness.c_campaign import cpu_pool, lanes_for

    pool = list(range(12))
    assert lanes_for(1, pool) == [[i] for i in range(12)]
    assert lanes_for(8, pool) == [list(range(8))] and lanes_for(4, pool)[2] == [8, 9, 10, 11]
    mine = cpu_pool()
    assert set(mine) == set(os.sched_getaffinity(0)) and cpu_pool(1) == mine[:1]


@pytest.mark.skipif(not HAS_CC, reason="no C compiler")
def test_padded_launches_pass_the_check_on_every_kernel(tmp_path, monkeypatch):
    from kgraph.data.harness.c_build import build_kernel, build_library
    from kgraph.data.harness.c_runner import CWorker

    monkeypatch.setenv("KGRAPH_C_CACHE", str(tmp_path))
    padded = {"gemm": {"m": 23, "n": 19, "k": 70, "lda": 31, "ldb": 20, "ldc": 40},
              "syrk": {"n": 21, "k": 13, "lda": 30, "ldc": 22}, "trsm": {"m": 19, "n": 70, "ldl": 75, "ldb": 27},
              "potrf": {"n": 70, "lda": 73}, "getrf": {"m": 90, "n": 70, "lda": 97}}
    bad = {}
    with CWorker(1) as worker:
        for kernel in catalog():
            answer = worker.request({"t": "run", "lib": str(build_kernel(kernel)), "symbol": kernel.symbol,
                                     "family": kernel.family, "dtype": kernel.dtype, "sizes": padded[kernel.family],
                                     "seed": 5, "policy": QUICK}, 60)
            if answer["status"] != "ok":
                bad[kernel.kernel_id] = answer
    # a function that ignores ldc (indexes C with m) writes the wrong rows of padded storage: caught
    src = tmp_path / "bad_ld.c"
    src.write_text("void gemm_bad(int m, int n, int k, const double *A, int lda, const double *B, int ldb,"
                   " double *C, int ldc) { for (int j = 0; j < n; j++) for (int i = 0; i < m; i++)"
                   " for (int p = 0; p < k; p++) C[i + j * m] -= A[i + p * lda] * B[j + p * ldb]; }\n")
    job = {"t": "run", "lib": str(build_library(src, openmp=False)), "symbol": "gemm_bad", "family": "gemm",
           "dtype": "fp64", "seed": 1, "policy": QUICK}
    with CWorker(1) as worker:
        assert worker.request({**job, "sizes": {"m": 8, "n": 8, "k": 8}}, 60)["status"] == "ok"
        assert worker.request({**job, "sizes": {"m": 8, "n": 8, "k": 8, "ldc": 9}}, 60)["status"] == "wrong_result"
    assert not bad


def _fake_measure(cores, timeout_s=300.0, cpus=None):
    from kgraph.data.harness.c_campaign import cache_sizes
    t = {"fp32_gflops": 50.0, "fp64_gflops": 25.0, "copy_bw_gbs": 8.0, "l1_copy_gbs": 30.0}
    return {"caches": cache_sizes(), "status": "ok", "threads": {str(k): t for k in {1, *cores}},
            "call_overhead_us": 0.1}


@pytest.mark.skipif(not HAS_CC, reason="no C compiler")
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs 2 CPUs")
def test_parallel_pinned_campaign_matches_serial_and_resumes(tmp_path, monkeypatch):
    from kgraph.data.harness import c_campaign
    from kgraph.data.harness.store import read_launches
    from kgraph.data.harness.validate import validate_dataset

    monkeypatch.setenv("KGRAPH_C_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(c_campaign, "measure_cpu", _fake_measure)
    kw = dict(families=["potrf", "gemm"], dtypes=["fp64"], variants=["vec", "omp"], timeout_s=60,
              policy=c_campaign.CTimingPolicy(**QUICK), quiet=True, per_kernel={1: 3, "k": 2})
    serial = c_campaign.run_campaign(tmp_path / "serial", 120, [1, 2], workers=1, **kw)
    parallel = c_campaign.run_campaign(tmp_path / "par", 120, [1, 2], workers=2, **kw)
    assert serial["rows"] == parallel["rows"] == 4 * 3 + 2 * 2 and parallel["workers"] == {"1": 2, "2": 1}
    assert serial["statuses"] == parallel["statuses"] == {"ok": 16}
    for k in (1, 2):
        name = c_campaign.device_id_for(k)
        a, b = read_launches(tmp_path / "serial" / name), read_launches(tmp_path / "par" / name)
        assert validate_dataset(tmp_path / "par" / name) == []
        assert list(a.columns) == list(b.columns) and dict(a.dtypes) == dict(b.dtypes)
        assert sorted(a["key"]) == sorted(b["key"])
        assert set(b["g0"]) == {k}
        kernels = [x for x in catalog() if x.family in ("potrf", "gemm") and x.dtype == "fp64"
                   and x.variant in ("vec", "omp")]
        want = {(x.kernel.kernel_id, x.sizes_key) for x in launches([k], kernels, per_kernel=kw["per_kernel"])}
        assert set(zip(b["kernel_id"], b["sizes"])) == want
    # a budget-cut run, then a re-run: the catalog goes on where it stopped, nothing twice
    cut = c_campaign.run_campaign(tmp_path / "cut", 0, [1], workers=2, **kw)
    assert cut["rows"] == 0 and cut["left"] == 12
    kw["per_kernel"] = {1: 5, "k": 2}
    more = c_campaign.run_campaign(tmp_path / "par", 120, [1], workers=2, **kw)
    assert more["skipped_done"] == 12 and more["rows"] == 4 * 2

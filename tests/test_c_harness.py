"""The C corpus and the harness for C functions on CPU cores (CPU only, a C compiler needed)."""
from __future__ import annotations

import shutil

import pytest

from kgraph.data.corpus.c import FAMILIES, by_id, catalog, flops, make_inputs, reference, relative_error

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler")

SMALL = {"gemm": {"m": 24, "n": 20, "k": 17}, "syrk": {"n": 21, "k": 13}, "trsm": {"m": 19, "n": 23},
         "potrf": {"n": 70}, "getrf": {"m": 90, "n": 70}}  # 70 > KG_NB: the blocked variants take two panels
QUICK = {"target_cv": 1.0, "min_repeats": 1, "max_repeats": 2, "warmup": 1, "time_cap_s": 0.01, "sample_ns": 0}


@pytest.fixture(scope="module")
def c_cache(tmp_path_factory):
    import os
    path = tmp_path_factory.mktemp("c-cache")
    old = os.environ.get("KGRAPH_C_CACHE")
    os.environ["KGRAPH_C_CACHE"] = str(path)
    yield path
    if old is None:
        os.environ.pop("KGRAPH_C_CACHE", None)
    else:
        os.environ["KGRAPH_C_CACHE"] = old


def test_catalog_covers_families_variants_dtypes():
    kernels = catalog()
    assert len(kernels) == 40 and len({k.kernel_id for k in kernels}) == 40
    assert {k.family for k in kernels} == set(FAMILIES)
    assert by_id("c.potrf.omp.fp64").symbol == "potrf_omp_d" and by_id("c.gemm.vec.fp32").symbol == "gemm_vec_s"


def test_flop_formulas_match_lapack_counts():
    for n in (1, 2, 7, 64):
        assert flops("potrf", {"n": n}) == round(n ** 3 / 3 + n ** 2 / 2 + n / 6)
        assert flops("getrf", {"m": n, "n": n}) == round(2 * n ** 3 / 3 - n ** 2 / 2 + 5 * n / 6)
    assert flops("gemm", {"m": 2, "n": 3, "k": 4}) == 48


def test_numpy_references_are_consistent():
    import numpy as np
    x = make_inputs("potrf", {"n": 12}, np.float64, 1)
    l = reference("potrf", x)["A"]
    assert np.allclose(l @ l.T, x["A"])
    x = make_inputs("getrf", {"m": 16, "n": 12}, np.float64, 1)
    lu = reference("getrf", x)["A"]
    lower = np.tril(lu, -1)[:, :12] + np.eye(16, 12)
    assert np.allclose(lower @ np.triu(lu[:12]), x["A"])
    assert relative_error("syrk", "C", np.triu(np.ones((3, 3))), np.tril(np.ones((3, 3)))) > 0


def test_every_corpus_kernel_compiles_and_matches_numpy(c_cache):
    from kgraph.data.harness.c_build import build_kernel
    from kgraph.data.harness.c_runner import CWorker

    bad = {}
    with CWorker(1) as worker:
        for kernel in catalog():
            answer = worker.request({"t": "run", "lib": str(build_kernel(kernel)), "symbol": kernel.symbol,
                                     "family": kernel.family, "dtype": kernel.dtype, "sizes": SMALL[kernel.family],
                                     "seed": 3, "policy": QUICK}, 60)
            if answer["status"] != "ok":
                bad[kernel.kernel_id] = answer
            else:
                assert answer["times_ns"] and min(answer["times_ns"]) > 0
    assert not bad


def test_openmp_kernel_runs_after_torch_used_its_thread_pool(c_cache):
    """A parent whose libgomp is initialised (torch ran parallel ops) must not hang OpenMP kernels in the
    worker: the worker is a fresh interpreter, not a fork (a forked child waited forever)."""
    torch = pytest.importorskip("torch")
    from kgraph.data.harness.c_build import build_kernel
    from kgraph.data.harness.c_runner import CWorker

    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        a = torch.randn(256, 256)
        assert float((a @ a).sum()) == float((a @ a).sum())
    finally:
        torch.set_num_threads(threads)
    kernel = by_id("c.gemm.omp.fp32")
    with CWorker(1) as worker:
        answer = worker.request({"t": "run", "lib": str(build_kernel(kernel)), "symbol": kernel.symbol,
                                 "family": kernel.family, "dtype": kernel.dtype, "sizes": SMALL["gemm"], "seed": 3,
                                 "policy": QUICK}, 30)
    assert answer["status"] == "ok", answer


BAD_C = r"""
#include <stddef.h>
void crash_now(int n, double *A, int lda) { volatile int *p = NULL; *p = n; }
void hang_forever(int n, double *A, int lda) { volatile long i = 0; for (;;) i++; }
void do_nothing(int n, double *A, int lda) { (void)n; (void)A; (void)lda; }
"""


def test_crash_timeout_and_wrong_result_are_isolated(c_cache, tmp_path):
    from kgraph.data.harness.c_build import build_library, build_kernel
    from kgraph.data.harness.c_runner import CWorker

    src = tmp_path / "bad.c"
    src.write_text(BAD_C)
    lib = str(build_library(src, openmp=False))

    def job(symbol, library=lib):
        return {"t": "run", "lib": library, "symbol": symbol, "family": "potrf", "dtype": "fp64",
                "sizes": {"n": 8}, "policy": QUICK}

    with CWorker(1) as worker:
        crash = worker.request(job("crash_now"), 30)
        assert crash["status"] == "crash" and "SIGSEGV" in crash["message"]
        hang = worker.request(job("hang_forever"), 2)
        assert hang["status"] == "timeout"
        assert worker.request(job("do_nothing"), 30)["status"] == "wrong_result"
        assert worker.request(job("no_such_symbol"), 30)["status"] == "launch_error"
        good = by_id("c.potrf.vec.fp64")
        assert worker.request(job(good.symbol, str(build_kernel(good))), 30)["status"] == "ok"  # a fresh worker


def test_build_error_is_reported(c_cache, tmp_path):
    from kgraph.data.harness.c_build import CBuildError, build_library

    src = tmp_path / "broken.c"
    src.write_text("void f(int n) { return n + ; }\n")
    with pytest.raises(CBuildError, match="broken.c"):
        build_library(src)


def test_campaign_rows_validate_and_resume(c_cache, tmp_path, monkeypatch):
    from kgraph.data.harness import c_campaign
    from kgraph.data.harness.store import read_launches
    from kgraph.data.harness.validate import validate_dataset

    out = tmp_path / "c-test"
    kw = dict(families=["potrf"], dtypes=["fp64"], variants=["vec", "omp"], tiles=(16, 32), timeout_s=60,
              policy=c_campaign.CTimingPolicy(**QUICK), quiet=True)
    monkeypatch.setattr(c_campaign, "measure_cpu", lambda cores, timeout_s=300.0, cpus=None: _fake_measure(cores))  # seconds
    summary = c_campaign.run_campaign(out, 60, [1], **kw)
    assert summary["rows"] == 4 and summary["statuses"] == {"ok": 4}
    folder = out / c_campaign.device_id_for(1)
    assert validate_dataset(folder) == []
    df = read_launches(folder)
    row = df[(df["kernel_id"] == "c.potrf.vec.fp64") & (df["sizes"] == '{"n": 32}')].iloc[0]
    assert row["flops_fp64"] == flops("potrf", {"n": 32}) and row["transcendental"] == 32
    assert row["counts_source"] == "c-formula" and row["bound"] in ("memory", "compute", "latency")
    again = c_campaign.run_campaign(out, 60, [1], **kw)
    assert again["rows"] == 0 and again["skipped_done"] == 4


def _fake_measure(cores):
    from kgraph.data.harness.c_campaign import cache_sizes
    t = {"fp32_gflops": 50.0, "fp64_gflops": 25.0, "copy_bw_gbs": 8.0, "l1_copy_gbs": 30.0}
    return {"caches": cache_sizes(), "status": "ok", "threads": {str(k): t for k in {1, *cores}},
            "call_overhead_us": 0.1}


@pytest.mark.slow
def test_cpu_micro_benchmarks_give_a_valid_descriptor(c_cache):
    from kgraph.data.harness.c_campaign import descriptor_for, measure_cpu

    d = descriptor_for(1, measure_cpu([1]))
    assert d["type"] == "CPU" and d["per_core"]["fp64_fma_gflops"] > 0 and d["per_core"]["copy_bw_gbs_one_core"] > 0

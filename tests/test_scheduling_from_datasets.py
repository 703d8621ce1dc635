"""Equivalent tiles of corpus launches (kgraph.app.scheduling.from_datasets), hand-checked."""
import pandas as pd

from kgraph.app.scheduling.from_datasets import equivalent_tile, tile_rows


def test_equivalent_tile_same_work():
    assert round(equivalent_tile("gemm", {"M": 64, "N": 256, "K": 128}), 6) == 128.0  # 2^6*2^8*2^7 = 128^3
    assert round(equivalent_tile("syrk", {"N": 256, "K": 32}), 6) == 128.0  # 256^2*32 = 2^21 = 128^3
    assert round(equivalent_tile("trsm", {"N": 16, "R": 8192}), 6) == 128.0  # 2^8*2^13 = 2^21


def test_tile_rows_maps_families_bins_and_skips_fp64():
    table = pd.DataFrame({
        "family": ["gemm_tiled", "gemm_tiled", "potrf_batched", "axpy", "trsm"],
        "kernel_id": ["gemm_tiled.t8.nn.fp32", "gemm_tiled.t8.nn.fp64", "potrf_batched.nb16.fp32",
                      "axpy.v1.c1.fp32", "trsm.lower.fp32"],
        "sizes": ['{"M": 100, "N": 100, "K": 100}', '{"M": 64, "N": 64, "K": 64}', '{"batch": 512}',
                  '{"N": 10}', '{"N": 32, "R": 2048}'],
    })
    got = tile_rows(table)
    # gemm: b = 100 -> 2^round(6.64) = 128; potrf: (512*16^3)^(1/3) = 8*16 = 128; trsm: (2^10*2^11)^(1/3) = 128
    assert got.values.tolist() == [[0, "gemm", 128], [2, "potrf", 128], [4, "trsm", 128]]

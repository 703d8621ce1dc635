"""The hand-written holdout kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in one module per
group (:mod:`.linalg`, :mod:`.streams`, :mod:`.grids`) from the helpers of :mod:`.common`.
"""
from __future__ import annotations

from .linalg import syrk_packed_lower, trsm_colwise, sgemm_reg4x4, lu_rank1_update, dgemm_colmajor_naive, gemv_group_row_vload4, spmv_csr_group_row, gather_scatter_perm, histogram256_uchar4, bitonic_kv_halfcleaner, xorshift_rounds, collatz_steps
from .streams import stream_triad_float4, saxpy_gridstride, complex_conj_mul_float2, conv3_constant, bs_call_poly_cnd, horner_fp64, reduce_interleaved_mod, scan_blelloch_cf_uint, scan_single_workgroup, layernorm_welford_row, softmax_axis0
from .grids import sobel_l1_uchar, rgba_to_gray_uchar4, jacobi5_poisson, volume_gradient_3d, transpose_tile32x8_uint, nbody_leapfrog_float4, kmeans_assign, total_distance_soa

BUILDERS = (
    syrk_packed_lower, trsm_colwise, sgemm_reg4x4, lu_rank1_update, dgemm_colmajor_naive,
    gemv_group_row_vload4, spmv_csr_group_row, gather_scatter_perm, histogram256_uchar4,
    bitonic_kv_halfcleaner, xorshift_rounds, collatz_steps, stream_triad_float4, saxpy_gridstride,
    complex_conj_mul_float2, conv3_constant, bs_call_poly_cnd, horner_fp64, reduce_interleaved_mod,
    scan_blelloch_cf_uint, scan_single_workgroup, layernorm_welford_row, softmax_axis0, sobel_l1_uchar,
    rgba_to_gray_uchar4, jacobi5_poisson, volume_gradient_3d, transpose_tile32x8_uint,
    nbody_leapfrog_float4, kmeans_assign, total_distance_soa,
)

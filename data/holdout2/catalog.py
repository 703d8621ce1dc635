"""The hand-written holdout2 kernels as KernelSpecs: sizes, arguments, inputs and numpy references.

Each kernel's OpenCL C lives in ``cl/<name>.cl`` (package data); its spec is built in one module per
group (:mod:`.images`, :mod:`.physics`, :mod:`.numeric`, :mod:`.bits`) from the helpers of :mod:`.common`.
"""
from __future__ import annotations

from .bits import crc32_bitwise, hamming_popcount_ulong, pattern_match_uchar, splitmix64_bucket
from .images import (alpha_blend_uchar4, bilinear_resize, dct8x8_local, integral_cols_uint, life_torus_uchar,
                     lut_apply_local, median3x3_rowsort, rgb_to_yuv_planar, sad_block_match)
from .numeric import (adam_step, dia_spmv, embedding_bag_sum, floyd_warshall_k, im2col_pad, mat3x3_inverse_fp64,
                      newton_cubic_fp64, pcr_tridiag_local, rope_rotary)
from .physics import (fft_radix2_stage, lbm_d2q9, lj_forces_cutoff, particle_binning_atomic, quat_rotate_vload3,
                      trilinear_rotate_3d, wave2d_fp64_r2)

#: The builders, in the order of ``specs()``.
BUILDERS = (
    rgb_to_yuv_planar, alpha_blend_uchar4, lut_apply_local, bilinear_resize, median3x3_rowsort,
    integral_cols_uint, sad_block_match, dct8x8_local, life_torus_uchar,
    wave2d_fp64_r2, lj_forces_cutoff, particle_binning_atomic, lbm_d2q9, trilinear_rotate_3d,
    quat_rotate_vload3, fft_radix2_stage,
    dia_spmv, floyd_warshall_k, mat3x3_inverse_fp64, newton_cubic_fp64, pcr_tridiag_local,
    embedding_bag_sum, adam_step, rope_rotary, im2col_pad,
    hamming_popcount_ulong, crc32_bitwise, splitmix64_bucket, pattern_match_uchar,
)

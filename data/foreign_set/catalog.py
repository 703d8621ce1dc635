"""The foreign test set's catalog: one entry per kernel (file, style, construct, launch)."""
from __future__ import annotations

from dataclasses import dataclass, field

M = 1 << 20  # a million work-items


@dataclass(frozen=True)
class Entry:
    """One kernel of the set.

    Args:
        name: the file's stem and the kernel's name; style: the public-benchmark family it imitates;
        construct: what it tests; global_size, local_size: the launch (``>= 2^20`` work-items);
        args: ``--arg`` values (scalars by name, vectors as ``a,b``); lang: ``opencl`` or ``cuda``.
    """

    name: str
    style: str
    construct: str
    global_size: tuple = (M,)
    local_size: tuple | None = (256,)
    args: dict = field(default_factory=dict)
    lang: str = "opencl"

    @property
    def filename(self) -> str:
        return f"{'cl' if self.lang == 'opencl' else 'cu'}/{self.name}.{'cl' if self.lang == 'opencl' else 'cu'}"


G2 = (1024, 1024)
L2 = (16, 16)
G3 = (128, 128, 64)
L3 = (16, 4, 4)

ENTRIES = (
    Entry("vadd_abcd", "AMD APP SDK", "normalised identifiers a, b, c, d"),
    Entry("saxpy_helpers", "SHOC", "helper-heavy: inline helpers and a helper reading buffers", args={"d": "2.0"}),
    Entry("npb_cast4d", "NPB (BT/SP)", "array-pointer casts (*)[J][I][2] of two buffers", G3, L3, {"c": "0.5"}),
    Entry("npb_cast_rhs", "NPB (LU)", "array-pointer casts (*)[5], product-bounded guard", args={"c": "1024", "d": "1024"}),
    Entry("cast_inline_2d", "PolyBench/GPU", "inline array-pointer cast in a subscript expression", G2, L2),
    Entry("cast_const_view", "PolyBench/GPU", "const __global array-pointer view"),
    Entry("cuda_macros", "CUDA port (macro-heavy)", "blockIdx/threadIdx macros, function-like index macros",
          args={"c": "1024"}),
    Entry("grid_stride_macro", "CUDA port (macro-heavy)", "KERNEL_LOOP grid-stride macro as a statement"),
    Entry("csr_spmv", "SHOC SpMV (scalar)", "data-dependent: CSR row pointers and column indices"),
    Entry("csr_spmv_vector", "SHOC SpMV (vector)", "data-dependent CSR, 8 lanes a row, local reduction",
          args={"f": "131072"}),
    Entry("bfs_frontier", "Rodinia BFS", "data-dependent: frontier mask, edge list indices"),
    Entry("histogram_atomic", "Parboil histo", "data-dependent: bins indexed by data, global atomics"),
    Entry("histogram_local", "AMD APP SDK histogram", "masked data index into local bins, atomics"),
    Entry("gather", "microbenchmark", "data-dependent: gather through an index variable"),
    Entry("scatter_add", "microbenchmark", "data-dependent: scatter a[c[i]]"),
    Entry("srad_neighbours", "Rodinia SRAD", "data-dependent: neighbour index buffers iN/iS/jW/jE", G2, L2),
    Entry("hotspot_stencil", "Rodinia hotspot", "2-D 5-point stencil with clamped borders", G2, L2, {"f": "0.1"}),
    Entry("jacobi3d", "Parboil stencil", "3-D 7-point stencil with boundary guard", G3, L3, {"d": "128", "e": "64"}),
    Entry("reduce_tree", "SHOC reduction", "local-memory tree reduction, __local parameter"),
    Entry("reduce_unrolled", "NVIDIA SDK reduction", "macro-unrolled fp64 reduction, two loads per item",
          args={"e": str(2 * M)}),
    Entry("scan_blelloch", "SHOC scan", "work-efficient local scan (up-sweep, down-sweep)"),
    Entry("transpose_naive", "NVIDIA SDK transpose", "naive transpose", G2, L2),
    Entry("transpose_tiled", "NVIDIA SDK transpose", "tiled transpose with padded local tile", G2, L2),
    Entry("nbody_float4", "AMD APP SDK n-body", "float4 buffers, rsqrt, tile of bodies", args={"d": "16", "e": "0.01"}),
    Entry("lu_eliminate", "Rodinia LUD / PolyBench lu", "LU elimination step at pivot c", G2, L2, {"b": "1025", "c": "0"}),
    Entry("adi_row_sweep", "PolyBench adi", "ADI forward/backward sweep per row, fp64", args={"e": "4"}),
    Entry("gemv_poly", "PolyBench gemver", "row-major matrix-vector with alpha/beta",
          args={"e": "8", "f": "1.5", "g": "0.5"}),
    Entry("jacobi1d_poly", "PolyBench jacobi-1d", "1-D 3-point stencil, interior guard"),
    Entry("covariance_mean", "PolyBench covariance", "column mean, strided loads", args={"d": "4", "e": "4.0"}),
    Entry("blackscholes_helpers", "NVIDIA SDK BlackScholes", "helpers with private out-pointers, transcendentals",
          args={"f": "0.02", "g": "0.3"}),
    Entry("mandel_compute", "AMD APP SDK Mandelbrot", "data-dependent while loop, compute bound", G2, L2, {"d": "64"}),
    Entry("conv1d_constant", "AMD APP SDK convolution", "__constant filter, clamped index", args={"e": "9"}),
    Entry("sobel_clamp", "AMD APP SDK Sobel", "uchar image, clamp helper, 3x3 window", G2, L2),
    Entry("float4_stream", "SHOC triad", "float4 buffers (vector element units)", args={"d": "2.0"}),
    Entry("uint2_seed_rng", "Random123-like", "uint2 vector scalar parameter", args={"b": "12345,678"}),
    Entry("float4_coeffs", "microbenchmark", "float4 vector scalar parameter", args={"c": "1,0.5,0.25,0.125"}),
    Entry("matvec_local", "AMD APP SDK matvec", "vector staged in local memory, barrier then early return"),
    Entry("bitonic_step", "SHOC sort", "bitonic compare-exchange, xor partner index", args={"b": "512", "c": "1024"}),
    Entry("radix_count", "SHOC sort (radix)", "shift-and-mask digit into local counters", args={"d": "4"}),
    Entry("kmeans_assign", "Rodinia kmeans", "nested feature/cluster loops, argmin", args={"e": "5", "f": "4"}),
    Entry("pathfinder_row", "Rodinia pathfinder", "MIN3 macro, clamped neighbours, int DP row", args={"e": "3"}),
    Entry("backprop_layer", "Rodinia backprop", "2-D local tile reduction", (16, 65536), L2, {"d": "65536"}),
    Entry("needle_diag", "Rodinia NW", "anti-diagonal wavefront, most items idle", args={"c": "2048", "d": "2048", "e": "1"}),
    Entry("vadd_grid", "CUDA SDK", "__restrict__, grid-stride loop", lang="cuda"),
    Entry("spmv_csr_warp", "CUDA SpMV", "__shared__, __ldg, warp per row", lang="cuda"),
    Entry("reduce_macros", "CUDA SDK reduction", "macro-heavy shared-memory reduction", lang="cuda"),
)

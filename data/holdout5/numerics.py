"""Holdout5 kernels: numerical methods as application programmers write them: compensated (Neumaier + fma) dot
products per row, adaptive Simpson quadrature on a private stack (fp64), a 3-D heat step marching up z with the
current plane in __local memory, a 2x2-block BSR SpMV with uint32 indices, flux-limited upwind advection of many
periodic rows and the bit-reversal permutation in front of a radix-2 FFT."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import ELEMWISE, L1, L2, SUMS, _f64, _spec, round_up


# --- compensated dot products, a row pair per work-item -------------------------------------------------------
def _inputs_dot(rng, sz):
    """a spans ~2.6 decades (a log-uniform scale per entry), b standard normal: the terms cancel in every row."""
    n = sz["R"] * sz["N"]
    return {"a": rng.standard_normal(n) * np.exp(rng.uniform(-3.0, 3.0, n)), "b": rng.standard_normal(n)}


def _ref_dot(inp, sz):
    prod = _f64(inp["a"]).reshape(sz["R"], sz["N"]) * _f64(inp["b"]).reshape(sz["R"], sz["N"])  # exact
    return {"dot": prod.sum(axis=1), "abssum": np.abs(prod).sum(axis=1)}


def neumaier_dot_rows() -> KernelSpec:
    return _spec(
        "neumaier_dot_rows",
        idiom="compensated dot per row: fma product error plus Neumaier two-branch sum error, added back at the end",
        sizes={"R": [1000, 8000, 64000, 512000], "N": [16, 128, 1024]}, check={"R": 300, "N": 100},
        constraints=["R * N <= 2**23"],
        args=[Arg("nrows", "scalar", "int32", "R"), Arg("len", "scalar", "int32", "N"),
              Arg("a", "buffer", "float32", "R * N"), Arg("b", "buffer", "float32", "R * N"),
              Arg("dot", "buffer", "float32", "R", "out"), Arg("abssum", "buffer", "float32", "R", "out")],
        gsize=[round_up("R")], local=L1, reference=_ref_dot, make_inputs=_inputs_dot, tol=ELEMWISE)


# --- adaptive Simpson quadrature, explicit private stack, fp64 -------------------------------------------------
def _inputs_quad(rng, sz):
    """Damping 0.1..2, frequency W * (0.5..1.5), upper limit 1..4: about W * 0.3..2 half periods per integral."""
    n = sz["n"]
    return {"alpha": rng.uniform(0.1, 2.0, n), "omega": sz["W"] * rng.uniform(0.5, 1.5, n),
            "upper": rng.uniform(1.0, 4.0, n)}


def _ref_quad(inp, sz):
    a, w, b = _f64(inp["alpha"]), _f64(inp["omega"]), _f64(inp["upper"])
    return {"result": (w - np.exp(-a * b) * (a * np.sin(w * b) + w * np.cos(w * b))) / (a * a + w * w)}


def simpson_adapt_stack_fp64() -> KernelSpec:
    return _spec(
        "simpson_adapt_stack_fp64", precision="fp64", tol=(1e-8, 1e-9),
        idiom="adaptive Simpson per item on a private struct stack: a panel per half period, halved tolerance, fp64",
        sizes={"n": [256, 1024, 4096, 16384], "W": [1, 4, 16, 64]}, check={"n": 200, "W": 4},
        constraints=["n * W <= 2**16"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("tol", "scalar", "float64", "1e-10"),
              Arg("max_depth", "scalar", "int32", "30"), Arg("alpha", "buffer", "float64", "n"),
              Arg("omega", "buffer", "float64", "n"), Arg("upper", "buffer", "float64", "n"),
              Arg("result", "buffer", "float64", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_quad, make_inputs=_inputs_quad)


# --- 3-D 7-point heat step, 2.5-D: xy tile + halo in __local, z marched in registers -----------------------------
def _ref_heat(inp, sz):
    n, z, r = sz["N"], sz["Z"], float(inp["r"])
    u = _f64(inp["u"]).reshape(z, n, n)
    out = u.copy()
    c = u[1:-1, 1:-1, 1:-1]
    lap = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
           + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - 6.0 * c)
    out[1:-1, 1:-1, 1:-1] = c + r * lap
    return {"u_new": out}


def heat7_zmarch_local() -> KernelSpec:
    return _spec(
        "heat7_zmarch_local",
        idiom="3-D 7-point heat step, 2-D NDRange marching z: plane + halo in launch-sized __local, z+-1 in registers",
        sizes={"N": [100, 250, 500, 1000, 2000], "Z": [8, 32, 128, 512]}, check={"N": 37, "Z": 9},
        constraints=["N * N * Z <= 2**25"],
        args=[Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"), Arg("nz", "scalar", "int32", "Z"),
              Arg("r", "scalar", "float32", "0.15"), Arg("u", "buffer", "float32", "N * N * Z"),
              Arg("u_new", "buffer", "float32", "N * N * Z", "out"),
              Arg("tile", "local", "float32", "(l0 + 2) * (l1 + 2)")],
        gsize=[round_up("N", 32), round_up("N", 16)], local=L2, reference=_ref_heat, tol=(1e-5, 2e-6))


# --- BSR SpMV, 2x2 blocks, uint32 block pointers and columns -----------------------------------------------------
def _inputs_bsr(rng, sz):
    """Node (x, y) of a G x G grid coupled to the nodes within S in x and y (a (2S+1)^2 stencil), each off-diagonal
    block kept with probability 0.8; columns ascending within a block row; storage padded with zero blocks."""
    g, s = sz["G"], sz["S"]
    n = g * g
    dy, dx = (d.reshape(-1) for d in np.meshgrid(np.arange(-s, s + 1), np.arange(-s, s + 1), indexing="ij"))
    ny, nx = np.arange(n)[:, None] // g + dy[None, :], np.arange(n)[:, None] % g + dx[None, :]
    keep = (nx >= 0) & (nx < g) & (ny >= 0) & (ny < g) & ((rng.random(ny.shape) < 0.8) | ((dx == 0) & (dy == 0)))
    cols = (ny * g + nx)[keep]
    cap = n * dx.size
    vals = np.zeros(4 * cap)
    vals[:4 * cols.size] = rng.uniform(-1.0, 1.0, 4 * cols.size)
    return {"block_ptr": np.r_[0, np.cumsum(keep.sum(axis=1))], "block_col": np.r_[cols, np.zeros(cap - cols.size)],
            "vals": vals}


def _ref_bsr(inp, sz):
    n, ptr = sz["G"] ** 2, inp["block_ptr"].astype(np.int64)
    rows, nnz = np.repeat(np.arange(n), np.diff(ptr)), ptr[-1]
    blk = _f64(inp["vals"])[:4 * nnz].reshape(nnz, 2, 2)
    xj = _f64(inp["x"]).reshape(n, 2)[inp["block_col"][:nnz].astype(np.int64)]
    contrib = np.einsum("kij,kj->ki", blk, xj)
    return {"y": np.stack([np.bincount(rows, contrib[:, 0], n), np.bincount(rows, contrib[:, 1], n)], axis=1)}


def bsr2x2_spmv() -> KernelSpec:
    nblk = "G * G * (2 * S + 1) ** 2"
    return _spec(
        "bsr2x2_spmv",
        idiom="BSR SpMV with 2x2 blocks: block row per item, uint32 pointers/columns, vload4 block, vload2 x pair",
        sizes={"G": [32, 64, 128, 256, 512, 1024], "S": [1, 2]}, check={"G": 20, "S": 1},
        constraints=[f"{nblk} <= 2**25"],
        args=[Arg("nblockrows", "scalar", "int32", "G * G"), Arg("block_ptr", "buffer", "uint32", "G * G + 1"),
              Arg("block_col", "buffer", "uint32", nblk), Arg("vals", "buffer", "float32", f"4 * {nblk}"),
              Arg("x", "buffer", "float32", "2 * G * G"), Arg("y", "buffer", "float32", "2 * G * G", "out")],
        gsize=[round_up("G * G")], local=L1, reference=_ref_bsr, make_inputs=_inputs_bsr, tol=SUMS)


# --- flux-limited upwind advection of many periodic rows, 2-D (cell, row) -----------------------------------------
def _inputs_advect(rng, sz):
    """Each row: a square pulse (flat runs: zero jumps) and a Gaussian bump at random places, plus a Courant
    number in [-0.9, 0.9] (both directions)."""
    n, rows = sz["N"], sz["R"]
    x = np.arange(n)[None, :] / n
    s1, s2 = rng.random((rows, 1)), rng.random((rows, 1))
    pulse = ((x - s1) % 1.0 < 0.25).astype(np.float64)
    bump = 0.5 * np.exp(-((((x - s2) + 0.5) % 1.0 - 0.5) / 0.05) ** 2)
    return {"courant": rng.uniform(-0.9, 0.9, rows), "u": pulse + bump}


def _superbee(th):
    return np.maximum(0.0, np.maximum(np.minimum(2.0 * th, 1.0), np.minimum(th, 2.0)))


def _ref_advect(inp, sz):
    assert int(inp["kind"]) == 1, "the reference implements the superbee limiter"
    u, nu = _f64(inp["u"]).reshape(sz["R"], sz["N"]), _f64(inp["courant"])[:, None]
    up, um, up2 = np.roll(u, -1, axis=1), np.roll(u, 1, axis=1), np.roll(u, -2, axis=1)
    jump = up - u  # face i+1/2 between u and up
    safe = np.where(jump != 0.0, jump, 1.0)
    th_pos, th_neg = (u - um) / safe, (up2 - up) / safe
    phi = np.where(jump != 0.0, _superbee(np.where(nu >= 0.0, th_pos, th_neg)), 0.0)
    flux = np.where(nu >= 0.0, u + 0.5 * (1.0 - nu) * phi * jump, up - 0.5 * (1.0 + nu) * phi * jump)
    return {"u_next": u - nu * (flux - np.roll(flux, 1, axis=1))}


def advect_flux_limited_rows() -> KernelSpec:
    return _spec(
        "advect_flux_limited_rows",
        idiom="flux-limited upwind advection per periodic row, 2-D: velocity-sign branch, limiter switch, wrap indices",
        sizes={"N": [500, 4000, 32000, 256000], "R": [6, 60, 500, 4000]}, check={"N": 300, "R": 7},
        constraints=["N * R <= 2**24"],
        args=[Arg("ncell", "scalar", "int32", "N"), Arg("nrow", "scalar", "int32", "R"),
              Arg("kind", "scalar", "int32", "1"), Arg("courant", "buffer", "float32", "R"),
              Arg("u", "buffer", "float32", "N * R"), Arg("u_next", "buffer", "float32", "N * R", "out")],
        gsize=[round_up("N", 256), round_up("R", 8)], local=[[64, 4], [256, 1], [32, 8]], reference=_ref_advect,
        make_inputs=_inputs_advect, tol=ELEMWISE)


# --- bit-reversal permutation of a batch of complex vectors -------------------------------------------------------
def _ref_bitrev(inp, sz):
    logn, n = sz["LOG"], 2 ** sz["LOG"]
    j, rev = np.arange(n), np.zeros(n, dtype=np.int64)
    for bit in range(logn):
        rev |= ((j >> bit) & 1) << (logn - 1 - bit)
    return {"dst": _f64(inp["src"]).reshape(sz["B"], n, 2)[:, rev]}


def bitrev_permute_cplx() -> KernelSpec:
    return _spec(
        "bitrev_permute_cplx",
        idiom="FFT bit-reversal permutation of batched float2 vectors: swap-mask bit reverse, gather, runtime log2 n",
        sizes={"LOG": [8, 11, 14, 17, 20, 23], "B": [1, 8, 128]}, check={"LOG": 10, "B": 3},
        constraints=["B * 2**LOG <= 2**24"],
        args=[Arg("logn", "scalar", "int32", "LOG"), Arg("nvec", "scalar", "int32", "B"),
              Arg("src", "buffer", "float32", "2 * B * 2**LOG"),
              Arg("dst", "buffer", "float32", "2 * B * 2**LOG", "out")],
        gsize=[round_up("B * 2**LOG")], local=L1, reference=_ref_bitrev)


#: this group's builders, in the order of ``specs()``
BUILDERS = (neumaier_dot_rows, simpson_adapt_stack_fp64, heat7_zmarch_local, bsr2x2_spmv, advect_flux_limited_rows,
            bitrev_permute_cplx)

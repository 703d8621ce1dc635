"""Holdout11 kernels, group solver, continued (written by hand; see docs/HOLDOUT11.md): the batched LU with partial
pivoting of small fronts in fp64 (LAPACK's getf2), a work-group per matrix (looping by the number of groups) held
in __local memory, the pivot row found by a (value, row) tree reduction, row swaps, column scaling and the
rank-1 update between barriers, with 1-based ipiv and the zero-pivot info of LAPACK; the assembly of 8-node
hexahedral elasticity stiffness matrices into block CSR (3 x 3 blocks) through the element-to-block map of the
symbolic phase, a work-item per block row over the elements around its node (so no atomics), uint32 index
arrays, then the Dirichlet rows and columns; and the row interchanges of a right-looking LU (laswp) applied to
the columns left and right of the just-factored panel, a work-item per column of the column-major matrix, a swap
only where the pivot row differs. None of these three uses atomics. Split from :mod:`.solver` to keep each
module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _f64, _spec, round_up

#: getrf_pivot_batch_fp64: work-group shapes; a group of 256 spends most of its time in the pivot trees' barriers
GETRF_LOCAL = [[64], [128], [32]]
GETRF_ZERO_COL = 0.03  # getrf_pivot_batch_fp64: share of matrices with an all-zero column (a zero pivot, info > 0)

HEX_NODES = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))

LASWP_K1 = "N // 3"  # laswp_outer_panels: the panel's first row and column
LASWP_SAME = 0.4  # laswp_outer_panels: share of pivots that keep their row (no swap)


# --- batched LU with partial pivoting, a work-group per matrix in __local, fp64 -----------------------------------
def _inputs_getrf(rng, sz):
    """B matrices of order N, normal entries; GETRF_ZERO_COL of them with one all-zero column (it stays zero
    through the elimination, so its pivot is exactly 0)."""
    b, n = sz["B"], sz["N"]
    a = rng.standard_normal((b, n, n))  # a[m, j]: column j of matrix m
    zero = np.flatnonzero(rng.random(b) < GETRF_ZERO_COL)
    a[zero, rng.integers(0, n, zero.size), :] = 0.0
    return {"a": a}


def _ref_getrf(inp, sz):
    """getf2 on all matrices at once, step by step (argmax gives the lowest row on a tie, as the kernel)."""
    b, n = sz["B"], sz["N"]
    m = _f64(inp["a"]).reshape(b, n, n).transpose(0, 2, 1).copy()  # m[., row, column]
    ipiv = np.zeros((b, n), dtype=np.int64)
    info = np.zeros(b, dtype=np.int64)
    idx = np.arange(b)
    for k in range(n):
        p = k + np.argmax(np.abs(m[:, k:, k]), axis=1)
        ipiv[:, k] = p + 1
        row_k = m[idx, k, :].copy()
        m[idx, k, :] = m[idx, p, :]
        m[idx, p, :] = row_k
        piv = m[:, k, k].copy()
        nz = piv != 0.0
        m[nz, k + 1:, k] /= piv[nz, None]
        info = np.where(~nz & (info == 0), k + 1, info)
        m[:, k + 1:, k + 1:] -= m[:, k + 1:, k, None] * m[:, k, None, k + 1:]
    return {"a": m.transpose(0, 2, 1), "ipiv": ipiv, "info": info}


def getrf_pivot_batch_fp64() -> KernelSpec:
    return _spec(
        "getrf_pivot_batch_fp64", tol=FP64, precision="fp64",
        idiom="batched LU with partial pivoting in fp64, a group per small matrix (num_groups loop) in __local: "
              "(|value|, row) argmax tree per column, row swap, scaling, rank-1 update, 1-based ipiv and info",
        sizes={"N": [16, 32, 64], "B": [128, 512, 2048, 8192]}, check={"N": 24, "B": 300},
        constraints=["B * N <= 2**18"],
        args=[Arg("batch", "scalar", "int32", "B"), Arg("n", "scalar", "int32", "N"),
              Arg("a", "buffer", "float64", "B * N * N", "inout"), Arg("ipiv", "buffer", "int32", "B * N", "out"),
              Arg("info", "buffer", "int32", "B", "out"), Arg("la", "local", "float64", "N * N"),
              Arg("rmax", "local", "float64", "l0"), Arg("rrow", "local", "int32", "l0")],
        gsize=["min(B, 4096) * 64"], local=GETRF_LOCAL, reference=_ref_getrf, make_inputs=_inputs_getrf)


# --- FE assembly: hexahedral stiffness blocks into block CSR, a work-item per block row ----------------------------
def _hex_mesh(s):
    """The S x S x S hexahedra of a unit-cube grid, nodes numbered x fastest: (connectivity E x 8, nodes a side)."""
    nn = s + 1
    e = np.arange(s ** 3)
    ex, ey, ez = e % s, e // s % s, e // (s * s)
    conn = np.stack([(ex + dx) + nn * ((ey + dy) + nn * (ez + dz)) for dx, dy, dz in HEX_NODES], 1)
    return conn.astype(np.int64), nn


def _hex_symbolic(s):
    """The symbolic phase of the box mesh: the block pattern (each node's row holds its 8 .. 27 neighbours in
    ascending order) and the element-to-block map, from the grid's structure (a node's row is the product of its
    neighbours along x, y and z)."""
    conn, nn = _hex_mesh(s)
    node = np.arange(nn ** 3)
    coord = (node % nn, node // nn % nn, node // (nn * nn))
    lo = [(c > 0).astype(np.int64) for c in coord]
    cnt = [1 + low + (c < s) for low, c in zip(lo, coord)]
    ptr = np.concatenate([[0], np.cumsum(cnt[0] * cnt[1] * cnt[2])])

    def slot(r, dx, dy, dz):
        return (ptr[r] + (dz + lo[2][r]) * cnt[1][r] * cnt[0][r] + (dy + lo[1][r]) * cnt[0][r]
                + dx + lo[0][r])

    col = np.zeros(ptr[-1], dtype=np.int64)
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                ok = np.ones(node.size, dtype=bool)
                for c, d in zip(coord, (dx, dy, dz)):
                    ok &= (c + d >= 0) & (c + d <= s)
                col[slot(node[ok], dx, dy, dz)] = node[ok] + dx + nn * (dy + nn * dz)
    blk = np.zeros((conn.shape[0], 8, 8), dtype=np.int64)
    for a, ha in enumerate(HEX_NODES):
        for b, hb in enumerate(HEX_NODES):
            blk[:, a, b] = slot(conn[:, a], *(q - p for p, q in zip(ha, hb)))
    return conn, ptr, col, blk


def _inputs_bsr(rng, sz):
    """The box mesh of _hex_mesh and its symbolic phase (_hex_symbolic, node-to-element lists); element
    stiffnesses lambda_e K1 + mu_e K2 (random symmetric 24 x 24 bases, each element's Lame parameters from a
    modulus 0.5 .. 2 and a Poisson ratio 0.2 .. 0.45); the bottom face clamped (mask 7), the x = 0 and y = 0
    faces symmetry planes (their x, resp. y, dof fixed)."""
    s = sz["S"]
    conn, ptr, col, blk = _hex_symbolic(s)
    nnode = ptr.size - 1
    flat = conn.reshape(-1)
    node_elem = np.argsort(flat, kind="stable")  # e * 8 + a, by node then element
    node_elem_ptr = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=nnode))])
    k1, k2 = rng.standard_normal((2, 24, 24)).astype(np.float32)
    young, nu = rng.uniform(0.5, 2.0, s ** 3), rng.uniform(0.2, 0.45, s ** 3)
    lam = (young * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))).astype(np.float32)
    mu = (young / (2.0 * (1.0 + nu))).astype(np.float32)
    ke = np.multiply.outer(lam, (k1 + k1.T).reshape(-1))
    ke += np.multiply.outer(mu, (k2 + k2.T).reshape(-1))
    node = np.arange(nnode)
    x, y, z = node % (s + 1), node // (s + 1) % (s + 1), node // (s + 1) ** 2
    mask = np.where(z == 0, 7, 0) | np.where(x == 0, 1, 0) | np.where(y == 0, 2, 0)
    return {"node_elem_ptr": node_elem_ptr, "node_elem": node_elem, "elem_blk": blk, "ke": ke,
            "bsr_ptr": ptr, "bsr_col": col, "fixed_mask": mask}


def _ref_bsr(inp, sz):
    s = sz["S"]
    ne = s ** 3
    ptr = np.asarray(inp["bsr_ptr"]).astype(np.int64)
    col = np.asarray(inp["bsr_col"]).astype(np.int64)
    mask = np.asarray(inp["fixed_mask"]).astype(np.int64)
    blocks = _f64(inp["ke"]).reshape(ne, 8, 3, 8, 3).transpose(0, 1, 3, 2, 4).reshape(-1, 9)
    val = np.zeros((col.size, 9))
    np.add.at(val, np.asarray(inp["elem_blk"]).astype(np.int64), blocks)
    row = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    i, j = np.arange(9) // 3, np.arange(9) % 3
    fixed = (((mask[row][:, None] >> i) | (mask[col][:, None] >> j)) & 1) == 1
    diag = (row == col)[:, None] & (i == j)[None, :]
    return {"bsr_val": np.where(fixed, diag * 1.0, val)}


def bsr_assemble_hex8_u32() -> KernelSpec:
    nnode, nelem = "(S + 1) ** 3", "S ** 3"
    return _spec(
        "bsr_assemble_hex8_u32", tol=(1e-4, 1e-5),
        idiom="FE assembly of hex8 stiffness into 3x3 block CSR, an item per block row: uint32 node-to-element "
              "lists and element-to-block map, 3 x 24 row strip += per element, Dirichlet row / column masks",
        sizes={"S": [4, 6, 8, 11, 14, 18, 22, 26, 30, 36, 42, 48]}, check={"S": 5},
        args=[Arg("nnode", "scalar", "uint32", nnode), Arg("node_elem_ptr", "buffer", "uint32", f"{nnode} + 1"),
              Arg("node_elem", "buffer", "uint32", f"8 * {nelem}"),
              Arg("elem_blk", "buffer", "uint32", f"64 * {nelem}"), Arg("ke", "buffer", "float32", f"576 * {nelem}"),
              Arg("bsr_ptr", "buffer", "uint32", f"{nnode} + 1"),
              Arg("bsr_col", "buffer", "uint32", "(3 * S + 1) ** 3"),
              Arg("fixed_mask", "buffer", "uint32", nnode),
              Arg("bsr_val", "buffer", "float32", "9 * (3 * S + 1) ** 3", "out")],
        gsize=[round_up(nnode)], local=L1, reference=_ref_bsr, make_inputs=_inputs_bsr)


# --- LU row interchanges (laswp) on the columns outside the factored panel ------------------------------------------
def _inputs_laswp(rng, sz):
    """LAPACK pivots of an N x N partial-pivoting LU: row k swapped with itself LASWP_SAME of the time, else
    with a row drawn from k .. N - 1."""
    n = sz["N"]
    k = np.arange(n)
    p = k + (rng.random(n) * (n - k)).astype(np.int64)
    return {"ipiv": np.where(rng.random(n) < LASWP_SAME, k, p) + 1}


def _ref_laswp(inp, sz):
    ncol, lda, k1, k2 = (int(inp[k]) for k in ("ncol", "lda", "k1", "k2"))
    a = np.asarray(inp["a"]).reshape(ncol, lda).copy()  # a[column, row]
    cols = np.r_[0:k1, k2:ncol]
    piv = np.asarray(inp["ipiv"]).astype(np.int64) - 1
    for k in range(k1, k2):
        p = piv[k]
        if p != k:
            a[cols, k], a[cols, p] = a[cols, p], a[cols, k].copy()
    return {"a": a}


def laswp_outer_panels() -> KernelSpec:
    return _spec(
        "laswp_outer_panels",
        idiom="LU row interchanges (laswp) outside the factored panel, an item per column-major column: panel "
              "columns leave, sequential 1-based pivot loop, swap only where the pivot row differs",
        sizes={"N": [256, 512, 1024, 2048, 4096, 8192], "NB": [32, 128]}, check={"N": 300, "NB": 24},
        args=[Arg("ncol", "scalar", "int32", "N"), Arg("lda", "scalar", "int32", "N"),
              Arg("k1", "scalar", "int32", LASWP_K1), Arg("k2", "scalar", "int32", f"{LASWP_K1} + NB"),
              Arg("a", "buffer", "float32", "N * N", "inout"), Arg("ipiv", "buffer", "int32", "N")],
        gsize=[round_up("N")], local=L1, reference=_ref_laswp, make_inputs=_inputs_laswp)


#: this group's builders, in the order of ``specs()``
BUILDERS = (getrf_pivot_batch_fp64, bsr_assemble_hex8_u32, laswp_outer_panels)

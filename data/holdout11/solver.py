"""Holdout11 kernels, group solver (written by hand; see docs/HOLDOUT11.md): the dense tasks a supernodal sparse
direct solver runs on its frontal matrices, as a task-based runtime hands them to the device: the multifrontal
extend-add of one assembly round, every child's update block (lower triangle) added into its parent's front
through the child's relative index map on a 2-D (row, child) NDRange, fronts of varying order packed back to
back; the trailing update of a supernode's blocked LDL^T in fp64 after one panel, A(i, j) -= sum L(i, k) D(k)
L(j, k) over the trapezoid below the diagonal (diagonal block and off-diagonal rows), 2-D; and the trailing update
of a blocked Householder QR, Q^T C with Q = I - V T V^T in compact WY form, a work-group per column (looping by the
number of groups) with the column, V^T c and T^T V^T c in __local memory between barriers. None of these three
uses atomics; the group's other three kernels are in :mod:`.solver_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, round_up


# --- multifrontal extend-add: child update blocks into parent fronts through relative index maps ----------------
def _inputs_extadd(rng, sz):
    """C children, each with its own parent (a round of a schedule that never puts two children of one parent
    together); child update orders uniform in M / 4 .. M, each parent M / 8 .. M / 4 rows larger (all scaled down
    when the packed arrays would overflow: room for C * M^2 / 2 update and 25 C M^2 / 32 front entries, the tail
    unused); a child's map a sorted random subset of its parent's rows. Parents are stored in another order."""
    c, mx = sz["C"], sz["M"]
    cap_u, cap_f = c * mx * mx // 2, c * mx * mx * 25 // 32
    m = rng.integers(mx // 4, mx + 1, c)
    extra = rng.integers(max(mx // 8, 1), mx // 4 + 1, c)
    over = max((m * m).sum() / cap_u, ((m + extra) ** 2).sum() / cap_f)
    if over > 1.0:
        m, extra = np.maximum(m / np.sqrt(over), 1).astype(np.int64), (extra / np.sqrt(over)).astype(np.int64)
    parent = rng.permutation(c).astype(np.int32)
    fdim = np.zeros(c, dtype=np.int64)
    fdim[parent] = m + extra
    upd_off = np.concatenate([[0], np.cumsum(m * m)[:-1]])
    map_off = np.concatenate([[0], np.cumsum(m)[:-1]])
    front_off = np.concatenate([[0], np.cumsum(fdim * fdim)[:-1]])
    relmap = np.zeros(c * mx, dtype=np.int32)
    for k in range(c):
        pick = np.sort(rng.choice(fdim[parent[k]], m[k], replace=False))
        relmap[map_off[k]:map_off[k] + m[k]] = pick
    upd = np.zeros(cap_u, dtype=np.float32)
    upd[:int((m * m).sum())] = rng.random(int((m * m).sum()), dtype=np.float32) * 2.0 - 1.0
    front = np.zeros(cap_f, dtype=np.float32)
    front[:int((fdim * fdim).sum())] = rng.random(int((fdim * fdim).sum()), dtype=np.float32) * 2.0 - 1.0
    return {"upd_off": upd_off, "upd_dim": m, "upd": upd, "map_off": map_off, "relmap": relmap, "parent": parent,
            "front_off": front_off, "front_dim": fdim, "front": front}


def _ref_extadd(inp, sz):
    front = _f64(inp["front"]).copy()
    upd = _f64(inp["upd"])
    for c in range(int(inp["nchild"])):
        m, uo, mo = (int(inp[k][c]) for k in ("upd_dim", "upd_off", "map_off"))
        p = int(inp["parent"][c])
        ld, fo = int(inp["front_dim"][p]), int(inp["front_off"][p])
        u = np.tril(upd[uo:uo + m * m].reshape(m, m, order="F"))
        rows = np.asarray(inp["relmap"][mo:mo + m]).astype(np.int64)
        f = front[fo:fo + ld * ld].reshape(ld, ld, order="F")
        f[np.ix_(rows, rows)] += u
    return {"front": front}


def extend_add_relmap_2d() -> KernelSpec:
    return _spec(
        "extend_add_relmap_2d",
        idiom="multifrontal extend-add, 2-D (update row, child): lower-triangle row of a packed child update "
              "block scattered with += into its parent front through the relative index map, varying orders",
        sizes={"M": [32, 64, 128, 256, 512, 1024], "C": [16, 64, 256, 1024]}, check={"M": 40, "C": 24},
        constraints=["C * M * M <= 2**26"],
        args=[Arg("nchild", "scalar", "int32", "C"), Arg("upd_off", "buffer", "int32", "C"),
              Arg("upd_dim", "buffer", "int32", "C"), Arg("upd", "buffer", "float32", "C * M * M // 2"),
              Arg("map_off", "buffer", "int32", "C"), Arg("relmap", "buffer", "int32", "C * M"),
              Arg("parent", "buffer", "int32", "C"), Arg("front_off", "buffer", "int32", "C"),
              Arg("front_dim", "buffer", "int32", "C"),
              Arg("front", "buffer", "float32", "C * M * M * 25 // 32", "inout")],
        gsize=[round_up("M", 32), round_up("C", 16)], local=L2, reference=_ref_extadd, make_inputs=_inputs_extadd)


# --- supernodal LDL^T: trailing trapezoid update after one panel, fp64 ----------------------------------------------
LDLT_NROW = "C + C // 2"  # ldlt_trailing_trapezoid_fp64: rows of the supernode (C columns, C / 2 off-diagonal rows)
LDLT_K0 = "C // 4"  # ldlt_trailing_trapezoid_fp64: the panel's first column


def _inputs_ldlt(rng, sz):
    """A supernode of C columns and C + C / 2 rows: L entries uniform in [-1, 1], D on the panel's diagonal of
    either sign (|d| in 0.5 .. 2, a KKT system's indefinite pivots)."""
    c = sz["C"]
    nrow = c + c // 2
    a = rng.uniform(-1.0, 1.0, (c, nrow))
    k = np.arange(c)
    a[k, k] = rng.choice([-1.0, 1.0], c) * rng.uniform(0.5, 2.0, c)
    return {"a": a}


def _ref_ldlt(inp, sz):
    nrow, ncol, lda, k0, nb = (int(inp[k]) for k in ("nrow", "ncol", "lda", "k0", "nb"))
    a = _f64(inp["a"]).reshape(ncol, lda).T.copy()
    c0 = k0 + nb
    ks = np.arange(k0, c0)
    upd = (a[c0:nrow, ks] * a[ks, ks]) @ a[c0:ncol, ks].T
    rows, cols = np.arange(c0, nrow)[:, None], np.arange(c0, ncol)[None, :]
    a[c0:nrow, c0:ncol] -= np.where(rows >= cols, upd, 0.0)
    return {"a": a.T}


def ldlt_trailing_trapezoid_fp64() -> KernelSpec:
    trail_rows, trail_cols = f"{LDLT_NROW} - {LDLT_K0} - NB", f"C - {LDLT_K0} - NB"
    return _spec(
        "ldlt_trailing_trapezoid_fp64", tol=FP64, precision="fp64",
        idiom="supernodal LDL^T trailing update in fp64, 2-D (row, column) over the trapezoid below the diagonal: "
              "column-major panel dot with the pivot D(k) read from the diagonal, in-place -=",
        sizes={"C": [64, 128, 256, 512, 1024, 2048, 3072], "NB": [8, 32, 96]}, check={"C": 200, "NB": 24},
        constraints=["NB <= C // 2"],
        args=[Arg("nrow", "scalar", "int32", LDLT_NROW), Arg("ncol", "scalar", "int32", "C"),
              Arg("lda", "scalar", "int32", LDLT_NROW), Arg("k0", "scalar", "int32", LDLT_K0),
              Arg("nb", "scalar", "int32", "NB"), Arg("a", "buffer", "float64", f"C * ({LDLT_NROW})", "inout")],
        gsize=[round_up(trail_rows, 32), round_up(trail_cols, 16)], local=L2, reference=_ref_ldlt,
        make_inputs=_inputs_ldlt)


# --- blocked Householder QR: apply Q^T in compact WY form, a work-group per column --------------------------------
def _inputs_larfb(rng, sz):
    """K reflectors of length M (random tails, LAPACK's storage: R above the diagonal, here random too), tau of
    each making H = I - tau v v^T exactly orthogonal for the stored float32 v; T by larft's recursion."""
    m, n, k = sz["M"], sz["N"], sz["K"]
    v = rng.standard_normal((k, m)).astype(np.float32)  # row j: column j of V
    vf = _f64(v).copy()
    for j in range(k):
        vf[j, :j], vf[j, j] = 0.0, 1.0
    tau = 2.0 / np.einsum("ij,ij->i", vf, vf)
    t = np.zeros((k, k))  # t[j]: column j of T
    for j in range(k):
        t[j, :j] = -tau[j] * (t[:j, :j].T @ (vf[:j] @ vf[j]))
        t[j, j] = tau[j]
    return {"v": v, "t": t.astype(np.float32), "c": rng.uniform(-1.0, 1.0, m * n)}


def _ref_larfb(inp, sz):
    m, n, k = sz["M"], sz["N"], sz["K"]
    v = _f64(inp["v"]).reshape(k, m).T.copy()
    v[np.triu_indices(k, 1)] = 0.0
    v[np.arange(k), np.arange(k)] = 1.0
    t = _f64(inp["t"]).reshape(k, k).T
    c = _f64(inp["c"]).reshape(n, m).T
    out = c - v @ (t.T @ (v.T @ c))
    return {"c": out.T}


def larfb_wy_cols_local() -> KernelSpec:
    return _spec(
        "larfb_wy_cols_local", tol=SUMS,
        idiom="compact-WY block reflector C -= V T^T V^T C, a group per column (num_groups loop): column in "
              "__local, k reflector dots by the first k items, triangular T^T product, row update, barriers",
        sizes={"M": [256, 1024, 4096], "N": [128, 1024, 8192], "K": [16, 48]}, check={"M": 300, "N": 40, "K": 24},
        constraints=["M * N * K <= 2**28"],
        args=[Arg("m", "scalar", "int32", "M"), Arg("n", "scalar", "int32", "N"), Arg("k", "scalar", "int32", "K"),
              Arg("v", "buffer", "float32", "M * K"), Arg("t", "buffer", "float32", "K * K"),
              Arg("c", "buffer", "float32", "M * N", "inout"), Arg("ccol", "local", "float32", "M"),
              Arg("w", "local", "float32", "K"), Arg("y", "local", "float32", "K")],
        gsize=["min(N, 2048) * 64"], local=L1, reference=_ref_larfb, make_inputs=_inputs_larfb)


#: this group's builders, in the order of ``specs()``
BUILDERS = (extend_add_relmap_2d, ldlt_trailing_trapezoid_fp64, larfb_wy_cols_local)

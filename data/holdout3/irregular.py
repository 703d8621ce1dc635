"""Holdout3 kernels: sparse, graph and data-movement steps as application programmers write them: COO SpMV
through a compare-and-swap float add, a segmented scan over head flags in local memory, a connected-components
hooking step, triangle counting by merging sorted lists, run-length decoding by binary search and one round of
Jones-Plassmann graph colouring."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f64, _spec, pow2, round_up


# --- COO SpMV, float add through atomic_cmpxchg ---------------------------------------------------------------
def _inputs_coo(rng, sz):
    n, nnz = sz["n"], sz["n"] * sz["D"]
    return {"row_idx": np.sort(rng.integers(0, n, nnz)).astype(np.int32),  # row-sorted COO, uneven rows
            "col_idx": rng.integers(0, n, nnz).astype(np.int32)}


def _ref_coo(inp, sz):
    prod = _f64(inp["vals"]) * _f64(inp["x"])[inp["col_idx"]]
    return {"y": _f64(inp["y"]) + np.bincount(inp["row_idx"], weights=prod, minlength=sz["n"])}


def coo_spmv_cas_float() -> KernelSpec:
    return _spec(
        "coo_spmv_cas_float", idiom="COO SpMV, one item per entry, float add by an atomic_cmpxchg retry loop",
        sizes={"n": pow2(10, 22, 2), "D": [4, 32]}, check={"n": 700, "D": 6}, constraints=["n * D <= 2**24"],
        args=[Arg("nnz", "scalar", "int32", "n * D"), Arg("row_idx", "buffer", "int32", "n * D"),
              Arg("col_idx", "buffer", "int32", "n * D"), Arg("vals", "buffer", "float32", "n * D"),
              Arg("x", "buffer", "float32", "n"), Arg("y", "buffer", "float32", "n", "inout")],
        gsize=[round_up("n * D")], local=L1, reference=_ref_coo, make_inputs=_inputs_coo, tol=SUMS)


# --- segmented inclusive scan over head flags, in __local memory -------------------------------------------------
def _inputs_segscan(rng, sz):
    n = sz["n"]
    flags = (rng.random(n) < 0.08) * rng.integers(1, 4, n)  # any non-zero flag is a head
    flags[::64] = 1  # segments never cross a 64-element block, nor so a work-group's tile
    return {"head_flags": flags.astype(np.int32)}


def _ref_segscan(inp, sz):
    vals = _f64(inp["vals"])
    sums = np.cumsum(vals)
    start = np.maximum.accumulate(np.where(inp["head_flags"] != 0, np.arange(vals.size), 0))  # each one's head
    return {"out": sums - sums[start] + vals[start]}


def segmented_scan_flags_local() -> KernelSpec:
    return _spec(
        "segmented_scan_flags_local", idiom="segmented inclusive sum over head flags, (value, flag) doubling in __local",
        sizes={"n": pow2(10, 24, 2) + [2**25]}, check={"n": 3000},
        args=[Arg("n", "scalar", "int32", "n"), Arg("vals", "buffer", "float32", "n"),
              Arg("head_flags", "buffer", "int32", "n"), Arg("out", "buffer", "float32", "n", "out"),
              Arg("sval", "local", "float32", "l0"), Arg("sflag", "local", "int32", "l0")],
        gsize=[round_up("n")], local=L1, reference=_ref_segscan, make_inputs=_inputs_segscan, tol=SUMS)


# --- connected components: find both roots, hook with atomic_min ------------------------------------------------
def _inputs_forest(rng, sz):
    n, ne = sz["n"], sz["n"] * sz["D"]
    idx = np.arange(n)
    parent = (rng.random(n) * idx).astype(np.int64)  # below its child: a forest, shallow on average
    roots = rng.random(n) < 0.125
    roots[0] = True
    parent[roots] = idx[roots]
    return {"edge_u": rng.integers(0, n, ne).astype(np.int32), "edge_v": rng.integers(0, n, ne).astype(np.int32),
            "parent": parent.astype(np.int32), "new_parent": parent.astype(np.int32)}


def _roots(parent: np.ndarray) -> np.ndarray:
    """Every node's root (pointer doubling to the fixed point)."""
    r = parent.astype(np.int64)
    while True:
        nxt = r[r]
        if np.array_equal(nxt, r):
            return r
        r = nxt


def _ref_hook(inp, sz):
    r = _roots(inp["parent"])
    ru, rv = r[inp["edge_u"]], r[inp["edge_v"]]
    join = ru != rv
    new = inp["new_parent"].astype(np.int64)
    np.minimum.at(new, np.maximum(ru, rv)[join], np.minimum(ru, rv)[join])
    return {"new_parent": new, "num_hooks": np.array([join.sum()])}


def cc_hook_atomic_min() -> KernelSpec:
    return _spec(
        "cc_hook_atomic_min", precision="int32",
        idiom="connected-components hooking: per edge, while-loop root finds, atomic_min hook + atomic_inc",
        sizes={"n": pow2(10, 20, 2), "D": [2, 8]}, check={"n": 900, "D": 2},
        args=[Arg("nedges", "scalar", "int32", "n * D"), Arg("edge_u", "buffer", "int32", "n * D"),
              Arg("edge_v", "buffer", "int32", "n * D"), Arg("parent", "buffer", "int32", "n"),
              Arg("new_parent", "buffer", "int32", "n", "inout"), Arg("num_hooks", "buffer", "uint32", "1", "out")],
        gsize=[round_up("n * D")], local=L1, reference=_ref_hook, make_inputs=_inputs_forest)


# --- triangle counting by merging sorted adjacency lists --------------------------------------------------------
def _inputs_local_graph(rng, sz):
    """A CSR graph of n * D entries, degrees 0..2D, each vertex's neighbours a little ahead of it (mod n), sorted."""
    n, d = sz["n"], sz["D"]
    jitter = rng.integers(0, d + 1, n)
    deg = d + jitter - np.roll(jitter, 1)  # sums to n * D
    row_ptr = np.r_[0, np.cumsum(deg)]
    rows = np.repeat(np.arange(n), deg)
    gaps = rng.integers(1, 4, n * d)
    steps = np.cumsum(gaps)
    ahead = steps - steps[row_ptr[rows]] + gaps[row_ptr[rows]]  # running sum of the gaps within the row
    cols = (rows + ahead) % n
    cols = cols[np.lexsort((cols, rows))]
    return {"row_ptr": row_ptr.astype(np.int32), "col_idx": cols.astype(np.int32)}


def _ref_triangles(inp, sz):
    rp, ci = inp["row_ptr"], inp["col_idx"]
    adj = [ci[rp[u]:rp[u + 1]] for u in range(sz["n"])]
    tri = np.array([sum(np.intersect1d(a, adj[v], assume_unique=True).size for v in a) for a in adj])
    return {"tri": tri, "total": np.array([tri.sum()])}


def triangle_count_merge() -> KernelSpec:
    return _spec(
        "triangle_count_merge", precision="int32",
        idiom="triangle counting: per vertex, merge of two sorted CSR lists in a while loop, atomic_add total",
        sizes={"n": pow2(10, 22, 2), "D": [4, 16, 32]}, check={"n": 300, "D": 8},
        constraints=["n * D * D <= 2**26"],
        args=[Arg("nverts", "scalar", "int32", "n"), Arg("row_ptr", "buffer", "int32", "n + 1"),
              Arg("col_idx", "buffer", "int32", "n * D"), Arg("tri", "buffer", "uint32", "n", "out"),
              Arg("total", "buffer", "uint32", "1", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_triangles, make_inputs=_inputs_local_graph)


# --- run-length decoding by binary search -----------------------------------------------------------------------
def _inputs_runs(rng, sz):
    r, length = sz["R"], sz["L"]
    jitter = rng.integers(0, length, r)
    lengths = length + jitter - np.roll(jitter, 1)  # 1 .. 2L-1, summing to R * L
    return {"run_start": np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int32),
            "run_vals": rng.integers(0, 2**32, r, dtype=np.uint64).astype(np.uint32)}


def _ref_runs(inp, sz):
    lengths = np.diff(np.r_[inp["run_start"], sz["R"] * sz["L"]])
    return {"out": np.repeat(inp["run_vals"], lengths)}


def rle_decode_bsearch() -> KernelSpec:
    return _spec(
        "rle_decode_bsearch", precision="uint32",
        idiom="run-length decode: per output item, binary search of the run starts, uint32 copy",
        sizes={"R": pow2(8, 20, 2), "L": [4, 64]}, check={"R": 500, "L": 7}, constraints=["R * L <= 2**24"],
        args=[Arg("nruns", "scalar", "int32", "R"), Arg("nout", "scalar", "int32", "R * L"),
              Arg("run_start", "buffer", "int32", "R"), Arg("run_vals", "buffer", "uint32", "R"),
              Arg("out", "buffer", "uint32", "R * L", "out")],
        gsize=[round_up("R * L")], local=L1, reference=_ref_runs, make_inputs=_inputs_runs)


# --- one round of Jones-Plassmann colouring ---------------------------------------------------------------------
def _inputs_colouring(rng, sz):
    """A random D-regular symmetric graph (a ring of offsets +-1..D/2 over a random permutation), sorted rows;
    random uint32 priorities; 40% of the vertices already coloured 0..7."""
    n, d = sz["n"], sz["D"]
    perm = rng.permutation(n)
    pos = np.empty(n, dtype=np.int64)
    pos[perm] = np.arange(n)
    offsets = np.r_[-(d // 2):0, 1:d // 2 + 1]
    nbrs = np.sort(perm[(pos[:, None] + offsets[None, :]) % n], axis=1)
    return {"row_ptr": (np.arange(n + 1) * d).astype(np.int32), "col_idx": nbrs.reshape(-1).astype(np.int32),
            "priority": rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),
            "color_in": np.where(rng.random(n) < 0.4, rng.integers(0, 8, n), -1).astype(np.int32)}


def _ref_colouring(inp, sz):
    n, d = sz["n"], sz["D"]
    adj = inp["col_idx"].reshape(n, d).astype(np.int64)
    cin, pr = inp["color_in"].astype(np.int64), inp["priority"].astype(np.int64)
    me = np.arange(n)[:, None]
    beaten = (cin[adj] < 0) & ((pr[adj] > pr[:, None]) | ((pr[adj] == pr[:, None]) & (adj > me)))
    used = np.zeros((n, 33), dtype=bool)
    held = cin[adj] >= 0
    used[np.broadcast_to(me, adj.shape)[held], cin[adj][held]] = True
    first_free = np.argmax(~used, axis=1)  # column 32 is never used: 32 when all are taken
    return {"color_out": np.where(cin >= 0, cin, np.where(beaten.any(axis=1), -1, first_free))}


def jones_plassmann_round() -> KernelSpec:
    return _spec(
        "jones_plassmann_round", precision="int32",
        idiom="graph colouring round: CSR neighbour loop, priority test with early break, uint colour bit mask",
        sizes={"n": pow2(10, 24, 2), "D": [4, 32]}, check={"n": 1000, "D": 6}, constraints=["n * D <= 2**26"],
        args=[Arg("nverts", "scalar", "int32", "n"), Arg("row_ptr", "buffer", "int32", "n + 1"),
              Arg("col_idx", "buffer", "int32", "n * D"), Arg("priority", "buffer", "uint32", "n"),
              Arg("color_in", "buffer", "int32", "n"), Arg("color_out", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_colouring, make_inputs=_inputs_colouring)


#: this group's builders, in the order of ``specs()``
BUILDERS = (coo_spmv_cas_float, segmented_scan_flags_local, cc_hook_atomic_min, triangle_count_merge,
            rle_decode_bsearch, jones_plassmann_round)

"""Holdout4 kernels: sparse, graph and atomic-heavy scatters as application programmers write them: a PageRank push in
fixed point, cloud-in-cell charge deposition, SELL-C-sigma SpMV (fp64), word co-occurrence counts over a 2-D range, GNN
max aggregation on order-preserving int keys and a joint histogram privatised in __local memory. Every atomic result
is an integer sum, count or maximum (independent of the work-items' order); contention varies with the sizes."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _f64, _spec, pow2, round_up

FX_ONE, QSCALE = np.float32(2.0**30), np.float32(65536.0)  # the kernels' fixed-point scales
SELL_SIGMA, WINDOW = 256, 8  # SELL rows sorted by length within windows of SELL_SIGMA; co-occurrence distances 1..8
NPART = "G * (G // 2) * P"  # particles: P per cell of the G x G/2 grid


# --- PageRank push step, fixed-point atomic_add -------------------------------------------------------------------
def _inputs_pagerank(rng, sz):
    """Out-degrees 0..2D (5% dangling), targets skewed towards a few hub vertices, ranks summing to one."""
    n, d = sz["n"], sz["D"]
    jitter, rank, hubs = rng.integers(0, d + 1, n), rng.random(n), rng.permutation(n)
    deg = np.where(rng.random(n) < 0.05, 0, d + jitter - np.roll(jitter, 1))  # at most n * D edges in all
    return {"row_ptr": np.r_[0, np.cumsum(deg)], "col_idx": hubs[(n * rng.random(n * d) ** 3).astype(int)],
            "rank": rank / rank.sum(), "next_fx": np.full(n, int(0.15 / n * 2**30))}  # next_fx: the teleport term


def _ref_pagerank(inp, sz):
    rp = inp["row_ptr"].astype(np.int64)  # the tail of col_idx past rp[-1] is unused
    deg = np.diff(rp)
    mass = (inp["damping"] * inp["rank"] * FX_ONE).astype(np.int64)  # float32 products, truncated like (int)
    share = np.repeat(mass // np.maximum(deg, 1), deg)  # bincount sums these ints exactly in float64
    return {"next_fx": inp["next_fx"] + np.bincount(inp["col_idx"][:rp[-1]], share, sz["n"]).astype(np.int64),
            "dangling_fx": inp["dangling_fx"] + mass[deg == 0].sum()}


def pagerank_push_fixed() -> KernelSpec:
    return _spec(
        "pagerank_push_fixed", precision="int32",
        idiom="PageRank push over CSR out-edges: damping * rank / outdegree in 2^30 fixed point by atomic_add",
        sizes={"n": pow2(10, 22, 2), "D": [4, 32]}, check={"n": 700, "D": 6}, constraints=["n * D <= 2**25"],
        args=[Arg("nverts", "scalar", "int32", "n"), Arg("damping", "scalar", "float32", "0.85"),
              Arg("row_ptr", "buffer", "int32", "n + 1"), Arg("col_idx", "buffer", "int32", "n * D"),
              Arg("rank", "buffer", "float32", "n"), Arg("next_fx", "buffer", "int32", "n", "inout"),
              Arg("dangling_fx", "buffer", "int32", "1", "inout")],
        gsize=[round_up("n")], local=L1, reference=_ref_pagerank, make_inputs=_inputs_pagerank)


# --- particle-in-cell charge deposition, bilinear weights, fixed-point atomic_add ---------------------------------
def _inputs_particles(rng, sz):
    """Positions in cell units: 3/4 uniform over the periodic G x G/2 grid, 1/4 in a Gaussian blob (hot nodes)."""
    nx, ny, sigma = sz["G"], sz["G"] // 2, max(2.0, sz["G"] / 32)
    blob = rng.random(npart := nx * ny * sz["P"]) < 0.25
    px, py = (np.minimum(np.where(blob, c + sigma * rng.standard_normal(npart), m * rng.random(npart)) % m, m - 1e-3)
              for m, c in ((nx, rng.random() * nx), (ny, rng.random() * ny)))  # < m also once rounded to float32
    return {"px": px, "py": py, "q": rng.uniform(0.5, 1.5, npart).astype(np.float32)}


def _ref_particles(inp, sz):
    nx, ny, x, y, q, one = sz["G"], sz["G"] // 2, inp["px"], inp["py"], inp["q"], np.float32(1.0)
    ix, iy = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    fx, fy = x - ix.astype(np.float32), y - iy.astype(np.float32)
    ix1, iy1, rho = (ix + 1) % nx, (iy + 1) % ny, inp["rho"].astype(np.int64)
    for node, w in ((iy * nx + ix, q * (one - fx) * (one - fy)), (iy * nx + ix1, q * fx * (one - fy)),
                    (iy1 * nx + ix, q * (one - fx) * fy), (iy1 * nx + ix1, q * fx * fy)):
        rho += np.bincount(node, weights=(w * QSCALE).astype(np.int64), minlength=nx * ny).astype(np.int64)
    return {"rho": rho}


def pic_deposit_cic() -> KernelSpec:
    return _spec(
        "pic_deposit_cic", precision="int32",
        idiom="PIC cloud-in-cell deposit: bilinear weights to 4 periodic nodes, 16.16 fixed-point atomic_add",
        sizes={"G": pow2(5, 11), "P": [2, 16]}, check={"G": 24, "P": 3}, constraints=["G * G * P <= 2**25"],
        args=[Arg("npart", "scalar", "int32", NPART), Arg("nx", "scalar", "int32", "G"),
              Arg("ny", "scalar", "int32", "G // 2"), *(Arg(a, "buffer", "float32", NPART) for a in ("px", "py", "q")),
              Arg("rho", "buffer", "int32", "G * (G // 2)", "out")],
        gsize=[round_up(NPART)], local=L1, reference=_ref_particles, make_inputs=_inputs_particles)


# --- SELL-C-sigma SpMV, fp64 ---------------------------------------------------------------------------------------
def _inputs_sell(rng, sz):
    """Row lengths 1..24 (mean ~7, long tail), sorted within sigma-windows, packed into column-major C-slices;
    columns mostly within +-32 of the row (mod n), a third anywhere."""
    n, c = sz["n"], sz["C"]
    length = 1 + (23 * rng.random(n) ** 3).astype(np.int64)
    perm = np.lexsort((-length, np.arange(n) // SELL_SIGMA))  # longest first within each sigma-window
    lens = np.r_[length[perm], np.zeros(-n % c, dtype=np.int64)]  # the last slice's empty lanes: length 0
    width = lens.reshape(-1, c).max(axis=1)
    slice_ptr = np.r_[0, np.cumsum(width * c)]
    assert slice_ptr[-1] <= n * 10, "padded SELL storage over its capacity"
    slot = np.repeat(np.arange(width.size), width * c)  # storage entry k -> its slice, then its lane and column j
    off = np.arange(slice_ptr[-1]) - slice_ptr[slot]
    row = slot * c + off % c
    real = off // c < lens[row]
    near = np.r_[perm, np.zeros(-n % c, dtype=np.int64)][row] + rng.integers(-32, 33, row.size)
    cols = np.where(rng.random(row.size) < 0.33, rng.integers(0, n, row.size), near) % n  # padding too: val 0
    pad = np.zeros(n * 10 - row.size, dtype=np.int64)
    return {"slice_ptr": slice_ptr, "col_idx": np.r_[cols, pad], "perm": perm,
            "vals": np.r_[np.where(real, rng.uniform(-1.0, 1.0, row.size), 0.0), pad]}


def _ref_sell(inp, sz):
    n, c, sp = sz["n"], sz["C"], inp["slice_ptr"].astype(np.int64)
    slice_of = np.repeat(np.arange(sp.size - 1), np.diff(sp))  # every stored entry's slice, then its sorted row
    row = slice_of * c + (np.arange(sp[-1]) - sp[slice_of]) % c
    prod = _f64(inp["vals"])[:sp[-1]] * _f64(inp["x"])[inp["col_idx"][:sp[-1]]]
    y = np.zeros(n)
    y[inp["perm"]] = np.bincount(row[row < n], prod[row < n], n)  # rows past n: the last slice's empty lanes
    return {"y": y}


def sell_c_sigma_spmv() -> KernelSpec:
    return _spec(
        "sell_c_sigma_spmv", precision="fp64", tol=FP64,
        idiom="SELL-C-sigma SpMV: row per item, column-major padded slices of C rows, store through perm",
        sizes={"n": pow2(10, 22, 2), "C": [8, 32]}, check={"n": 1000, "C": 8},
        args=[Arg("nrows", "scalar", "int32", "n"), Arg("C", "scalar", "int32", "C"),
              Arg("slice_ptr", "buffer", "int32", "(n + C - 1) // C + 1"), Arg("col_idx", "buffer", "int32", "n * 10"),
              Arg("vals", "buffer", "float64", "n * 10"), Arg("perm", "buffer", "int32", "n"),
              Arg("x", "buffer", "float64", "n"), Arg("y", "buffer", "float64", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_sell, make_inputs=_inputs_sell)


# --- word co-occurrence counts over a (position, distance) NDRange ------------------------------------------------
def _inputs_tokens(rng, sz):
    """Zipf-distributed word ids (frequent words scattered over the ids) with a sentence break (-1) every ~20."""
    freq = 1.0 / np.arange(1, (v := sz["V"]) + 1) ** 1.1
    tokens = rng.permutation(v)[rng.choice(v, sz["T"], p=freq / freq.sum())]
    return {"tokens": np.where(rng.random(sz["T"]) < 0.05, -1, tokens).astype(np.int32)}


def _ref_tokens(inp, sz):
    tok, v = inp["tokens"].astype(np.int64), sz["V"]
    breaks = np.r_[0, np.cumsum(tok < 0)]  # breaks[j] - breaks[i]: the -1s among tokens i .. j-1
    counts = inp["counts"].astype(np.int64)
    for dist in range(1, WINDOW + 1):
        a, b = tok[:-dist], tok[dist:]
        ok = (a >= 0) & (b >= 0) & (breaks[dist:-1] == breaks[1:-dist])
        counts += np.bincount(a[ok] * v + b[ok], minlength=v * v) + np.bincount(b[ok] * v + a[ok], minlength=v * v)
    return {"counts": counts}


def cooccur_window_2d() -> KernelSpec:
    return _spec(
        "cooccur_window_2d", precision="uint32",
        idiom="GloVe co-occurrence: 2-D (position, distance) items, sentence-break scan, two atomic_inc per pair",
        sizes={"T": pow2(10, 20, 2), "V": [64, 2048]}, check={"T": 3000, "V": 50},
        args=[Arg("ntok", "scalar", "int32", "T"), Arg("vocab", "scalar", "int32", "V"),
              Arg("tokens", "buffer", "int32", "T"), Arg("counts", "buffer", "uint32", "V * V", "out")],
        gsize=[round_up("T"), str(WINDOW)], local=[[64, 4], [32, 8], [128, 2]], reference=_ref_tokens,
        make_inputs=_inputs_tokens)


# --- GNN max aggregation, floats as order-preserving int keys with atomic_max -------------------------------------
def _inputs_gnn(rng, sz):
    n, e = sz["n"], sz["n"] * sz["D"]  # dst skewed: hub vertices take many in-edges
    return {"src": rng.integers(0, n, e), "dst": rng.permutation(n)[(n * rng.random(e) ** 2).astype(int)],
            "h": rng.standard_normal(n * sz["F"]).astype(np.float32),
            "agg": np.full(n * sz["F"], np.iinfo(np.int32).min, dtype=np.int32)}


def _ref_gnn(inp, sz):
    bits = inp["h"].view(np.int32).astype(np.int64).reshape(-1, sz["F"])
    agg = inp["agg"].astype(np.int64).reshape(-1, sz["F"])
    np.maximum.at(agg, inp["dst"], np.where(bits >= 0, bits, bits ^ 0x7FFFFFFF)[inp["src"]])
    return {"agg": agg}


def gnn_scatter_max_bits() -> KernelSpec:
    return _spec(
        "gnn_scatter_max_bits", precision="int32",
        idiom="GNN max aggregation: 2-D (feature, edge) items, float -> ordered int key, atomic_max per feature",
        sizes={"n": pow2(10, 18, 2), "D": [4, 16], "F": [64, 256]}, check={"n": 300, "D": 5, "F": 64},
        constraints=["n * F <= 2**22", "n * D * F <= 2**25"],
        args=[Arg("nedges", "scalar", "int32", "n * D"), Arg("nfeat", "scalar", "int32", "F"),
              Arg("src", "buffer", "int32", "n * D"), Arg("dst", "buffer", "int32", "n * D"),
              Arg("h", "buffer", "float32", "n * F"), Arg("agg", "buffer", "int32", "n * F", "inout")],
        gsize=["F", round_up("n * D", 16)], local=[[32, 8], [64, 4], [16, 16]], reference=_ref_gnn,
        make_inputs=_inputs_gnn)


# --- joint histogram of two label images, privatised in __local -------------------------------------------------
def _inputs_labels(rng, sz):
    """Label a, and b mostly a's neighbour label (the images nearly registered): hot bins near the diagonal."""
    n, bins = sz["n"], sz["B"]
    a = rng.integers(0, bins, n)  # pixels independent: their spatial order does not matter to a histogram
    return {"a": a, "b": np.where(rng.random(n) < 0.8, np.clip(a + rng.integers(-1, 2, n), 0, bins - 1),
                                  rng.integers(0, bins, n))}


def _ref_labels(inp, sz):
    return {"joint": np.bincount(inp["a"].astype(np.int64) * sz["B"] + inp["b"], minlength=sz["B"] ** 2)}


def joint_histogram_local() -> KernelSpec:
    return _spec(
        "joint_histogram_local", precision="uint32",
        idiom="joint histogram of two label images: launch-sized __local table, grid-stride loop, atomic_add merge",
        sizes={"n": pow2(12, 24, 2), "B": [8, 64]}, check={"n": 5000, "B": 12},
        args=[Arg("n", "scalar", "int32", "n"), Arg("bins", "scalar", "int32", "B"),
              Arg("a", "buffer", "int32", "n"), Arg("b", "buffer", "int32", "n"),
              Arg("table", "local", "uint32", "B * B"), Arg("joint", "buffer", "uint32", "B * B", "out")],
        gsize=[round_up("min(n // 8, 2**16)")], local=L1, reference=_ref_labels, make_inputs=_inputs_labels)


#: this group's builders, in the order of ``specs()``
BUILDERS = (pagerank_push_fixed, pic_deposit_cic, sell_c_sigma_spmv, cooccur_window_2d, gnn_scatter_max_bits,
            joint_histogram_local)

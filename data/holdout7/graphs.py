"""Holdout7 kernels, group graphs (written by hand; see docs/HOLDOUT7.md): graph analytics as their authors
write them: one bottom-up BFS level over bitmaps with the new frontier packed in __local memory, a k-core peeling
round with atomic degree decrements, Jaccard similarity per edge by merging sorted neighbour lists, node2vec walks
by rejection sampling with a hash RNG, and the fp64 Brandes dependency pull for a batch of sources (2-D).
Graphs are undirected, without self loops or duplicate edges, with sorted neighbour lists; one end point of each
edge is drawn with a skew (v = N * r**2 through a random permutation), so degrees have a heavy-ish tail. The k-core
round's atomics are integer decrements (exact); their contention is that of the graph's hub vertices."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _f64, _spec, pow2, round_up  # noqa: F401

WALK_THR = (1 << 21, 1 << 23, 1 << 24)  # node2vec_walk_reject: p = 4, q = 0.5 -> 1/8, 1/2, 1 of 2**24


def _graph(rng, n, avg_deg):
    """An undirected graph as CSR (row_ptr, col_idx sorted per row, src of each entry) of n vertices and exactly
    n * avg_deg / 2 edges (avg_deg even), so n * avg_deg entries."""
    m = n * avg_deg // 2
    perm = rng.permutation(n)
    keys = np.zeros(0, np.int64)
    while len(keys) < m:
        c = m + m // 4 + 16
        a = rng.integers(0, n, c)
        b = perm[np.minimum((n * rng.random(c) ** 2).astype(np.int64), n - 1)]
        a, b = a[a != b], b[a != b]
        keys = np.unique(np.concatenate([keys, np.minimum(a, b) * n + np.maximum(a, b)]))
    keys = keys[rng.permutation(len(keys))[:m]]
    a, b = keys // n, keys % n
    keys = np.sort(np.concatenate([a * n + b, b * n + a]))
    src, dst = keys // n, keys % n
    row_ptr = np.zeros(n + 1, np.int64)
    row_ptr[1:] = np.cumsum(np.bincount(src, minlength=n))
    return row_ptr, dst, src


def _bfs_levels(row_ptr, col, src, n, root, stop_fraction=1.1):
    """BFS distances (-1 unreached) and shortest-path counts from root, level by level; stops early once the
    visited fraction exceeds stop_fraction (returns the levels reached so far and the last frontier)."""
    level = np.full(n, -1, np.int64)
    sigma = np.zeros(n)
    level[root], sigma[root] = 0, 1.0
    frontier = np.zeros(n, bool)
    frontier[root] = True
    d = 0
    while frontier.any() and (level >= 0).mean() < stop_fraction:
        on = frontier[src]
        nb = col[on]
        new = np.zeros(n, bool)
        new[nb[level[nb] < 0]] = True
        np.add.at(sigma, nb[new[nb]], sigma[src[on][new[nb]]])
        d += 1
        level[new] = d
        frontier = new
    return level, sigma, frontier


def _bits(mask):
    n = len(mask)
    words = (n + 31) // 32
    m = np.zeros(words * 32, np.uint64)
    m[:n] = mask
    return (m.reshape(words, 32) << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(np.uint32)


def _unbits(words, n):
    w = np.asarray(words, np.uint64)
    return ((w[:, None] >> np.arange(32, dtype=np.uint64)) & 1).reshape(-1)[:n].astype(bool)


# --- bottom-up BFS level, bitmaps, new frontier packed in __local ---------------------------------------------------
def _inputs_bfs(rng, sz):
    """A graph of N vertices, mean degree ~D; BFS from a random root run until a fifth of the vertices are
    visited (when direction-optimising BFS switches to bottom-up); parents -1 where unvisited."""
    n = sz["N"]
    row_ptr, col, src = _graph(rng, n, sz["D"])
    level, _, frontier = _bfs_levels(row_ptr, col, src, n, int(rng.integers(n)), 0.2)
    parent = np.where(level >= 0, rng.integers(0, n, n), -1)
    return {"frontier": _bits(frontier), "visited": _bits(level >= 0), "row_ptr": row_ptr, "col_idx": col,
            "parent": parent}


def _ref_bfs(inp, sz):
    n = sz["N"]
    row_ptr, col = inp["row_ptr"].astype(np.int64), inp["col_idx"].astype(np.int64)
    front, vis = _unbits(inp["frontier"], n), _unbits(inp["visited"], n)
    parent = inp["parent"].astype(np.int64).copy()
    src = np.repeat(np.arange(n), np.diff(row_ptr))
    hit = front[col] & ~vis[src]
    e = np.flatnonzero(hit)
    first_src, idx = np.unique(src[e], return_index=True)  # edges are in row order: the first hit per row
    parent[first_src] = col[e[idx]]
    found = np.zeros(n, bool)
    found[first_src] = True
    return {"parent": parent, "next_frontier": _bits(found)}


def bfs_bottomup_bitmap_local() -> KernelSpec:
    return _spec(
        "bfs_bottomup_bitmap_local",
        idiom="bottom-up BFS level: unvisited vertex scans CSR neighbours for a frontier bit, bits packed in __local",
        sizes={"N": [2**14, 2**16, 2**18, 2**20, 2**21], "D": [4, 12, 32]}, check={"N": 1000, "D": 6},
        constraints=["N * D <= 2**25"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("frontier", "buffer", "uint32", "(N + 31) // 32"),
              Arg("visited", "buffer", "uint32", "(N + 31) // 32"), Arg("row_ptr", "buffer", "int32", "N + 1"),
              Arg("col_idx", "buffer", "int32", "N * D"), Arg("parent", "buffer", "int32", "N", "inout"),
              Arg("next_frontier", "buffer", "uint32", "(N + 31) // 32", "out"),
              Arg("found", "local", "uint32", "l0")],
        gsize=[round_up("N")], local=L1, reference=_ref_bfs, make_inputs=_inputs_bfs)


# --- k-core peeling round, atomic degree decrements -------------------------------------------------------------
def _inputs_kcore(rng, sz):
    """A graph of N vertices, mean degree ~D, after a few peeling rounds: 85% of the vertices alive, degrees
    counted among the live neighbours; degree_out starts as a copy of degree_in."""
    n = sz["N"]
    row_ptr, col, src = _graph(rng, n, sz["D"])
    alive = (rng.random(n) < 0.85).astype(np.int64)
    deg = np.bincount(src, weights=alive[col], minlength=n).astype(np.int64)
    return {"row_ptr": row_ptr, "col_idx": col, "alive_in": alive, "degree_in": deg, "degree_out": deg.copy()}


def _ref_kcore(inp, sz):
    n, k = sz["N"], int(inp["k"])
    row_ptr, col = inp["row_ptr"].astype(np.int64), inp["col_idx"].astype(np.int64)
    alive, deg = inp["alive_in"].astype(bool), inp["degree_in"].astype(np.int64)
    src = np.repeat(np.arange(n), np.diff(row_ptr))
    peel = alive & (deg < k)
    out = inp["degree_out"].astype(np.int64) - np.bincount(col, weights=(peel[src] & alive[col]),
                                                           minlength=n).astype(np.int64)
    return {"alive_out": (alive & ~peel).astype(np.int32), "degree_out": out, "removed_count": [peel.sum()]}


def kcore_peel_round_atomic() -> KernelSpec:
    return _spec(
        "kcore_peel_round_atomic",
        idiom="k-core peeling round: live vertex below k dies, atomic_dec of live neighbours' degrees, count",
        sizes={"N": [2**14, 2**16, 2**18, 2**20, 2**21], "D": [4, 12, 32]}, check={"N": 900, "D": 8},
        constraints=["N * D <= 2**25"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("k", "scalar", "int32", "D // 2 + 1"),
              Arg("row_ptr", "buffer", "int32", "N + 1"), Arg("col_idx", "buffer", "int32", "N * D"),
              Arg("alive_in", "buffer", "int32", "N"), Arg("degree_in", "buffer", "int32", "N"),
              Arg("alive_out", "buffer", "int32", "N", "out"), Arg("degree_out", "buffer", "int32", "N", "inout"),
              Arg("removed_count", "buffer", "int32", "1", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_kcore, make_inputs=_inputs_kcore)


# --- Jaccard similarity per edge, merge of sorted neighbour lists -------------------------------------------------
def _inputs_jaccard(rng, sz):
    """A graph of N vertices, mean degree D (skewed degrees); edge e is CSR entry e, edge_src its row."""
    row_ptr, col, src = _graph(rng, sz["N"], sz["D"])
    return {"row_ptr": row_ptr, "col_idx": col, "edge_src": src}


def _ref_jaccard(inp, sz):
    n = sz["N"]
    row_ptr, col = inp["row_ptr"].astype(np.int64), inp["col_idx"].astype(np.int64)
    src = inp["edge_src"].astype(np.int64)
    deg = np.diff(row_ptr)
    common = np.zeros(len(col))
    nbrs = [set(col[row_ptr[i]:row_ptr[i + 1]].tolist()) for i in range(n)]
    for e, (u, v) in enumerate(zip(src.tolist(), col.tolist())):
        common[e] = len(nbrs[u] & nbrs[v])
    uni = deg[src] + deg[col] - common
    return {"jaccard": np.where(uni > 0, common / np.maximum(uni, 1), 0.0)}


def jaccard_edge_sorted_merge() -> KernelSpec:
    return _spec(
        "jaccard_edge_sorted_merge",
        idiom="Jaccard similarity per CSR edge: merge-intersect the two sorted uint neighbour lists, ratio to union",
        sizes={"N": [2**12, 2**14, 2**16, 2**18, 2**20], "D": [4, 10, 24]}, check={"N": 600, "D": 10},
        constraints=["N * D * D <= 2**26"],
        args=[Arg("nedges", "scalar", "int32", "N * D"), Arg("row_ptr", "buffer", "uint32", "N + 1"),
              Arg("col_idx", "buffer", "uint32", "N * D"), Arg("edge_src", "buffer", "uint32", "N * D"),
              Arg("jaccard", "buffer", "float32", "N * D", "out")],
        gsize=[round_up("N * D")], local=L1, reference=_ref_jaccard, make_inputs=_inputs_jaccard)


# --- node2vec walks, rejection sampling, hash RNG ----------------------------------------------------------------
def _mix32(x):
    x = x.astype(np.uint32)
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x


def _inputs_walk(rng, sz):
    """A graph of N vertices, mean degree 8 (skewed); W walkers starting at random vertices."""
    row_ptr, col, _ = _graph(rng, sz["N"], 8)
    return {"row_ptr": row_ptr, "col_idx": col, "start": rng.integers(0, sz["N"], sz["W"])}


def _ref_walk(inp, sz):
    n, nw, length = sz["N"], int(inp["nwalkers"]), int(inp["walk_len"])
    row_ptr, col = inp["row_ptr"].astype(np.int64), inp["col_idx"].astype(np.int64)
    keys = np.repeat(np.arange(n), np.diff(row_ptr)) * n + col  # sorted
    thr = np.array([int(inp["thr_return"]), int(inp["thr_same"]), int(inp["thr_out"])])
    golden = np.uint32(0x9E3779B9)
    with np.errstate(over="ignore"):
        state = _mix32(np.uint32(int(inp["seed"])) ^ np.arange(nw, dtype=np.uint32))
        cur, prev = inp["start"].astype(np.int64), np.full(nw, -1)
        walks = np.zeros((nw, length), np.int64)
        walks[:, 0] = cur
        for step in range(1, length):
            begin, deg = row_ptr[cur], np.diff(row_ptr)[cur]
            nxt = cur.copy()
            live = deg > 0
            for _ in range(int(inp["max_tries"])):
                s1 = _mix32(state + golden)
                state = np.where(live, s1, state)
                cand = col[np.where(live, begin + (s1 % np.maximum(deg, 1).astype(np.uint32)), 0)]
                nxt = np.where(live, cand, nxt)
                live &= prev >= 0
                k = prev * n + cand
                pos = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
                rel = np.where(cand == prev, 0, np.where(keys[pos] == k, 1, 2))
                s2 = _mix32(state + golden)
                state = np.where(live, s2, state)
                live &= ~((s2 >> np.uint32(8)).astype(np.int64) < thr[rel])
            walks[:, step] = nxt
            prev, cur = cur, nxt
    return {"walks": walks}


def node2vec_walk_reject() -> KernelSpec:
    return _spec(
        "node2vec_walk_reject",
        idiom="node2vec walk per item: uniform proposal, p/q acceptance by binary-searched adjacency, hash RNG chain",
        sizes={"W": pow2(12, 20, 2), "L": [8, 24, 48], "N": [2**18]}, check={"W": 300, "L": 12, "N": 500},
        constraints=["W * L <= 2**24"],
        args=[Arg("nwalkers", "scalar", "int32", "W"), Arg("walk_len", "scalar", "int32", "L"),
              Arg("seed", "scalar", "uint32", "12345"), Arg("max_tries", "scalar", "int32", "16"),
              Arg("thr_return", "scalar", "int32", str(WALK_THR[0])),
              Arg("thr_same", "scalar", "int32", str(WALK_THR[1])),
              Arg("thr_out", "scalar", "int32", str(WALK_THR[2])),
              Arg("row_ptr", "buffer", "int32", "N + 1"), Arg("col_idx", "buffer", "int32", "8 * N"),
              Arg("start", "buffer", "int32", "W"), Arg("walks", "buffer", "int32", "W * L", "out")],
        gsize=[round_up("W")], local=L1, reference=_ref_walk, make_inputs=_inputs_walk)


# --- Brandes dependency accumulation, batch of sources, fp64, 2-D --------------------------------------------------
def _inputs_brandes(rng, sz):
    """A graph of N vertices, mean degree D; for each of S random sources its BFS levels and path counts, the
    sweep at the source's widest level (depth), dependencies of deeper vertices already accumulated (positive,
    random) and zero elsewhere."""
    n, s = sz["N"], sz["S"]
    row_ptr, col, src = _graph(rng, n, sz["D"])
    levels, sigmas, deltas, depth = [], [], [], []
    for root in rng.integers(0, n, s):
        level, sigma, _ = _bfs_levels(row_ptr, col, src, n, int(root))
        d = int(np.bincount(level[level >= 0]).argmax())
        depth.append(d)
        levels.append(level)
        sigmas.append(np.where(level >= 0, sigma, 1.0))
        deltas.append(np.where(level > d, rng.uniform(0.0, 5.0, n), 0.0))
    return {"row_ptr": row_ptr, "col_idx": col, "depth": depth, "level": np.concatenate(levels),
            "sigma": np.concatenate(sigmas), "delta": np.concatenate(deltas)}


def _ref_brandes(inp, sz):
    n, s = sz["N"], sz["S"]
    row_ptr, col = inp["row_ptr"].astype(np.int64), inp["col_idx"].astype(np.int64)
    src = np.repeat(np.arange(n), np.diff(row_ptr))
    level = inp["level"].astype(np.int64).reshape(s, n)
    sigma, delta = _f64(inp["sigma"]).reshape(s, n), _f64(inp["delta"]).reshape(s, n).copy()
    for i, d in enumerate(inp["depth"].astype(np.int64)):
        lv = level[i]
        use = (lv[src] == d) & (lv[col] == d + 1)
        acc = np.zeros(n)
        np.add.at(acc, src[use], sigma[i, src[use]] / sigma[i, col[use]] * (1.0 + delta[i, col[use]]))
        delta[i] = np.where(lv == d, acc, delta[i])
    return {"delta": delta}


def brandes_dependency_pull_fp64() -> KernelSpec:
    return _spec(
        "brandes_dependency_pull_fp64", precision="fp64", tol=FP64,
        idiom="Brandes backward step, fp64, 2-D vertex x source: pull sigma-weighted dependencies of next level",
        sizes={"N": [2**12, 2**14, 2**16, 2**18, 2**20], "S": [4, 16, 64], "D": [8]}, check={"N": 700, "S": 4, "D": 6},
        constraints=["N * S <= 2**22"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("nsrc", "scalar", "int32", "S"),
              Arg("row_ptr", "buffer", "int32", "N + 1"), Arg("col_idx", "buffer", "int32", "N * D"),
              Arg("depth", "buffer", "int32", "S"), Arg("level", "buffer", "int32", "S * N"),
              Arg("sigma", "buffer", "float64", "S * N"), Arg("delta", "buffer", "float64", "S * N", "inout")],
        gsize=[round_up("N", 256), "S"], local=[[64, 4], [128, 2], [256, 1]],
        reference=_ref_brandes, make_inputs=_inputs_brandes)


# --- weighted label propagation, most weighted neighbour label ----------------------------------------------------
def _inputs_lpa(rng, sz):
    """A graph of N vertices, mean degree D; symmetric weights in multiples of 1/8 from 1/8 to 2 (sums exact, so
    ties are exact); a mid-run labelling: labels from N/64 communities, then half of the vertices copy the label
    of a random neighbour."""
    n = sz["N"]
    row_ptr, col, src = _graph(rng, n, sz["D"])
    lo, hi = np.minimum(src, col), np.maximum(src, col)
    wq = (_mix_pairs(lo * n + hi) % 16 + 1).astype(np.float64) / 8.0
    lab0 = rng.integers(0, max(n // 64, 2), n)
    deg = np.diff(row_ptr)
    pick = row_ptr[:-1] + (rng.integers(0, 1 << 30, n) % np.maximum(deg, 1))
    copy = (rng.random(n) < 0.5) & (deg > 0)
    lab = np.where(copy, lab0[col[np.minimum(pick, len(col) - 1)]], lab0)
    return {"row_ptr": row_ptr, "col_idx": col, "weight": wq, "label_in": lab}


def _mix_pairs(k):
    """A fixed integer hash of an edge key (both directions of an edge get the same weight)."""
    k = np.asarray(k, np.uint64)
    k = (k ^ (k >> np.uint64(29))) * np.uint64(0xBF58476D1CE4E5B9)
    return (k ^ (k >> np.uint64(32))) & np.uint64(0xFFFF)


def _ref_lpa(inp, sz):
    n = sz["N"]
    row_ptr, col = inp["row_ptr"].astype(np.int64), inp["col_idx"].astype(np.int64)
    lab = inp["label_in"].astype(np.int64)
    src = np.repeat(np.arange(n), np.diff(row_ptr))
    key, inv = np.unique(src * (lab.max() + 1) + lab[col], return_inverse=True)
    tot = np.zeros(len(key))
    np.add.at(tot, inv.reshape(-1), _f64(inp["weight"]))
    kv, kl = key // (lab.max() + 1), key % (lab.max() + 1)
    order = np.lexsort((kl, -tot, kv))
    first = order[np.r_[True, kv[order][1:] != kv[order][:-1]]]
    out, score = lab.copy(), np.zeros(n)
    out[kv[first]], score[kv[first]] = kl[first], tot[first]
    return {"label_out": out, "label_score": score}


def label_prop_weighted_mode() -> KernelSpec:
    return _spec(
        "label_prop_weighted_mode",
        idiom="label propagation sweep: per vertex the neighbour label of largest weight sum, quadratic scan, tie min",
        sizes={"N": [2**14, 2**16, 2**18, 2**20], "D": [4, 12, 24]}, check={"N": 800, "D": 8},
        constraints=["N * D <= 2**25"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("row_ptr", "buffer", "int32", "N + 1"),
              Arg("col_idx", "buffer", "int32", "N * D"), Arg("weight", "buffer", "float32", "N * D"),
              Arg("label_in", "buffer", "int32", "N"), Arg("label_out", "buffer", "int32", "N", "out"),
              Arg("label_score", "buffer", "float32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_lpa, make_inputs=_inputs_lpa)


#: this group's builders, in the order of ``specs()``
BUILDERS = (bfs_bottomup_bitmap_local, kcore_peel_round_atomic, jaccard_edge_sorted_merge, node2vec_walk_reject,
            brandes_dependency_pull_fp64, label_prop_weighted_mode)

"""Holdout12 kernels, group search, continued (written by hand; see docs/HOLDOUT12.md): re-ranking and training
steps of recommender systems. Diversity re-ranking of candidate lists by maximal marginal relevance in fp64, a
work-group per query (looping by the number of groups): inverse norms and running largest cosines of the
candidates in __local memory, each greedy pick found by a (value, position) tree reduction, the picked item's
vector staged in __local for the similarity update, between barriers; and the user half-step of implicit-feedback
ALS, a work-item per user running a few matrix-free conjugate-gradient steps from the previous factors on its
normal equations (the precomputed YtY plus the rank-one terms of its CSR history, weighted by confidence), in
private arrays, with the cold users (no history, zero factors) left alone. Neither uses atomics. Split from
:mod:`.search` to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, round_up

MMR_ITEMS = "16 * C"  # mmr_rerank_group_fp64: items in the catalogue
MMR_PICKS = "C // 16"  # mmr_rerank_group_fp64: items kept per query
MMR_LAMBDA = 0.7  # mmr_rerank_group_fp64: relevance against diversity
MMR_CLUSTERS = 24  # mmr_rerank_group_fp64: topics the item vectors scatter around
MMR_LOCAL = [[128], [64]]  # powers of two (the tree reduction)

IALS_ITEMS = 20000  # ials_cg_user_solve: items (rows of Y)
IALS_ROOM = 40  # ials_cg_user_solve: interactions a user on average, the CSR arrays' room (the tail unused)
IALS_COLD = 0.04  # ials_cg_user_solve: share of cold users (no history, zero factors)
IALS_REG = 0.5  # ials_cg_user_solve: the regularization on YtY's diagonal
IALS_ALPHA = 20.0  # ials_cg_user_solve: confidence 1 + alpha * count


# --- MMR diversity re-ranking, a work-group per query, fp64 --------------------------------------------------------
def _inputs_mmr(rng, sz):
    """16 C items scattered around MMR_CLUSTERS random unit topic centres (noise 0.6 per coordinate / sqrt(D)),
    a few exact zero vectors; each query likes 3 topics: its C distinct candidates drawn (Gumbel top-C) with
    8 times the weight from those, relevance 0.5 + 0.5 cos(query, item) plus a little noise."""
    nq, c, d = sz["Q"], sz["C"], sz["D"]
    ni = 16 * c
    centre = rng.standard_normal((MMR_CLUSTERS, d))
    centre /= np.linalg.norm(centre, axis=1, keepdims=True)
    topic = rng.integers(0, MMR_CLUSTERS, ni)
    items = centre[topic] + rng.standard_normal((ni, d)) * (0.6 / np.sqrt(d))
    items[rng.random(ni) < 0.002] = 0.0
    likes = np.argsort(rng.random((nq, MMR_CLUSTERS)), axis=1)[:, :3]
    logw = np.zeros((nq, MMR_CLUSTERS))
    np.put_along_axis(logw, likes, np.log(8.0), axis=1)
    key = logw[:, topic] + rng.gumbel(size=(nq, ni))
    cand = np.argpartition(-key, c, axis=1)[:, :c]
    qv = centre[likes].sum(axis=1)
    x = items[cand]
    cos = np.einsum("qcd,qd->qc", x, qv) / np.maximum(np.linalg.norm(x, axis=2) * np.linalg.norm(qv, axis=1)[:, None],
                                                      1e-12)
    rel = 0.5 + 0.5 * cos + 0.05 * rng.standard_normal((nq, c))
    return {"cand": cand, "rel": rel, "items": items.astype(np.float32)}


def _ref_mmr(inp, sz):
    nq, c, d, k = sz["Q"], sz["C"], sz["D"], int(inp["k"])
    lam = float(inp["lambda"])
    ids = np.asarray(inp["cand"]).astype(np.int64).reshape(nq, c)
    x = _f64(inp["items"]).reshape(-1, d)[ids]
    norm = np.sqrt(np.einsum("qcd,qcd->qc", x, x))
    inv = np.where(norm > 0.0, 1.0 / np.where(norm > 0.0, norm, 1.0), 0.0)
    rel = _f64(inp["rel"]).reshape(nq, c)
    maxsim, taken = np.full((nq, c), -1.0), np.zeros((nq, c), dtype=bool)
    picked, gain = np.zeros((nq, k), dtype=np.int64), np.zeros((nq, k))
    rows = np.arange(nq)
    for step in range(k):
        v = np.where(taken, -np.inf, lam * rel - (1.0 - lam) * maxsim)
        sel = np.argmax(v, axis=1)
        picked[:, step], gain[:, step] = ids[rows, sel], v[rows, sel]
        taken[rows, sel] = True
        cos = np.einsum("qcd,qd->qc", x, x[rows, sel]) * inv * inv[rows, sel][:, None]
        maxsim = np.maximum(maxsim, cos)
    return {"picked": picked, "gain": gain}


def mmr_rerank_group_fp64() -> KernelSpec:
    return _spec(
        "mmr_rerank_group_fp64", tol=FP64, precision="fp64",
        idiom="MMR diversity re-ranking in fp64, a group per query (num_groups loop): candidate inverse norms and "
              "running max cosines in __local, greedy picks by a (value, position) tree, picked vector in __local",
        sizes={"Q": [16, 64, 256, 1024, 4096], "C": [128, 512], "D": [32, 128]}, check={"Q": 40, "C": 96, "D": 24},
        constraints=["Q * C * D <= 2**24"],
        args=[Arg("nquery", "scalar", "int32", "Q"), Arg("ncand", "scalar", "int32", "C"),
              Arg("dim", "scalar", "int32", "D"), Arg("k", "scalar", "int32", MMR_PICKS),
              Arg("lambda", "scalar", "float64", str(MMR_LAMBDA)), Arg("cand", "buffer", "int32", "Q * C"),
              Arg("rel", "buffer", "float32", "Q * C"), Arg("items", "buffer", "float32", f"{MMR_ITEMS} * D"),
              Arg("picked", "buffer", "int32", f"Q * ({MMR_PICKS})", "out"),
              Arg("gain", "buffer", "float64", f"Q * ({MMR_PICKS})", "out"),
              Arg("maxsim", "local", "float64", "C"), Arg("inv_norm", "local", "float64", "C"),
              Arg("pvec", "local", "float64", "D"), Arg("bval", "local", "float64", "l0"),
              Arg("bpos", "local", "int32", "l0")],
        gsize=["min(Q, 2048) * 64"], local=MMR_LOCAL, reference=_ref_mmr, make_inputs=_inputs_mmr)


# --- implicit ALS: the user half-step by warm-started conjugate gradient, a work-item per user ------------------
def _inputs_ials(rng, sz):
    """U users: IALS_COLD of them cold (no history, zero factors), the others with lognormal history lengths
    (median 12, scaled down when the CSR room would overflow) of distinct items drawn by popularity (u^2.5),
    confidence 1 + IALS_ALPHA * count (geometric counts); Y and the warm-start X normal with deviation 0.1,
    YtY = Y^T Y + IALS_REG I."""
    nu, nf = sz["U"], sz["F"]
    cold = rng.random(nu) < IALS_COLD
    length = np.where(cold, 0, np.minimum(rng.lognormal(np.log(12.0), 1.0, nu), 600)).astype(np.int64)
    if length.sum() > IALS_ROOM * nu:
        length = (length * (IALS_ROOM * nu / length.sum())).astype(np.int64)
    user = np.repeat(np.arange(nu), length)
    item = (IALS_ITEMS * rng.random(user.size) ** 2.5).astype(np.int64)
    key = np.unique(user * IALS_ITEMS + item)
    nnz = key.size
    indptr = np.searchsorted(key // IALS_ITEMS, np.arange(nu + 1))
    indices = np.zeros(IALS_ROOM * nu, dtype=np.int32)
    indices[:nnz] = key % IALS_ITEMS
    conf = np.zeros(IALS_ROOM * nu, dtype=np.float32)
    conf[:nnz] = 1.0 + IALS_ALPHA * rng.geometric(0.4, nnz)
    y = (rng.standard_normal((IALS_ITEMS, nf)) * 0.1).astype(np.float32)
    yty = _f64(y).T @ _f64(y) + IALS_REG * np.eye(nf)
    x = (rng.standard_normal((nu, nf)) * 0.1).astype(np.float32)
    x[cold] = 0.0
    return {"indptr": indptr, "indices": indices, "conf": conf, "y": y, "yty": yty, "x": x}


def _ref_ials(inp, sz):
    nu, nf, steps = sz["U"], sz["F"], int(inp["cg_steps"])
    indptr = np.asarray(inp["indptr"]).astype(np.int64)
    nnz = int(indptr[-1])
    user = np.repeat(np.arange(nu), np.diff(indptr))
    yk = _f64(inp["y"]).reshape(-1, nf)[np.asarray(inp["indices"][:nnz]).astype(np.int64)]
    c = _f64(inp["conf"][:nnz])
    yty = _f64(inp["yty"]).reshape(nf, nf)
    x = _f64(inp["x"]).reshape(nu, nf).copy()

    def history(weight):  # sum over each user's items of weight * y_i
        out = np.zeros((nu, nf))
        np.add.at(out, user, weight[:, None] * yk)
        return out

    r = -x @ yty.T + history(c - (c - 1.0) * np.einsum("kf,kf->k", yk, x[user]))
    p = r.copy()
    rsold = np.einsum("uf,uf->u", r, r)
    run = rsold >= 1e-20
    for _ in range(steps):
        ap = p @ yty.T + history((c - 1.0) * np.einsum("kf,kf->k", yk, p[user]))
        alpha = rsold / np.where(run, np.einsum("uf,uf->u", p, ap), 1.0)
        x = np.where(run[:, None], x + alpha[:, None] * p, x)
        r = np.where(run[:, None], r - alpha[:, None] * ap, r)
        rsnew = np.einsum("uf,uf->u", r, r)
        run &= rsnew >= 1e-20
        p = np.where(run[:, None], r + (rsnew / np.where(run, rsold, 1.0))[:, None] * p, p)
        rsold = np.where(run, rsnew, rsold)
    return {"x": x}


def ials_cg_user_solve() -> KernelSpec:
    return _spec(
        "ials_cg_user_solve", tol=SUMS,
        idiom="implicit ALS user step, an item per user: warm-started matrix-free CG in private arrays, YtY "
              "product plus confidence-weighted rank-one CSR history terms, cold users skipped, early stop",
        sizes={"U": [512, 2048, 8192, 32768, 131072], "F": [16, 64]}, check={"U": 300, "F": 24},
        constraints=["U * F <= 2**22"],
        args=[Arg("nuser", "scalar", "int32", "U"), Arg("nf", "scalar", "int32", "F"),
              Arg("cg_steps", "scalar", "int32", "3"), Arg("indptr", "buffer", "int32", "U + 1"),
              Arg("indices", "buffer", "int32", f"U * {IALS_ROOM}"),
              Arg("conf", "buffer", "float32", f"U * {IALS_ROOM}"),
              Arg("y", "buffer", "float32", f"{IALS_ITEMS} * F"), Arg("yty", "buffer", "float32", "F * F"),
              Arg("x", "buffer", "float32", "U * F", "inout")],
        gsize=[round_up("U")], local=L1, reference=_ref_ials, make_inputs=_inputs_ials)


#: this group's builders, in the order of ``specs()``
BUILDERS = (mmr_rerank_group_fp64, ials_cg_user_solve)

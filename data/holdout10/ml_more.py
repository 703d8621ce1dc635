"""Holdout10 kernels, group ml, continued (see :mod:`.ml`): the sampler's top-k filter over rows of logits, a
work-group per row that keeps (value, column) pairs in __local memory and sorts them with a bitonic network, the
best k kept in front while the rest refills from the row, rounds skipped when nothing beats the k-th best (bf16-like
logits, so ties and their column rule matter); multi-class SVM prediction with an RBF kernel and one-vs-one voting in
fp64 (libsvm's layout, as the ONNX-ML SVMClassifier runs it), a sample per work-item with the pair decision values in
a private array; and the rejection sampler of speculative decoding, a sequence per work-item: draft tokens accepted
while u q <= p, at the first rejection a draw from the residual max(p - q, 0) by a cumulative walk in double, else a
bonus token from the last target row, and the batch's accepted count added by one integer atomic_add."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _f64, _spec, pow2, round_up

SVM_CLASSES = 5  # svm_rbf_ovo_fp64: classes (MAX_CLASS in the source is 8)
SD_NSPEC = 3  # spec_decode_reject_sample: draft tokens a sequence


# --- top-k of logits rows by a __local bitonic network ----------------------------------------------------------------
def _inputs_topk(rng, sz):
    """Logits N(0, 2) plus a bump on the low (frequent) token ids, rounded to bf16 precision as a bf16 model's
    output would be (ties common)."""
    r, v = sz["R"], sz["V"]
    z = 2.0 * rng.standard_normal((r, v), dtype=np.float32) + (3.0 * np.exp(-np.arange(v) / 2000.0)).astype(np.float32)
    bits = z.view(np.uint32)
    bits = (bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return {"logits": bits.view(np.float32)}


def _ref_topk(inp, sz):
    r, v, k = sz["R"], sz["V"], sz["K"]
    z = np.asarray(inp["logits"], dtype=np.float32).reshape(r, v)
    cols = np.broadcast_to(np.arange(v), (r, v))
    order = np.lexsort((cols, -z), axis=-1)[:, :k]
    return {"top_val": np.take_along_axis(z, order, 1), "top_idx": order}


def topk_bitonic_rows_local() -> KernelSpec:
    return _spec(
        "topk_bitonic_rows_local",
        idiom="top-k per logits row, a group per row (num_groups loop): (value, column) pairs sorted by a __local "
              "bitonic network, best k kept while the rest refills, rounds skipped below the k-th best",
        sizes={"R": [8, 64, 512, 2048], "V": [4096, 32000, 128256], "K": [8, 64]}, check={"R": 7, "V": 1000, "K": 20},
        constraints=["R * V <= 2**24", "R * V * K <= 2**27"],
        args=[Arg("nrow", "scalar", "int32", "R"), Arg("ncol", "scalar", "int32", "V"),
              Arg("k", "scalar", "int32", "K"),
              Arg("logits", "buffer", "float32", "R * V"), Arg("top_val", "buffer", "float32", "R * K", "out"),
              Arg("top_idx", "buffer", "int32", "R * K", "out"), Arg("sval", "local", "float32", "2 * l0"),
              Arg("sidx", "local", "int32", "2 * l0")],
        gsize=["min(R, 1024) * 64"], local=L1, reference=_ref_topk, make_inputs=_inputs_topk)


# --- SVM RBF one-vs-one prediction in fp64 --------------------------------------------------------------------------
def _inputs_svm(rng, sz):
    """Five class centres N(0, 1.5) in F dimensions; samples and support vectors scattered around them (support
    vectors a little wider), 1 + a lognormal share of S - 5 of them a class; dual coefficients y * alpha with
    40% of alpha at the bound 1, 30% zero (not a support vector of that pair), the rest uniform; rho in +-0.3."""
    n, s, f = sz["N"], sz["S"], sz["F"]
    c = SVM_CLASSES
    centre = rng.normal(0.0, 1.5, (c, f))
    x = centre[rng.integers(0, c, n)] + rng.normal(0.0, 1.0, (n, f))
    w = rng.lognormal(0.0, 0.5, c)
    count = 1 + rng.multinomial(s - c, w / w.sum())
    cls = np.repeat(np.arange(c), count)
    sv = centre[cls] + rng.normal(0.0, 1.1, (s, f))
    u = rng.random((c - 1, s))
    alpha = np.where(u < 0.4, 1.0, np.where(u < 0.7, 0.0, rng.uniform(0.05, 1.0, (c - 1, s))))
    other = np.arange(c - 1)[:, None] + (np.arange(c - 1)[:, None] >= cls[None, :])  # the row's other class
    return {"x": x, "sv": sv, "sv_start": np.concatenate([[0], np.cumsum(count)]),
            "sv_coef": np.where(other > cls[None, :], alpha, -alpha), "rho": rng.uniform(-0.3, 0.3, c * (c - 1) // 2)}


def _ref_svm(inp, sz):
    n, s, f = sz["N"], sz["S"], sz["F"]
    c = int(inp["nclass"])
    x, sv = _f64(inp["x"]).reshape(n, f), _f64(inp["sv"]).reshape(s, f)
    start = np.asarray(inp["sv_start"]).astype(np.int64)
    coef = _f64(inp["sv_coef"]).reshape(c - 1, s)
    rho = _f64(inp["rho"])
    d2 = np.zeros((n, s))
    for k in range(f):
        d2 += (x[:, k, None] - sv[None, :, k]) ** 2
    kv = np.exp(-float(inp["gamma"]) * d2)
    dec = np.zeros((n, c * (c - 1) // 2))
    votes = np.zeros((n, c), dtype=np.int64)
    p = 0
    for a in range(c):
        for b in range(a + 1, c):
            ia, ib = slice(start[a], start[a + 1]), slice(start[b], start[b + 1])
            dec[:, p] = kv[:, ia] @ coef[b - 1, ia] + kv[:, ib] @ coef[a, ib] - rho[p]
            votes[:, a] += dec[:, p] > 0
            votes[:, b] += dec[:, p] <= 0
            p += 1
    return {"decision": dec, "label": np.argmax(votes, axis=1)}


def svm_rbf_ovo_fp64() -> KernelSpec:
    return _spec(
        "svm_rbf_ovo_fp64", tol=FP64, precision="fp64",
        idiom="SVM RBF one-vs-one prediction in fp64, a sample per item: class-grouped support vectors, exp kernel "
              "value added to each of its pairs' private decision values, votes, first argmax",
        sizes={"N": pow2(8, 16, 2), "S": [128, 1024], "F": [8, 40]}, check={"N": 200, "S": 60, "F": 7},
        constraints=["N * S * F <= 2**27", "N * S <= 2**23"],
        args=[Arg("nsample", "scalar", "int32", "N"), Arg("nfeat", "scalar", "int32", "F"),
              Arg("nclass", "scalar", "int32", str(SVM_CLASSES)), Arg("nsv", "scalar", "int32", "S"),
              Arg("gamma", "scalar", "float64", "1.0 / F"), Arg("x", "buffer", "float64", "N * F"),
              Arg("sv", "buffer", "float64", "S * F"), Arg("sv_start", "buffer", "int32", str(SVM_CLASSES + 1)),
              Arg("sv_coef", "buffer", "float64", f"{SVM_CLASSES - 1} * S"),
              Arg("rho", "buffer", "float64", str(SVM_CLASSES * (SVM_CLASSES - 1) // 2)),
              Arg("decision", "buffer", "float64", f"N * {SVM_CLASSES * (SVM_CLASSES - 1) // 2}", "out"),
              Arg("label", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_svm, make_inputs=_inputs_svm)


# --- speculative decoding: rejection sampling per sequence, residual draw, atomic accepted count --------------------
def _softmax32(z):
    """Softmax along the last axis, in place (float32)."""
    z -= z.max(axis=-1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=-1, keepdims=True)
    return z


def _inputs_specdec(rng, sz):
    """Target logits N(0, 4) over the vocabulary, draft logits the target's plus uniform noise of width 3.5 (so
    most drafts are accepted, not all); draft tokens drawn from the draft distributions by the inverse CDF;
    uniform draws; the metric counter starting from an earlier batch's total."""
    b, v = sz["B"], sz["V"]
    zt = rng.standard_normal((b, SD_NSPEC + 1, v), dtype=np.float32)
    zt *= 4.0
    zd = rng.random((b, SD_NSPEC, v), dtype=np.float32)
    zd -= 0.5
    zd *= 3.5
    zd += zt[:, :SD_NSPEC]
    pt, pd = _softmax32(zt), _softmax32(zd)
    cq = np.cumsum(pd, axis=-1)
    want = rng.random((b, SD_NSPEC, 1), dtype=np.float32) * cq[..., -1:]
    ids = np.minimum((cq < want).sum(axis=-1), v - 1)
    return {"target_probs": pt, "draft_probs": pd, "draft_ids": ids.astype(np.int32),
            "u_accept": rng.random(b * SD_NSPEC, dtype=np.float32), "u_sample": rng.random(b, dtype=np.float32),
            "accepted_total": rng.integers(0, 1000, 1).astype(np.int32)}


def _draw(r, u):
    """The kernel's walk: first token whose double cumulative sum of the float32 weights r exceeds u * total."""
    cs = np.cumsum(r.astype(np.float64))
    over = np.flatnonzero(cs > np.float64(u) * cs[-1])
    if over.size:
        return int(over[0])
    live = np.flatnonzero(r > 0)
    return int(live[-1]) if live.size else 0


def _ref_specdec(inp, sz):
    b, v, k = sz["B"], sz["V"], SD_NSPEC
    pt = np.asarray(inp["target_probs"], dtype=np.float32).reshape(b, k + 1, v)
    pd = np.asarray(inp["draft_probs"], dtype=np.float32).reshape(b, k, v)
    ids = np.asarray(inp["draft_ids"]).astype(np.int64).reshape(b, k)
    ua = np.asarray(inp["u_accept"], dtype=np.float32).reshape(b, k)
    us = np.asarray(inp["u_sample"], dtype=np.float32)
    out = np.full((b, k + 1), -1, dtype=np.int64)
    nacc = np.zeros(b, dtype=np.int64)
    for s in range(b):
        n = 0
        while n < k and not ua[s, n] * pd[s, n, ids[s, n]] > pt[s, n, ids[s, n]]:
            out[s, n] = ids[s, n]
            n += 1
        r = np.maximum(pt[s, n] - pd[s, n], np.float32(0.0)) if n < k else pt[s, k]
        out[s, n] = _draw(r, us[s])
        nacc[s] = n
    total = np.asarray(inp["accepted_total"]).astype(np.int64) + nacc.sum()
    return {"out_ids": out, "num_accepted": nacc, "accepted_total": total}


def spec_decode_reject_sample() -> KernelSpec:
    return _spec(
        "spec_decode_reject_sample",
        idiom="speculative-decoding rejection sampler, a sequence per item: accept while u q <= p, residual "
              "max(p - q, 0) or bonus row drawn by a double cumulative walk, atomic_add of the accepted count",
        sizes={"B": pow2(4, 10, 2), "V": [4096, 32000, 128256]}, check={"B": 50, "V": 700},
        constraints=["B * V <= 2**23"],
        args=[Arg("nseq", "scalar", "int32", "B"), Arg("nspec", "scalar", "int32", str(SD_NSPEC)),
              Arg("vocab", "scalar", "int32", "V"),
              Arg("target_probs", "buffer", "float32", f"B * {SD_NSPEC + 1} * V"),
              Arg("draft_probs", "buffer", "float32", f"B * {SD_NSPEC} * V"),
              Arg("draft_ids", "buffer", "int32", f"B * {SD_NSPEC}"),
              Arg("u_accept", "buffer", "float32", f"B * {SD_NSPEC}"), Arg("u_sample", "buffer", "float32", "B"),
              Arg("out_ids", "buffer", "int32", f"B * {SD_NSPEC + 1}", "out"),
              Arg("num_accepted", "buffer", "int32", "B", "out"),
              Arg("accepted_total", "buffer", "int32", "1", "inout")],
        gsize=[round_up("B")], local=L1, reference=_ref_specdec, make_inputs=_inputs_specdec)


#: this group's builders, in the order of ``specs()``
BUILDERS = (topk_bitonic_rows_local, svm_rbf_ovo_fp64, spec_decode_reject_sample)

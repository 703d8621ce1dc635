"""Holdout12 kernels, group search (written by hand; see docs/HOLDOUT12.md): the lookups and scoring passes of
search engines and recommender systems. The embedding lookup of a click-through-rate model's hashed feature
crosses: each sample's categorical ids (uint32, 0 when missing) crossed in configured pairs, every present pair
hashed by a multiply-xorshift into a shared table and the gathered rows averaged, on a 2-D (embedding column,
sample) NDRange; and the accumulation pass of score-at-a-time query evaluation on an impact-ordered inverted
index, a work-group per (query, term slot) looping by the number of groups, postings of the segments at or above
an impact cut striding over the group, integer atomic_add of impact times query weight into per-query document
accumulators. The group's other two kernels are in :mod:`.search_more`; only the second kernel here uses
atomics."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import SUMS, _f64, _spec, pow2, round_up

CROSS_NFEAT = 26  # cross_hash_embed_mean_2d: categorical features a sample (Criteo's 26)
CROSS_NCROSS = 32  # cross_hash_embed_mean_2d: crossed feature pairs of the model
CROSS_ROWS = "4 * S + 3"  # cross_hash_embed_mean_2d: rows of the hashed table (odd: a true modulo)
CROSS_LOCAL = [[32, 8], [16, 16]]

SAAT_TERMS = 2048  # saat_impact_accum_atomic: the index's vocabulary, terms ranked by document frequency
SAAT_MAXQ = 8  # saat_impact_accum_atomic: term slots of a query
SAAT_MIN_IMPACT = 64  # saat_impact_accum_atomic: the anytime cut, segments of lower impact are skipped
SAAT_POSTINGS = "8 * N"  # saat_impact_accum_atomic: room for the postings (the tail unused)
SAAT_SEGMENTS = f"min(8 * N, {SAAT_TERMS * 255}) + 1"  # saat_impact_accum_atomic: room for the segments + 1
SAAT_LOCAL = [[256], [128]]


# --- CTR model: hashed feature crosses gathered from a shared embedding table, mean per sample -------------------
def _cross_bucket(a, b, c, nrows):
    """cross_hash of the kernel on uint32 arrays (uint64 arithmetic masked to 32 bits), modulo nrows."""
    m = np.uint64(0xFFFFFFFF)
    a, b = a.astype(np.uint64), b.astype(np.uint64)
    h = (a * np.uint64(0x9E3779B1) + np.uint64(((c + 1) * 0x27D4EB2F) & 0xFFFFFFFF)) & m
    h ^= h >> np.uint64(15)
    h = (h + b * np.uint64(0x85EBCA77)) & m
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & m
    h ^= h >> np.uint64(16)
    return (h % np.uint64(nrows)).astype(np.int64)


def _inputs_cross(rng, sz):
    """S samples of CROSS_NFEAT features: feature f has a cardinality log-uniform in 8 .. 2e6, values skewed to
    the popular ones (u^3), raw ids a 32-bit mix of (feature, value) never 0, then 0 (missing) at a per-feature
    rate of 0 .. 30%; CROSS_NCROSS distinct pairs a < b; table rows uniform in [-0.05, 0.05]."""
    s, d = sz["S"], sz["D"]
    nrows = 4 * s + 3
    card = np.exp(rng.uniform(np.log(8.0), np.log(2e6), CROSS_NFEAT))
    val = (card * rng.random((s, CROSS_NFEAT)) ** 3).astype(np.uint64)
    feat = np.arange(CROSS_NFEAT, dtype=np.uint64)
    raw = (val * np.uint64(2654435761) + feat * np.uint64(0x7F4A7C15) + np.uint64(12345)) & np.uint64(0xFFFFFFFF)
    raw[raw == 0] = 1
    raw[rng.random((s, CROSS_NFEAT)) < rng.uniform(0.0, 0.3, CROSS_NFEAT)] = 0
    a, b = np.triu_indices(CROSS_NFEAT, 1)
    pick = np.sort(rng.choice(a.size, CROSS_NCROSS, replace=False))
    table = (rng.random(nrows * d, dtype=np.float32) - np.float32(0.5)) * np.float32(0.1)
    return {"ids": raw.astype(np.uint32), "cross_a": a[pick], "cross_b": b[pick], "table": table}


def _ref_cross(inp, sz):
    s, d = sz["S"], sz["D"]
    nrows = int(inp["nrows"])
    ids = np.asarray(inp["ids"]).reshape(s, CROSS_NFEAT)
    table = _f64(inp["table"]).reshape(nrows, d)
    total, count = np.zeros((s, d)), np.zeros(s)
    for c in range(int(inp["ncross"])):
        a, b = ids[:, int(inp["cross_a"][c])], ids[:, int(inp["cross_b"][c])]
        ok = (a != 0) & (b != 0)
        total += table[_cross_bucket(a, b, c, nrows)] * ok[:, None]
        count += ok
    return {"out": np.where(count[:, None] > 0, total / np.maximum(count, 1)[:, None], 0.0)}


def cross_hash_embed_mean_2d() -> KernelSpec:
    return _spec(
        "cross_hash_embed_mean_2d", tol=SUMS,
        idiom="CTR feature crosses, 2-D (embedding column, sample): uint32 id pairs with a missing-value skip, "
              "salted multiply-xorshift hash modulo an odd table size, gathered row columns averaged",
        sizes={"S": [128, 512, 2048, 8192, 32768, 65536, 98304], "D": [32, 64]}, check={"S": 100, "D": 32},
        args=[Arg("nsample", "scalar", "int32", "S"), Arg("nfeat", "scalar", "int32", str(CROSS_NFEAT)),
              Arg("ncross", "scalar", "int32", str(CROSS_NCROSS)), Arg("dim", "scalar", "int32", "D"),
              Arg("nrows", "scalar", "uint32", CROSS_ROWS),
              Arg("ids", "buffer", "uint32", f"S * {CROSS_NFEAT}"),
              Arg("cross_a", "buffer", "int32", str(CROSS_NCROSS)),
              Arg("cross_b", "buffer", "int32", str(CROSS_NCROSS)),
              Arg("table", "buffer", "float32", f"({CROSS_ROWS}) * D"),
              Arg("out", "buffer", "float32", "S * D", "out")],
        gsize=[round_up("D", 32), round_up("S", 16)], local=CROSS_LOCAL, reference=_ref_cross,
        make_inputs=_inputs_cross)


# --- score-at-a-time evaluation on an impact-ordered index: integer accumulators by atomic_add -------------------
def _inputs_saat(rng, sz):
    """An index of N documents over SAAT_TERMS terms: term r in about 0.4 N / (r + 1)^0.8 documents (each term's
    sorted distinct documents by geometric gaps); impacts BM25 (k1 1.2, b 0.75, lognormal document lengths,
    geometric term frequencies) quantized uniformly to 1 .. 255; postings by term, impact descending, document.
    Q queries of 1 .. 8 distinct terms (Poisson lengths, the 5 stopword-like top terms never drawn, term r drawn
    in proportion to 1 / (r + 1)), weight 1 mostly, 2 or 3 for a repeated term."""
    n, nq = sz["N"], sz["Q"]
    rank = np.arange(SAAT_TERMS)
    p = 0.4 / (rank + 1.0) ** 0.8
    draws = (1.3 * n * p + 16).astype(np.int64)  # geometric gaps enough to pass the last document
    term = np.repeat(rank, draws)
    pos = np.cumsum(rng.geometric(np.repeat(p, draws)))
    first = np.r_[0, np.cumsum(draws)[:-1]]
    pos -= np.repeat(pos[first] - rng.geometric(p), draws) + 1  # sorted distinct documents of each term
    keep = pos < n
    term, doc = term[keep][:8 * n], pos[keep][:8 * n]  # (about 7.4 N in all)
    idf = np.log(1.0 + n / np.maximum(np.bincount(term, minlength=SAAT_TERMS), 1))
    doclen = rng.lognormal(0.0, 0.5, n)
    tf = rng.geometric(0.55, term.size)
    score = idf[term] * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * doclen[doc]))
    impact = 1 + np.floor(254.0 * score / score.max()).astype(np.int64)
    order = np.argsort(term * 256 + 255 - impact, kind="stable")  # by term, impact descending, document
    term, doc, impact = term[order], doc[order], impact[order]
    head = np.flatnonzero(np.r_[True, (term[1:] != term[:-1]) | (impact[1:] != impact[:-1])])
    post_doc = np.zeros(8 * n, dtype=np.uint32)
    post_doc[:doc.size] = doc
    nseg_room = min(8 * n, SAAT_TERMS * 255) + 1
    seg_impact = np.zeros(nseg_room, dtype=np.uint32)
    seg_impact[:head.size] = impact[head]
    seg_post = np.full(nseg_room, doc.size, dtype=np.int32)
    seg_post[:head.size] = head
    term_seg = np.searchsorted(term[head], np.arange(SAAT_TERMS + 1))
    qlen = np.minimum(rng.poisson(1.8, nq) + 1, SAAT_MAXQ)
    pick = (rank[5:] + 1.0) ** -1.0
    qterm = np.zeros((nq, SAAT_MAXQ), dtype=np.int32)
    qweight = np.ones((nq, SAAT_MAXQ), dtype=np.uint32)
    for q in range(nq):
        qterm[q, :qlen[q]] = 5 + rng.choice(SAAT_TERMS - 5, qlen[q], replace=False, p=pick / pick.sum())
        qweight[q, :qlen[q]] = rng.choice([1, 1, 1, 1, 2, 3], qlen[q])
    return {"qlen": qlen, "qterm": qterm, "qweight": qweight, "term_seg": term_seg, "seg_impact": seg_impact,
            "seg_post": seg_post, "post_doc": post_doc}


def _ref_saat(inp, sz):
    n, nq, cut = sz["N"], sz["Q"], int(inp["min_impact"])
    term_seg, seg_post = (np.asarray(inp[k]).astype(np.int64) for k in ("term_seg", "seg_post"))
    seg_impact, post_doc = np.asarray(inp["seg_impact"]).astype(np.int64), np.asarray(inp["post_doc"])
    acc = np.zeros((nq, n), dtype=np.int64)
    for q in range(nq):
        for j in range(int(inp["qlen"][q])):
            t, w = int(inp["qterm"][q * SAAT_MAXQ + j]), int(inp["qweight"][q * SAAT_MAXQ + j])
            g0, g1 = term_seg[t], term_seg[t + 1]
            gend = g0 + int(np.count_nonzero(seg_impact[g0:g1] >= cut))
            imp = np.repeat(seg_impact[g0:gend], np.diff(seg_post[g0:gend + 1]))
            acc[q] += np.bincount(post_doc[seg_post[g0]:seg_post[gend]], weights=imp * w,
                                  minlength=n).astype(np.int64)
    return {"acc": acc}


def saat_impact_accum_atomic() -> KernelSpec:
    return _spec(
        "saat_impact_accum_atomic",
        idiom="score-at-a-time on an impact-ordered index, a group per (query, term slot) (num_groups loop): "
              "impact-cut segment prefix, strided postings walking segment bounds, uint atomic_add accumulators",
        sizes={"N": pow2(12, 20, 2), "Q": [4, 16, 64]}, check={"N": 3000, "Q": 5},
        args=[Arg("nquery", "scalar", "int32", "Q"), Arg("maxq", "scalar", "int32", str(SAAT_MAXQ)),
              Arg("ndoc", "scalar", "int32", "N"), Arg("min_impact", "scalar", "uint32", str(SAAT_MIN_IMPACT)),
              Arg("qlen", "buffer", "int32", "Q"), Arg("qterm", "buffer", "int32", f"Q * {SAAT_MAXQ}"),
              Arg("qweight", "buffer", "uint32", f"Q * {SAAT_MAXQ}"),
              Arg("term_seg", "buffer", "int32", str(SAAT_TERMS + 1)),
              Arg("seg_impact", "buffer", "uint32", SAAT_SEGMENTS), Arg("seg_post", "buffer", "int32", SAAT_SEGMENTS),
              Arg("post_doc", "buffer", "uint32", SAAT_POSTINGS), Arg("acc", "buffer", "uint32", "Q * N", "out")],
        gsize=[f"min(Q * {SAAT_MAXQ}, 512) * 128"], local=SAAT_LOCAL, reference=_ref_saat,
        make_inputs=_inputs_saat)


#: this group's builders, in the order of ``specs()``
BUILDERS = (cross_hash_embed_mean_2d, saat_impact_accum_atomic)

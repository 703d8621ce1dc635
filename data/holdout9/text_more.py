"""Holdout9 kernels, group text, continued (written by hand; see docs/HOLDOUT9.md): one step of byte-pair-encoding
tokenization (a token per work-item looks its pair's merge rank up in an open-addressing uint32 hash table and the
word's best merge is kept by an integer atomic_min), Okapi BM25 scoring of a query batch against a forward index in
fp64 on a 2-D (document, query) NDRange with a binary search per query term, and strict RFC 4648 base64 decoding of
variable-length records with the decode table in __constant memory and the first fault reported. One of these
kernels uses atomics, on integers. Split from :mod:`.text` to keep each module short; :mod:`.catalog` lists it
after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f64, _spec, pow2, round_up

BPE_VOCAB = 50257  # bpe_pair_rank_wordmin: token ids below this (fits the 16-bit halves of a key)
BPE_EMPTY = 0xFFFFFFFF  # bpe_pair_rank_wordmin: a free hash slot (EMPTY_KEY in the source)

BM_VOCAB = 50000  # bm25_bsearch_fp64_2d: term ids below this
BM_QMAX = 8  # bm25_bsearch_fp64_2d: terms a query at most
BM_K1, BM_B, BM_AVGDL = 1.2, 0.75, 150.0  # bm25_bsearch_fp64_2d: Okapi parameters, the collection's mean length

B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


# --- BPE merge step: pair rank by hash probe, word's best merge by atomic_min --------------------------------------
def _bpe_hash(key):
    h = (key.astype(np.uint64) * 0x9E3779B1) & 0xFFFFFFFF
    return h ^ (h >> 15)


def _inputs_bpe(rng, sz):
    """C / 2 merges of distinct (left, right) pairs of Zipf-like token ids, rank 0 the most frequent, in a table of
    C slots by linear probing; a stream of Zipf-like tokens, 60% of the even places followed by their odd
    neighbour holding a merge pair (low ranks likelier), cut into T / 4 words of random length (at least one token)."""
    t, cap = sz["T"], sz["C"]
    m = cap // 2
    left = (BPE_VOCAB * rng.random(3 * m) ** 3).astype(np.int64)
    right = (BPE_VOCAB * rng.random(3 * m) ** 3).astype(np.int64)
    keys, first = np.unique((left << 16) | right, return_index=True)
    keys = keys[np.argsort(first)][:m]  # first drawn first: a random order of distinct pairs
    freq = ((keys >> 16) + (keys & 0xFFFF)) * rng.uniform(0.5, 1.5, m)
    keys = keys[np.argsort(freq, kind="stable")]  # rank order: pairs of frequent (low) ids first
    table = np.full(cap, BPE_EMPTY, dtype=np.uint32)
    ranks = np.full(cap, -1, dtype=np.int32)
    home = (_bpe_hash(keys) & np.uint64(cap - 1)).astype(np.int64)
    for r in range(m):
        s = home[r]
        while table[s] != BPE_EMPTY:
            s = (s + 1) & (cap - 1)
        table[s], ranks[s] = keys[r], r
    tok = (BPE_VOCAB * rng.random(t, dtype=np.float32) ** 3).astype(np.int32)
    at = 2 * np.flatnonzero(rng.random(t // 2, dtype=np.float32) < 0.6)
    pr = keys[(m * rng.random(at.size) ** 2).astype(np.int64)]
    tok[at], tok[at + 1] = pr >> 16, pr & 0xFFFF
    nw = t // 4
    start = np.concatenate([[0], np.sort(rng.integers(1, t - nw + 2, nw - 1)) + np.arange(nw - 1)])
    word_of = np.repeat(np.arange(nw, dtype=np.int32), np.diff(np.concatenate([start, [t]])))
    return {"tok": tok, "word_of": word_of, "word_start": np.concatenate([start, [t]]), "merge_key": table,
            "merge_rank": ranks, "word_best": np.full(nw, BPE_EMPTY, dtype=np.uint32)}


def _ref_bpe(inp, sz):
    tok = np.asarray(inp["tok"]).astype(np.int64)
    word_of = np.asarray(inp["word_of"]).astype(np.int64)
    start = np.asarray(inp["word_start"]).astype(np.int64)
    key_tab = np.asarray(inp["merge_key"]).astype(np.int64)
    rank_tab = np.asarray(inp["merge_rank"]).astype(np.int64)
    used = key_tab != BPE_EMPTY
    order = np.argsort(key_tab[used])
    keys, ranks = key_tab[used][order], rank_tab[used][order]
    pair = (tok[:-1] << 16) | tok[1:]
    pos = np.minimum(np.searchsorted(keys, pair), keys.size - 1)
    rank = np.where((keys[pos] == pair) & (word_of[:-1] == word_of[1:]), ranks[pos], -1)
    rank = np.concatenate([rank, [-1]])
    best = np.asarray(inp["word_best"]).astype(np.int64).copy()
    hit = rank >= 0
    np.minimum.at(best, word_of[hit], (rank[hit] << 12) | (np.arange(tok.size)[hit] - start[word_of[hit]]))
    return {"pair_rank": rank, "word_best": best}


def bpe_pair_rank_wordmin() -> KernelSpec:
    return _spec(
        "bpe_pair_rank_wordmin",
        idiom="BPE merge step per token: same-word pair key, open-addressing uint32 hash probe for its rank, "
              "atomic_min of rank|position per word",
        sizes={"T": pow2(12, 24, 2), "C": [2**13, 2**17]}, check={"T": 3000, "C": 2**12},
        args=[Arg("ntok", "scalar", "int32", "T"), Arg("cap_mask", "scalar", "uint32", "C - 1"),
              Arg("tok", "buffer", "int32", "T"), Arg("word_of", "buffer", "int32", "T"),
              Arg("word_start", "buffer", "int32", "T // 4 + 1"), Arg("merge_key", "buffer", "uint32", "C"),
              Arg("merge_rank", "buffer", "int32", "C"), Arg("pair_rank", "buffer", "int32", "T", "out"),
              Arg("word_best", "buffer", "uint32", "T // 4", "inout")],
        gsize=[round_up("T")], local=L1, reference=_ref_bpe, make_inputs=_inputs_bpe)


# --- BM25 of a query batch over a forward index, binary search per term, fp64, 2-D ----------------------------------
def _inputs_bm25(rng, sz):
    """Documents of 16 + a lognormal share of 48 D distinct terms (64 on average, exactly 64 D in all), term ids
    drawn as sorted x^3 quantiles of the vocabulary made strictly increasing (common terms low); frequencies
    geometric (mean 1.8, common terms a little more), lengths the frequency sum plus 0 .. 59 unindexed words
    (mean ~150). Robertson-Sparck Jones idf from the document
    frequencies; queries of 1 .. 8 terms, a third common, the rest middling, -1 after the last."""
    d, q = sz["D"], sz["Q"]
    w = rng.lognormal(0.0, 0.4, d)
    u = 16 + rng.multinomial(48 * d, w / w.sum())
    nnz = 64 * d
    doc = np.repeat(np.arange(d), u)
    first = np.cumsum(u) - u
    k = np.arange(nnz) - first[doc]
    e = rng.exponential(1.0, nnz + d)
    cum = np.cumsum(e)
    seg_end = cum[np.cumsum(u + 1) - 1]  # one spare gap a document, so x < 1
    seg_start = np.concatenate([[0.0], seg_end[:-1]])
    x = (cum[np.arange(nnz) + doc] - seg_start[doc]) / (seg_end - seg_start)[doc]
    t = ((BM_VOCAB - 1024) * x * x * x).astype(np.int64)
    big = 2 * BM_VOCAB
    t = np.maximum.accumulate(t - k + doc * big) - doc * big + k
    tf = rng.geometric(0.55, nnz) + ((rng.random(nnz) < 0.3) & (t < 200))
    dlen = np.bincount(doc, tf, minlength=d).astype(np.int64) + rng.integers(0, 60, d)
    df = np.bincount(t, minlength=BM_VOCAB)
    idf = np.log(1.0 + (d - df + 0.5) / (df + 0.5))
    qlen = rng.integers(1, BM_QMAX + 1, q)
    common = (300 * rng.random((q, BM_QMAX)) ** 2).astype(np.int64)
    middle = (BM_VOCAB * rng.uniform(0.05, 0.6, (q, BM_QMAX)) ** 2).astype(np.int64)
    qt = np.where(rng.random((q, BM_QMAX)) < 0.33, common, middle)
    qt = np.where(np.arange(BM_QMAX)[None, :] < qlen[:, None], qt, -1)
    return {"doc_off": np.concatenate([[0], np.cumsum(u)]), "doc_terms": t, "doc_tf": tf, "doc_len": dlen,
            "query_terms": qt, "idf": idf}


def _ref_bm25(inp, sz):
    d, q = sz["D"], sz["Q"]
    k1, b, avgdl = float(inp["k1"]), float(inp["b"]), float(inp["avgdl"])
    off = np.asarray(inp["doc_off"]).astype(np.int64)
    terms = np.asarray(inp["doc_terms"]).astype(np.int64)
    tf = _f64(inp["doc_tf"])
    norm = k1 * (1.0 - b + b * _f64(inp["doc_len"]) / avgdl)
    idf = _f64(inp["idf"])
    qt = np.asarray(inp["query_terms"]).astype(np.int64).reshape(q, -1)
    doc = np.repeat(np.arange(d), np.diff(off))
    keys = doc * (1 << 32) + terms  # sorted: documents in order, terms sorted within each
    score = np.zeros((q, d))
    live = np.ones(q, dtype=bool)
    for j in range(qt.shape[1]):
        live &= qt[:, j] >= 0
        t = np.maximum(qt[:, j], 0)
        want = np.arange(d)[None, :] * (1 << 32) + t[:, None]
        pos = np.minimum(np.searchsorted(keys, want), keys.size - 1)
        found = (keys[pos] == want) & live[:, None]
        f = tf[pos]
        score += np.where(found, idf[t][:, None] * f * (k1 + 1.0) / (f + norm[None, :]), 0.0)
    return {"score": score}


def bm25_bsearch_fp64_2d() -> KernelSpec:
    return _spec(
        "bm25_bsearch_fp64_2d", tol=FP64, precision="fp64",
        idiom="Okapi BM25 in fp64, 2-D (document, query): per query term a range check, then binary search of "
              "the document's sorted uint term ids",
        sizes={"D": pow2(10, 17), "Q": [16, 128]}, check={"D": 300, "Q": 20},
        constraints=["D * Q <= 2**21"],
        args=[Arg("ndoc", "scalar", "int32", "D"), Arg("nquery", "scalar", "int32", "Q"),
              Arg("qmax", "scalar", "int32", str(BM_QMAX)), Arg("k1", "scalar", "float64", str(BM_K1)),
              Arg("b", "scalar", "float64", str(BM_B)), Arg("avgdl", "scalar", "float64", str(BM_AVGDL)),
              Arg("doc_off", "buffer", "int32", "D + 1"), Arg("doc_terms", "buffer", "uint32", "64 * D"),
              Arg("doc_tf", "buffer", "int32", "64 * D"), Arg("doc_len", "buffer", "int32", "D"),
              Arg("query_terms", "buffer", "int32", f"Q * {BM_QMAX}"), Arg("idf", "buffer", "float64", str(BM_VOCAB)),
              Arg("score", "buffer", "float64", "Q * D", "out")],
        gsize=[round_up("D", 32), round_up("Q", 16)], local=L2, reference=_ref_bm25, make_inputs=_inputs_bm25)



# --- strict base64 decoding of records, decode table in __constant, first fault -----------------------------------
def _b64_table():
    tab = np.full(256, 255, dtype=np.uint8)
    tab[np.frombuffer(B64_ALPHABET, dtype=np.uint8)] = np.arange(64)
    tab[ord("=")] = 64
    return tab


def _inputs_b64(rng, sz):
    """Records encoding 3L/8 .. 3L/4 - 3 random bytes each (at most L characters, padded with '=' as needed), back
    to back from the start of text (the rest zero); about a tenth of the records damaged: a character outside the
    alphabet (2%: URL-safe '-' or '_', a space, a line break, '*'), '=' at a random place (1.5%), non-zero pad bits
    in the last quad (1.5%, padded records only) or a dropped last character (5%). Room for 3 bytes a complete quad in out."""
    n, ln = sz["N"], sz["L"]
    raw = rng.integers(3 * ln // 8, 3 * ln // 4 - 2, n)
    ngrp = -(-raw // 3)
    ng = int(ngrp.sum())
    lastg = np.cumsum(ngrp) - 1
    rem = raw - 3 * (ngrp - 1)  # bytes used of each record's last group: 1, 2 or 3
    b0, b1, b2 = (rng.integers(0, 256, ng, dtype=np.uint8) for _ in range(3))
    b1[lastg[rem < 2]] = 0
    b2[lastg[rem < 3]] = 0
    sext = np.stack([b0 >> 2, ((b0 & 3) << 4) | (b1 >> 4), ((b1 & 15) << 2) | (b2 >> 6), b2 & 63], 1)
    alpha = np.frombuffer(B64_ALPHABET, dtype=np.uint8)
    chars = alpha[sext]
    chars[lastg[rem == 1], 2] = ord("=")
    chars[lastg[rem <= 2], 3] = ord("=")
    text = chars.reshape(-1)
    enc = 4 * ngrp
    off = np.concatenate([[0], np.cumsum(enc)])
    dmg = rng.random(n)
    at = off[:-1] + (rng.random(n) * enc).astype(np.int64)
    junk = np.frombuffer(b"-_ \n*", dtype=np.uint8)
    r1 = dmg < 0.02
    text[at[r1]] = junk[rng.integers(0, junk.size, int(r1.sum()))]
    r2 = (dmg >= 0.02) & (dmg < 0.035)
    text[at[r2]] = ord("=")
    r3 = (dmg >= 0.035) & (dmg < 0.05)
    lastc = off[1:] - 1 - (raw % 3 == 1) * 2 - (raw % 3 == 2)  # last data character of the record
    r3 &= raw % 3 != 0
    text[lastc[r3]] = alpha[_b64_table()[text[lastc[r3]]] | 1]
    r4 = dmg >= 0.95
    enc = np.where(r4, enc - 1, enc)
    keep = np.ones(text.size, dtype=bool)
    keep[off[1:][r4] - 1] = False
    text = text[keep]
    full = np.zeros(n * ln, dtype=np.uint8)
    full[:text.size] = text
    return {"text": full, "in_off": np.concatenate([[0], np.cumsum(enc)]),
            "out_off": np.concatenate([[0], np.cumsum(enc // 4 * 3)]), "dec_tab": _b64_table()}


def _ref_b64(inp, sz):
    """The records decoded side by side, quad by quad, with the kernel's rules and their order."""
    text = np.asarray(inp["text"]).astype(np.int64)
    tab = np.asarray(inp["dec_tab"]).astype(np.int64)
    off = np.asarray(inp["in_off"]).astype(np.int64)
    oo = np.asarray(inp["out_off"]).astype(np.int64)
    out = np.zeros(sz["N"] * sz["L"] * 3 // 4, dtype=np.int64)
    ln = off[1:] - off[:-1]
    full = ln & ~3
    bad = np.full(ln.size, -1)
    nout = np.zeros(ln.size, dtype=np.int64)
    for q in range(0, int(full.max()), 4):
        act = (q + 4 <= full) & (bad < 0)
        v = tab[text[np.where(act, off[:-1] + q, 0)[:, None] + np.arange(4)]]
        last = q + 4 == ln
        k = np.arange(4)[None, :]
        pad = v == 64
        fault = (v == 255) | (pad & (~last[:, None] | (k < 2) | ((k == 2) & (v[:, 3:4] != 64))))
        first = np.where(fault.any(1), fault.argmax(1), -1)
        v = np.where(pad, 0, v)
        npad = pad.sum(1)
        first = np.where((first < 0) & (npad == 1) & (v[:, 2] & 3 != 0), 2, first)
        first = np.where((first < 0) & (npad == 2) & (v[:, 1] & 15 != 0), 1, first)
        bad = np.where(act & (first >= 0), q + first, bad)
        ok = act & (first < 0)
        bits = (v[:, 0] << 18) | (v[:, 1] << 12) | (v[:, 2] << 6) | v[:, 3]
        for j in range(3):
            put = ok & (npad <= 2 - j)
            out[(oo[:-1] + nout + j)[put]] = (bits[put] >> (16 - 8 * j)) & 0xFF
        nout += np.where(ok, 3 - npad, 0)
    bad = np.where((bad < 0) & (full != ln), full, bad)
    return {"out": out, "status": np.where(bad < 0, nout, -(bad + 1))}


def base64_strict_decode_records() -> KernelSpec:
    return _spec(
        "base64_strict_decode_records",
        idiom="strict base64 decode per record: __constant decode table, quad loop, padding and canonical-bit "
              "rules, first fault's position as status",
        sizes={"N": pow2(10, 20, 2), "L": [64, 512]}, check={"N": 500, "L": 128},
        constraints=["N * L <= 2**26"],
        args=[Arg("nrec", "scalar", "int32", "N"), Arg("text", "buffer", "uint8", "N * L"),
              Arg("in_off", "buffer", "int32", "N + 1"), Arg("out_off", "buffer", "int32", "N + 1"),
              Arg("dec_tab", "buffer", "uint8", "256"), Arg("out", "buffer", "uint8", "N * L * 3 // 4", "out"),
              Arg("status", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_b64, make_inputs=_inputs_b64)


#: this group's builders, in the order of ``specs()``
BUILDERS = (bpe_pair_rank_wordmin, bm25_bsearch_fp64_2d, base64_strict_decode_records)

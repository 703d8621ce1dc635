"""Holdout11 kernels, group bio (written by hand; see docs/HOLDOUT11.md): sequence analysis as bioinformatics
programmers write it for GPUs: a protein database search, Smith-Waterman with BLOSUM62 and affine gaps of one
query against each database sequence, a work-group per sequence sweeping strips of query rows along
anti-diagonals with H and F handed from work-item to work-item through __local memory; the verification step of
a short-read mapper, a banded semi-global edit distance of each read against each of its candidate locations on
a 2-D (candidate, read) NDRange, a private band row updated in place and the candidate given up once a row's
minimum passes the edit bound; and the genotype likelihoods of a diploid variant caller, the ten genotypes of
each pileup site summed in log10 and fp64 over its variable number of quality-filtered observations. None of
these three uses atomics; the group's other three kernels are in :mod:`.bio_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _spec, pow2, round_up

#: sw_blosum_wavefront_group: BLOSUM62 in the order A R N D C Q E G H I L K M F P S T W Y V (X, code 20, is -1)
BLOSUM62_ROWS = """
 4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  0
-1  5  0 -2 -3  1  0 -2  0 -3 -2  2 -1 -3 -2 -1 -1 -3 -2 -3
-2  0  6  1 -3  0  0  0  1 -3 -3  0 -2 -3 -2  1  0 -4 -2 -3
-2 -2  1  6 -3  0  2 -1 -1 -3 -4 -1 -3 -3 -1  0 -1 -4 -3 -3
 0 -3 -3 -3  9 -3 -4 -3 -3 -1 -1 -3 -1 -2 -3 -1 -1 -2 -2 -1
-1  1  0  0 -3  5  2 -2  0 -3 -2  1  0 -3 -1  0 -1 -2 -1 -2
-1  0  0  2 -4  2  5 -2  0 -3 -3  1 -2 -3 -1  0 -1 -3 -2 -2
 0 -2  0 -1 -3 -2 -2  6 -2 -4 -4 -2 -3 -3 -2  0 -2 -2 -3 -3
-2  0  1 -1 -3  0  0 -2  8 -3 -3 -1 -2 -1 -2 -1 -2 -2  2 -3
-1 -3 -3 -3 -1 -3 -3 -4 -3  4  2 -3  1  0 -3 -2 -1 -3 -1  3
-1 -2 -3 -4 -1 -2 -3 -4 -3  2  4 -2  2  0 -3 -2 -1 -2 -1  1
-1  2  0 -1 -3  1  1 -2 -1 -3 -2  5 -1 -3 -1  0 -1 -3 -2 -2
-1 -1 -2 -3 -1  0 -2 -3 -2  1  2 -1  5  0 -2 -1 -1 -1 -1  1
-2 -3 -3 -3 -2 -3 -3 -3 -1  0  0 -3  0  6 -4 -2 -2  1  3 -1
-1 -2 -2 -1 -3 -1 -1 -2 -2 -3 -3 -1 -2 -4  7 -1 -1 -4 -3 -2
 1 -1  1  0 -1  0  0  0 -1 -2 -2  0 -1 -2 -1  4  1 -3 -2 -2
 0 -1  0 -1 -1 -1 -1 -2 -2 -1 -1 -1 -1 -2 -1  1  5 -2 -2  0
-3 -3 -4 -4 -2 -2 -3 -2 -2 -3 -2 -3 -1  1 -4 -3 -2 11  2 -3
-2 -2 -2 -3 -2 -1 -2 -3  2 -1 -1 -2 -1  3 -3 -2 -2  2  7 -1
 0 -3 -3 -3 -1 -2 -2 -3 -3  3  1 -2  1 -1 -2 -2  0 -3 -1  4
"""
#: sw_blosum_wavefront_group: background amino-acid frequencies (percent), same order
AA_FREQ = (7.8, 5.1, 4.5, 5.4, 1.9, 4.3, 6.3, 7.4, 2.6, 6.8, 9.9, 5.8, 2.5, 4.7, 3.9, 5.7, 5.1, 1.3, 3.2, 7.3)
SW_SLOT = 320  # sw_blosum_wavefront_group: residues of db_res a database sequence on average
SW_MAX_LEN = 1024  # sw_blosum_wavefront_group: longest database sequence (the __local rows)
SW_GAP = (11, 1)  # sw_blosum_wavefront_group: gap open (the first gap residue) and extension costs

ED_READ_LEN = 150  # banded_ed_verify_cands_2d: bases a read
ED_SLOTS = 16  # banded_ed_verify_cands_2d: candidate slots a read
ED_MAX = 8  # banded_ed_verify_cands_2d: edit bound
ACGT = np.frombuffer(b"ACGT", dtype=np.uint8)

GL_CUTS = (13, 20, 45)  # diploid_gl_pileup_fp64: min base quality, min mapping quality, quality cap


# --- protein database search: Smith-Waterman along anti-diagonals, a work-group per database sequence -------------
def _blosum62():
    m = np.full((21, 21), -1, dtype=np.int32)
    m[:20, :20] = np.array(BLOSUM62_ROWS.split(), dtype=np.int32).reshape(20, 20)
    return m


def _residues(rng, n):
    """n residue codes drawn from the background frequencies, one in 500 an X."""
    p = np.array(AA_FREQ) / sum(AA_FREQ)
    res = rng.choice(20, n, p=p).astype(np.uint8)
    res[rng.random(n) < 0.002] = 20
    return res


def _inputs_sw(rng, sz):
    """Database lengths log-normal (median 260, clipped to 30 .. 1000, the total within P * SW_SLOT); a quarter of
    the sequences hold a homologue of a stretch of the query (25% substitutions, 2% of its residues deleted)."""
    p, q = sz["P"], sz["Q"]
    query = _residues(rng, q)
    lens = np.clip(rng.lognormal(np.log(260.0), 0.5, p), 30, 1000).astype(np.int64)
    while lens.sum() > p * SW_SLOT:
        lens = np.maximum((lens * 0.95).astype(np.int64), 30)
    off = np.concatenate([[0], np.cumsum(lens)])
    res = _residues(rng, p * SW_SLOT)
    for s in np.flatnonzero(rng.random(p) < 0.25):
        a = int(rng.integers(0, q - 20))
        seg = query[a:a + int(rng.integers(20, min(q - a, lens[s]) + 1))].copy()
        hit = rng.random(seg.size) < 0.25
        seg[hit] = _residues(rng, int(hit.sum()))
        cut = rng.random(seg.size) < 0.02  # deletions from the homologue
        seg = seg[~cut][:lens[s]]
        at = off[s] + int(rng.integers(0, lens[s] - seg.size + 1))
        res[at:at + seg.size] = seg
    return {"query": query, "db_res": res, "db_off": off, "blosum": _blosum62()}


def _ref_sw(inp, sz):
    """All sequences at once along anti-diagonals (i + j = d, 1-based), the database padded to the longest; the
    best cell by the key score, then the smallest column, then the smallest row."""
    p, q = sz["P"], sz["Q"]
    go, ge = int(inp["gap_open"]), int(inp["gap_ext"])
    off = np.asarray(inp["db_off"]).astype(np.int64)
    lens = off[1:] - off[:-1]
    t = int(lens.max())
    res = np.asarray(inp["db_res"]).astype(np.int64)
    tgt = res[np.minimum(off[:-1, None] + np.arange(t)[None, :], res.size - 1)]
    sub = np.asarray(inp["blosum"]).astype(np.int64).reshape(21, 21)
    qry = np.asarray(inp["query"]).astype(np.int64)
    neg = -(10**9)
    h1, h2 = np.zeros((p, q + 1), np.int64), np.zeros((p, q + 1), np.int64)
    e1, f1 = np.full((p, q + 1), neg), np.full((p, q + 1), neg)
    best = np.full(p, -1, dtype=np.int64)
    i = np.arange(1, q + 1)
    for d in range(2, q + t + 1):
        j = d - i
        ok = (j >= 1)[None, :] & (j[None, :] <= lens[:, None])
        jj = np.clip(j, 1, t) - 1
        e = np.maximum(h1[:, 1:] - go, e1[:, 1:] - ge)
        f = np.maximum(h1[:, :-1] - go, f1[:, :-1] - ge)
        h = np.maximum(np.maximum(h2[:, :-1] + sub[qry[i - 1][None, :], tgt[:, jj]], np.maximum(e, f)), 0)
        hn, en, fn = np.zeros_like(h1), np.full_like(e1, neg), np.full_like(f1, neg)
        hn[:, 1:], en[:, 1:], fn[:, 1:] = np.where(ok, h, 0), np.where(ok, e, neg), np.where(ok, f, neg)
        key = np.where(ok & (h > 0), (h << 22) - ((j[None, :] - 1) << 11) - (i[None, :] - 1), -1)
        best = np.maximum(best, key.max(1))
        h2, h1, e1, f1 = h1, hn, en, fn
    found = best > 0
    low = np.where(found, (-best) & ((1 << 22) - 1), 0)
    return {"best_score": np.where(found, (best + low) >> 22, 0),
            "q_end": np.where(found, low & 2047, -1), "t_end": np.where(found, low >> 11, -1)}


def sw_blosum_wavefront_group() -> KernelSpec:
    return _spec(
        "sw_blosum_wavefront_group",
        idiom="protein Smith-Waterman, a group per database sequence (num_groups loop): BLOSUM62 in __local, "
              "query strips swept along anti-diagonals, H/F handed between items in __local, tree max of the end",
        sizes={"P": pow2(4, 9), "Q": [128, 320]}, check={"P": 10, "Q": 300},
        args=[Arg("ndb", "scalar", "int32", "P"), Arg("qlen", "scalar", "int32", "Q"),
              Arg("gap_open", "scalar", "int32", str(SW_GAP[0])), Arg("gap_ext", "scalar", "int32", str(SW_GAP[1])),
              Arg("query", "buffer", "uint8", "Q"), Arg("db_res", "buffer", "uint8", f"P * {SW_SLOT}"),
              Arg("db_off", "buffer", "int32", "P + 1"), Arg("blosum", "buffer", "int32", "441"),
              Arg("best_score", "buffer", "int32", "P", "out"), Arg("q_end", "buffer", "int32", "P", "out"),
              Arg("t_end", "buffer", "int32", "P", "out"), Arg("row_h", "local", "int32", str(SW_MAX_LEN)),
              Arg("row_f", "local", "int32", str(SW_MAX_LEN)), Arg("pass_h", "local", "int32", "l0"),
              Arg("pass_f", "local", "int32", "l0")],
        gsize=["min(P, 128) * 256"], local=L1, reference=_ref_sw, make_inputs=_inputs_sw)


# --- read mapping: banded edit distance of each read against each candidate location, 2-D ------------------------
def _genome_len(n):
    return max(n * 64, 2**16)


def _inputs_ed(rng, sz):
    """A random genome (a run of 1-19 N a 2 kb) holding 8 repeat families of 400 bp, 24 copies each at 2-8%
    divergence; reads of ED_READ_LEN bases, 30% from repeat copies, with 1% substitutions and a one-base indel in
    15% of them; a geometric number of candidates (6 more for repeat reads, at most ED_SLOTS): the true origin,
    for repeat reads mostly the same offset in other copies of the family, else random places."""
    n = sz["N"]
    g = _genome_len(n)
    room = g - ED_READ_LEN - 40
    genome = ACGT[rng.integers(0, 4, g)]
    for at in rng.integers(0, g - 20, max(g // 2000, 1)):
        genome[at:at + rng.integers(1, 20)] = ord("N")
    fam = ACGT[rng.integers(0, 4, (8, 400))]
    copies = rng.integers(0, room - 400, (8, 24))
    for f in range(8):
        for at in copies[f]:
            elem = fam[f].copy()
            mut = rng.random(400) < rng.uniform(0.02, 0.08)
            elem[mut] = ACGT[rng.integers(0, 4, int(mut.sum()))]
            genome[at:at + 400] = elem
    from_rep = rng.random(n) < 0.3
    rf, rc = rng.integers(0, 8, n), rng.integers(0, 24, n)
    shift = rng.integers(0, 400 - ED_READ_LEN, n)
    origin = np.where(from_rep, copies[rf, rc] + shift, rng.integers(0, room, n))
    reads = genome[origin[:, None] + np.arange(ED_READ_LEN + 1)[None, :]]
    sub = rng.random((n, ED_READ_LEN + 1)) < 0.01
    reads[sub] = ACGT[rng.integers(0, 4, int(sub.sum()))]
    indel = np.flatnonzero(rng.random(n) < 0.15)
    for r, at in zip(indel, rng.integers(1, ED_READ_LEN - 1, indel.size)):
        row = reads[r]
        if rng.random() < 0.5:
            row[at:] = np.concatenate([row[at + 1:], row[-1:]])  # a deletion from the read
        else:
            row[at + 1:] = row[at:-1].copy()  # an inserted base
    cnt = np.minimum(np.where(from_rep, 6, 0) + rng.geometric(0.3, n), ED_SLOTS)
    pos = rng.integers(0, room, (n, ED_SLOTS))
    other = copies[rf[:, None], rng.integers(0, 24, (n, ED_SLOTS))] + shift[:, None]
    pos = np.where(from_rep[:, None] & (rng.random((n, ED_SLOTS)) < 0.8), other, pos)
    true_slot = (rng.random(n) * cnt).astype(np.int64)
    pos[np.arange(n), true_slot] = origin
    pos[np.arange(ED_SLOTS)[None, :] >= cnt[:, None]] = 0
    return {"reads": reads[:, :ED_READ_LEN], "genome": genome, "cand_pos": pos, "cand_count": cnt}


def _ref_ed(inp, sz):
    """Every live (read, candidate) pair at once, a band cell at a time (the in-place row of the kernel)."""
    n, b, big = sz["N"], int(inp["band"]), 1 << 30
    ln, mx = int(inp["read_len"]), int(inp["max_ed"])
    reads = np.asarray(inp["reads"]).reshape(n, ln)
    genome = np.asarray(inp["genome"])
    pos = np.asarray(inp["cand_pos"]).astype(np.int64).reshape(n, ED_SLOTS)
    live = np.arange(ED_SLOTS)[None, :] < np.asarray(inp["cand_count"])[:, None]
    r, c = np.nonzero(live)
    rd = reads[r]
    ref = genome[pos[r, c][:, None] + np.arange(ln + b)[None, :]]
    width = 2 * b + 1
    dp = np.full((r.size, width), big, dtype=np.int64)
    dp[:, b:] = np.arange(b + 1)
    for i in range(1, ln + 1):
        a = rd[:, i - 1]
        for k in range(max(0, b - i), width):
            j = i + k - b
            if j == 0:
                dp[:, k] = i
                continue
            rb = ref[:, j - 1]
            v = dp[:, k] + ((a != rb) | (a == ord("N")))
            if k + 1 < width:
                v = np.minimum(v, dp[:, k + 1] + 1)
            if k > 0:
                v = np.minimum(v, dp[:, k - 1] + 1)
            dp[:, k] = np.minimum(v, big)
    dmin, kmin = dp.min(1), dp.argmin(1)
    dist, span = np.full((n, ED_SLOTS), -1), np.full((n, ED_SLOTS), -1)
    dist[r, c] = np.where(dmin <= mx, dmin, mx + 1)
    span[r, c] = np.where(dmin <= mx, ln + kmin - b, -1)
    return {"edit_dist": dist, "ref_span": span}


def banded_ed_verify_cands_2d() -> KernelSpec:
    return _spec(
        "banded_ed_verify_cands_2d",
        idiom="read-mapping verification, 2-D (candidate, read): banded semi-global edit distance, private band "
              "row by diagonal updated in place, give up once the row minimum passes the bound",
        sizes={"N": pow2(8, 14), "B": [5, 10]}, check={"N": 48, "B": 7},
        args=[Arg("nread", "scalar", "int32", "N"), Arg("ncand", "scalar", "int32", str(ED_SLOTS)),
              Arg("read_len", "scalar", "int32", str(ED_READ_LEN)), Arg("band", "scalar", "int32", "B"),
              Arg("max_ed", "scalar", "int32", str(ED_MAX)),
              Arg("reads", "buffer", "uint8", f"N * {ED_READ_LEN}"),
              Arg("genome", "buffer", "uint8", "max(N * 64, 2**16)"),
              Arg("cand_pos", "buffer", "int32", f"N * {ED_SLOTS}"), Arg("cand_count", "buffer", "int32", "N"),
              Arg("edit_dist", "buffer", "int32", f"N * {ED_SLOTS}", "out"),
              Arg("ref_span", "buffer", "int32", f"N * {ED_SLOTS}", "out")],
        gsize=[str(ED_SLOTS), round_up("N", 32)], local=[[16, 16], [8, 32], [16, 8]],
        reference=_ref_ed, make_inputs=_inputs_ed)


# --- variant calling: ten diploid genotype likelihoods a pileup site, fp64 ------------------------------------------
def _inputs_gl(rng, sz):
    """S sites sharing S * D observations (gamma-weighted depths); site truth 90% hom-ref, 7% het, 3% hom-alt;
    base qualities binned as a NovaSeq's (37, 25, 12, 2), mapping qualities 60 (85%) or 0 .. 59; a base is an
    allele of its site's genotype, miscalled at its quality's error rate; 0.5% N."""
    s, d = sz["S"], sz["D"]
    m = s * d
    w = rng.gamma(4.0, 1.0, s)
    depth = rng.multinomial(m, w / w.sum())
    off = np.concatenate([[0], np.cumsum(depth)])
    site = np.repeat(np.arange(s), depth)
    ref = rng.integers(0, 4, s)
    alt = (ref + rng.integers(1, 4, s)) % 4
    u = rng.random(s)
    a1, a2 = np.where(u < 0.97, ref, alt), np.where(u < 0.90, ref, alt)
    bq = rng.choice(np.array([37, 25, 12, 2]), m, p=[0.8, 0.1, 0.07, 0.03])
    mq = np.where(rng.random(m) < 0.85, 60, rng.integers(0, 60, m))
    base = np.where(rng.random(m) < 0.5, a1[site], a2[site])
    wrong = rng.random(m) < 10.0 ** (-0.1 * bq)
    base = np.where(wrong, (base + rng.integers(1, 4, m)) % 4, base)
    base[rng.random(m) < 0.005] = 4
    return {"site_off": off, "obs_base": base, "obs_bq": bq, "obs_mq": mq}


def _ref_gl(inp, sz):
    s = sz["S"]
    off = np.asarray(inp["site_off"]).astype(np.int64)
    base = np.asarray(inp["obs_base"]).astype(np.int64)
    bq, mq = np.asarray(inp["obs_bq"]).astype(np.int64), np.asarray(inp["obs_mq"]).astype(np.int64)
    site = np.repeat(np.arange(s), off[1:] - off[:-1])
    use = (base <= 3) & (bq >= int(inp["min_bq"])) & (mq >= int(inp["min_mq"]))
    q = np.minimum(np.minimum(bq, mq), int(inp["max_q"]))[use]
    e = 10.0 ** (-0.1 * q)
    pa = np.where(np.arange(4)[None, :] == base[use][:, None], (1.0 - e)[:, None], (e / 3.0)[:, None])
    lk = np.zeros((s, 10))
    g = 0
    for a2 in range(4):
        for a1 in range(a2 + 1):
            lk[:, g] = np.bincount(site[use], weights=np.log10(0.5 * (pa[:, a1] + pa[:, a2])), minlength=s)
            g += 1
    return {"gl": lk - lk.max(1, keepdims=True), "best_gt": lk.argmax(1),
            "depth_used": np.bincount(site[use], minlength=s)}


def diploid_gl_pileup_fp64() -> KernelSpec:
    return _spec(
        "diploid_gl_pileup_fp64", tol=FP64, precision="fp64",
        idiom="diploid genotype likelihoods per pileup site in fp64: quality-filtered variable-depth loop, "
              "pow10 error, ten log10 mixtures accumulated in a private array, normalised, argmax call",
        sizes={"S": pow2(9, 19, 2), "D": [12, 40]}, check={"S": 3000, "D": 20},
        constraints=["S * D <= 6 * 2**20"],
        args=[Arg("nsite", "scalar", "int32", "S"), Arg("min_bq", "scalar", "int32", str(GL_CUTS[0])),
              Arg("min_mq", "scalar", "int32", str(GL_CUTS[1])), Arg("max_q", "scalar", "int32", str(GL_CUTS[2])),
              Arg("site_off", "buffer", "int32", "S + 1"), Arg("obs_base", "buffer", "uint8", "S * D"),
              Arg("obs_bq", "buffer", "uint8", "S * D"), Arg("obs_mq", "buffer", "uint8", "S * D"),
              Arg("gl", "buffer", "float64", "S * 10", "out"), Arg("best_gt", "buffer", "int32", "S", "out"),
              Arg("depth_used", "buffer", "int32", "S", "out")],
        gsize=[round_up("S")], local=L1, reference=_ref_gl, make_inputs=_inputs_gl)


#: this group's builders, in the order of ``specs()``
BUILDERS = (sw_blosum_wavefront_group, banded_ed_verify_cands_2d, diploid_gl_pileup_fp64)

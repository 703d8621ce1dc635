"""Holdout11 kernels, group bio_more (written by hand; see docs/HOLDOUT11.md): the rest of the bioinformatics group,
the read-processing side: a pileup of ungapped aligned reads over a reference region, a work-item per read
skipping flagged and low-mapping-quality reads and low-quality or N bases, counting each base by strand and
adding its quality with integer atomics; exact seed lookup in an FM-index, the backward search of BWA and Bowtie
over a 2-bit packed BWT in uint words, each rank a checkpoint read plus the popcount of matching 2-bit slots of up
to four words, stopping when the suffix-array interval empties; and minimap2-style (w, k)-minimizers of a 2-bit
packed sequence, rolling canonical k-mer codes, an invertible hash and a private ring of the window's hashes that
is rescanned only when the minimum slides out. The group's other three kernels are in :mod:`.bio`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, _spec, pow2, round_up

PU_DEPTH = 32  # pileup_strand_counts_atomic: the region is N * L / PU_DEPTH positions (about that mean depth)
PU_CUTS = (20, 13)  # pileup_strand_counts_atomic: min mapping quality, min base quality
NOVASEQ_Q = np.array([37, 25, 12, 2])  # binned base qualities (pileup_strand_counts_atomic)

FM_SEED = 32  # fm_backward_occ64_u32: bases a seed (two uint words)

MM_K = 15  # minimizer_rescan_window_u32: k-mer length
MM_CHUNK = 128  # minimizer_rescan_window_u32: windows a work-item


# --- pileup: strand-split base counts and quality sums of ungapped reads, integer atomics --------------------------
def _inputs_pileup(rng, sz):
    """N reads placed uniformly over the region (overhanging both ends by up to half a read); 70% keep all L
    bases, the rest L / 2 .. L; reverse strand half the time; 5% duplicates, 2% secondary, 1% QC-fail; mapping
    quality 60 (80%) or 0 .. 59; NovaSeq-binned base qualities (37 80%, 25 10%, 12 7%, 2 3%), 0.3% N."""
    n, ln = sz["N"], sz["L"]
    g = n * ln // PU_DEPTH
    pos = rng.integers(-ln // 2, g, n)
    trim = np.where(rng.random(n) < 0.7, ln, rng.integers(ln // 2, ln + 1, n))
    u = rng.random(n)
    flag = (rng.random(n) < 0.5) * 0x10 + (u < 0.05) * 0x400 + ((u >= 0.05) & (u < 0.07)) * 0x100 \
        + ((u >= 0.07) & (u < 0.08)) * 0x200
    mq = np.where(rng.random(n) < 0.8, 60, rng.integers(0, 60, n))
    bases = rng.integers(0, 4, n * ln, dtype=np.uint8)
    r = rng.integers(0, 1000, n * ln, dtype=np.int16)  # r // 10: the quality bin; r < 3: an N (at quality 2)
    bases[r < 3] = 4
    quals = np.repeat(NOVASEQ_Q[::-1], [3, 7, 10, 80]).astype(np.uint8)[r // 10]
    return {"read_pos": pos, "read_trim_len": trim, "read_flag": flag, "read_mq": mq, "bases": bases,
            "quals": quals}


def _ref_pileup(inp, sz):
    n, ln = sz["N"], sz["L"]
    g = int(inp["region_len"])
    pos = np.asarray(inp["read_pos"]).astype(np.int64)
    trim = np.asarray(inp["read_trim_len"]).astype(np.int64)
    flag = np.asarray(inp["read_flag"]).astype(np.int64)
    b = np.asarray(inp["bases"]).astype(np.int64).reshape(n, ln)
    q = np.asarray(inp["quals"]).astype(np.int64).reshape(n, ln)
    ok_read = ((flag & 0x700) == 0) & (np.asarray(inp["read_mq"]) >= int(inp["min_mq"]))
    k = np.arange(ln)[None, :]
    at = pos[:, None] + k
    use = ok_read[:, None] & (k < trim[:, None]) & (at >= 0) & (at < g) & (b <= 3) & (q >= int(inp["min_bq"]))
    strand = np.where(flag & 0x10, 4, 0)[:, None] + np.zeros_like(b)
    counts = np.bincount((8 * at + strand + b)[use], minlength=8 * g)
    return {"counts": counts, "qual_sum": np.bincount(at[use], weights=q[use], minlength=g).astype(np.int64)}


def pileup_strand_counts_atomic() -> KernelSpec:
    return _spec(
        "pileup_strand_counts_atomic",
        idiom="pileup of ungapped reads, an item per read: flag / mapping-quality skip, region clipping, per-base "
              "quality and N filter, atomic_inc of strand x base counts and atomic_add of quality sums",
        sizes={"N": pow2(10, 18, 2), "L": [100, 150]}, check={"N": 3000, "L": 100},
        args=[Arg("nread", "scalar", "int32", "N"), Arg("read_len", "scalar", "int32", "L"),
              Arg("region_len", "scalar", "int32", f"N * L // {PU_DEPTH}"),
              Arg("min_mq", "scalar", "int32", str(PU_CUTS[0])), Arg("min_bq", "scalar", "int32", str(PU_CUTS[1])),
              Arg("read_pos", "buffer", "int32", "N"), Arg("read_trim_len", "buffer", "int32", "N"),
              Arg("read_flag", "buffer", "int32", "N"), Arg("read_mq", "buffer", "uint8", "N"),
              Arg("bases", "buffer", "uint8", "N * L"), Arg("quals", "buffer", "uint8", "N * L"),
              Arg("counts", "buffer", "int32", f"N * L // {PU_DEPTH} * 8", "out"),
              Arg("qual_sum", "buffer", "uint32", f"N * L // {PU_DEPTH}", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_pileup, make_inputs=_inputs_pileup)


# --- FM-index backward search of exact seeds: 64-row checkpoints, popcount of 2-bit slots -------------------------
def _suffix_array(s):
    """Suffix array of s (ints, a unique smallest last symbol) by prefix doubling with numpy sorts."""
    n = s.size
    rank = s.astype(np.int64)
    idx = np.arange(n)
    k = 1
    while True:
        second = np.where(idx + k < n, rank[np.minimum(idx + k, n - 1)] + 1, 0)
        key = rank * (n + 2) + second
        sa = np.argsort(key, kind="stable")
        ks = key[sa]
        rank = np.empty(n, dtype=np.int64)
        rank[sa] = np.concatenate([[0], np.cumsum(ks[1:] != ks[:-1])])
        if rank[sa[-1]] == n - 1:
            return sa
        k *= 2


def _pack16(codes):
    """2-bit codes, 16 to a uint32 word, first code in the high bits (the tail padded with 0)."""
    padded = np.zeros((codes.size + 15) // 16 * 16, dtype=np.uint8)
    padded[:codes.size] = codes
    padded = padded.reshape(-1, 16)
    words = np.zeros(padded.shape[0], dtype=np.uint32)
    for t in range(16):
        words |= padded[:, t].astype(np.uint32) << np.uint32(30 - 2 * t)
    return words


def _inputs_fm(rng, sz):
    """A random reference of G bases with 5% of it copies of 16 repeat elements of 300 bp (half exact, half at 2%
    divergence), its BWT, 64-row checkpoints and C array; seeds: 50% exact from anywhere, 20% exact from a repeat
    copy, 20% with 1-2 substitutions, 10% random."""
    n, g = sz["N"], sz["G"]
    text = rng.integers(0, 4, g, dtype=np.uint8)
    elems = rng.integers(0, 4, (16, 300), dtype=np.uint8)
    ncopy = g // 20 // 300
    at = rng.integers(0, g - 300, ncopy)
    which = rng.integers(0, 16, ncopy)
    for a, e in zip(at, which):
        el = elems[e].copy()
        if rng.random() < 0.5:
            mut = rng.random(300) < 0.02
            el[mut] = rng.integers(0, 4, int(mut.sum()), dtype=np.uint8)
        text[a:a + 300] = el
    sa = _suffix_array(np.concatenate([text.astype(np.int64) + 1, [0]]))
    prev = sa - 1
    primary = int(np.flatnonzero(prev < 0)[0])
    bwt = text[np.maximum(prev, 0)]
    bwt[primary] = 0
    real = np.ones(g + 1, dtype=bool)
    real[primary] = False
    onehot = (bwt[:, None] == np.arange(4)[None, :]) & real[:, None]
    cum = np.concatenate([np.zeros((1, 4), dtype=np.int64), np.cumsum(onehot, 0)])
    occ = cum[np.arange(0, g + 2, 64)]
    tot = cum[-1]
    meta = np.array([1, 1 + tot[0], 1 + tot[:2].sum(), 1 + tot[:3].sum(), primary, g + 1, 0, 0])
    start = rng.integers(0, g - FM_SEED, n)
    u = rng.random(n)
    rep = (u >= 0.5) & (u < 0.7)
    start[rep] = (at[rng.integers(0, ncopy, int(rep.sum()))] + rng.integers(0, 300 - FM_SEED, int(rep.sum())))
    seeds = text[start[:, None] + np.arange(FM_SEED)[None, :]]
    mut = (u >= 0.7) & (u < 0.9)
    rows = np.flatnonzero(mut)
    for extra in range(2):
        pick = rows[rng.random(rows.size) < (1.0 if extra == 0 else 0.5)]
        cols = rng.integers(0, FM_SEED, pick.size)
        seeds[pick, cols] = (seeds[pick, cols] + rng.integers(1, 4, pick.size)) % 4
    rnd = u >= 0.9
    seeds[rnd] = rng.integers(0, 4, (int(rnd.sum()), FM_SEED), dtype=np.uint8)
    return {"seeds": _pack16(seeds.reshape(-1)), "bwt": _pack16(bwt), "occ": occ.reshape(-1), "fm_meta": meta}


def _unpack16(words, count):
    w = np.asarray(words).astype(np.int64)
    return ((w[:, None] >> (30 - 2 * np.arange(16))[None, :]) & 3).reshape(-1)[:count]


def _ref_fm(inp, sz):
    """Backward search of every seed at once, ranks from full prefix counts of the unpacked BWT."""
    n, g = sz["N"], sz["G"]
    k = int(inp["seed_len"])
    meta = np.asarray(inp["fm_meta"]).astype(np.int64)
    bwt = _unpack16(inp["bwt"], g + 1)
    real = np.ones(g + 1, dtype=bool)
    real[meta[4]] = False
    onehot = (bwt[:, None] == np.arange(4)[None, :]) & real[:, None]
    cum = np.concatenate([np.zeros((1, 4), dtype=np.int64), np.cumsum(onehot, 0)])
    seeds = _unpack16(inp["seeds"], n * int(inp["words_per_seed"]) * 16).reshape(n, -1)[:, :k]
    lo, hi = np.zeros(n, dtype=np.int64), np.full(n, meta[5])
    length = np.zeros(n, dtype=np.int64)
    live = np.ones(n, dtype=bool)
    for j in range(k - 1, -1, -1):
        c = seeds[:, j]
        nlo, nhi = meta[c] + cum[lo, c], meta[c] + cum[hi, c]
        live &= nlo < nhi
        lo, hi = np.where(live, nlo, lo), np.where(live, nhi, hi)
        length += live
    return {"sa_lo": lo, "sa_hi": hi, "match_len": length}


def fm_backward_occ64_u32() -> KernelSpec:
    return _spec(
        "fm_backward_occ64_u32",
        idiom="FM-index exact seed search, an item per seed: backward steps over 2-bit packed uint seeds, two "
              "ranks a step from 64-row checkpoints + popcount of matching 2-bit slots, stop on empty interval",
        sizes={"N": pow2(9, 19, 2), "G": [2**16, 2**20]}, check={"N": 3000, "G": 20000},
        args=[Arg("nseed", "scalar", "int32", "N"), Arg("seed_len", "scalar", "int32", str(FM_SEED)),
              Arg("words_per_seed", "scalar", "int32", str(FM_SEED // 16)),
              Arg("seeds", "buffer", "uint32", f"N * {FM_SEED // 16}"),
              Arg("bwt", "buffer", "uint32", "(G + 16) // 16"),
              Arg("occ", "buffer", "uint32", "((G + 1) // 64 + 1) * 4"), Arg("fm_meta", "buffer", "uint32", "8"),
              Arg("sa_lo", "buffer", "int32", "N", "out"), Arg("sa_hi", "buffer", "int32", "N", "out"),
              Arg("match_len", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_fm, make_inputs=_inputs_fm)


# --- (w, k)-minimizers of a 2-bit packed sequence: rolling canonical codes, ring rescans ----------------------------
def _hash_2k(key, mask):
    key = (~key + (key << 15)) & mask
    key = key ^ (key >> 12)
    key = (key + (key << 2)) & mask
    key = key ^ (key >> 4)
    key = (key * 2057) & mask
    return key ^ (key >> 16)


def _inputs_mm(rng, sz):
    """B bases: random, with 2% of the sequence in tandem repeats (units of 1-6 bases, 20-200 long) and 1% in
    poly-A runs, the low-complexity stretches that make equal hashes and rescans."""
    b = sz["B"]
    codes = rng.integers(0, 4, b, dtype=np.uint8)
    for at in rng.integers(0, b - 200, max(b // 5500, 1)):
        unit = rng.integers(0, 4, rng.integers(1, 7))
        span = int(rng.integers(20, 201))
        codes[at:at + span] = np.resize(unit, span)
    for at in rng.integers(0, b - 60, max(b // 4000, 1)):
        codes[at:at + rng.integers(10, 60)] = 0
    return {"seq": _pack16(codes)}


def _ref_mm(inp, sz):
    b, w, k = sz["B"], sz["W"], int(inp["k"])
    codes = _unpack16(inp["seq"], b)
    nk = b - k + 1
    fwd, rev = np.zeros(nk, dtype=np.int64), np.zeros(nk, dtype=np.int64)
    for i in range(k):
        fwd = (fwd << 2) | codes[i:i + nk]
        rev |= (3 - codes[i:i + nk]) << (2 * i)
    mask = (1 << (2 * k)) - 1
    h = _hash_2k(np.minimum(fwd, rev), mask)
    win = np.lib.stride_tricks.sliding_window_view(h, w)
    arg = win.argmin(1)
    pos = np.arange(win.shape[0]) + arg
    return {"min_pos": pos, "min_hash": h[pos]}


def minimizer_rescan_window_u32() -> KernelSpec:
    return _spec(
        "minimizer_rescan_window_u32",
        idiom="(w,k)-minimizers of a 2-bit packed uint sequence, an item per chunk of windows: rolling canonical "
              "codes, invertible masked hash, private ring of w hashes rescanned when the minimum leaves",
        sizes={"B": pow2(15, 25, 2), "W": [10, 28]}, check={"B": 8192, "W": 19},
        args=[Arg("nbases", "scalar", "int32", "B"), Arg("k", "scalar", "int32", str(MM_K)),
              Arg("w", "scalar", "int32", "W"), Arg("chunk", "scalar", "int32", str(MM_CHUNK)),
              Arg("seq", "buffer", "uint32", "B // 16"),
              Arg("min_pos", "buffer", "int32", f"B - {MM_K} - W + 2", "out"),
              Arg("min_hash", "buffer", "uint32", f"B - {MM_K} - W + 2", "out")],
        gsize=[round_up(f"(B - {MM_K} - W + 1) // {MM_CHUNK} + 1")], local=L1, reference=_ref_mm,
        make_inputs=_inputs_mm)


#: this group's builders, in the order of ``specs()``
BUILDERS = (pileup_strand_counts_atomic, fm_backward_occ64_u32, minimizer_rescan_window_u32)

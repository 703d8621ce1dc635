"""Holdout5 kernels: bioinformatics and text processing as application programmers write them: Smith-Waterman
scores of reads against reference windows, 2-bit packing of DNA with an N mask, a Bloom filter of canonical k-mers,
a position-weight-matrix motif scan with the matrices in __local, UTF-8 decoding with validation and the pair-HMM
forward likelihood (fp64). Inputs are built like the data they stand for: reads drawn from their windows with
substitutions and indels, soft-masked genomes with N runs and repeats, planted motifs, mixed-script text with
corrupted strings, and reads simulated from haplotypes at their base qualities."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, pow2, round_up

ACGT = np.frombuffer(b"ACGT", dtype=np.uint8)
COMPLEMENT = np.array([3, 2, 1, 0])
KMER_CHUNK = 64  # k-mer start positions per work-item of kmer_bloom_insert


def _base_codes(seq) -> np.ndarray:
    """0..3 for A, C, G, T in either case, -1 for anything else (N, IUPAC codes, padding)."""
    table = np.full(256, -1, dtype=np.int64)
    for code, ch in enumerate(b"ACGT"):
        table[ch] = table[ch + 32] = code
    return table[np.asarray(seq, dtype=np.uint8)]


def _genome(rng, n: int, lower: float = 0.3, n_runs: float = 0.02) -> np.ndarray:
    """n ASCII bases: GC-poor random sequence with copies of a few repeat elements, soft-masked (lower-case)
    stretches, runs of N and rare IUPAC ambiguity codes."""
    codes = rng.choice(4, n, p=[0.3, 0.2, 0.2, 0.3])
    repeats = [rng.choice(4, int(rng.integers(50, 300))) for _ in range(8)]
    for _ in range(n // 2000):  # ~10% of the bases are copies of eight repeat elements, some mutated
        rep = repeats[int(rng.integers(len(repeats)))].copy()
        rep[rng.random(rep.size) < 0.02] = rng.integers(0, 4)
        at = int(rng.integers(0, max(n - rep.size, 1)))
        codes[at:at + rep.size] = rep[:n - at]
    seq = ACGT[codes]
    block = np.arange(n) // 512
    seq = np.where(rng.random(block[-1] + 1)[block] < lower, seq + 32, seq).astype(np.uint8)  # soft-masked
    seq[rng.random(block[-1] + 1)[block] < n_runs] = ord("N")  # assembly gaps
    iupac = rng.random(n) < 0.001
    seq[iupac] = rng.choice(np.frombuffer(b"RYKMSWN", dtype=np.uint8), int(iupac.sum()))
    return seq


# --- Smith-Waterman (Gotoh affine gaps) of a read against its reference window -----------------------------------
def _inputs_sw(rng, sz):
    """Windows anywhere in a 4n + W base reference; 80% of the reads drawn from their window at a random offset
    with 3% substitutions, a third of those with one insertion or deletion, the rest random (unmapped) reads."""
    n, rlen, wlen = sz["n"], sz["L"], sz["W"]
    ref = ACGT[rng.integers(0, 4, 4 * n + wlen)]
    ref[rng.random(ref.size) < 0.002] = ord("N")
    start = rng.integers(0, 4 * n + 1, n)
    pos = np.arange(rlen)[None, :]
    cut = rng.integers(1, rlen, n)[:, None]
    indel = rng.choice([0, 1, -1], n, p=[0.67, 0.165, 0.165])[:, None]  # 1: deletion from the read, -1: insertion
    offset = rng.integers(1, wlen - rlen, n)[:, None]
    idx = np.clip(offset + pos + np.where(pos >= cut, indel, 0), 0, wlen - 1)
    reads = ref[start[:, None] + idx]
    mutate = rng.random((n, rlen)) < 0.03
    reads = np.where(mutate, ACGT[rng.integers(0, 4, (n, rlen))], reads)
    reads = np.where((rng.random(n) < 0.2)[:, None], ACGT[rng.integers(0, 4, (n, rlen))], reads)
    return {"reads": reads, "ref": ref, "win_start": start}


def _ref_sw(inp, sz):
    n, rlen, wlen = sz["n"], sz["L"], sz["W"]
    match, mismatch, gap_open, gap_ext = (int(inp[k]) for k in ("match", "mismatch", "gap_open", "gap_ext"))
    q = inp["reads"].reshape(n, rlen).astype(np.int64)
    t = inp["ref"].astype(np.int64)[inp["win_start"].astype(np.int64)[:, None] + np.arange(wlen)]
    H = np.zeros((n, wlen + 1), dtype=np.int64)
    E = np.full((n, wlen + 1), -gap_open, dtype=np.int64)
    best, best_j = np.zeros(n, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    for i in range(rlen):
        a = q[:, i]
        diag, F, left = np.zeros(n, dtype=np.int64), np.full(n, -gap_open, dtype=np.int64), np.zeros(n, np.int64)
        for j in range(1, wlen + 1):
            s = np.where((a == t[:, j - 1]) & (a != ord("N")), match, mismatch)
            up = H[:, j].copy()
            E[:, j] = np.maximum(E[:, j] - gap_ext, up - gap_open)
            F = np.maximum(F - gap_ext, left - gap_open)
            h = np.maximum(np.maximum(diag + s, np.maximum(E[:, j], F)), 0)
            diag, H[:, j], left = up, h, h
            better = h > best
            best, best_j = np.where(better, h, best), np.where(better, j - 1, best_j)
    return {"score": best, "end_pos": best_j}


def sw_affine_window() -> KernelSpec:
    return _spec(
        "sw_affine_window", precision="int32",
        idiom="Smith-Waterman read vs reference window per item: Gotoh affine gaps, private H/E rows, best score+end",
        sizes={"n": [128, 512, 2048, 8192, 32768], "L": [32, 100], "W": [128, 256]},
        check={"n": 150, "L": 21, "W": 50}, constraints=["W >= L + 16", "n * L * W <= 2**27"],
        args=[Arg("nreads", "scalar", "int32", "n"), Arg("read_len", "scalar", "int32", "L"),
              Arg("win_len", "scalar", "int32", "W"), Arg("match", "scalar", "int32", "2"),
              Arg("mismatch", "scalar", "int32", "-3"), Arg("gap_open", "scalar", "int32", "5"),
              Arg("gap_ext", "scalar", "int32", "2"), Arg("reads", "buffer", "uint8", "n * L"),
              Arg("ref", "buffer", "uint8", "4 * n + W"), Arg("win_start", "buffer", "int32", "n"),
              Arg("score", "buffer", "int32", "n", "out"), Arg("end_pos", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_sw, make_inputs=_inputs_sw)


# --- 2-bit packing of a DNA sequence with an N mask ----------------------------------------------------------------
def _inputs_pack(rng, sz):
    return {"seq": _genome(rng, sz["n"])}


def _ref_pack(inp, sz):
    n = sz["n"]
    codes = _base_codes(inp["seq"])
    pad = -n % 32
    bits = np.r_[np.where(codes < 0, 0, codes), np.zeros(pad, np.int64)].reshape(-1, 2, 16).astype(np.uint64)
    words = (bits << (30 - 2 * np.arange(16, dtype=np.uint64))).sum(axis=2)  # disjoint bits: sum == or
    flags = np.r_[codes < 0, np.zeros(pad, bool)].reshape(-1, 32).astype(np.uint64)
    mask = (flags << (31 - np.arange(32, dtype=np.uint64))).sum(axis=1)
    return {"packed": words.reshape(-1), "nmask": mask}


def dna_pack_2bit_nmask() -> KernelSpec:
    return _spec(
        "dna_pack_2bit_nmask", precision="uint32",
        idiom="DNA ASCII to 2-bit codes, 32 bases per item: case-folding switch, MSB-first uint words, N bit mask",
        sizes={"n": pow2(12, 26, 2)}, check={"n": 10007},
        args=[Arg("nbases", "scalar", "int32", "n"), Arg("seq", "buffer", "uint8", "n"),
              Arg("packed", "buffer", "uint32", "(n + 31) // 32 * 2", "out"),
              Arg("nmask", "buffer", "uint32", "(n + 31) // 32", "out")],
        gsize=[round_up("(n + 31) // 32")], local=L1, reference=_ref_pack, make_inputs=_inputs_pack)


# --- canonical k-mers into a Bloom filter ------------------------------------------------------------------------
def _inputs_kmer(rng, sz):
    return {"seq": _genome(rng, sz["n"])}


def _fmix64(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xC4CEB9FE1A85EC53)
    return h ^ (h >> np.uint64(33))


def _ref_kmer(inp, sz):
    n, k, nbits, nhash = sz["n"], int(inp["k"]), int(inp["nbits"]), int(inp["nhash"])
    codes = _base_codes(inp["seq"])
    bad = np.r_[0, np.cumsum(codes < 0)]
    starts = np.arange(n - k + 1)
    starts = starts[bad[starts + k] == bad[starts]]  # windows without a non-ACGT base
    fwd, rev = np.zeros(starts.size, np.uint64), np.zeros(starts.size, np.uint64)
    for j in range(k):
        c = codes[starts + j].astype(np.uint64)
        fwd = (fwd << np.uint64(2)) | c
        rev = rev | ((np.uint64(3) - c) << np.uint64(2 * j))
    h = _fmix64(np.minimum(fwd, rev))
    h1, h2 = h & np.uint64(0xFFFFFFFF), (h >> np.uint64(32)) | np.uint64(1)
    bloom = np.zeros((nbits + 31) // 32, dtype=np.uint32)
    for t in range(nhash):
        bit = ((h1 + np.uint64(t) * h2) & np.uint64(0xFFFFFFFF)) % np.uint64(nbits)
        np.bitwise_or.at(bloom, (bit >> np.uint64(5)).astype(np.int64),
                         np.left_shift(np.uint32(1), (bit & np.uint64(31)).astype(np.uint32)))
    return {"bloom": bloom}


def kmer_bloom_insert() -> KernelSpec:
    return _spec(
        "kmer_bloom_insert", precision="uint32",
        idiom="canonical k-mer Bloom insert: rolling ulong fwd/revcomp codes per chunk, fmix64 double hash, atomic_or",
        sizes={"n": pow2(12, 24, 2), "K": [15, 31]}, check={"n": 6000, "K": 21},
        args=[Arg("nbases", "scalar", "int32", "n"), Arg("k", "scalar", "int32", "K"),
              Arg("chunk", "scalar", "int32", str(KMER_CHUNK)), Arg("nbits", "scalar", "uint32", "8 * n"),
              Arg("nhash", "scalar", "int32", "3"), Arg("seq", "buffer", "uint8", "n"),
              Arg("bloom", "buffer", "uint32", "(8 * n + 31) // 32", "out")],
        gsize=[round_up(f"(n - K + {KMER_CHUNK}) // {KMER_CHUNK}")], local=L1, reference=_ref_kmer,
        make_inputs=_inputs_kmer)


# --- position weight matrix scan, both strands, matrices in __local -------------------------------------------
def _inputs_pwm(rng, sz):
    """Log2 odds against a uniform background of Dirichlet(0.4) columns; promoter-like sequences, a third with an
    instance of some motif planted on a random strand, a few N bases."""
    nseq, slen, nmot, width = sz["N"], sz["S"], sz["M"], sz["W"]
    prob = rng.dirichlet(np.full(4, 0.4), (nmot, width))
    pwm = np.log2((prob + 0.01) / 1.04 / 0.25)
    seqs = rng.choice(4, (nseq, slen), p=[0.3, 0.2, 0.2, 0.3])
    hit = np.flatnonzero(rng.random(nseq) < 0.35)
    motif = rng.integers(0, nmot, hit.size)
    site = (rng.random((hit.size, width, 1)) > np.cumsum(prob[motif], axis=2)).sum(axis=2).clip(0, 3)
    site = np.where((rng.random(hit.size) < 0.5)[:, None], COMPLEMENT[site[:, ::-1]], site)  # reverse strand
    at = rng.integers(0, slen - width + 1, hit.size)[:, None] + np.arange(width)
    seqs[hit[:, None], at] = site
    text = ACGT[seqs]
    text = np.where(rng.random((nseq, slen)) < 0.2, text + 32, text).astype(np.uint8)  # soft-masked
    text[rng.random((nseq, slen)) < 0.003] = ord("N")
    return {"seqs": text, "pwm": pwm}


def _ref_pwm(inp, sz):
    nseq, slen, nmot, width = sz["N"], sz["S"], sz["M"], sz["W"]
    codes = _base_codes(inp["seqs"]).reshape(nseq, slen)
    npos = slen - width + 1
    bad = np.c_[np.zeros(nseq, np.int64), np.cumsum(codes < 0, axis=1)]
    valid = bad[:, width:] == bad[:, :npos]
    c = np.where(codes < 0, 0, codes)
    pwm = _f64(inp["pwm"]).reshape(nmot, width, 4)
    best = np.empty((nmot, nseq))
    for m in range(nmot):
        fwd, rc = np.zeros((nseq, npos)), np.zeros((nseq, npos))
        for j in range(width):
            cj = c[:, j:j + npos]
            fwd += pwm[m, j][cj]
            rc += pwm[m, width - 1 - j][3 - cj]
        best[m] = np.where(valid, np.maximum(fwd, rc), -1000.0).max(axis=1)
    return {"best": best}


def pwm_scan_local() -> KernelSpec:
    return _spec(
        "pwm_scan_local", tol=SUMS,
        idiom="PWM motif scan, 2-D (sequence, motif): group's matrices to __local, both strands, N windows skipped",
        sizes={"N": [128, 1024, 8192], "S": [200, 1000], "M": [4, 32], "W": [8, 16]},
        check={"N": 70, "S": 150, "M": 11, "W": 12}, constraints=["N * S * M * W <= 2**27"],
        args=[Arg("nseq", "scalar", "int32", "N"), Arg("seq_len", "scalar", "int32", "S"),
              Arg("nmotif", "scalar", "int32", "M"), Arg("width", "scalar", "int32", "W"),
              Arg("seqs", "buffer", "uint8", "N * S"), Arg("pwm", "buffer", "float32", "M * W * 4"),
              Arg("best", "buffer", "float32", "M * N", "out"), Arg("lpwm", "local", "float32", "l1 * W * 4")],
        gsize=[round_up("N", 64), round_up("M", 8)], local=[[64, 4], [32, 8], [64, 2]], reference=_ref_pwm,
        make_inputs=_inputs_pwm)


# --- UTF-8 decoding and validation of a string column -------------------------------------------------------------
UTF8_BYTES = "n * C + 64"  # the column's byte capacity: strings of up to C code points take ~0.83 C bytes on average
#: ill-formed sequences: overlong 2/3/4-byte forms, a surrogate, above U+10FFFF, truncated 3/4-byte forms
UTF8_BAD = (b"\xc0\xaf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf", b"\xf0\x8f\xbf\xbf", b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xf0\x9f\x98")


def _utf8_encode(cp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised UTF-8 encoding: (bytes, byte length of each code point)."""
    nbytes = (1 + (cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000)).astype(np.int64)
    first = np.cumsum(nbytes) - nbytes
    out = np.zeros(int(nbytes.sum()), dtype=np.uint8)
    out[first] = np.select([nbytes == 1, nbytes == 2, nbytes == 3], [cp, 0xC0 | (cp >> 6), 0xE0 | (cp >> 12)],
                           0xF0 | (cp >> 18))
    for k in range(1, 4):  # continuation byte k of a sequence of length L holds bits 6 * (L - 1 - k)
        has = nbytes > k
        out[first[has] + k] = 0x80 | ((cp[has] >> (6 * (nbytes[has] - 1 - k))) & 0x3F)
    return out, nbytes


def _inputs_utf8(rng, sz):
    """Strings of 0..C code points: 60% ASCII, 20% Latin/Greek/Cyrillic, 15% other BMP (CJK, no surrogates), 5%
    astral (emoji). 8% of the strings have one byte overwritten by a stray continuation, C0/C1, F5..FF, ED, E0 or F4
    byte (most, not all, make the string invalid) and ~8% an ill-formed sequence of UTF8_BAD written over them."""
    n, cmax = sz["n"], sz["C"]
    count = rng.integers(0, cmax + 1, n)
    total = int(count.sum())
    kind = rng.choice(4, total, p=[0.6, 0.2, 0.15, 0.05])
    cp = np.empty(total, dtype=np.int32)
    for k, (lo, hi) in enumerate([(0x20, 0x7F), (0xA0, 0x800), (0x800, 0xF800), (0x10000, 0x110000)]):
        at = np.flatnonzero(kind == k)
        cp[at] = rng.integers(lo, hi, at.size)
    cp = np.where((cp >= 0xD800) & (cp < 0xF800), cp + 0x800, cp)  # BMP draws skip the surrogates
    data, nbytes = _utf8_encode(cp)
    offsets = np.r_[0, np.cumsum(nbytes)][np.r_[0, np.cumsum(count)]]
    capacity = n * cmax + 64
    assert offsets[-1] <= capacity, "UTF-8 column over its capacity"
    length = np.diff(offsets)
    broken = np.flatnonzero((rng.random(n) < 0.08) & (length > 0))  # one byte overwritten
    where = offsets[broken] + (rng.random(broken.size) * length[broken]).astype(np.int64)
    data[where] = rng.choice([0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF, 0xED, 0xE0, 0xF4, 0xC3], broken.size)
    for bad in UTF8_BAD:  # ~1% of the strings each: an ill-formed sequence written over them
        hit = np.flatnonzero((rng.random(n) < 0.01) & (length >= len(bad)))
        where = offsets[hit] + (rng.random(hit.size) * (length[hit] - len(bad) + 1)).astype(np.int64)
        data[where[:, None] + np.arange(len(bad))] = np.frombuffer(bad, dtype=np.uint8)
    return {"offsets": offsets, "bytes": np.r_[data, np.zeros(capacity - data.size, np.uint8)]}


def _ref_utf8(inp, sz):
    n, offsets, data = sz["n"], inp["offsets"].astype(np.int64), inp["bytes"].tobytes()
    cps, ncp = np.zeros(len(data), dtype=np.uint32), np.zeros(n, dtype=np.int64)
    for i in range(n):
        raw = data[offsets[i]:offsets[i + 1]]
        try:
            text = raw.decode("utf-8")
            ncp[i] = len(text)
        except UnicodeDecodeError as err:  # err.start: the first invalid sequence's lead byte, as in the kernel
            text = raw[:err.start].decode("utf-8")
            ncp[i] = -1 - err.start
        cps[offsets[i]:offsets[i] + len(text)] = [ord(ch) for ch in text]
    return {"cps": cps, "ncp": ncp}


def utf8_decode_validate() -> KernelSpec:
    return _spec(
        "utf8_decode_validate", precision="uint32",
        idiom="UTF-8 string column decoded per item: lead-byte branches, overlong/surrogate ranges, first-error offset",
        sizes={"n": pow2(10, 20, 2), "C": [12, 60]}, check={"n": 900, "C": 40},
        args=[Arg("nstr", "scalar", "int32", "n"), Arg("offsets", "buffer", "int32", "n + 1"),
              Arg("bytes", "buffer", "uint8", UTF8_BYTES), Arg("cps", "buffer", "uint32", UTF8_BYTES, "out"),
              Arg("ncp", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_utf8, make_inputs=_inputs_utf8)


# --- pair-HMM forward likelihood, fp64 ------------------------------------------------------------------------------
def _inputs_pairhmm(rng, sz):
    """n // 32 + 1 haplotypes, SNP variants of one random sequence; read p is simulated from a random haplotype
    (not always hap_of[p]) at a random offset, with sequencing errors drawn at its base qualities (phred 10..40);
    insertion and deletion qualities 30..45, a few N bases."""
    n, rlen, hlen = sz["n"], sz["R"], sz["H"]
    nhap = n // 32 + 1
    base = rng.integers(0, 4, hlen)
    haps = np.where(rng.random((nhap, hlen)) < 0.01, rng.integers(0, 4, (nhap, hlen)), base)
    hap_of = rng.integers(0, nhap, n)
    source = np.where(rng.random(n) < 0.7, hap_of, rng.integers(0, nhap, n))
    start = rng.integers(0, hlen - rlen + 1, n)
    reads = haps[source[:, None], start[:, None] + np.arange(rlen)]
    qual = np.clip(rng.normal(32, 6, (n, rlen)), 10, 40).astype(np.int64)
    err = rng.random((n, rlen)) < 10.0 ** (-qual / 10.0)
    reads = np.where(err, (reads + rng.integers(1, 4, (n, rlen))) % 4, reads)
    text = ACGT[reads]
    text[rng.random((n, rlen)) < 0.002] = ord("N")
    return {"reads": text, "base_qual": qual, "ins_qual": rng.integers(30, 46, (n, rlen)),
            "del_qual": rng.integers(30, 46, (n, rlen)), "haps": ACGT[haps], "hap_of": hap_of}


def _ref_pairhmm(inp, sz):
    n, rlen, hlen = sz["n"], sz["R"], sz["H"]
    prob = lambda q: 10.0 ** (-0.1 * _f64(q).reshape(n, rlen))  # noqa: E731
    reads = inp["reads"].reshape(n, rlen)
    hap = inp["haps"].reshape(-1, hlen)[inp["hap_of"].astype(np.int64)]
    err, to_ins, to_del = prob(inp["base_qual"]), prob(inp["ins_qual"]), prob(inp["del_qual"])
    gcp = 10.0 ** (-0.1 * int(inp["gcp_qual"]))
    scale = 2.0**1020
    M, I, D = np.zeros((n, hlen + 1)), np.zeros((n, hlen + 1)), np.full((n, hlen + 1), scale / hlen)
    N = ord("N")
    for i in range(rlen):
        b = reads[:, i]
        stay, back = 1.0 - (to_ins[:, i] + to_del[:, i]), 1.0 - gcp
        prior = np.where((b[:, None] == hap) | (b[:, None] == N) | (hap == N), (1.0 - err[:, i])[:, None],
                         (err[:, i] / 3.0)[:, None])
        newM = np.zeros_like(M)
        newM[:, 1:] = prior * (M[:, :-1] * stay[:, None] + (I[:, :-1] + D[:, :-1]) * back)
        newI = np.zeros_like(I)
        newI[:, 1:] = M[:, 1:] * to_ins[:, i, None] + I[:, 1:] * gcp
        newD = np.zeros_like(D)
        for j in range(1, hlen + 1):  # the deletion state runs along the row
            newD[:, j] = newM[:, j - 1] * to_del[:, i] + newD[:, j - 1] * gcp
        M, I, D = newM, newI, newD
    total = np.zeros(n)
    for j in range(1, hlen + 1):  # the kernel's summation order
        total += M[:, j] + I[:, j]
    return {"loglik": np.log10(total) - np.log10(scale)}


def pairhmm_forward_fp64() -> KernelSpec:
    return _spec(
        "pairhmm_forward_fp64", precision="fp64", tol=FP64,
        idiom="pair-HMM forward per read/haplotype: phred pow10 transitions, private M/I/D rows, 2^1020 scale, fp64",
        sizes={"n": [256, 1024, 4096, 16384, 65536], "R": [36, 100], "H": [128, 256]},
        check={"n": 120, "R": 17, "H": 40}, constraints=["n * R * H <= 2**28"],
        args=[Arg("npairs", "scalar", "int32", "n"), Arg("read_len", "scalar", "int32", "R"),
              Arg("hap_len", "scalar", "int32", "H"), Arg("gcp_qual", "scalar", "int32", "10"),
              *(Arg(a, "buffer", "uint8", "n * R") for a in ("reads", "base_qual", "ins_qual", "del_qual")),
              Arg("haps", "buffer", "uint8", "(n // 32 + 1) * H"), Arg("hap_of", "buffer", "int32", "n"),
              Arg("loglik", "buffer", "float64", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_pairhmm, make_inputs=_inputs_pairhmm)


#: this group's builders, in the order of ``specs()``
BUILDERS = (sw_affine_window, dna_pack_2bit_nmask, kmer_bloom_insert, pwm_scan_local, utf8_decode_validate,
            pairhmm_forward_fp64)

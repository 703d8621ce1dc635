"""Holdout6 kernels: hashing, ciphers, checksums and compression as application programmers write them: ChaCha20
over a batch of packets on a 2-D (packet, block) NDRange, SHA-256 of variable-length records padded in the kernel,
Adler-32 of records by a work-group each with the partial sums merged in __local memory, an LZ77 longest-match
search over a sliding window, delta + varint decoding of sorted integer blocks with validation, and the
compressed size of byte blocks under an LZMA-style adaptive bit-tree model, in fp64. The one kernel with atomics
(the varint decoder) uses integer atomic_inc and atomic_min for its error report, so no output depends on the
work-items' order."""
from __future__ import annotations

import hashlib
import zlib

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _spec, pow2, round_up

CHACHA_SIGMA = np.frombuffer(b"expand 32-byte k", dtype="<u4")
NKEYS = 256  # chacha20_packet_xor_2d: session keys in the key table
VARINT_BLOCK = 128  # varint_delta_block_decode: values a block
INT_MAX = 2**31 - 1
PROB_ONE, MOVE_BITS = 2048, 5  # rc_bittree_cost_fp64: 11-bit probabilities, adaptation shift


# --- ChaCha20 over a batch of packets, 2-D (packet, block) ----------------------------------------------------------
def _rotl(v, n):
    return (v << np.uint32(n)) | (v >> np.uint32(32 - n))


def _chacha_block(state: np.ndarray, rounds: int) -> np.ndarray:
    """ChaCha's block function on rows of 16 uint32 words: the rounds plus the input state (RFC 8439 2.3)."""
    x = [state[:, k].copy() for k in range(16)]

    def qr(a, b, c, d):
        x[a] += x[b]
        x[d] = _rotl(x[d] ^ x[a], 16)
        x[c] += x[d]
        x[b] = _rotl(x[b] ^ x[c], 12)
        x[a] += x[b]
        x[d] = _rotl(x[d] ^ x[a], 8)
        x[c] += x[d]
        x[b] = _rotl(x[b] ^ x[c], 7)

    for _ in range(rounds // 2):
        qr(0, 4, 8, 12), qr(1, 5, 9, 13), qr(2, 6, 10, 14), qr(3, 7, 11, 15)
        qr(0, 5, 10, 15), qr(1, 6, 11, 12), qr(2, 7, 8, 13), qr(3, 4, 9, 14)
    return np.stack(x, axis=1) + state


def _inputs_chacha(rng, sz):
    """IMIX-like packet lengths in bytes: 40% short (20 .. 128 bytes, TCP ACKs and DNS), 40% full slots, the rest
    uniform in 1 .. 64 B; random session keys, key indices and nonces; plaintext zero past each packet's end."""
    p, b = sz["P"], sz["B"]
    cap = 64 * b
    kind = rng.choice(3, p, p=[0.4, 0.4, 0.2])
    length = np.choose(kind, [rng.integers(20, min(128, cap) + 1, p), np.full(p, cap), rng.integers(1, cap + 1, p)])
    plain = rng.integers(0, 256, (p, cap), dtype=np.uint8)
    plain[np.arange(cap)[None, :] >= length[:, None]] = 0
    return {"keys": rng.integers(0, 2**32, 8 * NKEYS, dtype=np.uint64).astype(np.uint32),
            "key_index": rng.integers(0, NKEYS, p), "length": length,
            "nonces": rng.integers(0, 2**32, 3 * p, dtype=np.uint64).astype(np.uint32),
            "plain": plain.reshape(-1).view("<u4")}


def _ref_chacha(inp, sz):
    p, b = sz["P"], sz["B"]
    state = np.empty((p, b, 16), dtype=np.uint32)
    state[..., :4] = CHACHA_SIGMA
    state[..., 4:12] = inp["keys"].reshape(-1, 8)[inp["key_index"].astype(np.int64)][:, None, :]
    state[..., 12] = ((int(inp["counter0"]) + np.arange(b)) % 2**32).astype(np.uint32)[None, :]
    state[..., 13:] = inp["nonces"].reshape(p, 1, 3)
    ks = _chacha_block(state.reshape(-1, 16), int(inp["rounds"])).astype("<u4").view(np.uint8).reshape(p, 64 * b)
    ks = np.where(np.arange(64 * b)[None, :] < inp["length"].astype(np.int64)[:, None], ks, 0).astype(np.uint8)
    plain = np.asarray(inp["plain"], dtype="<u4").view(np.uint8).reshape(p, 64 * b)
    return {"cipher": (plain ^ ks).reshape(-1).view("<u4")}


def chacha20_packet_xor_2d() -> KernelSpec:
    return _spec(
        "chacha20_packet_xor_2d", precision="uint32",
        idiom="ChaCha20 packets, 2-D (packet, block): key-table gather, nonce, ARX quarter-round macros, tail mask",
        sizes={"P": pow2(8, 18, 2), "B": [4, 24, 256]}, check={"P": 100, "B": 4},
        constraints=["P * B <= 2**21"],
        args=[Arg("npackets", "scalar", "int32", "P"), Arg("max_blocks", "scalar", "int32", "B"),
              Arg("rounds", "scalar", "int32", "20"), Arg("counter0", "scalar", "uint32", "1"),
              Arg("keys", "buffer", "uint32", f"8 * {NKEYS}"), Arg("key_index", "buffer", "int32", "P"),
              Arg("nonces", "buffer", "uint32", "3 * P"), Arg("length", "buffer", "int32", "P"),
              Arg("plain", "buffer", "uint32", "16 * P * B"), Arg("cipher", "buffer", "uint32", "16 * P * B", "out")],
        gsize=[round_up("P", 128), "B"], local=[[64, 4], [128, 2], [32, 8]], reference=_ref_chacha,
        make_inputs=_inputs_chacha)


# --- SHA-256 of variable-length records, padding in the kernel ------------------------------------------------------
def _record_offsets(lens: np.ndarray, capacity: int) -> np.ndarray:
    """The offsets of records of these lengths (one more than records), the last ones cut to fit ``capacity``."""
    return np.r_[0, np.minimum(np.cumsum(lens), capacity)]


def _inputs_sha(rng, sz):
    """Lengths uniform in 0 .. 2L bytes, a fifth of them at the padding's edge cases (a multiple of 64 plus 0, 55,
    56 or 63 bytes); the last records are cut to fit n * L bytes. Random bytes."""
    n, length = sz["n"], sz["L"]
    lens = rng.integers(0, 2 * length + 1, n)
    edge = rng.random(n) < 0.2
    k = int(edge.sum())
    lens[edge] = 64 * rng.integers(0, 2 * length // 64 + 1, k) + rng.choice([0, 55, 56, 63], k)
    return {"offsets": _record_offsets(lens, n * length), "data": rng.integers(0, 256, n * length, np.uint8)}


def _ref_sha(inp, sz):
    off, data = inp["offsets"].astype(np.int64), inp["data"].tobytes()
    out = [np.frombuffer(hashlib.sha256(data[a:b]).digest(), dtype=">u4") for a, b in zip(off[:-1], off[1:])]
    return {"digest": np.concatenate(out).astype(np.uint32)}


def sha256_record_digest() -> KernelSpec:
    return _spec(
        "sha256_record_digest", precision="uint32",
        idiom="SHA-256 per variable-length record: big-endian word loads, __constant K, byte-wise tail padding",
        sizes={"n": pow2(8, 18, 2), "L": [32, 512, 4096]}, check={"n": 600, "L": 100},
        constraints=["n * L <= 2**25"],
        args=[Arg("nrec", "scalar", "int32", "n"), Arg("offsets", "buffer", "int32", "n + 1"),
              Arg("data", "buffer", "uint8", "n * L"), Arg("digest", "buffer", "uint32", "8 * n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_sha, make_inputs=_inputs_sha)


# --- Adler-32 of records, a work-group per record, chunk sums merged in __local -------------------------------------
def _inputs_adler(rng, sz):
    """Log-normal record lengths (median 0.6 L, mean L, a long tail of records tens of times longer); the last
    records are cut (some to nothing) to fit R * L bytes. Random bytes, so the sums are near their largest."""
    r, length = sz["R"], sz["L"]
    lens = (length * rng.lognormal(-0.5, 1.0, r)).astype(np.int64)
    return {"offsets": _record_offsets(lens, r * length), "data": rng.integers(0, 256, r * length, np.uint8)}


def _ref_adler(inp, sz):
    off, data = inp["offsets"].astype(np.int64), inp["data"].tobytes()
    return {"checksum": np.array([zlib.adler32(data[a:b]) for a, b in zip(off[:-1], off[1:])], dtype=np.uint32)}


def adler32_group_combine() -> KernelSpec:
    return _spec(
        "adler32_group_combine", precision="uint32",
        idiom="Adler-32 a record per work-group: NMAX-deferred chunk sums, adler32_combine doubling tree in __local",
        sizes={"R": pow2(4, 14, 2), "L": [1024, 16384, 262144]}, check={"R": 40, "L": 3000},
        constraints=["R * L <= 2**27"],
        args=[Arg("nrec", "scalar", "int32", "R"), Arg("offsets", "buffer", "int32", "R + 1"),
              Arg("data", "buffer", "uint8", "R * L"), Arg("checksum", "buffer", "uint32", "R", "out"),
              Arg("part_a", "local", "uint32", "l0"), Arg("part_b", "local", "uint32", "l0"),
              Arg("part_n", "local", "int32", "l0")],
        gsize=[round_up("min(R * 64, 2**16)")], local=L1, reference=_ref_adler, make_inputs=_inputs_adler)


# --- LZ77 longest match in a sliding window -------------------------------------------------------------------------
_VOCAB = ("the of and to in is that for it as was with be by on not he this are or his from at which but have an "
          "they you were her she there one all their we been has when who will more no if out so said what up its "
          "about into than them can only other new some could time these two may then do first any my now such like "
          "our over man me even most made after also did many before must through back years where much your way "
          "well down should because each just those people how too little state good very make world still own see "
          "men work long get here between both life being under never day same another know while last might us "
          "great old year off come since against go came right used take three compression dictionary window").split()


def _text_bytes(rng, n: int) -> np.ndarray:
    """n bytes of English-like text (Zipf-distributed words, spaces, some punctuation and newlines) with ~2% of
    it in verbatim copies of earlier passages (8 .. 400 bytes, from up to 40 KB back) and a few runs of one byte."""
    words = [w.encode() for w in _VOCAB]
    rank = (rng.zipf(1.2, n // 2 + 16) - 1) % len(words)
    sep = rng.choice(np.frombuffer(b"      ,.\n", dtype=np.uint8), rank.size)
    lens = np.array([len(w) for w in words])[rank] + 1
    flat = np.frombuffer(b"".join(words), dtype=np.uint8)
    starts = np.r_[0, np.cumsum([len(w) for w in words])][rank]
    pos = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)  # offset within its word + sep
    word_of = np.repeat(np.arange(rank.size), lens)
    text = np.where(pos < lens[word_of] - 1, flat[np.minimum(starts[word_of] + pos, flat.size - 1)], sep[word_of])
    while text.size < n:
        text = np.r_[text, text[: n - text.size]]
    text = text[:n].astype(np.uint8)
    for _ in range(max(1, n // 10000) if n >= 64 else 0):
        size = min(int(rng.integers(8, 401)), n // 4)
        dst = int(rng.integers(size, n - size + 1))
        src = dst - int(rng.integers(1, min(dst, 40000) + 1))
        text[dst:dst + size] = text[src:src + size]  # a copy of an earlier passage (overlapping copies repeat)
    for _ in range(max(1, n // 50000) if n >= 64 else 0):
        at = int(rng.integers(0, n))
        text[at:at + int(rng.integers(4, 300))] = rng.choice(np.frombuffer(b" -=0", dtype=np.uint8))
    return text


def _inputs_lz77(rng, sz):
    return {"data": _text_bytes(rng, sz["n"])}


def _ref_lz77(inp, sz):
    data = inp["data"].astype(np.int64)
    n, window, max_len, min_len = data.size, int(inp["window"]), int(inp["max_len"]), int(inp["min_len"])
    limit = np.minimum(max_len, n - np.arange(n))
    best_len, best_dist = np.zeros(n, np.int64), np.zeros(n, np.int64)
    idx = np.arange(n)
    for d in range(1, min(window, n - 1) + 1):
        eq = np.zeros(n + 1, dtype=bool)
        eq[d:n] = data[d:] == data[:-d]  # eq[i]: data[i] == data[i - d]
        nxt = np.where(~eq, np.arange(n + 1), n + 1)
        nxt = np.minimum.accumulate(nxt[::-1])[::-1][:n]  # first mismatch at or after i
        run = np.minimum(nxt - idx, limit)
        better = (run > best_len) & (idx >= d)
        best_len[better], best_dist[better] = run[better], d
    short = best_len < min_len
    return {"match_len": np.where(short, 0, best_len), "match_dist": np.where(short, 0, best_dist)}


def lz77_longest_match_window() -> KernelSpec:
    return _spec(
        "lz77_longest_match_window", precision="uint8",
        idiom="LZ77 match finder per position: scan back over the window, zlib early reject at best_len, stop at max",
        sizes={"n": pow2(12, 22, 2), "W": [256, 4096, 32768]}, check={"n": 5000, "W": 300},
        constraints=["n * W <= 2**28"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("window", "scalar", "int32", "W"),
              Arg("max_len", "scalar", "int32", "258"), Arg("min_len", "scalar", "int32", "3"),
              Arg("data", "buffer", "uint8", "n"), Arg("match_len", "buffer", "int32", "n", "out"),
              Arg("match_dist", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_lz77, make_inputs=_inputs_lz77)


# --- delta + varint decoding of sorted blocks, with validation and an atomic error report -------------------------
_VARINT_BYTES = "n * (1 + (G > 100) + (G > 10000)) + 64"  # capacity: the mean gap's varint size, 1 to 3 bytes a value


def _inputs_varint(rng, sz):
    """A sorted column (exponential gaps of mean G, ties where a gap rounds to 0) cut into blocks of 128 values,
    each stored as its first value and the varint-coded gaps. About 2% of the blocks (at least one) are corrupt:
    a continuation bit set on the block's last byte, a varint's last byte overwritten by 0xFF (merging it
    with the next) or a continuation bit cleared (splitting a varint in two)."""
    n, gap = sz["n"], sz["G"]
    vals = (int(rng.integers(0, gap + 1)) + np.cumsum(np.floor(rng.exponential(gap, n)).astype(np.int64)))
    vals = (vals % 2**32).astype(np.uint32)
    nblocks = -(-n // VARINT_BLOCK)
    first = np.arange(nblocks) * VARINT_BLOCK
    gaps = (np.diff(vals.astype(np.int64)) % 2**32)
    gaps = np.delete(gaps, first[1:] - 1)  # gaps within blocks only
    nbytes = 1 + sum((gaps >= 1 << (7 * k)).astype(np.int64) for k in range(1, 5))
    start = np.r_[0, np.cumsum(nbytes)]
    capacity = n * (1 + (gap > 100) + (gap > 10000)) + 64
    assert start[-1] <= capacity, "varint column over its capacity"
    out = np.zeros(capacity, dtype=np.uint8)
    for k in range(5):
        sel = nbytes > k
        out[start[:-1][sel] + k] = ((gaps[sel] >> (7 * k)) & 0x7F) | np.where(nbytes[sel] > k + 1, 0x80, 0)
    counts = np.minimum(VARINT_BLOCK, n - first)
    block_off = start[np.r_[0, np.cumsum(counts - 1)]]
    lo, hi = block_off[:-1], block_off[1:]
    cand = np.flatnonzero(hi > lo)
    bad = cand[rng.random(cand.size) < 0.02]
    if bad.size == 0:
        bad = cand[[int(rng.integers(0, cand.size))]]
    for b in bad:
        how = int(rng.integers(0, 3))
        cont = lo[b] + np.flatnonzero(out[lo[b]:hi[b]] & 0x80)
        if how == 0 or (how == 2 and cont.size == 0):
            out[hi[b] - 1] |= 0x80  # the last varint runs past the block
        elif how == 1:
            ends = lo[b] + np.flatnonzero((out[lo[b]:hi[b]] & 0x80) == 0)
            out[ends[int(rng.integers(0, ends.size))]] = 0xFF  # a varint merged into the next one
        else:
            out[cont[int(rng.integers(0, cont.size))]] &= 0x7F  # a varint split in two
    return {"block_base": vals[first], "block_off": block_off, "bytes": out,
            "first_bad": np.array([INT_MAX], dtype=np.int32)}


def _ref_varint(inp, sz):
    n, blen = sz["n"], int(inp["block_len"])
    data, off, base = inp["bytes"].tolist(), inp["block_off"].tolist(), inp["block_base"].tolist()
    values = np.zeros(n, dtype=np.uint32)
    bad_blocks = []
    for b in range(len(base)):
        first, count = b * blen, min(blen, n - b * blen)
        p, end, v = off[b], off[b + 1], base[b]
        decoded, bad = [v], False
        for _ in range(1, count):
            gap, shift = 0, 0
            while True:
                if p >= end or shift > 28:
                    bad = True
                    break
                byte = data[p]
                p += 1
                if shift == 28 and byte & 0x70:
                    bad = True
                    break
                gap |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
            if bad:
                break
            v = (v + gap) & 0xFFFFFFFF
            decoded.append(v)
        values[first:first + len(decoded)] = decoded
        if bad or p != end:
            bad_blocks.append(b)
    return {"values": values, "first_bad": np.array([min(bad_blocks, default=INT_MAX)]),
            "nbad": np.array([len(bad_blocks)])}


def varint_delta_block_decode() -> KernelSpec:
    return _spec(
        "varint_delta_block_decode", precision="uint32",
        idiom="delta + LEB128 varint block decode, a block per item: validation, atomic_inc count, atomic_min first",
        sizes={"n": pow2(14, 24, 2), "G": [3, 300, 20000]}, check={"n": 20000, "G": 300},
        constraints=["n * G <= 2**31"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("block_len", "scalar", "int32", str(VARINT_BLOCK)),
              Arg("block_base", "buffer", "uint32", f"(n + {VARINT_BLOCK - 1}) // {VARINT_BLOCK}"),
              Arg("block_off", "buffer", "int32", f"(n + {VARINT_BLOCK - 1}) // {VARINT_BLOCK} + 1"),
              Arg("bytes", "buffer", "uint8", _VARINT_BYTES), Arg("values", "buffer", "uint32", "n", "out"),
              Arg("first_bad", "buffer", "int32", "1", "inout"), Arg("nbad", "buffer", "int32", "1", "out")],
        gsize=[round_up(f"(n + {VARINT_BLOCK - 1}) // {VARINT_BLOCK}")], local=L1, reference=_ref_varint,
        make_inputs=_inputs_varint)


# --- compressed size under an LZMA-style adaptive bit-tree model, fp64 ----------------------------------------------
def _inputs_rc(rng, sz):
    """A byte stream of segments (geometric lengths, mean two blocks) of five kinds: English-like text, random
    bytes (already compressed), sparse binary (mostly zeros), DNA letters, and little-endian int16 samples of a
    slow wave with noise, so blocks range from very compressible to not at all."""
    total = sz["N"] * sz["B"]
    out = np.empty(total, dtype=np.uint8)
    pos = 0
    while pos < total:
        size = min(int(rng.geometric(1.0 / (2 * sz["B"]))), total - pos)
        kind = int(rng.integers(0, 5))
        if kind == 0:
            seg = _text_bytes(rng, size)
        elif kind == 1:
            seg = rng.integers(0, 256, size, dtype=np.uint8)
        elif kind == 2:
            seg = np.where(rng.random(size) < 0.05, rng.integers(1, 256, size), 0).astype(np.uint8)
        elif kind == 3:
            seg = np.frombuffer(b"ACGT", dtype=np.uint8)[rng.integers(0, 4, size)]
        else:
            t = np.arange((size + 1) // 2)
            wave = 8000 * np.sin(t * rng.uniform(0.001, 0.05)) + rng.normal(0, 200, t.size)
            seg = wave.astype("<i2").view(np.uint8)[:size]
        out[pos:pos + size] = seg
        pos += size
    return {"data": out}


def _ref_rc(inp, sz):
    nb, blen = sz["N"], sz["B"]
    data = inp["data"].reshape(nb, blen).astype(np.int64)
    prob = np.full((nb, 512), PROB_ONE // 2, dtype=np.int64)
    cost = np.zeros(nb)
    rows, prev = np.arange(nb), np.zeros(nb, np.int64)
    for pos in range(blen):
        c = data[:, pos]
        tree = (prev >> 7) * 256
        node = np.ones(nb, np.int64)
        for bit in range(7, -1, -1):
            b = (c >> bit) & 1
            p0 = prob[rows, tree + node]
            cost -= np.where(b == 0, np.log2(p0 / PROB_ONE), np.log2((PROB_ONE - p0) / PROB_ONE))
            prob[rows, tree + node] = np.where(b == 0, p0 + ((PROB_ONE - p0) >> MOVE_BITS), p0 - (p0 >> MOVE_BITS))
            node = (node << 1) | b
        prev = c
    return {"cost_bits": cost}


def rc_bittree_cost_fp64() -> KernelSpec:
    return _spec(
        "rc_bittree_cost_fp64", precision="fp64", tol=FP64,
        idiom="range-coder size estimate per block: LZMA bit tree, 11-bit adaptive probs in private ushort, fp64 log2",
        sizes={"N": pow2(5, 12), "B": [256, 4096]}, check={"N": 50, "B": 256},
        constraints=["N * B <= 2**20"],
        args=[Arg("nblocks", "scalar", "int32", "N"), Arg("block_len", "scalar", "int32", "B"),
              Arg("data", "buffer", "uint8", "N * B"), Arg("cost_bits", "buffer", "float64", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_rc, make_inputs=_inputs_rc)


#: this group's builders, in the order of ``specs()``
BUILDERS = (chacha20_packet_xor_2d, sha256_record_digest, adler32_group_combine, lz77_longest_match_window,
            varint_delta_block_decode, rc_bittree_cost_fp64)

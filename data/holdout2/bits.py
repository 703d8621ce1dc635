"""Holdout2 kernels: bit manipulation, checksums, 64-bit hashing and byte-string search."""
from __future__ import annotations

import zlib

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, _spec, pow2, round_up


def _popcount64(x: np.ndarray) -> np.ndarray:
    """Set bits of every uint64 (byte view, unpacked)."""
    as_bytes = np.ascontiguousarray(x).view(np.uint8).reshape(*x.shape, 8)
    return np.unpackbits(as_bytes, axis=-1).sum(axis=-1)


def _inputs_bits(rng, sz):
    return {"query": rng.integers(0, 2**64, sz["W"], dtype=np.uint64, endpoint=False),
            "db": rng.integers(0, 2**64, sz["N"] * sz["W"], dtype=np.uint64, endpoint=False)}


def _ref_hamming(inp, sz):
    db = inp["db"].reshape(sz["N"], sz["W"])
    return {"dist": _popcount64(db ^ inp["query"][None, :]).sum(axis=1)}


def hamming_popcount_ulong() -> KernelSpec:
    return _spec(
        "hamming_popcount_ulong", precision="uint64", idiom="Hamming distances: ulong XOR + popcount, word loop, size_t index",
        sizes={"N": pow2(10, 22, 2), "W": [1, 4, 16, 64]}, check={"N": 1000, "W": 5}, constraints=["N * W <= 2**24"],
        args=[Arg("nrows", "scalar", "int32", "N"), Arg("nwords", "scalar", "int32", "W"),
              Arg("query", "buffer", "uint64", "W"), Arg("db", "buffer", "uint64", "N * W"),
              Arg("dist", "buffer", "uint32", "N", "out")],
        gsize=[round_up("N")], local=[[256], [64]], reference=_ref_hamming, make_inputs=_inputs_bits)


def _inputs_msgs(rng, sz):
    return {"msgs": rng.integers(0, 256, sz["M"] * sz["L"], dtype=np.uint8)}


def _ref_crc(inp, sz):
    msgs = inp["msgs"].reshape(sz["M"], sz["L"])
    return {"crc": np.array([zlib.crc32(row.tobytes()) for row in msgs], dtype=np.uint32)}


def crc32_bitwise() -> KernelSpec:
    return _spec(
        "crc32_bitwise", precision="uint32", idiom="bitwise CRC-32 per message: byte loop x 8 shift/xor steps",
        sizes={"M": [64, 1024, 16384, 262144], "L": [16, 256, 4096, 65536, 2**20]}, check={"M": 200, "L": 37},
        constraints=["M * L <= 2**26"],
        args=[Arg("nmsg", "scalar", "int32", "M"), Arg("msg_len", "scalar", "int32", "L"),
              Arg("msgs", "buffer", "uint8", "M * L"), Arg("crc", "buffer", "uint32", "M", "out")],
        gsize=[round_up("M")], local=[[256], [64]], reference=_ref_crc, make_inputs=_inputs_msgs)


def _inputs_keys(rng, sz):
    return {"keys": rng.integers(0, 2**64, sz["n"], dtype=np.uint64, endpoint=False)}


def _ref_splitmix(inp, sz):
    with np.errstate(over="ignore"):
        z = inp["keys"] + np.uint64(inp["seed"]) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return {"hashes": z, "bucket": (z % np.uint64(inp["nbuckets"])).astype(np.uint32)}


def splitmix64_bucket() -> KernelSpec:
    return _spec(
        "splitmix64_bucket", precision="uint64", idiom="splitmix64 finaliser on ulong keys, 64-bit multiply and modulo",
        sizes={"n": pow2(10, 24, 2)}, check={"n": 3000},
        args=[Arg("n", "scalar", "int32", "n"), Arg("seed", "scalar", "uint64", "1234567"),
              Arg("nbuckets", "scalar", "uint32", "1000003"), Arg("keys", "buffer", "uint64", "n"),
              Arg("hashes", "buffer", "uint64", "n", "out"), Arg("bucket", "buffer", "uint32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_splitmix, make_inputs=_inputs_keys)


def _inputs_text(rng, sz):
    n, p = sz["n"], sz["P"]
    text = np.where(rng.random(n) < 0.9, ord("a"), ord("b")).astype(np.uint8)  # long runs of 'a'
    pattern = np.full(p, ord("a"), dtype=np.uint8)
    pattern[-1] = ord("b")
    return {"text": text, "pattern": pattern}


def _ref_match(inp, sz):
    n, p = sz["n"], sz["P"]
    text, pattern = inp["text"], inp["pattern"]
    hit = np.zeros(n, dtype=np.uint8)
    if n >= p:
        windows = np.lib.stride_tricks.sliding_window_view(text, p)
        hit[:n - p + 1] = (windows == pattern[None, :]).all(axis=1)
    return {"hit": hit, "count": np.array([hit.sum()])}


def pattern_match_uchar() -> KernelSpec:
    return _spec(
        "pattern_match_uchar", precision="uint8", idiom="naive substring search: early-exit while, atomic_inc of matches",
        sizes={"n": pow2(12, 24, 2), "P": [8, 64]}, check={"n": 5000, "P": 6},
        args=[Arg("text_len", "scalar", "int32", "n"), Arg("pat_len", "scalar", "int32", "P"),
              Arg("text", "buffer", "uint8", "n"), Arg("pattern", "buffer", "uint8", "P"),
              Arg("hit", "buffer", "uint8", "n", "out"), Arg("count", "buffer", "uint32", "1", "out")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_match, make_inputs=_inputs_text)

"""Holdout14 kernels, group comms, continued (written by hand; see docs/HOLDOUT14.md): the CRC check of decoded
LDPC code blocks, a work-item per code block running the byte-wise CRC24B over its big-endian uint32 words with
the 256-entry table copied into __local memory behind a barrier, a partial last word handled byte by byte, the
remainder stored and every failed block counted into its transport block with an integer atomic_inc; and the
descrambling and HARQ soft combining of received codewords, a work-item per variable-length codeword stepping
the two 31-bit shift registers of the NR Gold sequence (seeded by the codeword's c_init) through the 1600
warm-up steps and along its LLRs, flipping their signs, and overwriting (new data) or adding to (retransmission)
its HARQ buffer with saturation. Split from :mod:`.comms` to keep each module short; :mod:`.catalog` lists it
after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, _f64, _spec, round_up

CRC24B = 0x800063  # crc24b_cb_table_local_atomic: generator polynomial (x^24 + x^23 + x^6 + x^5 + x + 1)
CB_PER_TB = 8  # crc24b_cb_table_local_atomic: code blocks of a transport block, 1 .. 8
BAD = 0.1  # crc24b_cb_table_local_atomic: share of code blocks with a bit error

NC = 1600  # nr_gold_descramble_harq: Gold sequence warm-up (TS 38.211 Nc)
CLIP = 16.0  # nr_gold_descramble_harq: HARQ buffer saturation


# --- CRC24B check of code blocks, table in __local, failures counted per transport block ------------------------
def _crc_table():
    tab = np.zeros(256, dtype=np.int64)
    for i in range(256):
        c = i << 16
        for _ in range(8):
            c = ((c << 1) ^ CRC24B) if c & 0x800000 else (c << 1)
        tab[i] = c & 0xFFFFFF
    return tab


def _crc_bytes(tab, byts, nbytes):
    """CRC24B of each row of byts over its first nbytes (vectorised over rows)."""
    crc = np.zeros(byts.shape[0], dtype=np.int64)
    for j in range(int(nbytes.max(initial=0))):
        on = j < nbytes
        new = ((crc << 8) & 0xFFFFFF) ^ tab[((crc >> 16) ^ byts[:, j]) & 0xFF]
        crc = np.where(on, new, crc)
    return crc


def _inputs_crc(rng, sz):
    """B code blocks in transport blocks of 1 .. CB_PER_TB blocks, a transport block's blocks all K / 2 .. K
    bytes (CRC included); random payloads with their CRC24B appended, then one bit flipped in a BAD share."""
    nb, k = sz["B"], sz["K"]
    ntb_blk = rng.integers(1, CB_PER_TB + 1, nb)
    tb = np.repeat(np.arange(nb), ntb_blk)[:nb]
    nbytes = rng.integers(k // 2, k + 1, nb)[tb]
    tab = _crc_table()
    byts = rng.integers(0, 256, (nb, 4 * (k // 4 + 1)), dtype=np.uint8)
    crc = _crc_bytes(tab, byts, nbytes - 3)
    rows = np.arange(nb)
    for s in range(3):
        byts[rows, nbytes - 3 + s] = ((crc >> (16 - 8 * s)) & 0xFF).astype(np.uint8)
    bad = np.flatnonzero(rng.random(nb) < BAD)
    pos = (rng.random(bad.size) * nbytes[bad]).astype(np.int64)
    byts[bad, pos] ^= (1 << rng.integers(0, 8, bad.size)).astype(np.uint8)
    nwords = (nbytes + 3) // 4
    start = np.zeros(nb + 1, dtype=np.int64)
    np.cumsum(nwords, out=start[1:])
    words = byts.view(">u4").astype(np.uint32)  # big-endian: byte 0 in the top bits
    keep = np.arange(words.shape[1])[None, :] < nwords[:, None]
    data = np.zeros(nb * (k // 4 + 1), dtype=np.uint32)
    data[:start[-1]] = words[keep]
    return {"crc_table": tab.astype(np.uint32), "blk_start": start[:-1], "blk_bytes": nbytes, "blk_tb": tb,
            "data": data}


def _ref_crc(inp, sz):
    nb = int(inp["nblk"])
    tab = np.asarray(inp["crc_table"]).astype(np.int64)
    start = np.asarray(inp["blk_start"]).astype(np.int64)[:nb]
    nbytes = np.asarray(inp["blk_bytes"]).astype(np.int64)[:nb]
    data = np.asarray(inp["data"]).astype(np.int64)
    j = np.arange(int(nbytes.max()))
    w = data[np.minimum(start[:, None] + j[None, :] // 4, data.size - 1)]
    byts = (w >> (24 - 8 * (j[None, :] % 4))) & 0xFF
    rem = _crc_bytes(tab, byts, nbytes)
    tb = np.asarray(inp["blk_tb"]).astype(np.int64)[:nb]
    fail = np.bincount(tb[rem != 0], minlength=np.asarray(inp["blk_tb"]).size)
    return {"blk_rem": rem, "tb_fail": fail}


def crc24b_cb_table_local_atomic() -> KernelSpec:
    return _spec(
        "crc24b_cb_table_local_atomic",
        idiom="CRC24B check per LDPC code block: 256-entry table to __local behind a barrier, byte-wise table "
              "steps over big-endian uint32 words, partial tail word, atomic_inc of failures per transport block",
        sizes={"B": [256, 1024, 4096, 16384, 65536], "K": [132, 1056]}, check={"B": 70, "K": 53},
        args=[Arg("nblk", "scalar", "int32", "B"), Arg("crc_table", "buffer", "uint32", "256"),
              Arg("blk_start", "buffer", "int32", "B"), Arg("blk_bytes", "buffer", "int32", "B"),
              Arg("blk_tb", "buffer", "int32", "B"), Arg("data", "buffer", "uint32", "B * (K // 4 + 1)"),
              Arg("blk_rem", "buffer", "uint32", "B", "out"), Arg("tb_fail", "buffer", "uint32", "B", "out"),
              Arg("tab", "local", "uint32", "256")],
        gsize=[round_up("B")], local=L1, reference=_ref_crc, make_inputs=_inputs_crc)


# --- NR Gold-sequence descrambling and HARQ chase combining, a codeword per item --------------------------------
def _inputs_gold(rng, sz):
    """C codewords of E / 2 .. E LLRs, packed one after another; c_init = rnti * 2^15 + n_id (random 16-bit RNTI,
    10-bit cell id); 70 % new data; LLRs N(0, 4^2), the HARQ buffers within the clip."""
    nc, e = sz["C"], sz["E"]
    ln = rng.integers(e // 2, e + 1, nc)
    start = np.zeros(nc, dtype=np.int64)
    np.cumsum(ln[:-1], out=start[1:])
    cinit = rng.integers(1, 2**16, nc) * 2**15 + rng.integers(0, 1008, nc)
    return {"c_init": cinit.astype(np.uint32), "cw_start": start, "cw_len": ln,
            "ndi": (rng.random(nc) < 0.7).astype(np.int32),
            "llr": rng.standard_normal(nc * e, dtype=np.float32) * np.float32(4.0),
            "harq": (rng.random(nc * e, dtype=np.float32) * np.float32(2 * CLIP) - np.float32(CLIP))}


def _ref_gold(inp, sz):
    ncw, nc, clip = int(inp["ncw"]), int(inp["nc"]), float(inp["llr_clip"])
    x1 = np.ones(ncw, dtype=np.int64)
    x2 = np.asarray(inp["c_init"]).astype(np.int64)[:ncw] & 0x7FFFFFFF
    start = np.asarray(inp["cw_start"]).astype(np.int64)[:ncw]
    ln = np.asarray(inp["cw_len"]).astype(np.int64)[:ncw]
    fresh = np.asarray(inp["ndi"]).astype(np.int64)[:ncw] != 0
    llr, harq = _f64(inp["llr"]), _f64(inp["harq"]).copy()
    for n in range(nc + int(ln.max())):
        if n >= nc:
            j = n - nc
            on = j < ln
            idx = start[on] + j
            v = np.where(((x1 ^ x2) & 1)[on] == 1, -llr[idx], llr[idx])
            harq[idx] = np.clip(np.where(fresh[on], v, harq[idx] + v), -clip, clip)
        b1 = (x1 ^ (x1 >> 3)) & 1
        b2 = (x2 ^ (x2 >> 1) ^ (x2 >> 2) ^ (x2 >> 3)) & 1
        x1, x2 = (x1 >> 1) | (b1 << 30), (x2 >> 1) | (b2 << 30)
    return {"harq": harq}


def nr_gold_descramble_harq() -> KernelSpec:
    return _spec(
        "nr_gold_descramble_harq",
        idiom="NR Gold-sequence descrambling + HARQ combining, a codeword per item: two 31-bit LFSRs in uint "
              "(1600 warm-up steps), LLR sign flips, overwrite on new data else saturating add in place",
        sizes={"C": [128, 512, 2048, 8192, 32768], "E": [1024, 8192]}, check={"C": 40, "E": 300},
        constraints=["C * E <= 2**26"],
        args=[Arg("ncw", "scalar", "int32", "C"), Arg("nc", "scalar", "int32", str(NC)),
              Arg("llr_clip", "scalar", "float32", str(CLIP)), Arg("c_init", "buffer", "uint32", "C"),
              Arg("cw_start", "buffer", "int32", "C"), Arg("cw_len", "buffer", "int32", "C"),
              Arg("ndi", "buffer", "int32", "C"), Arg("llr", "buffer", "float32", "C * E"),
              Arg("harq", "buffer", "float32", "C * E", "inout")],
        gsize=[round_up("C")], local=L1, reference=_ref_gold, make_inputs=_inputs_gold)


#: this group's builders, in the order of ``specs()``
BUILDERS = (crc24b_cb_table_local_atomic, nr_gold_descramble_harq)

"""Holdout8 kernels, group quantum, continued (written by hand; see docs/HOLDOUT8.md): the channel coding kernels: a
K = 7 soft-decision Viterbi decoder with uint path metrics in __local and packed survivor words, the normalised
min-sum check-node update of an irregular LDPC code (which counts the unsatisfied checks with atomic_inc) and
Reed-Solomon syndromes over GF(256) from uint-packed codewords with log/antilog tables in __local, followed by
Berlekamp-Massey. Only the LDPC kernel uses atomics. Split from :mod:`.quantum` to keep each module short;
:mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, _f64, _spec, pow2, round_up

VIT_G0, VIT_G1 = 0o171, 0o133  # viterbi_k7_acs_local: the code's generators (G0, G1 in the source)
VIT_START = 0x00100000  # viterbi_k7_acs_local: initial metric of every state but 0 (START_METRIC)
GF_POLY = 0x11D  # rs_syndrome_bm_gf256: the field's primitive polynomial (the tables are made from it)


# --- K = 7 soft-decision Viterbi decoder, a frame per 64 items, uint metrics in __local ------------------------------
def _parity(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.int64)
    p = np.zeros_like(x)
    while np.any(x):
        p ^= x & 1
        x = x >> 1
    return p


def _inputs_viterbi(rng, sz):
    """Random information bits ending in 6 zero tail bits, encoded (171, 133), BPSK over AWGN at a per-frame Es/N0
    of -1 .. 4 dB, quantised to 3-bit soft symbols (0 = sure 0, 7 = sure 1)."""
    f, t = sz["F"], sz["T"]
    info = rng.integers(0, 2, (f, t))
    info[:, t - 6:] = 0
    state = np.zeros(f, dtype=np.int64)
    coded = np.empty((f, t, 2), dtype=np.int64)
    for k in range(t):
        reg = (info[:, k] << 6) | state
        coded[:, k, 0], coded[:, k, 1] = _parity(reg & VIT_G0), _parity(reg & VIT_G1)
        state = reg >> 1
    esn0 = 10 ** (rng.uniform(-1.0, 4.0, (f, 1, 1)) / 10)
    y = (2.0 * coded - 1.0) + rng.normal(size=coded.shape) / np.sqrt(2.0 * esn0)
    return {"soft": np.clip(np.round((y + 1.0) * 3.5), 0, 7).astype(np.uint8)}


def _ref_viterbi(inp, sz):
    f, t = sz["F"], sz["T"]
    soft = np.asarray(inp["soft"]).astype(np.int64).reshape(f, t, 2)
    ns = np.arange(64)
    reg0, reg1 = ns << 1, (ns << 1) | 1
    p0, p1 = reg0 & 63, reg1 & 63
    e00, e01, e10, e11 = (_parity(r & g) for r in (reg0, reg1) for g in (VIT_G0, VIT_G1))
    pm = np.full((f, 64), VIT_START, dtype=np.int64)
    pm[:, 0] = 0
    dec = np.empty((f, t, 64), dtype=np.int64)
    for k in range(t):
        r0, r1 = soft[:, k, 0:1], soft[:, k, 1:2]
        bm0 = np.where(e00, 7 - r0, r0) + np.where(e01, 7 - r1, r1)
        bm1 = np.where(e10, 7 - r0, r0) + np.where(e11, 7 - r1, r1)
        m0, m1 = pm[:, p0] + bm0, pm[:, p1] + bm1
        pick = m1 < m0
        pm = np.where(pick, m1, m0)
        dec[:, k] = pick
    weights = np.int64(1) << np.arange(32, dtype=np.int64)
    surv = np.stack([(dec[..., :32] * weights).sum(-1), (dec[..., 32:] * weights).sum(-1)], axis=-1)
    bits = np.empty((f, t), dtype=np.int64)
    st = np.zeros(f, dtype=np.int64)
    rows = np.arange(f)
    for k in range(t - 1, -1, -1):
        bits[:, k] = st >> 5
        st = ((st << 1) | dec[rows, k, st]) & 63
    return {"survivors": surv.astype(np.uint32), "bits": bits, "final_metric": pm[:, 0]}


def viterbi_k7_acs_local() -> KernelSpec:
    return _spec(
        "viterbi_k7_acs_local",
        idiom="K=7 soft Viterbi, 64 items per frame: add-compare-select on uint metrics double-buffered in __local, "
              "packed survivor words, serial traceback",
        sizes={"F": pow2(6, 12, 2), "T": [256, 1024, 4096]}, check={"F": 6, "T": 200},
        constraints=["F * T <= 2**20"],
        args=[Arg("nframes", "scalar", "int32", "F"), Arg("nsteps", "scalar", "int32", "T"),
              Arg("soft", "buffer", "uint8", "F * T * 2"), Arg("survivors", "buffer", "uint32", "F * T * 2", "out"),
              Arg("bits", "buffer", "uint8", "F * T", "out"), Arg("final_metric", "buffer", "uint32", "F", "out"),
              Arg("pm_a", "local", "uint32", "l0"), Arg("pm_b", "local", "uint32", "l0"),
              Arg("dec", "local", "uint8", "l0")],
        gsize=["64 * F"], local=L1, reference=_ref_viterbi, make_inputs=_inputs_viterbi)


# --- LDPC normalised min-sum check-node update, a check per item, irregular rows -------------------------------------
def _inputs_ldpc(rng, sz):
    """Rate-1/2 code with N variables of degree D and N/2 checks of weight 2D - 1 .. 2D + 1 (a random socket
    permutation, Gallager style); the all-zero codeword over BPSK/AWGN at Eb/N0 1 .. 2.5 dB gives channel LLRs;
    old check messages N(0.8, 1.5); the posterior is channel LLR plus the sum of the old messages."""
    n, d = sz["N"], sz["D"]
    m = n // 2
    w = np.full(m, 2 * d)
    perm = rng.permutation(m)
    w[perm[: m // 4]] += 1
    w[perm[m // 4: m // 2]] -= 1
    row_ptr = np.concatenate([[0], np.cumsum(w)])
    col = rng.permutation(np.repeat(np.arange(n), d))
    sigma2 = 1.0 / (2 * 0.5 * 10 ** (rng.uniform(1.0, 2.5) / 10))
    llr_ch = 2.0 * (1.0 + rng.normal(size=n) * np.sqrt(sigma2)) / sigma2
    c2v = rng.normal(0.8, 1.5, d * n).astype(np.float32)
    post = llr_ch + np.bincount(col, weights=c2v.astype(np.float64), minlength=n)
    return {"row_ptr": row_ptr, "col_idx": col, "llr_post": post, "c2v_old": c2v}


def _ref_ldpc(inp, sz):
    n = sz["N"]
    m = n // 2
    alpha = float(np.float32(inp["alpha"]))
    rp, col = np.asarray(inp["row_ptr"]).astype(np.int64), np.asarray(inp["col_idx"]).astype(np.int64)
    post, old = _f64(inp["llr_post"]), _f64(inp["c2v_old"])
    w = np.diff(rp)
    wmax = int(w.max())
    slot = np.arange(wmax)
    valid = slot[None, :] < w[:, None]
    e = np.where(valid, rp[:-1, None] + slot[None, :], 0)
    lp = post[col[e]]
    v = lp - old[e]
    mag = np.where(valid, np.abs(v), np.inf)
    neg = valid & (v < 0)
    sgn = np.bitwise_xor.reduce(neg, axis=1)
    hard = np.bitwise_xor.reduce(valid & (lp < 0), axis=1)
    pos = np.argmin(mag, axis=1)
    min1 = mag[np.arange(m), pos]
    mag2 = mag.copy()
    mag2[np.arange(m), pos] = np.inf
    min2 = mag2.min(axis=1)
    out_mag = alpha * np.where(slot[None, :] == pos[:, None], min2[:, None], min1[:, None])
    out = np.where(sgn[:, None] ^ neg, -out_mag, out_mag)
    c2v_new = np.zeros(rp[-1])
    c2v_new[e[valid]] = out[valid]
    return {"c2v_new": c2v_new, "parity": hard.astype(np.int64), "unsat": np.array([hard.sum()])}


def ldpc_minsum_check_rows() -> KernelSpec:
    return _spec(
        "ldpc_minsum_check_rows",
        idiom="LDPC normalised min-sum check update per CSR row: posterior minus old message, min1/min2/sign pass, "
              "hard parity, atomic_inc unsatisfied",
        sizes={"N": pow2(11, 21, 2), "D": [3, 4]}, check={"N": 2000, "D": 3},
        args=[Arg("nchk", "scalar", "int32", "N // 2"), Arg("alpha", "scalar", "float32", "0.75"),
              Arg("row_ptr", "buffer", "int32", "N // 2 + 1"), Arg("col_idx", "buffer", "int32", "D * N"),
              Arg("llr_post", "buffer", "float32", "N"), Arg("c2v_old", "buffer", "float32", "D * N"),
              Arg("c2v_new", "buffer", "float32", "D * N", "out"), Arg("parity", "buffer", "uint8", "N // 2", "out"),
              Arg("unsat", "buffer", "int32", "1", "out")],
        gsize=[round_up("N // 2")], local=L1, reference=_ref_ldpc, make_inputs=_inputs_ldpc)


# --- Reed-Solomon syndromes over GF(256) + Berlekamp-Massey, a codeword per item ------------------------------------
def _gf_tables() -> tuple[np.ndarray, np.ndarray]:
    """(log[256], exp[512]) of GF(256) with the primitive polynomial GF_POLY (log[0] unused, 0)."""
    exp, log = np.zeros(512, np.int64), np.zeros(256, np.int64)
    x = 1
    for i in range(255):
        exp[i], log[x] = x, i
        x <<= 1
        if x & 0x100:
            x ^= GF_POLY
    exp[255:510] = exp[:255]
    exp[510:] = exp[:2]
    return log, exp


def _gf_mul(a, b, log, exp):
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    return np.where((a == 0) | (b == 0), 0, exp[log[a] + log[b]])


def _inputs_rs(rng, sz):
    """Systematic RS(255, 255 - S) codewords of random bytes (generator roots alpha^(fcr + j)); 55% clean, 30% with
    1 .. S/2 symbol errors, 15% with S/2 + 1 .. S/2 + 8 (beyond correction); packed into 64 uint words each."""
    f, nsym, fcr = sz["F"], sz["S"], 1
    log, exp = _gf_tables()
    g = np.array([1], np.int64)
    for j in range(nsym):  # g(x) *= (x + alpha^(fcr + j)), highest degree first
        root = exp[fcr + j]
        g = np.concatenate([g, [0]]) ^ np.concatenate([[0], _gf_mul(g, root, log, exp)])
    k = 255 - nsym
    prod = _gf_mul(np.arange(256)[:, None], g[None, 1:], log, exp).astype(np.uint8)  # fb x g[1:], one row per fb
    cw = np.zeros((f, 256), np.uint8)  # 255 symbols and a padding byte
    cw[:, :k] = rng.integers(0, 256, (f, k), dtype=np.uint8)
    rem = np.zeros((f, nsym + 1), np.uint8)  # LFSR division remainder; the last column stays 0 (shift-in)
    for i in range(k):
        fb = cw[:, i] ^ rem[:, 0]
        rem[:, :nsym] = rem[:, 1:] ^ prod[fb]
    cw[:, k:255] = rem[:, :nsym]
    kind = rng.random(f)
    nerr = np.where(kind < 0.55, 0, np.where(kind < 0.85, rng.integers(1, nsym // 2 + 1, f),
                                              rng.integers(nsym // 2 + 1, nsym // 2 + 9, f)))
    maxe = int(nerr.max()) if f else 0
    if maxe:
        pos = rng.integers(0, 255, (f, maxe))
        val = rng.integers(1, 256, (f, maxe), dtype=np.uint8)
        live = np.arange(maxe)[None, :] < nerr[:, None]
        rows = np.repeat(np.arange(f)[:, None], maxe, axis=1)
        np.bitwise_xor.at(cw, (rows[live], pos[live]), val[live])
    words = np.ascontiguousarray(cw).view("<u4").reshape(f, 64)
    return {"cw_words": words, "gf_log": log, "gf_exp": exp}


def _berlekamp_massey(s, nsym, log, exp) -> int:
    mul = lambda a, b: 0 if a == 0 or b == 0 else int(exp[log[a] + log[b]])  # noqa: E731
    C, B = [1] + [0] * nsym, [1] + [0] * nsym
    L, m, bb = 0, 1, 1
    for n in range(nsym):
        d = int(s[n])
        for i in range(1, L + 1):
            d ^= mul(C[i], int(s[n - i]))
        if d == 0:
            m += 1
            continue
        coef = int(exp[log[d] + 255 - log[bb]])
        T = list(C)
        for i in range(m, nsym + 1):
            C[i] ^= mul(coef, B[i - m])
        if 2 * L <= n:
            L, B, bb, m = n + 1 - L, T, d, 1
        else:
            m += 1
    return -1 if 2 * L > nsym else L


def _ref_rs(inp, sz):
    f, nsym, fcr = sz["F"], sz["S"], int(inp["fcr"])
    log, exp = np.asarray(inp["gf_log"]).astype(np.int64), np.asarray(inp["gf_exp"]).astype(np.int64)
    cw = np.ascontiguousarray(np.asarray(inp["cw_words"]).astype("<u4")).view(np.uint8).reshape(f, 256)
    cw = cw.astype(np.int64)
    s = np.zeros((f, nsym), np.int64)
    shift = fcr + np.arange(nsym)[None, :]
    for i in range(255):
        s = np.where(s != 0, exp[log[s] + shift], 0) ^ cw[:, i:i + 1]
    nerr = np.array([_berlekamp_massey(s[c], nsym, log, exp) if s[c].any() else 0 for c in range(f)])
    return {"synd": s, "nerr": nerr}


def rs_syndrome_bm_gf256() -> KernelSpec:
    return _spec(
        "rs_syndrome_bm_gf256",
        idiom="RS(255,k) per codeword: uint-packed symbols, Horner syndromes via GF(256) log/antilog tables in __local, "
              "Berlekamp-Massey if nonzero",
        sizes={"F": pow2(8, 16, 2), "S": [16, 32]}, check={"F": 300, "S": 16},
        constraints=["F * S <= 2**20"],
        args=[Arg("ncw", "scalar", "int32", "F"), Arg("nsym", "scalar", "int32", "S"),
              Arg("fcr", "scalar", "int32", "1"), Arg("cw_words", "buffer", "uint32", "F * 64"),
              Arg("gf_log", "buffer", "uint8", "256"), Arg("gf_exp", "buffer", "uint8", "512"),
              Arg("synd", "buffer", "uint8", "F * S", "out"), Arg("nerr", "buffer", "int32", "F", "out"),
              Arg("lg", "local", "uint8", "256"), Arg("ex", "local", "uint8", "512")],
        gsize=[round_up("F")], local=L1, reference=_ref_rs, make_inputs=_inputs_rs)


#: this group's builders, in the order of ``specs()``
BUILDERS = (viterbi_k7_acs_local, ldpc_minsum_check_rows, rs_syndrome_bm_gf256)

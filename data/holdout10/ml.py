"""Holdout10 kernels, group ml (written by hand; see docs/HOLDOUT10.md): operators an LLM / state-space-model
inference runtime writes by hand: a W8A8 linear layer for one decode token with integer dot products of uint32-packed
bytes (asymmetric weights with per-row scale and zero point, sign-extended int8 activations), a work-group per row
with a __local tree; decode attention over a vLLM-style paged KV cache on a 2-D (query head, sequence) NDRange,
grouped-query heads, keys reached through a block table and an online softmax whose rescale branch follows the
scores; and Mamba's causal depthwise conv1d + SiLU over packed variable-length sequences on a 2-D (channel, token)
NDRange, the token's sequence found by binary search and the taps before its start read from the sequence's carried
conv state, the new state written by the last token. None of these three uses atomics; the group's other three
kernels are in :mod:`.ml_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, pow2, round_up

W8_XSCALE = 0.02  # w8a8_gemv_zp_local: the activations' per-tensor scale

PA_HEAD_DIM = 64  # paged_gqa_decode_online: HEAD_DIM in the source
PA_BLOCK = 16  # paged_gqa_decode_online: slots a cache block
PA_GROUP = 4  # paged_gqa_decode_online: query heads per kv head
PA_LOCAL = [[8, 8], [8, 16], [32, 4]]  # paged_gqa_decode_online: (head, sequence) shapes

CC_WIDTH = 4  # causal_conv1d_varlen_state: the conv's taps (d_conv)
CC_MEANLEN = 64  # causal_conv1d_varlen_state: tokens a sequence on average (T // 64 sequences)


# --- W8A8 GEMV: uint32-packed bytes, integer dot, per-row scale and zero point, __local tree -------------------------
def _inputs_w8(rng, sz):
    """Weights uint8 in zero +- 64 around a per-row zero point of 64 .. 191, activations int8 around 0 (a few
    saturated outliers), both packed four to a little-endian uint; row scales so that y is of order one."""
    m, k = sz["M"], sz["K"]
    zp = rng.integers(64, 192, m).astype(np.int32)
    w = (rng.integers(0, 128, (m, k), dtype=np.uint8) + (zp[:, None] - 64).astype(np.uint8)).astype(np.uint8)
    x = np.clip(np.rint(rng.normal(0.0, 30.0, k)), -127, 127).astype(np.int8)
    x[rng.random(k) < 0.01] = 127
    scale = (rng.uniform(0.5, 1.5, m) / (37.0 * 30.0 * W8_XSCALE * np.sqrt(k))).astype(np.float32)
    return {"w_q": w.reshape(-1).view("<u4"), "w_scale": scale, "w_zero": zp,
            "x_q": x.view(np.uint8).view("<u4"), "bias": rng.uniform(-0.1, 0.1, m).astype(np.float32)}


def _ref_w8(inp, sz):
    m, k = sz["M"], sz["K"]
    w = np.asarray(inp["w_q"]).astype("<u4").view(np.uint8).reshape(m, k)
    x = np.asarray(inp["x_q"]).astype("<u4").view(np.int8).astype(np.float64)
    zp = np.asarray(inp["w_zero"]).astype(np.float64)
    dot = np.empty(m)
    for r in range(0, m, 1024):  # exact: integers far below 2**53
        dot[r:r + 1024] = (w[r:r + 1024].astype(np.float64) - zp[r:r + 1024, None]) @ x
    return {"y": _f64(inp["w_scale"]) * float(inp["x_scale"]) * dot + _f64(inp["bias"])}


def w8a8_gemv_zp_local() -> KernelSpec:
    return _spec(
        "w8a8_gemv_zp_local", tol=SUMS,
        idiom="W8A8 GEMV, a group per row (num_groups loop): uint32-packed uint8 weights and int8 activations "
              "unpacked and sign-extended, int (w - zero) * x dot, __local int tree, per-row scale",
        sizes={"M": pow2(9, 15, 2), "K": [1024, 4096, 11008]}, check={"M": 300, "K": 512},
        constraints=["M * K <= 2**27"],
        args=[Arg("nrow", "scalar", "int32", "M"), Arg("kw", "scalar", "int32", "K // 4"),
              Arg("x_scale", "scalar", "float32", str(W8_XSCALE)), Arg("w_q", "buffer", "uint32", "M * K // 4"),
              Arg("w_scale", "buffer", "float32", "M"), Arg("w_zero", "buffer", "int32", "M"),
              Arg("x_q", "buffer", "uint32", "K // 4"), Arg("bias", "buffer", "float32", "M"),
              Arg("y", "buffer", "float32", "M", "out"), Arg("part", "local", "int32", "l0")],
        gsize=["min(M, 1024) * 64"], local=L1, reference=_ref_w8, make_inputs=_inputs_w8)


# --- paged KV-cache decode attention, grouped-query heads, online softmax, 2-D ---------------------------------------
def _inputs_paged(rng, sz):
    """Queries, keys and values standard normal (keys of a sequence share a random offset, so some scores run high);
    the pool's blocks handed out in a random order, B * C / 16 of them; context lengths C / 8 .. C."""
    b, c, h = sz["B"], sz["C"], sz["H"]
    nkv, maxb = h // PA_GROUP, c // PA_BLOCK
    nblk = b * maxb
    table = rng.permutation(nblk).astype(np.int32).reshape(b, maxb)
    key = rng.standard_normal((nblk, nkv, PA_BLOCK, PA_HEAD_DIM), dtype=np.float32)
    shift = rng.normal(0.0, 0.5, (b, nkv, PA_HEAD_DIM)).astype(np.float32)
    key += shift[np.argsort(table.reshape(-1)) // maxb][:, :, None, :]
    return {"query": rng.standard_normal(b * h * PA_HEAD_DIM, dtype=np.float32), "key_cache": key,
            "value_cache": rng.standard_normal(key.size, dtype=np.float32), "block_table": table,
            "context_len": rng.integers(max(1, c // 8), c + 1, b).astype(np.int32)}


def _ref_paged(inp, sz):
    b, c, h = sz["B"], sz["C"], sz["H"]
    nkv, maxb = h // PA_GROUP, c // PA_BLOCK
    kc = _f64(inp["key_cache"]).reshape(-1, nkv, PA_BLOCK, PA_HEAD_DIM)
    vc = _f64(inp["value_cache"]).reshape(kc.shape)
    q = _f64(inp["query"]).reshape(b, nkv, PA_GROUP, PA_HEAD_DIM) * float(inp["scale"])
    table = np.asarray(inp["block_table"]).astype(np.int64).reshape(b, maxb)
    lens = np.asarray(inp["context_len"]).astype(np.int64)
    out = np.zeros((b, nkv, PA_GROUP, PA_HEAD_DIM))
    for s in range(b):
        t = np.arange(lens[s])
        blk, slot = table[s, t // PA_BLOCK], t % PA_BLOCK
        keys, vals = kc[blk, :, slot, :], vc[blk, :, slot, :]  # (len, kv head, dim)
        sc = np.einsum("kgd,lkd->kgl", q[s], keys)
        p = np.exp(sc - sc.max(axis=2, keepdims=True))
        out[s] = np.einsum("kgl,lkd->kgd", p / p.sum(axis=2, keepdims=True), vals)
    return {"out": out}


def paged_gqa_decode_online() -> KernelSpec:
    return _spec(
        "paged_gqa_decode_online", tol=SUMS,
        idiom="paged KV-cache decode attention, 2-D (query head, sequence): block-table walk, grouped-query kv "
              "head, private q and accumulator, online softmax rescaled when the max grows",
        sizes={"B": [4, 32, 256], "C": [128, 1024, 8192], "H": [8, 32]}, check={"B": 5, "C": 96, "H": 8},
        constraints=["B * C * H <= 2**21"],
        args=[Arg("nseq", "scalar", "int32", "B"), Arg("nhead", "scalar", "int32", "H"),
              Arg("nkvhead", "scalar", "int32", f"H // {PA_GROUP}"),
              Arg("block_size", "scalar", "int32", str(PA_BLOCK)),
              Arg("max_blocks", "scalar", "int32", f"C // {PA_BLOCK}"),
              Arg("scale", "scalar", "float32", str(1.0 / np.sqrt(PA_HEAD_DIM))),
              Arg("query", "buffer", "float32", f"B * H * {PA_HEAD_DIM}"),
              Arg("key_cache", "buffer", "float32", f"B * C * H // {PA_GROUP} * {PA_HEAD_DIM}"),
              Arg("value_cache", "buffer", "float32", f"B * C * H // {PA_GROUP} * {PA_HEAD_DIM}"),
              Arg("block_table", "buffer", "int32", f"B * C // {PA_BLOCK}"), Arg("context_len", "buffer", "int32", "B"),
              Arg("out", "buffer", "float32", f"B * H * {PA_HEAD_DIM}", "out")],
        gsize=["H", round_up("B", 16)], local=PA_LOCAL, reference=_ref_paged, make_inputs=_inputs_paged)


# --- Mamba causal depthwise conv1d + SiLU over packed variable-length sequences, carried state, 2-D -------------------
def _inputs_conv(rng, sz):
    """T // 64 sequences: a quarter decode steps of one token, the rest lognormal shares of the remaining tokens;
    cache slots a random half of 2 S; 70% carry a state; inputs standard normal, taps N(0, 0.5)."""
    t, d = sz["T"], sz["D"]
    s = t // CC_MEANLEN
    decode = rng.random(s) < 0.25
    decode[0] = False
    share = np.where(decode, 0.0, rng.lognormal(0.0, 0.8, s))
    lens = 1 + rng.multinomial(t - s, share / share.sum())
    return {"x": rng.standard_normal(t * d, dtype=np.float32),
            "weight": (0.5 * rng.standard_normal(d * CC_WIDTH)).astype(np.float32),
            "bias": rng.uniform(-0.1, 0.1, d).astype(np.float32),
            "seq_start": np.concatenate([[0], np.cumsum(lens)]).astype(np.int32),
            "cache_slot": rng.permutation(2 * s)[:s].astype(np.int32),
            "has_state": (rng.random(s) < 0.7).astype(np.int32),
            "conv_state": rng.standard_normal(2 * s * d * (CC_WIDTH - 1), dtype=np.float32)}


def _ref_conv(inp, sz):
    t, d = sz["T"], sz["D"]
    ws = int(inp["width"]) - 1
    x = _f64(inp["x"]).reshape(t, d)
    w = _f64(inp["weight"]).reshape(d, ws + 1)
    start = np.asarray(inp["seq_start"]).astype(np.int64)
    slot = np.asarray(inp["cache_slot"]).astype(np.int64)
    has = np.asarray(inp["has_state"]).astype(bool)
    state = _f64(inp["conv_state"]).reshape(-1, d, ws)
    seq = np.searchsorted(start, np.arange(t), side="right") - 1

    def tap(p, sq):
        """Inputs at positions p of sequences sq (one per row): x, the carried state or zero."""
        v = x[np.maximum(p, 0)].copy()
        old = np.flatnonzero(p < start[sq])
        v[old] = np.where(has[sq[old], None], state[slot[sq[old]], :, ws + p[old] - start[sq[old]]], 0.0)
        return v

    acc = np.broadcast_to(_f64(inp["bias"]), (t, d)).copy()
    for j in range(ws + 1):
        acc += w[:, j] * tap(np.arange(t) - ws + j, seq)
    seqs = np.arange(start.size - 1)
    new = np.stack([tap(start[1:] - ws + i, seqs) for i in range(ws)], axis=2)
    return {"y": acc / (1.0 + np.exp(-acc)), "state_out": new}


def causal_conv1d_varlen_state() -> KernelSpec:
    return _spec(
        "causal_conv1d_varlen_state",
        idiom="Mamba causal depthwise conv1d + SiLU, 2-D (channel, token) over packed varlen sequences: binary "
              "search of the token's sequence, taps before its start from the carried state, new state out",
        sizes={"T": pow2(8, 16, 2), "D": [256, 1024, 4096]}, check={"T": 320, "D": 48},
        constraints=["T * D <= 2**24"],
        args=[Arg("ntok", "scalar", "int32", "T"), Arg("dim", "scalar", "int32", "D"),
              Arg("nseq", "scalar", "int32", f"T // {CC_MEANLEN}"), Arg("width", "scalar", "int32", str(CC_WIDTH)),
              Arg("x", "buffer", "float32", "T * D"), Arg("weight", "buffer", "float32", f"D * {CC_WIDTH}"),
              Arg("bias", "buffer", "float32", "D"), Arg("seq_start", "buffer", "int32", f"T // {CC_MEANLEN} + 1"),
              Arg("cache_slot", "buffer", "int32", f"T // {CC_MEANLEN}"),
              Arg("has_state", "buffer", "int32", f"T // {CC_MEANLEN}"),
              Arg("conv_state", "buffer", "float32", f"2 * (T // {CC_MEANLEN}) * D * {CC_WIDTH - 1}"),
              Arg("y", "buffer", "float32", "T * D", "out"),
              Arg("state_out", "buffer", "float32", f"T // {CC_MEANLEN} * D * {CC_WIDTH - 1}", "out")],
        gsize=[round_up("D", 32), round_up("T", 16)], local=L2, reference=_ref_conv, make_inputs=_inputs_conv)


#: this group's builders, in the order of ``specs()``
BUILDERS = (w8a8_gemv_zp_local, paged_gqa_decode_online, causal_conv1d_varlen_state)

"""Holdout14 kernels, group neuro, continued (written by hand; see docs/HOLDOUT14.md): pair-based spike-timing-
dependent plasticity of a dense plastic projection on a 2-D (presynaptic, postsynaptic) NDRange in float32, an item
per synapse skipping the pairs where neither neuron fired and the absent synapses (negative weights), depressing
by the post trace times the weight and potentiating by the pre trace times the room below w_max, then clamping; and
spike-train cross-correlograms of neuron pairs from sorted uint32 spike times, a work-group per pair (looping by
the number of groups) staging the target train through __local memory a tile at a time between barriers, each
work-item owning bins and counting the tile's spikes inside each reference spike's lag window by binary searches.
Split from :mod:`.neuro` to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, _f32, _f64, _spec, round_up

A_PLUS, A_MINUS, W_MAX = 0.01, 0.012, 1.0  # stdp_trace_weight_tile_2d: learning rates, weight bound
ABSENT = 0.2  # stdp_trace_weight_tile_2d: share of absent synapses
PRE_RATE, POST_RATE = 0.05, 0.05  # stdp_trace_weight_tile_2d: share of neurons that fired this step

DUR = 1_000_000  # spike_ccg_pair_tiles_local: recording length (ticks of 0.1 ms)
NBIN, BINW = 50, 20  # spike_ccg_pair_tiles_local: bins, bin width (ticks)


# --- STDP of a dense projection, 2-D --------------------------------------------------------------------------------
def _inputs_stdp(rng, sz):
    """Weights uniform 0 .. w_max with an ABSENT share marked -1; traces 0 .. 1.5 (sums of decaying spikes); a
    few percent of each population fired."""
    npre, npost = sz["NPRE"], sz["NPOST"]
    u = rng.random(npre * npost, dtype=np.float32)
    w = (u - np.float32(ABSENT)) * np.float32(W_MAX / (1 - ABSENT))
    w[u < np.float32(ABSENT)] = -1.0
    return {"x_pre": _f32(rng.uniform(0.0, 1.5, npre)), "y_post": _f32(rng.uniform(0.0, 1.5, npost)),
            "pre_spk": (rng.random(npre) < PRE_RATE).astype(np.int32),
            "post_spk": (rng.random(npost) < POST_RATE).astype(np.int32), "w": w}


def _ref_stdp(inp, sz):
    npre, npost = sz["NPRE"], sz["NPOST"]
    w = _f64(inp["w"]).reshape(npost, npre).copy()
    pre = (np.asarray(inp["pre_spk"]) != 0)[None, :]
    post = (np.asarray(inp["post_spk"]) != 0)[:, None]
    wmax = float(inp["w_max"])
    live = (w >= 0.0) & (pre | post)
    new = np.where(pre, w - float(inp["a_minus"]) * _f64(inp["y_post"])[:, None] * w, w)
    new = np.where(post, new + float(inp["a_plus"]) * _f64(inp["x_pre"])[None, :] * (wmax - new), new)
    w[live] = np.clip(new, 0.0, wmax)[live]
    return {"w": w.reshape(-1)}


def stdp_trace_weight_tile_2d() -> KernelSpec:
    return _spec(
        "stdp_trace_weight_tile_2d",
        idiom="pair-based STDP of a dense weight matrix, 2-D (pre, post): spike-flag early exit, absent-synapse "
              "skip, multiplicative depression by the post trace, soft-bound potentiation by the pre trace, clamp",
        sizes={"NPRE": [512, 2048, 8192, 32768], "NPOST": [128, 512, 2048, 8192]},
        check={"NPRE": 200, "NPOST": 70}, constraints=["NPRE * NPOST <= 2**25"],
        args=[Arg("n_pre", "scalar", "int32", "NPRE"), Arg("n_post", "scalar", "int32", "NPOST"),
              Arg("a_plus", "scalar", "float32", str(A_PLUS)), Arg("a_minus", "scalar", "float32", str(A_MINUS)),
              Arg("w_max", "scalar", "float32", str(W_MAX)), Arg("x_pre", "buffer", "float32", "NPRE"),
              Arg("y_post", "buffer", "float32", "NPOST"), Arg("pre_spk", "buffer", "int32", "NPRE"),
              Arg("post_spk", "buffer", "int32", "NPOST"),
              Arg("w", "buffer", "float32", "NPRE * NPOST", "inout")],
        gsize=[round_up("NPRE", 32), round_up("NPOST", 16)], local=L2, reference=_ref_stdp,
        make_inputs=_inputs_stdp)


# --- cross-correlograms of spike-train pairs, __local tiles -----------------------------------------------------------
def _inputs_ccg(rng, sz):
    """P trains of P * S spikes in all, split at random cut points (train lengths roughly exponential, mean S,
    some empty), spike times uniform over DUR ticks and sorted within a train; pair p is train p against a random
    permutation of the trains (now and then a train against itself: an autocorrelogram)."""
    p, s = sz["P"], sz["S"]
    cuts = np.sort(rng.integers(0, p * s + 1, p - 1))
    start = np.concatenate(([0], cuts, [p * s]))
    train = np.repeat(np.arange(p, dtype=np.int64), np.diff(start))
    times = np.sort(train * DUR + rng.integers(0, DUR, p * s)) - train * DUR
    return {"times": times.astype(np.uint32), "train_start": start, "pair_a": np.arange(p),
            "pair_b": rng.permutation(p)}


def _ref_ccg(inp, sz):
    p = sz["P"]
    nbin, binw = int(inp["nbin"]), int(inp["binw"])
    times = np.asarray(inp["times"]).astype(np.int64)
    start = np.asarray(inp["train_start"]).astype(np.int64)
    out = np.zeros((p, nbin), dtype=np.int64)
    for k, (a, b) in enumerate(zip(np.asarray(inp["pair_a"]), np.asarray(inp["pair_b"]))):
        lag = np.subtract.outer(times[start[b]:start[b + 1]], times[start[a]:start[a + 1]]).reshape(-1)
        idx = np.floor_divide(lag + (nbin // 2) * binw, binw)
        out[k] = np.bincount(idx[(idx >= 0) & (idx < nbin)], minlength=nbin)
    return {"ccg": out.reshape(-1)}


def spike_ccg_pair_tiles_local() -> KernelSpec:
    return _spec(
        "spike_ccg_pair_tiles_local",
        idiom="spike-train cross-correlograms, a group per pair (num_groups loop): target train staged in __local "
              "tiles between barriers, an item per bin, binary search into the sorted uint32 reference train, "
              "window walk with break, two binary searches in the tile per window",
        sizes={"P": [256, 1024, 4096, 16384], "S": [32, 128, 512]}, check={"P": 40, "S": 90},
        constraints=["P * S <= 2**19"],
        args=[Arg("npair", "scalar", "int32", "P"), Arg("nbin", "scalar", "int32", str(NBIN)),
              Arg("binw", "scalar", "int32", str(BINW)), Arg("times", "buffer", "uint32", "P * S"),
              Arg("train_start", "buffer", "int32", "P + 1"), Arg("pair_a", "buffer", "int32", "P"),
              Arg("pair_b", "buffer", "int32", "P"), Arg("ccg", "buffer", "uint32", f"P * {NBIN}", "out"),
              Arg("tb", "local", "uint32", "l0")],
        gsize=["P * 32"], local=L1, reference=_ref_ccg, make_inputs=_inputs_ccg)


#: this group's builders, in the order of ``specs()``
BUILDERS = (stdp_trace_weight_tile_2d, spike_ccg_pair_tiles_local)

"""Holdout12 kernels, group ops (written by hand; see docs/HOLDOUT12.md): the inner steps of two classic
operations-research solvers as a GPU port of them launches them: one item of a batched 0/1 knapsack dynamic
programme (the pricing subproblems of a column generation), the next DP row of every instance from the previous
one on a 2-D (32-capacity word, instance) NDRange, with the take decisions packed into a uint32 bit row of the
keep table for the backtracking pass; and the bidding phase of Bertsekas' auction algorithm for dense assignment,
a work-item per still-unassigned person scanning its benefit row net of the object prices for the best and
second-best value (lowest object on a tie) and bidding the difference plus eps. Neither uses atomics or __local
memory; the group's other two kernels are in :mod:`.ops_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, round_up

KNAP_WORDS = "(W + 32) // 32"  # knapsack_row_keepbits_2d: uint32 words of a keep row (capacities 0 .. W)
KNAP_FLAT = 0.9  # knapsack_row_keepbits_2d: share of capacities where the previous row does not step up
KNAP_HEAVY = 0.05  # knapsack_row_keepbits_2d: share of instances whose item is heavier than the capacity


# --- 0/1 knapsack DP, one item over a batch of instances, take decisions as bits ---------------------------------
def _inputs_knap(rng, sz):
    """B instances of capacity W. The previous row of each is what a DP over earlier items leaves: 0 at capacity
    0, then nondecreasing (a step up of 1 .. 50 at a 1 - KNAP_FLAT share of the capacities). The new item weighs
    1 .. W / 4 (KNAP_HEAVY of the instances: more than W, so the row is copied) and is worth 1 .. 1000."""
    b, w = sz["B"], sz["W"]
    draw = rng.integers(0, 500, (b, w), dtype=np.int16)  # 1 .. 50 above the flat share, else 0
    steps = np.maximum(draw - int(500 * KNAP_FLAT) + 1, 0).astype(np.int32)
    prev = np.zeros((b, w + 1), dtype=np.int32)
    np.cumsum(steps, axis=1, out=prev[:, 1:])
    wt = rng.integers(1, max(w // 4, 1) + 1, b)
    wt = np.where(rng.random(b) < KNAP_HEAVY, w + 1 + rng.integers(0, w + 1, b), wt)
    return {"wt": wt, "val": rng.integers(1, 1001, b), "prev": prev}


def _ref_knap(inp, sz):
    b, w = sz["B"], sz["W"]
    nwords = int(inp["nwords"])
    prev = np.asarray(inp["prev"]).astype(np.int64).reshape(b, w + 1)
    wt = np.asarray(inp["wt"]).astype(np.int64)[:, None]
    val = np.asarray(inp["val"]).astype(np.int64)[:, None]
    c = np.arange(w + 1)[None, :]
    src = np.take_along_axis(prev, np.clip(c - wt, 0, None), axis=1) + val
    take = (c >= wt) & (src > prev)
    nxt = np.where(take, src, prev)
    bits = np.zeros((b, nwords * 32), dtype=np.uint64)
    bits[:, :w + 1] = take
    words = (bits.reshape(b, nwords, 32) << np.arange(32, dtype=np.uint64)).sum(axis=2)
    return {"next": nxt, "keep": words}


def knapsack_row_keepbits_2d() -> KernelSpec:
    return _spec(
        "knapsack_row_keepbits_2d",
        idiom="batched 0/1 knapsack DP step, 2-D (32-capacity word, instance): next[c] = max(prev[c], "
              "prev[c - w] + v) over a word's capacities, strict-improvement take bits packed into a uint32",
        sizes={"W": [1000, 8000, 50000, 200000], "B": [16, 64, 256, 1024]}, check={"W": 300, "B": 20},
        constraints=["B * W <= 2**26"],
        args=[Arg("nbatch", "scalar", "int32", "B"), Arg("cap", "scalar", "int32", "W"),
              Arg("nwords", "scalar", "int32", KNAP_WORDS), Arg("wt", "buffer", "int32", "B"),
              Arg("val", "buffer", "int32", "B"), Arg("prev", "buffer", "int32", "B * (W + 1)"),
              Arg("next", "buffer", "int32", "B * (W + 1)", "out"),
              Arg("keep", "buffer", "uint32", f"B * ({KNAP_WORDS})", "out")],
        gsize=[round_up(KNAP_WORDS, 32), round_up("B", 16)], local=L2, reference=_ref_knap,
        make_inputs=_inputs_knap)


# --- auction algorithm for assignment: the bidding phase, a work-item per unassigned person ---------------------
def _inputs_auction(rng, sz):
    """An N x N benefit matrix uniform in [0, 100); prices of a run in progress, uniform in [0, 10); N / D
    unassigned persons, a sorted random subset."""
    n, d = sz["N"], sz["D"]
    return {"unassigned": np.sort(rng.choice(n, n // d, replace=False)),
            "benefit": rng.random(n * n, dtype=np.float32) * np.float32(100.0), "price": rng.uniform(0.0, 10.0, n)}


def _ref_auction(inp, sz):
    """Net values in float32 as the kernel forms them (one rounding, so the same argmax); the bid in float64."""
    n = sz["N"]
    rows = np.asarray(inp["unassigned"]).astype(np.int64)
    price = np.asarray(inp["price"], dtype=np.float32)
    net = np.asarray(inp["benefit"], dtype=np.float32).reshape(n, n)[rows] - price[None, :]
    jbest = np.argmax(net, axis=1)
    idx = np.arange(rows.size)
    best = _f64(net[idx, jbest])
    net[idx, jbest] = -np.inf
    second = _f64(net.max(axis=1))
    return {"bid_obj": jbest, "bid_val": _f64(price)[jbest] + (best - second) + float(inp["eps"])}


def auction_bid_top2_rows() -> KernelSpec:
    return _spec(
        "auction_bid_top2_rows", tol=SUMS,
        idiom="auction-algorithm bidding, an item per unassigned person (gathered row id): scan of benefit - "
              "price for the best and second-best net value, bid = price + gap + eps",
        sizes={"N": [512, 1024, 2048, 4096, 8192], "D": [1, 8]}, check={"N": 200, "D": 3},
        args=[Arg("nunassigned", "scalar", "int32", "N // D"), Arg("nobj", "scalar", "int32", "N"),
              Arg("eps", "scalar", "float32", "1.0 / (N + 1)"), Arg("unassigned", "buffer", "int32", "N // D"),
              Arg("benefit", "buffer", "float32", "N * N"), Arg("price", "buffer", "float32", "N"),
              Arg("bid_obj", "buffer", "int32", "N // D", "out"),
              Arg("bid_val", "buffer", "float32", "N // D", "out")],
        gsize=[round_up("N // D")], local=L1, reference=_ref_auction, make_inputs=_inputs_auction)


#: this group's builders, in the order of ``specs()``
BUILDERS = (knapsack_row_keepbits_2d, auction_bid_top2_rows)

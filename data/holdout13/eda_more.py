"""Holdout13 kernels, group eda, continued (written by hand; see docs/HOLDOUT13.md): bit-parallel logic simulation
of one level of a levelized gate netlist with a single stuck-at fault injected (parallel-pattern single-fault
simulation), a 2-D (pattern word, gate) NDRange over uint32 words of 32 test patterns each, the gate's fan-in
words gathered through a CSR list and combined by its type code (BUF / NOT / AND / NAND / OR / NOR / XOR / XNOR
over any number of inputs, MUX2), stored in place; and the wirelength and congestion estimate of a placed
netlist, a work-group per net (looping by the number of groups) reducing its pins' bounding box by a __local
min / max tree between barriers, writing the net's HPWL and adding its RUDY wire density over the tiles the box
covers in fixed point with an integer atomic_add. Split from :mod:`.eda` to keep each module short;
:mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L2, _spec, round_up

SIM_TYPES = (0.05, 0.10, 0.13, 0.13, 0.13, 0.13, 0.13, 0.13, 0.07)  # netlist_bitsim_level_2d: share of each type
SIM_MUX = 8  # netlist_bitsim_level_2d: the MUX2 type code

RUDY_ONE = 16  # net_hpwl_rudy_group_atomic: fixed-point demand units a site
TILE = 16  # net_hpwl_rudy_group_atomic: tile side (sites)
NTILE = 128  # net_hpwl_rudy_group_atomic: tiles a side (a die of 2048 x 2048 sites)
RADIUS = (1.0, 96.0)  # net_hpwl_rudy_group_atomic: net spread (sites), log-uniform
L1_NET = [[64], [128], [32]]  # net_hpwl_rudy_group_atomic: work-group sizes (nets are small)


# --- bit-parallel logic simulation of a netlist level with a stuck-at fault ------------------------------------
def _inputs_sim(rng, sz):
    """4 N nodes with random pattern words, the level's N a sorted random subset; gate types in the shares of
    SIM_TYPES, BUF / NOT with one input, MUX2 with three, the others 2 .. 4, from random nodes outside the level.
    The fan-in array is padded to 4 entries a gate."""
    n, w = sz["N"], sz["W"]
    v = 4 * n
    level = np.sort(rng.permutation(v)[:n])
    outside = np.ones(v, dtype=bool)
    outside[level] = False
    others = np.flatnonzero(outside)
    gtype = rng.choice(len(SIM_TYPES), n, p=SIM_TYPES)
    deg = np.where(gtype < 2, 1, np.where(gtype == SIM_MUX, 3, rng.integers(2, 5, n)))
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=start[1:])
    fanin = np.zeros(4 * n, dtype=np.int64)
    fanin[:start[-1]] = others[rng.integers(0, others.size, int(start[-1]))]
    return {"level_node": level, "gate_type": gtype, "fanin_start": start, "fanin_node": fanin,
            "val": rng.integers(0, 2**32, v * w, dtype=np.uint32)}


def _ref_sim(inp, sz):
    n, w = sz["N"], sz["W"]
    val = np.asarray(inp["val"], dtype=np.uint32).reshape(4 * n, w).copy()
    t = np.asarray(inp["gate_type"]).astype(np.int64)
    start = np.asarray(inp["fanin_start"]).astype(np.int64)
    fanin = np.asarray(inp["fanin_node"]).astype(np.int64)
    deg = np.diff(start)
    word = [val[fanin[np.minimum(start[:-1] + j, fanin.size - 1)]] for j in range(4)]
    op = (t >> 1)[:, None]
    v = word[0].copy()
    for j in range(1, 4):
        on = (deg > j)[:, None] & (t != SIM_MUX)[:, None]
        v = np.where(on & (op == 1), v & word[j], np.where(on & (op == 2), v | word[j],
                                                           np.where(on & (op >= 3), v ^ word[j], v)))
    v = np.where((t & 1)[:, None] == 1, ~v, v)
    mux = (word[1] & ~word[0]) | (word[2] & word[0])
    v = np.where((t == SIM_MUX)[:, None], mux, v)
    v[int(inp["fault_gate"])] = np.uint32(0xFFFFFFFF) if int(inp["stuck_val"]) else np.uint32(0)
    val[np.asarray(inp["level_node"]).astype(np.int64)] = v
    return {"val": val.reshape(-1)}


def netlist_bitsim_level_2d() -> KernelSpec:
    return _spec(
        "netlist_bitsim_level_2d",
        idiom="bit-parallel fault simulation of a netlist level, 2-D (pattern word, gate): CSR fan-in word "
              "gathers combined by a gate-type code (AND / OR / XOR loop, invert bit, MUX2), stuck-at override",
        sizes={"N": [1024, 4096, 16384, 65536, 262144], "W": [32, 128, 512]}, check={"N": 200, "W": 40},
        constraints=["N * W <= 2**24"],
        args=[Arg("nword", "scalar", "int32", "W"), Arg("ngate", "scalar", "int32", "N"),
              Arg("fault_gate", "scalar", "int32", "N // 3"), Arg("stuck_val", "scalar", "int32", "1"),
              Arg("level_node", "buffer", "int32", "N"), Arg("gate_type", "buffer", "int32", "N"),
              Arg("fanin_start", "buffer", "int32", "N + 1"), Arg("fanin_node", "buffer", "int32", "4 * N"),
              Arg("val", "buffer", "uint32", "4 * N * W", "inout")],
        gsize=[round_up("W", 32), round_up("N", 16)], local=L2, reference=_ref_sim, make_inputs=_inputs_sim)


# --- HPWL and RUDY congestion map, a work-group per net ---------------------------------------------------------
def _inputs_rudy(rng, sz):
    """M nets of M * P pins, split at random cut points (so net degrees are roughly exponential, mean P, some of
    one pin); a net's pins lie around a uniform centre within a log-uniform RADIUS, clipped to the die."""
    m, p = sz["M"], sz["P"]
    die = TILE * NTILE
    cuts = np.sort(rng.choice(np.arange(1, m * p), m - 1, replace=False))
    start = np.concatenate(([0], cuts, [m * p]))
    deg = np.diff(start)
    r = np.repeat(np.exp(rng.uniform(*np.log(RADIUS), m)).astype(np.int64), deg)
    cx, cy = np.repeat(rng.integers(0, die, m), deg), np.repeat(rng.integers(0, die, m), deg)
    x = np.clip(cx + (rng.random(m * p) * (2 * r + 1)).astype(np.int64) - r, 0, die - 1)
    y = np.clip(cy + (rng.random(m * p) * (2 * r + 1)).astype(np.int64) - r, 0, die - 1)
    return {"net_start": start, "pin_x": x, "pin_y": y}


def _ref_rudy(inp, sz):
    m = sz["M"]
    tile, ntx = int(inp["tile"]), int(inp["ntx"])
    start = np.asarray(inp["net_start"]).astype(np.int64)
    px, py = np.asarray(inp["pin_x"]).astype(np.int64), np.asarray(inp["pin_y"]).astype(np.int64)
    x0, x1 = np.minimum.reduceat(px, start[:-1]), np.maximum.reduceat(px, start[:-1])
    y0, y1 = np.minimum.reduceat(py, start[:-1]), np.maximum.reduceat(py, start[:-1])
    ok = np.diff(start) >= 2
    hpwl = np.where(ok, (x1 - x0) + (y1 - y0), 0)
    x0, x1, y0, y1 = x0[ok], x1[ok], y0[ok], y1[ok]
    w, h = x1 - x0 + 1, y1 - y0 + 1
    tx0, tx1 = x0 // tile, np.minimum(x1 // tile, ntx - 1)
    ty0, ty1 = y0 // tile, np.minimum(y1 // tile, int(inp["nty"]) - 1)
    nbx = tx1 - tx0 + 1
    ncov = nbx * (ty1 - ty0 + 1)
    net = np.repeat(np.arange(ncov.size), ncov)
    c = np.arange(int(ncov.sum())) - np.repeat(np.cumsum(ncov) - ncov, ncov)
    tx, ty = tx0[net] + c % nbx[net], ty0[net] + c // nbx[net]
    ox = np.minimum(x1[net] + 1, (tx + 1) * tile) - np.maximum(x0[net], tx * tile)
    oy = np.minimum(y1[net] + 1, (ty + 1) * tile) - np.maximum(y0[net], ty * tile)
    add = ox * oy * ((w + h)[net] * RUDY_ONE) // (w * h)[net]
    demand = np.zeros(ntx * int(inp["nty"]), dtype=np.int64)
    np.add.at(demand, ty * ntx + tx, add)
    return {"hpwl": hpwl, "demand": demand}


def net_hpwl_rudy_group_atomic() -> KernelSpec:
    return _spec(
        "net_hpwl_rudy_group_atomic",
        idiom="HPWL + RUDY congestion, a group per net (num_groups loop): strided pin bbox, 4-way __local min / "
              "max tree, covered tiles strided over items, fixed-point overlap * density integer atomic_add",
        sizes={"M": [1024, 4096, 16384, 65536, 131072], "P": [4, 32]}, check={"M": 96, "P": 6},
        args=[Arg("nnet", "scalar", "int32", "M"), Arg("ntx", "scalar", "int32", str(NTILE)),
              Arg("nty", "scalar", "int32", str(NTILE)), Arg("tile", "scalar", "int32", str(TILE)),
              Arg("net_start", "buffer", "int32", "M + 1"), Arg("pin_x", "buffer", "int32", "M * P"),
              Arg("pin_y", "buffer", "int32", "M * P"), Arg("hpwl", "buffer", "int32", "M", "out"),
              Arg("demand", "buffer", "uint32", f"{NTILE * NTILE}", "out"),
              Arg("lo_x", "local", "int32", "l0"), Arg("hi_x", "local", "int32", "l0"),
              Arg("lo_y", "local", "int32", "l0"), Arg("hi_y", "local", "int32", "l0")],
        gsize=["M * 16"], local=L1_NET, reference=_ref_rudy, make_inputs=_inputs_rudy)


#: this group's builders, in the order of ``specs()``
BUILDERS = (netlist_bitsim_level_2d, net_hpwl_rudy_group_atomic)

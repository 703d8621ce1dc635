"""Holdout13 kernels, group anim (written by hand; see docs/HOLDOUT13.md): the physics half of a game frame as a
GPU physics engine launches it: one Gauss-Seidel pass of position-based dynamics over one colour of a grid
cloth's structural distance constraints, on a 2-D (column, row) NDRange, particles as float4 (xyz, inverse
mass) with pinned ones skipped; and the sweep of a sweep-and-prune broadphase, a work-item per object of the
x-sorted AABB list walking later objects until their intervals no longer overlap, filtering by y / z overlap
and by uint32 collision-layer group and mask bits, with each object's pairs in a fixed slot row. Neither uses
atomics or __local memory; the group's other two kernels are in :mod:`.anim_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, _f64, _spec, round_up

CLOTH_JITTER = 0.25  # pbd_cloth_grid_color_2d: particle displacement from the rest grid, in grid spacings
CLOTH_PINNED = 0.01  # pbd_cloth_grid_color_2d: share of pinned particles besides the pinned top row's every 8th

SAP_SLOTS = 8  # sap_x_sweep_layer_masks: pair slots per object
SAP_BIG = 0.01  # sap_x_sweep_layer_masks: share of long objects (walls, terrain pieces) with x half-extents 5 .. 20
SAP_YZ = (8.0, 4.0)  # sap_x_sweep_layer_masks: the level's extent in y and z (a long strip along x)
#: collision layers: static, dynamic, character, trigger, debris; their shares and which layers each collides with
SAP_SHARES = (0.3, 0.3, 0.1, 0.05, 0.25)
SAP_MASKS = (0b10110, 0b11111, 0b01111, 0b00100, 0b00011)


# --- PBD cloth: one colour of the grid's structural distance constraints ----------------------------------------
def _inputs_cloth(rng, sz):
    """A w x h cloth at grid spacing 1 displaced by up to CLOTH_JITTER in x, y, z (the state after the predict
    step); inverse masses 0.5 .. 2, zero for every 8th particle of the top row and a CLOTH_PINNED share; rest
    lengths 1 +- 5 % (the cloth mesh was not a perfect grid)."""
    w, h = sz["W"], sz["H"]
    pos = np.empty((h, w, 4), dtype=np.float32)
    pos[:, :, 0] = np.arange(w, dtype=np.float32)[None, :]
    pos[:, :, 1] = np.arange(h, dtype=np.float32)[:, None]
    pos[:, :, 2] = 0.0
    pos[:, :, :3] += (rng.random((h, w, 3), dtype=np.float32) - np.float32(0.5)) * np.float32(2 * CLOTH_JITTER)
    inv = np.float32(0.5) + np.float32(1.5) * rng.random((h, w), dtype=np.float32)
    inv[0, ::8] = 0.0
    inv[rng.random((h, w), dtype=np.float32) < CLOTH_PINNED] = 0.0
    pos[:, :, 3] = inv
    return {"pos": pos, "rest_h": np.float32(0.95) + np.float32(0.1) * rng.random(h * (w - 1), dtype=np.float32),
            "rest_v": np.float32(0.95) + np.float32(0.1) * rng.random((h - 1) * w, dtype=np.float32)}


def _ref_cloth(inp, sz):
    w, h, color = sz["W"], sz["H"], int(inp["color"])
    k = float(inp["stiffness"])
    pos = _f64(inp["pos"]).reshape(h * w, 4).copy()
    par = color & 1
    if color < 2:
        r, c = np.meshgrid(np.arange(h), np.arange(par, w - 1, 2), indexing="ij")
        a, rest = (r * w + c).ravel(), np.asarray(inp["rest_h"], dtype=np.float32).reshape(h, w - 1)[r, c].ravel()
        b = a + 1
    else:
        r, c = np.meshgrid(np.arange(par, h - 1, 2), np.arange(w), indexing="ij")
        a, rest = (r * w + c).ravel(), np.asarray(inp["rest_v"], dtype=np.float32).reshape(h - 1, w)[r, c].ravel()
        b = a + w
    rest = _f64(rest)
    wa, wb = pos[a, 3], pos[b, 3]
    d = pos[b, :3] - pos[a, :3]
    length = np.sqrt((d * d).sum(axis=1))
    act = (wa + wb > 0.0) & (length >= 1.0e-6)
    s = np.where(act, k * (length - rest) / np.where(act, length * (wa + wb), 1.0), 0.0)
    pos[a, :3] += (wa * s)[:, None] * d
    pos[b, :3] -= (wb * s)[:, None] * d
    return {"pos": pos.ravel()}


def pbd_cloth_grid_color_2d() -> KernelSpec:
    return _spec(
        "pbd_cloth_grid_color_2d",
        idiom="PBD cloth distance constraints, one graph colour per launch, 2-D (column, row): float4 (xyz, "
              "inverse mass) pair gather, rest-length violation split by inverse mass, pinned / degenerate skips",
        sizes={"W": [256, 1024, 4096], "H": [256, 2048], "C": [0, 3]}, check={"W": 45, "H": 29, "C": 1},
        args=[Arg("w", "scalar", "int32", "W"), Arg("h", "scalar", "int32", "H"),
              Arg("color", "scalar", "int32", "C"), Arg("stiffness", "scalar", "float32", "0.8"),
              Arg("pos", "buffer", "float32", "4 * W * H", "inout"),
              Arg("rest_h", "buffer", "float32", "H * (W - 1)"), Arg("rest_v", "buffer", "float32", "(H - 1) * W")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_cloth, make_inputs=_inputs_cloth)


# --- sweep-and-prune broadphase: the sweep over x-sorted AABBs with layer masks ---------------------------------
def _inputs_sap(rng, sz):
    """N boxes in a strip [0, N * 1.25 / D) x [0, 8) x [0, 4) (so about D boxes start within a box's x extent),
    half-extents 0.25 .. 1 (SAP_BIG of them 5 .. 20 long in x), sorted by lower x bound; layers in the shares
    SAP_SHARES, group = the layer's bit, mask = SAP_MASKS of the layer."""
    n, d = sz["N"], sz["D"]
    ext = rng.uniform(0.25, 1.0, (n, 3))
    big = rng.random(n) < SAP_BIG
    ext[big, 0] = rng.uniform(5.0, 20.0, int(big.sum()))
    centre = rng.random((n, 3)) * np.array([n * 1.25 / d, *SAP_YZ])
    lo, hi = np.zeros((n, 4), dtype=np.float32), np.zeros((n, 4), dtype=np.float32)
    lo[:, :3], hi[:, :3] = centre - ext, centre + ext
    order = np.argsort(lo[:, 0], kind="stable")
    layer = rng.choice(len(SAP_SHARES), n, p=SAP_SHARES)
    return {"lo": lo[order], "hi": hi[order], "group": (1 << layer).astype(np.uint32),
            "mask": np.asarray(SAP_MASKS, dtype=np.uint32)[layer]}


def _ref_sap(inp, sz):
    n, k = sz["N"], int(inp["max_pairs"])
    lo = np.asarray(inp["lo"], dtype=np.float32).reshape(n, 4)
    hi = np.asarray(inp["hi"], dtype=np.float32).reshape(n, 4)
    group, mask = np.asarray(inp["group"]), np.asarray(inp["mask"])
    ends = np.searchsorted(lo[:, 0], hi[:, 0], side="right")  # first j whose lower x is past i's upper x
    npairs, pairs = np.zeros(n, dtype=np.int64), np.zeros((n, k), dtype=np.int64)
    for i in range(n):
        j = np.arange(i + 1, max(ends[i], i + 1))
        keep = ((group[i] & mask[j]) != 0) & ((group[j] & mask[i]) != 0)
        keep &= (lo[j, 1] <= hi[i, 1]) & (hi[j, 1] >= lo[i, 1]) & (lo[j, 2] <= hi[i, 2]) & (hi[j, 2] >= lo[i, 2])
        hit = j[keep]
        npairs[i] = hit.size
        pairs[i, :min(hit.size, k)] = hit[:k]
    return {"npairs": npairs, "pairs": pairs.ravel()}


def sap_x_sweep_layer_masks() -> KernelSpec:
    return _spec(
        "sap_x_sweep_layer_masks",
        idiom="sweep-and-prune sweep, an item per x-sorted AABB: walk later boxes until lower x passes upper x "
              "(early break), y / z interval and uint32 group / mask tests, first pairs into a fixed slot row",
        sizes={"N": [4096, 32768, 262144, 1048576], "D": [4, 32]}, check={"N": 300, "D": 32},
        args=[Arg("n", "scalar", "int32", "N"), Arg("max_pairs", "scalar", "int32", str(SAP_SLOTS)),
              Arg("lo", "buffer", "float32", "4 * N"), Arg("hi", "buffer", "float32", "4 * N"),
              Arg("group", "buffer", "uint32", "N"), Arg("mask", "buffer", "uint32", "N"),
              Arg("npairs", "buffer", "int32", "N", "out"),
              Arg("pairs", "buffer", "int32", f"{SAP_SLOTS} * N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_sap, make_inputs=_inputs_sap)


#: this group's builders, in the order of ``specs()``
BUILDERS = (pbd_cloth_grid_color_2d, sap_x_sweep_layer_masks)

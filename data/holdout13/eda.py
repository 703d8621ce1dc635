"""Holdout13 kernels, group eda (written by hand; see docs/HOLDOUT13.md): two steps of a physical-design flow as a
GPU port launches them. The bin-density map of a global placer on a 2-D (bin column, bin row) NDRange, every bin
gathering the standard cells of its host-built candidate list (offsets per bin) and summing the area of their
overlap with it in float32, then writing its density and its overflow above the target density; and the forward
propagation of static timing analysis over one level of the levelized timing graph in fp64, a work-item per gate
reading its fan-in drivers' arrivals and slews through a CSR list, degrading the slew over the wire and
interpolating the cell's 8 x 8 NLDM delay and slew tables from __constant memory, the latest arrival and worst slew
written in place. Neither uses atomics or __local memory; the group's other two kernels are in :mod:`.eda_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f32, _f64, _spec, round_up

BIN = 8.0  # place_bin_overlap_gather_2d: bin side (sites); cells are 0.1 .. 1 bin wide and high (<= 2 x 2 bins)
TARGET = 0.9  # place_bin_overlap_gather_2d: target density

NPT = 8  # sta_level_arrival_nldm_fp64: breakpoints of an NLDM table axis
NTYPE = 16  # sta_level_arrival_nldm_fp64: library cells
LN9 = 2.1972245773362196  # sta_level_arrival_nldm_fp64: ln 9, the PERI slew-degradation factor


# --- placement density map: a bin gathers the overlap area of its candidate cells -------------------------------
def _inputs_density(rng, sz):
    """G x G bins with D cells a bin on average, each 0.1 .. 1 bin wide and high at a uniform position in the die
    (so a cell overlaps at most 2 x 2 bins), numbered in the row-major order of the bin of their lower-left corner
    (as a placer sorts its cells); the bin lists are the bins each cell's box touches, cells ascending in a bin,
    the list array padded to 4 entries a cell."""
    g, d = sz["G"], sz["D"]
    n = g * g * d
    home = np.sort(rng.integers(0, g * g, n).astype(np.int32))
    w = _f32(rng.uniform(0.1, 1.0, n) * BIN)
    h = _f32(rng.uniform(0.1, 1.0, n) * BIN)
    x = np.minimum(_f32((home % g + rng.random(n, dtype=np.float32)) * np.float32(BIN)), np.float32(g * BIN) - w)
    y = np.minimum(_f32((home // g + rng.random(n, dtype=np.float32)) * np.float32(BIN)), np.float32(g * BIN) - h)
    bx0, by0 = (_f64(x) // BIN).astype(np.int32), (_f64(y) // BIN).astype(np.int32)
    bx1 = np.minimum(((_f64(x) + w) // BIN).astype(np.int32), g - 1)
    by1 = np.minimum(((_f64(y) + h) // BIN).astype(np.int32), g - 1)
    keys, cells = [], []
    ids = np.arange(n, dtype=np.int32)
    for dy in (0, 1):
        for dx in (0, 1):
            keep = (bx0 + dx <= bx1) & (by0 + dy <= by1)
            keys.append(((by0 + dy) * g + bx0 + dx)[keep])
            cells.append(ids[keep])
    keys, cells = np.concatenate(keys), np.concatenate(cells)
    order = np.argsort(keys, kind="stable")  # four nearly sorted runs: a merge
    start = np.zeros(g * g + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=g * g), out=start[1:])
    lists = np.zeros(4 * n, dtype=np.int32)
    lists[:keys.size] = cells[order]
    return {"bin_start": start, "bin_cell": lists, "cell_x": x, "cell_y": y, "cell_w": w, "cell_h": h}


def _ref_density(inp, sz):
    g = sz["G"]
    bw, bh, target = float(inp["bin_w"]), float(inp["bin_h"]), _f64(inp["target"])
    start = np.asarray(inp["bin_start"]).astype(np.int64)
    bins = np.repeat(np.arange(g * g), np.diff(start))
    cells = np.asarray(inp["bin_cell"]).astype(np.int64)[:start[-1]]
    bx, by = _f64(bins % g) * bw, _f64(bins // g) * bh
    cx, cy = _f64(inp["cell_x"])[cells], _f64(inp["cell_y"])[cells]
    ox = np.minimum(cx + _f64(inp["cell_w"])[cells], bx + bw) - np.maximum(cx, bx)
    oy = np.minimum(cy + _f64(inp["cell_h"])[cells], by + bh) - np.maximum(cy, by)
    area = np.bincount(bins, weights=np.where((ox > 0) & (oy > 0), ox * oy, 0.0), minlength=g * g)
    cap = bw * bh
    return {"density": area / cap, "overflow": np.maximum(area - target * cap, 0.0)}


def place_bin_overlap_gather_2d() -> KernelSpec:
    return _spec(
        "place_bin_overlap_gather_2d", tol=SUMS,
        idiom="placement bin-density map, 2-D (bin x, bin y): CSR gather of a bin's candidate cells, rectangle "
              "overlap area (fmin / fmax, positive-overlap test) summed, density and overflow over target",
        sizes={"G": [64, 128, 256, 512, 1024], "D": [1, 2, 4]}, check={"G": 24, "D": 2},
        args=[Arg("nbx", "scalar", "int32", "G"), Arg("nby", "scalar", "int32", "G"),
              Arg("bin_w", "scalar", "float32", str(BIN)), Arg("bin_h", "scalar", "float32", str(BIN)),
              Arg("target", "scalar", "float32", str(TARGET)), Arg("bin_start", "buffer", "int32", "G * G + 1"),
              Arg("bin_cell", "buffer", "int32", "4 * G * G * D"), Arg("cell_x", "buffer", "float32", "G * G * D"),
              Arg("cell_y", "buffer", "float32", "G * G * D"), Arg("cell_w", "buffer", "float32", "G * G * D"),
              Arg("cell_h", "buffer", "float32", "G * G * D"),
              Arg("density", "buffer", "float32", "G * G", "out"),
              Arg("overflow", "buffer", "float32", "G * G", "out")],
        gsize=[round_up("G", 32), round_up("G", 16)], local=L2, reference=_ref_density,
        make_inputs=_inputs_density)


# --- static timing: arrival and slew propagation over one level, NLDM tables, fp64 ------------------------------
def _inputs_sta(rng, sz):
    """4 N timing nodes, the level's N a sorted random subset of them; each gate has 1 .. F fan-in pins driven by
    random nodes outside the level (arrivals 0 .. 500 ps, slews 5 .. 80 ps), wires of 0 .. 20 ps Elmore delay; 16
    library cells, geometric axes (slew 2 .. 256 ps, load 0.5 .. 64 fF, each scaled by 0.8 .. 1.2) and tables of
    a + b s + c l + e sqrt(s l) delays and a + b s + c l slews; loads 0.2 .. 80 fF (past the axis: extrapolated).
    The pin arrays are padded to F entries a gate."""
    n, f = sz["N"], sz["F"]
    v = 4 * n
    level = np.sort(rng.permutation(v)[:n])
    outside = np.ones(v, dtype=bool)
    outside[level] = False
    others = np.flatnonzero(outside)
    deg = rng.integers(1, f + 1, n)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=start[1:])
    pins = int(start[-1])
    drv, wire = np.zeros(f * n, dtype=np.int64), np.zeros(f * n)
    drv[:pins] = others[rng.integers(0, others.size, pins)]
    wire[:pins] = rng.uniform(0.0, 20.0, pins)
    arrival, slew = rng.uniform(0.0, 500.0, v), rng.uniform(5.0, 80.0, v)
    arrival[level], slew[level] = 0.0, 0.0
    sa = 2.0 ** np.arange(1, NPT + 1)[None, :] * rng.uniform(0.8, 1.2, (NTYPE, 1))
    la = 0.5 * 2.0 ** np.arange(NPT)[None, :] * rng.uniform(0.8, 1.2, (NTYPE, 1))
    s, ld = sa[:, :, None], la[:, None, :]
    a, b, c, e = (rng.uniform(lo, hi, (NTYPE, 1, 1)) for lo, hi in ((5, 20), (0.05, 0.2), (0.5, 3), (0.05, 0.3)))
    a2, b2, c2 = (rng.uniform(lo, hi, (NTYPE, 1, 1)) for lo, hi in ((3, 10), (0.1, 0.4), (0.8, 4)))
    return {"level_node": level, "cell_type": rng.integers(0, NTYPE, n), "out_load": rng.uniform(0.2, 80.0, n),
            "fanin_start": start, "fanin_drv": drv, "wire_delay": wire, "slew_axis": sa, "load_axis": la,
            "delay_lut": a + b * s + c * ld + e * np.sqrt(s * ld), "slew_lut": a2 + b2 * s + c2 * ld,
            "arrival": arrival, "slew": slew}


def _ref_sta(inp, sz):
    n = sz["N"]
    start = np.asarray(inp["fanin_start"]).astype(np.int64)
    gate = np.repeat(np.arange(n), np.diff(start))
    npin = int(start[-1])
    ctype = np.asarray(inp["cell_type"]).astype(np.int64)
    sa, la = _f64(inp["slew_axis"]).reshape(NTYPE, NPT), _f64(inp["load_axis"]).reshape(NTYPE, NPT)
    dlut = _f64(inp["delay_lut"]).reshape(NTYPE, NPT, NPT)
    slut = _f64(inp["slew_lut"]).reshape(NTYPE, NPT, NPT)
    load = _f64(inp["out_load"])
    lat = la[ctype]
    c = (load[:, None] > lat[:, 1:NPT - 1]).sum(axis=1)
    rows = np.arange(n)
    fc = (load - lat[rows, c]) / (lat[rows, c + 1] - lat[rows, c])
    arr_in, slew_in = _f64(inp["arrival"]), _f64(inp["slew"])
    drv = np.asarray(inp["fanin_drv"]).astype(np.int64)[:npin]
    wd = _f64(inp["wire_delay"])[:npin]
    s0, sw = slew_in[drv], float(inp["ln9"]) * wd
    s_in = np.sqrt(s0 * s0 + sw * sw)
    t, cp, fcp = ctype[gate], c[gate], fc[gate]
    sat = sa[t]
    r = (s_in[:, None] > sat[:, 1:NPT - 1]).sum(axis=1)
    pr = np.arange(npin)
    fr = (s_in - sat[pr, r]) / (sat[pr, r + 1] - sat[pr, r])

    def interp(lut):
        k00, k01, k10, k11 = lut[t, r, cp], lut[t, r, cp + 1], lut[t, r + 1, cp], lut[t, r + 1, cp + 1]
        v0, v1 = k00 + fcp * (k01 - k00), k10 + fcp * (k11 - k10)
        return v0 + fr * (v1 - v0)

    at = np.maximum.reduceat(arr_in[drv] + wd + interp(dlut), start[:-1])
    sl = np.maximum.reduceat(interp(slut), start[:-1])
    level = np.asarray(inp["level_node"]).astype(np.int64)
    arrival, slew = arr_in.copy(), slew_in.copy()
    arrival[level], slew[level] = at, sl
    return {"arrival": arrival, "slew": slew}


def sta_level_arrival_nldm_fp64() -> KernelSpec:
    return _spec(
        "sta_level_arrival_nldm_fp64", tol=FP64, precision="fp64",
        idiom="STA arrival propagation over one level in fp64, an item per gate: CSR fan-in gathers, PERI slew "
              "sqrt, breakpoint search + bilinear NLDM lookup in __constant, max arrival / slew stored in place",
        sizes={"N": [4096, 16384, 65536, 262144, 1048576], "F": [2, 4]}, check={"N": 300, "F": 3},
        args=[Arg("ngate", "scalar", "int32", "N"), Arg("ln9", "scalar", "float64", repr(LN9)),
              Arg("level_node", "buffer", "int32", "N"), Arg("cell_type", "buffer", "int32", "N"),
              Arg("out_load", "buffer", "float64", "N"), Arg("fanin_start", "buffer", "int32", "N + 1"),
              Arg("fanin_drv", "buffer", "int32", "F * N"), Arg("wire_delay", "buffer", "float64", "F * N"),
              Arg("slew_axis", "buffer", "float64", str(NTYPE * NPT)),
              Arg("load_axis", "buffer", "float64", str(NTYPE * NPT)),
              Arg("delay_lut", "buffer", "float64", str(NTYPE * NPT * NPT)),
              Arg("slew_lut", "buffer", "float64", str(NTYPE * NPT * NPT)),
              Arg("arrival", "buffer", "float64", "4 * N", "inout"),
              Arg("slew", "buffer", "float64", "4 * N", "inout")],
        gsize=[round_up("N")], local=L1, reference=_ref_sta, make_inputs=_inputs_sta)


#: this group's builders, in the order of ``specs()``
BUILDERS = (place_bin_overlap_gather_2d, sta_level_arrival_nldm_fp64)

"""Holdout15 kernels, group transport, continued (written by hand; see docs/HOLDOUT15.md): a pedestrian and a
macroscopic traffic model. One explicit step of the Helbing social-force model, a work-item per pedestrian of a
cell-sorted crowd (uint32 cell offsets), the work-group first copying the wall segments into __local memory
behind a barrier; each pedestrian sums the driving force toward its goal, the anisotropic exponential repulsion of
the others within the cutoff in the 3 x 3 cells around its own (float2 positions) and the repulsion of the walls
within the cutoff (nearest point of each segment), then caps its speed and moves; and one step of Daganzo's cell
transmission model of a freeway network of corridors with on-ramp merges and off-ramp diverges, a work-item per
cell taking min(sending, receiving) between cells of a link and, at a link's ends, the flow of its node from a
link / node table (plain junction, merge with priority median rule, FIFO diverge with a split ratio, source,
sink), and updating its density. Split from :mod:`.transport` to keep each module short; :mod:`.catalog` lists it
after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f32, _f64, _spec, round_up

# social_force_grid_walls_local: cell side (m), walls, and the Helbing-Molnar parameters (per unit mass)
SF_CELL = 2.0
SF_NWALL = 24
SF = {"dt": 0.05, "v0": 1.34, "tau": 0.5, "vcap": 1.74, "a_ped": 25.0, "b_ped": 0.08, "a_wall": 25.0,
      "b_wall": 0.08, "radius": 0.3, "cutoff": 2.0, "lambda_": 0.3}

CTM_DT = 1.0  # ctm_merge_diverge_links: time step (s)
# ctm_merge_diverge_links: vf (m/s), w (m/s), jam density (veh/m), capacity (veh/s), 1 / cell length; main, ramp
CTM_LINK = np.array([[30.0, 6.0, 0.45, 1.8, 1.0 / 30.0], [15.0, 5.0, 0.15, 0.5, 1.0 / 15.0]])


# --- social-force pedestrian step, cell-sorted crowd, walls in __local ----------------------------------------------
def _inputs_sf(rng, sz):
    """D pedestrians per 2 m cell on average, uniform over a G x G grid, sorted by cell; speeds up to 1.3 m/s;
    goals 5 m beyond the left or right side; SF_NWALL walls: the domain's four sides and random 1 .. 6 m
    segments inside."""
    g, d = sz["G"], sz["D"]
    n, side = g * g * d, g * SF_CELL
    xy = rng.random((n, 2), dtype=np.float32) * np.float32(side)
    cell = (np.minimum((xy[:, 1] * np.float32(1.0 / SF_CELL)).astype(np.int64), g - 1) * g
            + np.minimum((xy[:, 0] * np.float32(1.0 / SF_CELL)).astype(np.int64), g - 1))
    srt = np.argsort(cell, kind="stable")
    xy, cell = xy[srt], cell[srt]
    start = np.searchsorted(cell, np.arange(g * g + 1)).astype(np.uint32)
    ang = rng.uniform(0, 2 * np.pi, n)
    sp = rng.uniform(0, 1.3, n)
    vel = np.stack([sp * np.cos(ang), sp * np.sin(ang)], -1)
    right = rng.random(n) < 0.5
    goal = np.stack([np.where(right, side + 5.0, -5.0), rng.uniform(0, side, n)], -1)
    walls = np.zeros((SF_NWALL, 4))
    walls[:4] = [[0, 0, side, 0], [side, 0, side, side], [side, side, 0, side], [0, side, 0, 0]]
    p0 = rng.uniform(0, side, (SF_NWALL - 4, 2))
    a = rng.uniform(0, 2 * np.pi, SF_NWALL - 4)
    ln = rng.uniform(1.0, 6.0, SF_NWALL - 4)
    walls[4:] = np.c_[p0, p0 + ln[:, None] * np.c_[np.cos(a), np.sin(a)]]
    return {"cell_start": start, "pos": xy.reshape(-1), "vel": vel.reshape(-1), "goal": goal.reshape(-1),
            "walls": walls.reshape(-1)}


def _ref_sf(inp, sz):
    """All pairs within the cutoff (the grid only prunes the search), in float64."""
    n, nw = int(inp["nped"]), int(inp["nwall"])
    p = {k: float(inp[k]) for k in SF}
    x = _f64(inp["pos"])[:2 * n].reshape(n, 2)
    v = _f64(inp["vel"])[:2 * n].reshape(n, 2)
    tg = _f64(inp["goal"])[:2 * n].reshape(n, 2) - x
    lg = np.linalg.norm(tg, axis=1, keepdims=True)
    e = np.where(lg > 1e-6, tg / np.maximum(lg, 1e-30), 0.0)
    f = (p["v0"] * e - v) / p["tau"]
    dxy = x[:, None, :] - x[None, :, :]
    d2 = (dxy ** 2).sum(-1)
    near = (d2 < p["cutoff"] ** 2) & ~np.eye(n, dtype=bool)
    d = np.maximum(np.sqrt(d2), 1e-3)
    nv = dxy / d[..., None]
    cphi = -(nv * e[:, None, :]).sum(-1)
    w = p["lambda_"] + (1 - p["lambda_"]) * 0.5 * (1 + cphi)
    mag = np.where(near, p["a_ped"] * np.exp((2 * p["radius"] - d) / p["b_ped"]) * w, 0.0)
    f += (mag[..., None] * nv).sum(1)
    walls = _f64(inp["walls"])[:4 * nw].reshape(nw, 4)
    for p0, p1 in zip(walls[:, :2], walls[:, 2:]):
        seg = p1 - p0
        t = np.clip(((x - p0) @ seg) / (seg @ seg), 0.0, 1.0)
        dw = x - (p0 + t[:, None] * seg)
        r2 = (dw ** 2).sum(1)
        dd = np.maximum(np.sqrt(r2), 1e-3)
        f += np.where(r2 < p["cutoff"] ** 2, p["a_wall"] * np.exp((p["radius"] - dd) / p["b_wall"]) / dd,
                      0.0)[:, None] * dw
    vn = v + p["dt"] * f
    s = np.linalg.norm(vn, axis=1, keepdims=True)
    vn = np.where(s > p["vcap"], vn * p["vcap"] / np.maximum(s, 1e-30), vn)
    return {"pos_out": (x + p["dt"] * vn).reshape(-1), "vel_out": vn.reshape(-1)}


def social_force_grid_walls_local() -> KernelSpec:
    return _spec(
        "social_force_grid_walls_local", tol=SUMS,
        idiom="social-force pedestrian step, an item per cell-sorted pedestrian: walls to __local behind a barrier, "
              "3 x 3 cell neighbour walk over uint32 offsets, cutoff + anisotropic exp repulsion, segment walls, cap",
        sizes={"G": [12, 36, 108, 216, 432], "D": [1, 4]}, check={"G": 7, "D": 5},
        args=[Arg("nped", "scalar", "int32", "G * G * D"), Arg("gx", "scalar", "int32", "G"),
              Arg("gy", "scalar", "int32", "G"), Arg("inv_cell", "scalar", "float32", str(1.0 / SF_CELL)),
              Arg("nwall", "scalar", "int32", str(SF_NWALL)),
              *(Arg(k, "scalar", "float32", repr(val)) for k, val in SF.items()),
              Arg("cell_start", "buffer", "uint32", "G * G + 1"), Arg("pos", "buffer", "float32", "2 * G * G * D"),
              Arg("vel", "buffer", "float32", "2 * G * G * D"), Arg("goal", "buffer", "float32", "2 * G * G * D"),
              Arg("walls", "buffer", "float32", str(4 * SF_NWALL)),
              Arg("pos_out", "buffer", "float32", "2 * G * G * D", "out"),
              Arg("vel_out", "buffer", "float32", "2 * G * G * D", "out"),
              Arg("wl", "local", "float32", str(4 * SF_NWALL))],
        gsize=[round_up("G * G * D")], local=L1, reference=_ref_sf, make_inputs=_inputs_sf)


# --- cell transmission model of a freeway network with merges and diverges ------------------------------------------
def _network(rng, ncell, lk):
    """Corridors of 4 .. 40 mainline links (lk / 2 .. 3 lk / 2 cells) from a source to a sink, each inner node a
    plain junction (60 %), an on-ramp merge (20 %) or an off-ramp diverge (20 %), ramps 3 .. 8 cells; until the
    cells run out (the last link takes the rest)."""
    ln, up, down, kind = [], [], [], []
    nodes = []  # [in0, in1, out0, out1, par]

    def node(par):
        nodes.append([-1, -1, -1, -1, par])
        return len(nodes) - 1

    def link(a, b, cells, k):
        up.append(a), down.append(b), ln.append(cells), kind.append(k)
        lid = len(ln) - 1
        na, nb = nodes[a], nodes[b]
        na[2 if na[2] < 0 else 3] = lid
        nb[0 if nb[0] < 0 else 1] = lid

    budget = ncell
    def chunks(draw):  # random numbers drawn 4096 at a time
        while True:
            yield from draw().tolist()

    mains = chunks(lambda: rng.integers(lk // 2, 3 * lk // 2 + 1, 4096))
    draws = chunks(lambda: rng.random((4096, 3)))
    while budget > 0:
        cur = node(0.5 + 1.3 * next(draws)[0])
        nseg = int(rng.integers(4, 41))
        for s in range(nseg):
            cells = min(next(mains), budget)
            if budget - cells < 2:
                cells = budget
            budget -= cells
            last = budget <= 0 or s == nseg - 1
            u, r1, r2 = next(draws)
            nd = node(0.0)
            link(cur, nd, cells, 0)
            if last:
                break
            ramp = 3 + int(6 * r2)
            if u < 0.2 and budget > ramp + 2:  # merge: mainline in-link 0, ramp in-link 1
                nodes[nd][4] = 0.6 + 0.25 * r1
                link(node(0.1 + 0.5 * r2), nd, ramp, 1)
                budget -= ramp
            elif u < 0.4 and budget > ramp + 2:  # diverge: the ramp is out-link 0
                nodes[nd][4] = 0.05 + 0.25 * r1
                link(nd, node(0.0), ramp, 1)
                budget -= ramp
            cur = nd
    return np.array(ln), np.array(up), np.array(down), np.array(kind), np.array(nodes)


def _inputs_ctm(rng, sz):
    """The network of :func:`_network`; each link free-flowing (0 .. 0.9 critical density) or congested
    (critical .. 0.95 jam) with equal odds, cell by cell uniform."""
    c, lk = sz["C"], sz["L"]
    ln, up, down, kind, nodes = _network(rng, c, lk)
    nl, nn = ln.size, len(nodes)
    cl0 = np.zeros(c // 3 + 3, dtype=np.int64)
    np.cumsum(ln, out=cl0[1:nl + 1])
    cl0[nl + 1:] = c
    cell_link = np.repeat(np.arange(nl), ln)
    par = CTM_LINK[kind]
    kc, kj = par[:, 3] / par[:, 0], par[:, 2]
    cong = (rng.random(nl) < 0.5)[cell_link]
    u = rng.random(c)
    k = np.where(cong, kc[cell_link] + u * (0.95 * kj[cell_link] - kc[cell_link]), u * 0.9 * kc[cell_link])
    pad = lambda a, m, fill: np.concatenate([a, np.full(m - a.size, fill, dtype=a.dtype)])  # noqa: E731
    nlmax, nnmax = c // 3 + 2, 2 * (c // 3 + 2)
    return {"cell_link": cell_link, "link_cell0": cl0, "link_up": pad(up, nlmax, 0),
            "link_down": pad(down, nlmax, 0), "link_par": pad(par.reshape(-1), 5 * nlmax, 1.0),
            "node_in": pad(nodes[:, :2].reshape(-1).astype(np.int64), 2 * nnmax, -1),
            "node_out": pad(nodes[:, 2:4].reshape(-1).astype(np.int64), 2 * nnmax, -1),
            "node_par": pad(nodes[:, 4], nnmax, 0.0), "k": k}


def _ref_ctm(inp, sz):
    c, dt = int(inp["ncell"]), float(inp["dt"])
    cl = np.asarray(inp["cell_link"]).astype(np.int64)[:c]
    cl0 = np.asarray(inp["link_cell0"]).astype(np.int64)
    up, down = np.asarray(inp["link_up"]).astype(np.int64), np.asarray(inp["link_down"]).astype(np.int64)
    lp = _f64(inp["link_par"]).reshape(-1, 5)
    nin = np.asarray(inp["node_in"]).astype(np.int64).reshape(-1, 2)
    nout = np.asarray(inp["node_out"]).astype(np.int64).reshape(-1, 2)
    npar, k = _f64(inp["node_par"]), _f64(inp["k"])[:c]
    send = np.minimum(lp[cl, 0] * k, lp[cl, 3])
    recv = np.minimum(lp[cl, 3], lp[cl, 1] * (lp[cl, 2] - k))
    inner = np.minimum(send[:-1], recv[1:])  # boundary c | c + 1 inside one link
    qin, qout = np.r_[0.0, inner], np.r_[inner, 0.0]
    nl = int(cl[-1]) + 1
    leave, enter = np.zeros(nl), np.zeros(nl)  # node flows out of a link's last cell / into its first
    for nd in np.unique(np.r_[up[:nl], down[:nl]]):
        (a, b), (p, q), par = nin[nd], nout[nd], npar[nd]
        if a < 0:
            enter[p] = min(par, recv[cl0[p]])
            continue
        sa = send[cl0[a + 1] - 1]
        if p < 0:
            leave[a] = sa
            continue
        rp = recv[cl0[p]]
        if b >= 0:
            sb = send[cl0[b + 1] - 1]
            fa, fb = (sa, sb) if sa + sb <= rp else (np.median([sa, rp - sb, par * rp]), 0.0)
            if sa + sb > rp:
                fb = rp - fa
            leave[a], leave[b], enter[p] = fa, fb, fa + fb
        elif q >= 0:
            tot = min(sa, rp / par, recv[cl0[q]] / (1.0 - par))
            leave[a], enter[p], enter[q] = tot, par * tot, (1.0 - par) * tot
        else:
            leave[a] = enter[p] = min(sa, rp)
    first, last = cl0[:nl], cl0[1:nl + 1] - 1
    qin[first], qout[last] = enter, leave
    return {"k_out": k + dt * lp[cl, 4] * (qin - qout), "q_out": qout}


def ctm_merge_diverge_links() -> KernelSpec:
    return _spec(
        "ctm_merge_diverge_links", tol=SUMS,
        idiom="cell transmission model step, an item per cell: link of the cell, min(send, receive) inside a "
              "link, node flow from a link / node table at link ends (merge median rule, FIFO diverge, source, sink)",
        sizes={"C": [4096, 32768, 262144, 1048576, 4194304], "L": [8, 40]}, check={"C": 600, "L": 10},
        args=[Arg("ncell", "scalar", "int32", "C"), Arg("dt", "scalar", "float32", str(CTM_DT)),
              Arg("cell_link", "buffer", "int32", "C"), Arg("link_cell0", "buffer", "int32", "C // 3 + 3"),
              Arg("link_up", "buffer", "int32", "C // 3 + 2"), Arg("link_down", "buffer", "int32", "C // 3 + 2"),
              Arg("link_par", "buffer", "float32", "5 * (C // 3 + 2)"),
              Arg("node_in", "buffer", "int32", "4 * (C // 3 + 2)"),
              Arg("node_out", "buffer", "int32", "4 * (C // 3 + 2)"),
              Arg("node_par", "buffer", "float32", "2 * (C // 3 + 2)"), Arg("k", "buffer", "float32", "C"),
              Arg("k_out", "buffer", "float32", "C", "out"), Arg("q_out", "buffer", "float32", "C", "out")],
        gsize=[round_up("C")], local=L1, reference=_ref_ctm, make_inputs=_inputs_ctm)


#: this group's builders, in the order of ``specs()``
BUILDERS = (social_force_grid_walls_local, ctm_merge_diverge_links)

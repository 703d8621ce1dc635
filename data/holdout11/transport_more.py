"""Holdout11 kernels, group transport, continued (written by hand; see docs/HOLDOUT11.md): a tracker's charged-track
propagation in a solenoid, classic fourth-order Runge-Kutta of the tangent and position for a fixed number of steps
with a bilinear (r, z) field-map lookup at every stage, first crossings of the barrel layers interpolated into
(phi, z) hits and a uint bitmask of the layers hit; the seeding step of calorimeter clustering on a 2-D (phi,
eta) NDRange, the work-group's tile and a two-cell halo (phi periodic, eta padded) zero-suppressed into __local
memory, a 4-sigma 3 x 3 local maximum with raster-order ties and the 5 x 5 window's energy and barycentre per seed;
and Woodcock (delta) tracking of photons in a uchar voxel phantom to their first real interaction, exponential
flights under the majorant, a voxel lookup and acceptance by sigma / majorant, a PCG state per photon. None of
these three uses atomics. Split from :mod:`.transport` to keep each module short; :mod:`.catalog` lists it after
that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, pow2, round_up

#: helix_rk4_fieldmap_layers: barrel layers, radius and half-length (m): four pixel layers, then strips
HELIX_LAYER_R = (0.029, 0.068, 0.109, 0.160, 0.255, 0.339, 0.418, 0.498, 0.608, 0.692, 0.782, 0.965)
HELIX_LAYER_Z = (0.27, 0.27, 0.27, 0.27, 0.65, 0.65, 0.65, 0.65, 1.10, 1.10, 1.10, 1.10)
HELIX_MAP = (61, 129, 0.02, 0.025, 1.6)  # helix_rk4_fieldmap_layers: nr, nz, dr, dz (m), zhalf (m)
HELIX_B0, HELIX_COIL, HELIX_EDGE = 3.8, 1.3, 0.2  # central field (T), coil half-length and end fall-off (m)
HELIX_PATH = 3.0  # helix_rk4_fieldmap_layers: path length of the nstep steps (m)
HELIX_C = float(np.float32(0.299792458))

CALO_SEED, CALO_CELL = 4.0, 2.0  # calo_seed_window_local: seed and cell thresholds in noise sigmas

#: woodcock_voxel_flight: attenuation (1/cm) of air, lung, fat, soft tissue, bone at 60, 140, 364, 511 keV
WOOD_SIG = ((2.2e-4, 1.7e-4, 1.3e-4, 1.1e-4), (0.054, 0.040, 0.029, 0.025), (0.18, 0.14, 0.10, 0.088),
            (0.206, 0.154, 0.111, 0.096), (0.57, 0.28, 0.20, 0.17))
WOOD_BOX_CM, WOOD_MAX_ITER = 32.0, 256  # woodcock_voxel_flight: phantom side (cm), max_iter


# --- charged tracks in a solenoid: RK4 with a bilinear (r, z) field map, layer crossings ----------------------------
def _helix_map():
    """(Br, Bz) of a finite solenoid on the (r, z) grid: Bz falling off past the coil ends by tanh, a 2% radial
    rise, Br = -r / 2 dBz/dz (divergence-free to first order)."""
    nr, nz, dr, dz, zhalf = HELIX_MAP
    r, z = np.arange(nr)[None, :] * dr, -zhalf + np.arange(nz)[:, None] * dz
    up, dn = (z + HELIX_COIL) / HELIX_EDGE, (z - HELIX_COIL) / HELIX_EDGE
    bz = 0.5 * HELIX_B0 * (np.tanh(up) - np.tanh(dn)) * (1.0 + 0.02 * (r / 1.2) ** 2)
    dbz = 0.5 * HELIX_B0 / HELIX_EDGE * (np.cosh(up) ** -2 - np.cosh(dn) ** -2)
    return np.stack([-0.5 * r * dbz, bz], axis=2)


def _inputs_helix(rng, sz):
    """Tracks: pT from a power law above 0.25 GeV (a third below 0.5 GeV, curling inside the tracker), capped at
    200 GeV; charge +-1; eta -2.5 .. 2.5; phi0 -pi .. pi; z0 Gaussian, sd 5 cm."""
    n = sz["T"]
    pt = np.minimum(0.25 * (1.0 - rng.random(n)) ** (-1.0 / 1.4), 200.0)
    q = rng.choice([-1.0, 1.0], n)
    return {"trk": np.stack([q / pt, rng.uniform(-2.5, 2.5, n), rng.uniform(-np.pi, np.pi, n),
                             0.05 * rng.standard_normal(n)], 1),
            "bmap": _helix_map(), "layer_r": np.array(HELIX_LAYER_R), "layer_z": np.array(HELIX_LAYER_Z)}


def _ref_helix(inp, sz):
    """All tracks step by step in float64; tracks that left the map are frozen."""
    n, nstep, h, nl = sz["T"], int(inp["nstep"]), float(inp["h"]), int(inp["nlayer"])
    nr, nz, dr, dz, zhalf = (int(inp["nr"]), int(inp["nz"]), float(inp["dr"]), float(inp["dz"]), float(inp["zhalf"]))
    bmap = _f64(inp["bmap"]).reshape(nz, nr, 2)
    lr, lz = _f64(inp["layer_r"]), _f64(inp["layer_z"])
    par = _f64(inp["trk"]).reshape(n, 4)

    def field(x):
        r = np.hypot(x[:, 0], x[:, 1])
        fr = np.minimum(r / dr, nr - 1 - 1e-3)
        fz = np.clip((x[:, 2] + zhalf) / dz, 0.0, nz - 1 - 1e-3)
        ir, iz = fr.astype(np.int64), fz.astype(np.int64)
        ar, az = (fr - ir)[:, None], (fz - iz)[:, None]
        b = ((1 - az) * ((1 - ar) * bmap[iz, ir] + ar * bmap[iz, ir + 1])
             + az * ((1 - ar) * bmap[iz + 1, ir] + ar * bmap[iz + 1, ir + 1]))
        bor = np.where(r > 1e-6, b[:, 0] / np.maximum(r, 1e-30), 0.0)
        return np.stack([bor * x[:, 0], bor * x[:, 1], b[:, 1]], 1)

    ch = np.cosh(par[:, 1])
    x = np.stack([np.zeros(n), np.zeros(n), par[:, 3]], 1)
    t = np.stack([np.cos(par[:, 2]) / ch, np.sin(par[:, 2]) / ch, np.tanh(par[:, 1])], 1)
    kap = (HELIX_C * par[:, 0] / ch)[:, None]
    rmax = dr * (nr - 1)
    hp, hz = np.zeros((n, nl)), np.zeros((n, nl))
    mask = np.zeros(n, dtype=np.int64)
    r_old, live = np.zeros(n), np.ones(n, dtype=bool)
    for _ in range(nstep):
        if not live.any():
            break
        k1 = kap * np.cross(t, field(x))
        t2 = t + 0.5 * h * k1
        k2 = kap * np.cross(t2, field(x + 0.5 * h * t))
        t3 = t + 0.5 * h * k2
        k3 = kap * np.cross(t3, field(x + 0.5 * h * t2))
        t4 = t + h * k3
        k4 = kap * np.cross(t4, field(x + h * t3))
        xn = np.where(live[:, None], x + h / 6.0 * (t + 2.0 * t2 + 2.0 * t3 + t4), x)
        tn = t + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        t = np.where(live[:, None], tn / np.linalg.norm(tn, axis=1, keepdims=True), t)
        r_new = np.hypot(xn[:, 0], xn[:, 1])
        for k in range(nl):
            cross = live & ((mask >> k) & 1 == 0) & (r_old < lr[k]) & (r_new >= lr[k])
            f = np.where(cross, (lr[k] - r_old) / np.where(cross, r_new - r_old, 1.0), 0.0)[:, None]
            xc = x + f * (xn - x)
            keep = cross & (np.abs(xc[:, 2]) <= lz[k])
            hp[keep, k], hz[keep, k] = np.arctan2(xc[keep, 1], xc[keep, 0]), xc[keep, 2]
            mask |= keep.astype(np.int64) << k
        x, r_old = xn, np.where(live, r_new, r_old)
        live &= (r_new < rmax) & (np.abs(xn[:, 2]) < zhalf)
    return {"hits": np.stack([hp, hz], 2), "hit_mask": mask}


def helix_rk4_fieldmap_layers() -> KernelSpec:
    nr, nz, dr, dz, zhalf = HELIX_MAP
    return _spec(
        "helix_rk4_fieldmap_layers", tol=SUMS,
        idiom="charged track per item: RK4 of tangent and position in a solenoid for nstep steps, bilinear (r, z) "
              "float2 field-map gathers at four stages, float3 cross products, first layer crossings interpolated "
              "to (phi, z) hits, uint layer bitmask",
        sizes={"T": pow2(9, 19, 2), "NS": [32, 128]}, check={"T": 1000, "NS": 64},
        constraints=["T * NS <= 2**22"],
        args=[Arg("ntrk", "scalar", "int32", "T"), Arg("nstep", "scalar", "int32", "NS"),
              Arg("h", "scalar", "float32", f"{HELIX_PATH} / NS"),
              Arg("nlayer", "scalar", "int32", str(len(HELIX_LAYER_R))), Arg("nr", "scalar", "int32", str(nr)),
              Arg("nz", "scalar", "int32", str(nz)), Arg("dr", "scalar", "float32", str(dr)),
              Arg("dz", "scalar", "float32", str(dz)), Arg("zhalf", "scalar", "float32", str(zhalf)),
              Arg("trk", "buffer", "float32", "T * 4"), Arg("bmap", "buffer", "float32", f"{nr * nz * 2}"),
              Arg("layer_r", "buffer", "float32", str(len(HELIX_LAYER_R))),
              Arg("layer_z", "buffer", "float32", str(len(HELIX_LAYER_Z))),
              Arg("hits", "buffer", "float32", f"T * {len(HELIX_LAYER_R) * 2}", "out"),
              Arg("hit_mask", "buffer", "uint32", "T", "out")],
        gsize=[round_up("T")], local=L1, reference=_ref_helix, make_inputs=_inputs_helix)


# --- calorimeter seeds: zero-suppressed tile + halo in __local, 3 x 3 maximum, 5 x 5 window (2-D) -----------------
def _inputs_calo(rng, sz):
    """Noise per eta ring 40 MeV x (1 + 0.4 eta^2) over eta -2.5 .. 2.5, Gaussian in every cell; showers, one per
    80 cells, power-law energies above 0.5 GeV (capped at 500), spread over 5 x 5 cells with weights
    exp(-1.2 (|deta| + |dphi|)) (phi wrapped, cells past the eta ends lost)."""
    neta, nphi = sz["NETA"], sz["NPHI"]
    eta = -2.5 + (np.arange(neta) + 0.5) * 5.0 / neta
    noise = 0.04 * (1.0 + 0.4 * eta**2)
    e = (noise[:, None] * rng.standard_normal((neta, nphi))).ravel()
    ns = neta * nphi // 80
    es = np.minimum(0.5 * (1.0 - rng.random(ns)) ** (-1.0 / 1.2), 500.0)
    cy, cx = rng.integers(0, neta, ns), rng.integers(0, nphi, ns)
    d = np.arange(-2, 3)
    w = np.exp(-1.2 * (np.abs(d)[:, None] + np.abs(d)[None, :]))
    w /= w.sum()
    for dy in range(5):
        y = cy + d[dy]
        ok = (y >= 0) & (y < neta)
        for dx in range(5):
            np.add.at(e, y[ok] * nphi + (cx[ok] + d[dx]) % nphi, es[ok] * w[dy, dx])
    return {"e_cell": e, "noise": noise}


def _ref_calo(inp, sz):
    neta, nphi = sz["NETA"], sz["NPHI"]
    e = np.asarray(inp["e_cell"], dtype=np.float32).reshape(neta, nphi)
    noise = np.asarray(inp["noise"], dtype=np.float32)[:, None]
    v = np.where(e > np.float32(inp["cell_sig"]) * noise, e, np.float32(0.0)).astype(np.float64)
    pad = np.pad(v, ((2, 2), (0, 0)))

    def at(dy, dx):  # value of the cell (y + dy, x + dx) for every cell
        return np.roll(pad, -dx, axis=1)[2 + dy:2 + dy + neta]

    seed = v > _f64(np.float32(inp["seed_sig"]) * noise)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy or dx:
                en = at(dy, dx)
                seed &= ~((en >= v) if (dy < 0 or (dy == 0 and dx < 0)) else (en > v))
    tot, seta, sphi = np.zeros((neta, nphi)), np.zeros((neta, nphi)), np.zeros((neta, nphi))
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            en = at(dy, dx)
            tot, seta, sphi = tot + en, seta + dy * en, sphi + dx * en
    safe = np.where(seed, tot, 1.0)
    return {"seed": seed, "clus_e": np.where(seed, tot, 0.0), "clus_deta": np.where(seed, seta / safe, 0.0),
            "clus_dphi": np.where(seed, sphi / safe, 0.0)}


def calo_seed_window_local() -> KernelSpec:
    return _spec(
        "calo_seed_window_local", tol=SUMS,
        idiom="calorimeter seeding, 2-D (phi, eta): zero-suppressed tile with a 2-cell halo (phi wrap, eta pad) in "
              "__local, noise-scaled threshold, 3 x 3 local maximum with raster-order ties, 5 x 5 window sums and "
              "barycentre per seed",
        sizes={"NPHI": [64, 256, 1024, 4096], "NETA": [200, 800, 3200]}, check={"NPHI": 64, "NETA": 50},
        args=[Arg("neta", "scalar", "int32", "NETA"), Arg("nphi", "scalar", "int32", "NPHI"),
              Arg("seed_sig", "scalar", "float32", str(CALO_SEED)),
              Arg("cell_sig", "scalar", "float32", str(CALO_CELL)),
              Arg("e_cell", "buffer", "float32", "NETA * NPHI"), Arg("noise", "buffer", "float32", "NETA"),
              Arg("seed", "buffer", "int32", "NETA * NPHI", "out"),
              Arg("clus_e", "buffer", "float32", "NETA * NPHI", "out"),
              Arg("clus_deta", "buffer", "float32", "NETA * NPHI", "out"),
              Arg("clus_dphi", "buffer", "float32", "NETA * NPHI", "out"),
              Arg("tile", "local", "float32", "(l0 + 4) * (l1 + 4)")],
        gsize=[round_up("NPHI", 32), round_up("NETA", 16)], local=L2, reference=_ref_calo, make_inputs=_inputs_calo)


# --- Woodcock tracking in a voxel phantom: majorant flights, voxel lookup, PCG per photon ------------------------
def _phantom_axes(nvox):
    c = ((np.arange(nvox) + 0.5) * (WOOD_BOX_CM / nvox) - 0.5 * WOOD_BOX_CM).astype(np.float32)
    return c[None, None, :], c[None, :, None], c[:, None, None]  # x, y, z (x fastest)


def _phantom(nvox):
    """A torso in a 32 cm cube of air: an elliptic cylinder of fat (28 x 20 cm, 28 cm long) around soft tissue,
    two lungs, a spine of bone."""
    x, y, z = _phantom_axes(nvox)
    zin = np.abs(z) <= 14.0
    mat = np.where(((x / 14.0) ** 2 + (y / 10.0) ** 2 <= 1.0) & zin, 2, 0).astype(np.uint8)
    mat[((x / 13.0) ** 2 + (y / 9.0) ** 2 <= 1.0) & zin] = 3
    for side in (-6.0, 6.0):
        mat[((x - side) / 4.5) ** 2 + (y / 6.0) ** 2 + ((z - 3.0) / 9.0) ** 2 <= 1.0] = 1
    mat[(x**2 + (y + 6.0) ** 2 <= 2.25) & zin] = 4
    return mat


def _inputs_wood(rng, sz):
    """Emission uniform in a liver-like ellipsoid (10 x 8 x 8 cm), isotropic directions, energy groups uniform,
    PCG states random; the phantom of _phantom, the majorant the column maximum of WOOD_SIG."""
    n, nvox = sz["N"], sz["V"]
    pts = rng.uniform(-1.0, 1.0, (3 * n, 3))
    pts = pts[(pts**2).sum(1) <= 1.0][:n]
    pos = pts * np.array([5.0, 4.0, 4.0]) + np.array([-5.0, 0.0, -5.0]) + 0.5 * WOOD_BOX_CM
    w, ph = rng.uniform(-1.0, 1.0, n), rng.uniform(0.0, 2.0 * np.pi, n)
    s = np.sqrt(1.0 - w * w)
    sig = np.array(WOOD_SIG, dtype=np.float32)
    return {"vox_mat": _phantom(nvox), "sig_t": sig, "sig_maj": sig.max(0), "pos": pos,
            "dir": np.stack([s * np.cos(ph), s * np.sin(ph), w], 1), "group": rng.integers(0, sig.shape[1], n),
            "rng": rng.integers(0, 1 << 32, n, dtype=np.uint32)}


def _pcg_u01(state):
    """PCG-RXS-M-XS 32 step of the uint64-held states in place; the (0, 1] uniforms of the source."""
    m = np.uint64(0xFFFFFFFF)
    s = state.copy()
    state[:] = (s * np.uint64(747796405) + np.uint64(2891336453)) & m
    word = (((s >> ((s >> np.uint64(28)) + np.uint64(4))) ^ s) * np.uint64(277803737)) & m
    word = (word >> np.uint64(22)) ^ word
    return ((word >> np.uint64(8)) + np.uint64(1)).astype(np.float64) * 2.0**-24


def _ref_wood(inp, sz):
    n, nvox, ng = sz["N"], sz["V"], int(inp["ngroup"])
    vox_cm = float(inp["vox_cm"])
    mat = np.asarray(inp["vox_mat"]).astype(np.int64).ravel()
    sig, smaj = _f64(inp["sig_t"]), _f64(inp["sig_maj"])
    p, d = _f64(inp["pos"]).reshape(n, 3).copy(), _f64(inp["dir"]).reshape(n, 3)
    g = np.asarray(inp["group"]).astype(np.int64)
    state = np.asarray(inp["rng"]).astype(np.uint64)
    box = float(np.float32(nvox * np.float32(vox_cm)))
    where, nv = np.full(n, -2), np.zeros(n, dtype=np.int64)
    live = np.ones(n, dtype=bool)
    for _ in range(int(inp["max_iter"])):
        idx = np.flatnonzero(live)
        if not idx.size:
            break
        st_i = state[idx]
        p[idx] += (-np.log(_pcg_u01(st_i)) / smaj[g[idx]])[:, None] * d[idx]
        q = p[idx]
        out = (q < 0.0).any(1) | (q >= box).any(1)
        where[idx[out]], live[idx[out]] = -1, False
        inside, q = idx[~out], q[~out]
        st_in = st_i[~out]
        iv = np.minimum((q / vox_cm).astype(np.int64), nvox - 1)
        v = (iv[:, 2] * nvox + iv[:, 1]) * nvox + iv[:, 0]
        real = _pcg_u01(st_in) * smaj[g[inside]] <= sig.reshape(-1)[mat[v] * ng + g[inside]]
        st_i[~out] = st_in
        state[idx] = st_i
        where[inside[real]], live[inside[real]] = v[real], False
        nv[inside[~real]] += 1
    return {"rng": state, "hit_pos": p, "hit_vox": where, "n_virt": nv}


def woodcock_voxel_flight() -> KernelSpec:
    return _spec(
        "woodcock_voxel_flight", tol=SUMS,
        idiom="photon per item: Woodcock delta tracking in a uchar voxel phantom, exponential flights under the "
              "group majorant, box exit test, voxel gather and sigma / majorant acceptance, PCG uint state in place",
        sizes={"N": pow2(10, 20, 2), "V": [64, 256]}, check={"N": 2000, "V": 32},
        args=[Arg("nphot", "scalar", "int32", "N"), Arg("nvox", "scalar", "int32", "V"),
              Arg("ngroup", "scalar", "int32", str(len(WOOD_SIG[0]))),
              Arg("max_iter", "scalar", "int32", str(WOOD_MAX_ITER)),
              Arg("vox_cm", "scalar", "float32", f"{WOOD_BOX_CM} / V"),
              Arg("vox_mat", "buffer", "uint8", "V * V * V"),
              Arg("sig_t", "buffer", "float32", str(len(WOOD_SIG) * len(WOOD_SIG[0]))),
              Arg("sig_maj", "buffer", "float32", str(len(WOOD_SIG[0]))), Arg("pos", "buffer", "float32", "N * 3"),
              Arg("dir", "buffer", "float32", "N * 3"), Arg("group", "buffer", "int32", "N"),
              Arg("rng", "buffer", "uint32", "N", "inout"), Arg("hit_pos", "buffer", "float32", "N * 3", "out"),
              Arg("hit_vox", "buffer", "int32", "N", "out"), Arg("n_virt", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_wood, make_inputs=_inputs_wood)


#: this group's builders, in the order of ``specs()``
BUILDERS = (helix_rk4_fieldmap_layers, calo_seed_window_local, woodcock_voxel_flight)

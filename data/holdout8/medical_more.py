"""Holdout8 kernels, group medical, continued (written by hand; see docs/HOLDOUT8.md): PET list-mode histogramming
of packed uint32 coincidences into prompt and delayed sinograms with atomic_inc, a digitally reconstructed
radiograph by Siddon-Jacobs ray tracing through a voxel grid in fp64 (2-D detector), and one step of seeded region
growing on an int16 CT volume (26-neighbourhood, intensity window, integer atomics for the step's count and sum).
Two of these kernels use atomics, both on integers. Split from :mod:`.medical` to keep each module short;
:mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, _f64, _spec, pow2, round_up

PET_ELO, PET_EHI = 435, 650  # pet_listmode_sino_atomic: energy window (keV)

DRR_FOV = 400.0  # siddon_drr_fp64: the volume's in-plane extent (mm)

GROW_LO, GROW_HI = 20, 110  # region_grow_window_3d: the step's intensity window (HU)


# --- PET list-mode histogramming of packed uint32 coincidences, atomic_inc --------------------------------------------
def _pet_scanner(sz):
    r = sz["R"]
    ncry = 8 * r + 256
    return ncry, r, ncry * 3 // 8, r * 3 // 4


def _inputs_pet(rng, sz):
    """Coincidences of a cylindrical scanner (ncry crystals a ring, R rings): 82% prompts from annihilations in a
    cylinder of 0.6 the ring radius (a hot off-centre rod holding a fifth of them), each line of response at a
    random angle and axial slope up to +-0.35 intersected with the ring (ring 63, invalid, when it leaves the
    axial extent); 18% delayed-window randoms between uniform crystals. Energies 511 keV with 24 keV sd, one
    side of a quarter of the prompts scattered down to 150 .. 500 keV; 0.05% corrupt words (crystal 1023).
    Beyond 2**20 events the list repeats the first 2**20 drawn at random, each turned by a random number of
    crystals (the scanner is rotationally symmetric), so that large lists take a few seconds to make."""
    e = sz["E"]
    ncry, nring, _, _ = _pet_scanner(sz)
    n0 = min(e, 2**20)
    delayed = rng.random(n0) < 0.18
    hot = rng.random(n0) < 0.2
    rad = 0.6 * np.sqrt(rng.random(n0))
    ang = rng.uniform(0, 2 * np.pi, n0)
    px = np.where(hot, 0.3 + 0.05 * rng.standard_normal(n0), rad * np.cos(ang))
    py = np.where(hot, -0.1 + 0.05 * rng.standard_normal(n0), rad * np.sin(ang))
    pz = rng.uniform(0, nring, n0)
    phi = rng.uniform(0, np.pi, n0)
    ux, uy = np.cos(phi), np.sin(phi)
    b = px * ux + py * uy
    root = np.sqrt(b * b - (px * px + py * py - 1.0))
    slope = rng.uniform(-0.35, 0.35, n0) * nring / 2.0
    out = []
    for t in (-b + root, -b - root):
        cry = np.floor(np.mod(np.arctan2(py + t * uy, px + t * ux), 2 * np.pi) / (2 * np.pi) * ncry).astype(np.int64)
        ring = np.floor(pz + t * slope).astype(np.int64)
        out.append((np.mod(cry, ncry), np.where((ring >= 0) & (ring < nring), ring, 63)))
    (ca, ra), (cb, rb) = out
    ca = np.where(delayed, rng.integers(0, ncry, n0), ca)
    cb = np.where(delayed, rng.integers(0, ncry, n0), cb)
    ra = np.where(delayed, rng.integers(0, nring, n0), ra)
    rb = np.where(delayed, rng.integers(0, nring, n0), rb)
    en = np.clip(np.rint(rng.normal(511.0, 24.0, (2, n0))), 0, 1023).astype(np.int64)
    scat = (rng.random(n0) < 0.25) & ~delayed
    en[0] = np.where(scat, rng.integers(150, 501, n0), en[0])
    info = en[0] | (en[1] << 10) | (delayed.astype(np.int64) << 31)
    if e > n0:
        pick = rng.integers(0, n0, e)
        turn = rng.integers(0, ncry, e)
        ca, cb = (ca[pick] + turn) % ncry, (cb[pick] + turn) % ncry
        ra, rb, info = ra[pick], rb[pick], info[pick]
    ca = np.where(rng.random(e) < 5e-4, 1023, ca)
    pair = ca | (ra << 10) | (cb << 16) | (rb << 26)
    return {"ev_pair": pair.astype(np.uint32), "ev_info": info.astype(np.uint32)}


def _ref_pet(inp, sz):
    ncry, nring, nrad, maxrd = (int(inp[k]) for k in ("ncry", "nring", "nrad", "maxrd"))
    elo, ehi = int(inp["elo"]), int(inp["ehi"])
    nview = ncry // 2
    nbins = (2 * nring - 1) * nview * nrad
    w = np.asarray(inp["ev_pair"]).astype(np.int64)
    info = np.asarray(inp["ev_info"]).astype(np.int64)
    ea, eb = info & 0x3FF, (info >> 10) & 0x3FF
    ca, ra, cb, rb = w & 0x3FF, (w >> 10) & 0x3F, (w >> 16) & 0x3FF, w >> 26
    ok = (ea >= elo) & (ea <= ehi) & (eb >= elo) & (eb <= ehi)
    ok &= (ca < ncry) & (cb < ncry) & (ca != cb) & (ra < nring) & (rb < nring) & (np.abs(ra - rb) <= maxrd)
    lo, hi = np.minimum(ca, cb), np.maximum(ca, cb)
    s = lo + hi
    tang = hi - lo - nview
    wrap = s >= ncry
    s = np.where(wrap, s - ncry, s)
    tang = np.where(wrap, -tang, tang)
    r = tang + nrad // 2
    ok &= (r >= 0) & (r < nrad)
    binn = ((ra + rb) * nview + (s >> 1)) * nrad + r
    dl = (info >> 31).astype(bool)
    return {"prompts": np.bincount(binn[ok & ~dl], minlength=nbins),
            "delayeds": np.bincount(binn[ok & dl], minlength=nbins)}


def pet_listmode_sino_atomic() -> KernelSpec:
    sino = "(2 * R - 1) * (4 * R + 128) * ((8 * R + 256) * 3 // 8)"
    return _spec(
        "pet_listmode_sino_atomic",
        idiom="PET list-mode binning: unpack uint32 crystal/ring/energy words, cuts, pair to sinogram bin, atomic_inc",
        sizes={"E": pow2(12, 24, 2), "R": [16, 48]}, check={"E": 20000, "R": 8},
        args=[Arg("nev", "scalar", "int32", "E"), Arg("ncry", "scalar", "int32", "8 * R + 256"),
              Arg("nring", "scalar", "int32", "R"), Arg("nrad", "scalar", "int32", "(8 * R + 256) * 3 // 8"),
              Arg("maxrd", "scalar", "int32", "R * 3 // 4"), Arg("elo", "scalar", "uint32", str(PET_ELO)),
              Arg("ehi", "scalar", "uint32", str(PET_EHI)),
              Arg("ev_pair", "buffer", "uint32", "E"), Arg("ev_info", "buffer", "uint32", "E"),
              Arg("prompts", "buffer", "uint32", sino, "out"), Arg("delayeds", "buffer", "uint32", sino, "out")],
        gsize=[round_up("E // 8")], local=L1, reference=_ref_pet, make_inputs=_inputs_pet)


# --- DRR by Siddon-Jacobs ray tracing in fp64, 2-D detector -----------------------------------------------------------
def _drr_dims(sz):
    n = sz["N"]
    return n, n, n * 3 // 4, DRR_FOV / n


def _inputs_drr(rng, sz):
    """A chest-like attenuation phantom (1/mm at ~70 keV): an elliptic body of water (0.0195) with 2% texture,
    two lungs (0.004), a spine and a ring of ribs (0.045) and a contrast-filled vessel (0.03), air outside. The
    source 1000 mm from the isocentre at a 35 degree gantry angle, 4 degrees out of plane; a square detector
    500 mm behind the isocentre, 700 mm wide, so its corners' rays miss the volume."""
    d = sz["D"]
    nx, ny, nz, vox = _drr_dims(sz)
    x = ((np.arange(nx) + 0.5) * vox - 0.5 * nx * vox)[None, None, :].astype(np.float32)
    y = ((np.arange(ny) + 0.5) * vox - 0.5 * ny * vox)[None, :, None].astype(np.float32)
    z = ((np.arange(nz) + 0.5) * vox)[:, None, None].astype(np.float32)
    body = (x / 170.0) ** 2 + (y / 120.0) ** 2 < 1.0
    lungs = ((np.abs(x) - 70.0) / 50.0) ** 2 + ((y + 10.0) / 70.0) ** 2 + ((z - 180.0) / 140.0) ** 2 < 1.0
    spine = (x / 18.0) ** 2 + ((y - 80.0) / 20.0) ** 2 < 1.0
    ribs = np.abs((x / 160.0) ** 2 + (y / 110.0) ** 2 - 0.85) < 0.04
    vessel = ((x - 20.0) / 12.0) ** 2 + ((y + 20.0) / 12.0) ** 2 < 1.0
    mu = np.where(body, np.float32(0.0195), np.float32(0.0))
    mu = np.where(lungs & body, np.float32(0.004), mu)
    mu = np.where(vessel & body & ~lungs, np.float32(0.03), mu)
    mu = np.where((spine | ribs) & body, np.float32(0.045), mu)
    mu = mu * (1.0 + 0.02 * rng.standard_normal(mu.shape, dtype=np.float32))
    th, el = np.radians(35.0), np.radians(4.0)
    iso = np.array([0.5 * nx * vox, 0.5 * ny * vox, 0.5 * nz * vox])
    axis = np.array([np.cos(th) * np.cos(el), np.sin(th) * np.cos(el), np.sin(el)])
    src = iso + 1000.0 * axis
    eu = np.array([-np.sin(th), np.cos(th), 0.0])
    ev = np.cross(axis, eu)
    pitch = 700.0 / d
    det0 = iso - 500.0 * axis - 0.5 * (d - 1) * pitch * (eu + ev)
    geom = np.concatenate([src, det0, pitch * eu, pitch * ev])
    return {"geom": geom, "mu": mu}


def _ref_drr(inp, sz):
    d = sz["D"]
    nx, ny, nz, _ = _drr_dims(sz)
    vox = float(inp["vox"])
    g = _f64(inp["geom"])
    mu = _f64(inp["mu"]).reshape(-1)
    iu, iv = np.meshgrid(np.arange(d), np.arange(d))
    iu, iv = iu.reshape(-1), iv.reshape(-1)
    s = g[0:3]
    dd = [g[3 + a] + iu * g[6 + a] + iv * g[9 + a] - s[a] for a in range(3)]
    length = np.sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2])
    n = (nx, ny, nz)
    amin, amax = np.zeros(iu.size), np.ones(iu.size)
    for a in range(3):
        a0, a1 = -s[a] / dd[a], (n[a] * vox - s[a]) / dd[a]
        amin, amax = np.maximum(amin, np.minimum(a0, a1)), np.minimum(amax, np.maximum(a0, a1))
    hit = amin < amax
    idx, step, anext, adelta = [], [], [], []
    for a in range(3):
        p = s[a] + amin * dd[a]
        i = np.clip(np.floor(p / vox).astype(np.int64), 0, n[a] - 1)
        idx.append(i)
        step.append(np.where(dd[a] > 0, 1, -1))
        anext.append((np.where(dd[a] > 0, i + 1, i) * vox - s[a]) / dd[a])
        adelta.append(vox / np.abs(dd[a]))
    acc = np.zeros(iu.size)
    alpha = amin.copy()
    live = hit.copy()
    while live.any():
        live &= alpha < amax
        an = np.minimum(np.minimum(anext[0], anext[1]), np.minimum(anext[2], amax))
        flat = (np.clip(idx[2], 0, nz - 1) * ny + np.clip(idx[1], 0, ny - 1)) * nx + np.clip(idx[0], 0, nx - 1)
        acc += np.where(live, (an - alpha) * mu[flat], 0.0)
        alpha = np.where(live, an, alpha)
        cx = (anext[0] <= anext[1]) & (anext[0] <= anext[2])
        cy = ~cx & (anext[1] <= anext[2])
        cz = ~cx & ~cy
        for a, c in enumerate((cx, cy, cz)):
            move = live & c
            idx[a] = np.where(move, idx[a] + step[a], idx[a])
            anext[a] = np.where(move, anext[a] + adelta[a], anext[a])
            live &= ~(move & ((idx[a] < 0) | (idx[a] >= n[a])))
    return {"line_int": np.where(hit, acc * length, 0.0), "chord": np.where(hit, (amax - amin) * length, 0.0)}


def siddon_drr_fp64() -> KernelSpec:
    return _spec(
        "siddon_drr_fp64", precision="fp64", tol=(1e-9, 1e-9),
        idiom="DRR by Siddon-Jacobs ray walk in fp64, 2-D detector: box clip, next-plane alphas pick the axis to step",
        sizes={"D": [64, 128, 256, 512, 1024], "N": [64, 128, 256]}, check={"D": 40, "N": 24},
        constraints=["D * D * N <= 2**27"],
        args=[Arg("nu", "scalar", "int32", "D"), Arg("nv", "scalar", "int32", "D"),
              Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"),
              Arg("nz", "scalar", "int32", "N * 3 // 4"), Arg("vox", "scalar", "float64", f"{DRR_FOV} / N"),
              Arg("geom", "buffer", "float64", "12"), Arg("mu", "buffer", "float32", "N * N * (N * 3 // 4)"),
              Arg("line_int", "buffer", "float64", "D * D", "out"), Arg("chord", "buffer", "float64", "D * D", "out")],
        gsize=[round_up("D", 32), round_up("D", 32)], local=L2, reference=_ref_drr, make_inputs=_inputs_drr)


# --- one step of seeded region growing on an int16 CT volume, 26-neighbourhood, integer atomics -----------------------
def _inputs_grow(rng, sz):
    """An abdomen-like int16 CT volume (N x N in plane, Z slices): air (-1000) outside an elliptic body of soft
    tissue (40 HU), a liver ellipsoid (75 HU), vessels (160 HU) through it, a spine (700 HU), Gaussian noise of
    sd 15 HU. The region after a few steps: the voxels within the window inside a ball in the liver; the air is
    locked (2)."""
    n, nz = sz["N"], sz["Z"]
    x = (np.arange(n, dtype=np.float32) / n - 0.5)[None, None, :]
    y = (np.arange(n, dtype=np.float32) / n - 0.5)[None, :, None]
    z = (np.arange(nz, dtype=np.float32) / nz - 0.5)[:, None, None]
    body = (x / 0.45) ** 2 + (y / 0.35) ** 2 < 1.0
    liver = ((x + 0.15) / 0.2) ** 2 + ((y + 0.05) / 0.17) ** 2 + (z / 0.4) ** 2 < 1.0
    vessel = ((x + 0.12) / 0.025) ** 2 + ((y - 0.02) / 0.025) ** 2 < 1.0
    spine = (x / 0.05) ** 2 + ((y - 0.25) / 0.05) ** 2 < 1.0
    hu = np.where(body, np.float32(40.0), np.float32(-1000.0))
    hu = np.where(liver & body, np.float32(75.0), hu)
    hu = np.where(vessel & liver, np.float32(160.0), hu)
    hu = np.where(spine & body, np.float32(700.0), hu)
    hu = np.rint(hu + 15.0 * rng.standard_normal(hu.shape, dtype=np.float32)).astype(np.int16)
    ball = ((x + 0.18) / 0.08) ** 2 + ((y + 0.06) / 0.08) ** 2 + (z / 0.15) ** 2 < 1.0
    mask = np.where(body, np.uint8(0), np.uint8(2))
    mask = np.where(ball & (hu >= GROW_LO) & (hu <= GROW_HI), np.uint8(1), mask)
    return {"hu": hu, "mask_in": mask}


def _ref_grow(inp, sz):
    n, nz = sz["N"], sz["Z"]
    lo, hi = int(inp["lo"]), int(inp["hi"])
    hu = np.asarray(inp["hu"]).astype(np.int64).reshape(nz, n, n)
    m = np.asarray(inp["mask_in"]).reshape(nz, n, n)
    region = np.pad(m == 1, 1)
    near = np.zeros_like(m, dtype=bool)
    for dz in (0, 1, 2):
        for dy in (0, 1, 2):
            for dx in (0, 1, 2):
                near |= region[dz:dz + nz, dy:dy + n, dx:dx + n]
    add = (m == 0) & (hu >= lo) & (hu <= hi) & near
    return {"mask_out": np.where(add, 1, m), "stats": np.array([add.sum(), hu[add].sum()])}


def region_grow_window_3d() -> KernelSpec:
    return _spec(
        "region_grow_window_3d",
        idiom="region growing step on int16 CT: windowed free voxel joins on a 26-neighbour hit, atomic count and sum",
        sizes={"N": [64, 128, 256, 512], "Z": [32, 96, 256]}, check={"N": 40, "Z": 24},
        constraints=["N * N * Z <= 2**25"],
        args=[Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"), Arg("nz", "scalar", "int32", "Z"),
              Arg("lo", "scalar", "int32", str(GROW_LO)), Arg("hi", "scalar", "int32", str(GROW_HI)),
              Arg("hu", "buffer", "int16", "N * N * Z"), Arg("mask_in", "buffer", "uint8", "N * N * Z"),
              Arg("mask_out", "buffer", "uint8", "N * N * Z", "out"), Arg("stats", "buffer", "int32", "2", "out")],
        gsize=[round_up("N * N * Z")], local=L1, reference=_ref_grow, make_inputs=_inputs_grow)


#: this group's builders, in the order of ``specs()``
BUILDERS = (pet_listmode_sino_atomic, siddon_drr_fp64, region_grow_window_3d)

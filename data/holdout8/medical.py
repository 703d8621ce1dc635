"""Holdout8 kernels, group medical (written by hand; see docs/HOLDOUT8.md): medical imaging and tomography as
application programmers write them: fan-beam filtered back-projection per image pixel on a 2-D NDRange with the
distance weight and a reconstruction circle, MRI gridding of radial k-space samples with a Kaiser-Bessel window in
gather form (binned samples staged through __local memory per grid tile, 2-D), ultrasound plane-wave compounding
by delay-and-sum with a depth-dependent Hann aperture and a coherence factor, PET list-mode histogramming of packed
uint32 coincidences into prompt and delayed sinograms with atomic_inc, a digitally reconstructed radiograph by
Siddon-Jacobs ray tracing through a voxel grid in fp64 (2-D detector), and one step of seeded region growing on an
int16 CT volume (26-neighbourhood, intensity window, integer atomics for the step's count and sum). Two kernels of
the group use atomics, both on integers."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, pow2, round_up

KB_BIN = 8  # kb_gridding_binned_local: grid cells a bin side (BIN in the source)
KB_TILE = 256  # kb_gridding_binned_local: samples per __local stage (TILE in the source)
KB_WIDTH = 4.0  # kb_gridding_binned_local: window width in grid cells
KB_BETA = 8.99  # kb_gridding_binned_local: Kaiser-Bessel shape for width 4 at 2x oversampling (Beatty et al.)

DAS_PITCH = 0.3e-3  # das_planewave_coherence: element pitch (m)
DAS_FS_C = 20.8e6 / 1540.0  # das_planewave_coherence: sampling rate over sound speed (samples per metre)
DAS_F0 = 5.2e6 / 20.8e6  # das_planewave_coherence: centre frequency in cycles per sample
DAS_T0 = 12.0  # das_planewave_coherence: acquisition start (samples after the first element fires)
DAS_NSAMP = 1536  # das_planewave_coherence: samples per trace (a 45 mm deep image needs ~1350)

PET_ELO, PET_EHI = 435, 650  # pet_listmode_sino_atomic: energy window (keV)

DRR_FOV = 400.0  # siddon_drr_fp64: the volume's in-plane extent (mm)

GROW_LO, GROW_HI = 20, 110  # region_grow_window_3d: the step's intensity window (HU)


# --- fan-beam filtered back-projection per pixel, 2-D -----------------------------------------------------------------
def _inputs_fbp(rng, sz):
    """A ramp-filtered fan-beam sinogram of a disk phantom (a body disk, a dense rim, a dozen inner disks of
    +-10 .. 50% contrast), projected exactly along the fan rays of the flat virtual detector, cosine-weighted and
    ramp-filtered by FFT (Ram-Lak), scaled to a peak of about 1; views evenly spaced over 360 degrees from 3 deg."""
    n, v = sz["N"], sz["V"]
    ndet, dsrc = n * 5 // 4 + 16, float(n)
    beta = 2 * np.pi * np.arange(v) / v + np.radians(3.0)
    cb, sb = np.cos(beta), np.sin(beta)
    u = (np.arange(ndet) - 0.5 * (ndet - 1))[None, :]
    src = np.stack([dsrc * cb, dsrc * sb], axis=-1)[:, None, :]  # (v, 1, 2)
    det = u[..., None] * np.stack([-sb, cb], axis=-1)[:, None, :]  # (v, ndet, 2)
    ray = det - src
    ray /= np.linalg.norm(ray, axis=-1, keepdims=True)
    k = 12
    centres = np.concatenate([[[0.0, 0.0], [0.0, 0.0]], rng.uniform(-0.25, 0.25, (k, 2)) * n])
    radii = np.concatenate([[0.45 * n, 0.42 * n], rng.uniform(0.02, 0.08, k) * n])
    dens = np.concatenate([[1.0, -0.6], rng.choice([-1, 1], k) * rng.uniform(0.1, 0.5, k)])
    proj = np.zeros((v, ndet))
    for c, r, d in zip(centres, radii, dens):
        w = c - src
        dist2 = (w * w).sum(-1) - ((w * ray).sum(-1)) ** 2
        proj += d * 2.0 * np.sqrt(np.maximum(r * r - dist2, 0.0))
    proj *= dsrc / np.sqrt(dsrc**2 + u**2)
    m = 2 * ndet
    ramp = np.abs(np.fft.rfftfreq(m))
    q = np.fft.irfft(np.fft.rfft(proj, m, axis=1) * ramp, m, axis=1)[:, :ndet]
    q /= max(np.abs(q).max(), 1e-30)
    return {"q": q, "cos_b": cb, "sin_b": sb}


def _ref_fbp(inp, sz):
    n, v = sz["N"], sz["V"]
    ndet = int(inp["ndet"])
    pix, du, dsrc, dbeta = (float(np.float32(inp[k])) for k in ("pix", "du", "dsrc", "dbeta"))
    q = _f64(inp["q"]).reshape(v, ndet)
    cb, sb = _f64(inp["cos_b"]), _f64(inp["sin_b"])
    c = 0.5 * (n - 1)
    x = ((np.arange(n) - c) * pix)[None, :].repeat(n, 0)
    y = ((np.arange(n) - c) * pix)[:, None].repeat(n, 1)
    inside = x * x + y * y <= (0.5 * n * pix) ** 2
    acc = np.zeros((n, n))
    for i in range(v):
        s = x * cb[i] + y * sb[i]
        t = y * cb[i] - x * sb[i]
        mag = dsrc / (dsrc - s)
        u = t * mag / du + 0.5 * (ndet - 1)
        k = np.floor(u).astype(np.int64)
        ok = (k >= 0) & (k < ndet - 1)
        kk = np.clip(k, 0, ndet - 2)
        f = u - kk
        val = (1.0 - f) * q[i][kk] + f * q[i][kk + 1]
        acc += np.where(ok, mag * mag * val, 0.0)
    return {"img": np.where(inside, 0.5 * dbeta * acc, 0.0)}


def fanbeam_fbp_weighted_2d() -> KernelSpec:
    return _spec(
        "fanbeam_fbp_weighted_2d", tol=SUMS,
        idiom="fan-beam FBP per pixel, 2-D: project through the source per view, lerp filtered bins, 1/U^2 weight",
        sizes={"N": [64, 128, 256, 512, 1024], "V": [90, 180, 360, 720]}, check={"N": 64, "V": 90},
        constraints=["N * N * V <= 2**28"],
        args=[Arg("npix", "scalar", "int32", "N"), Arg("nview", "scalar", "int32", "V"),
              Arg("ndet", "scalar", "int32", "N * 5 // 4 + 16"), Arg("pix", "scalar", "float32", "1.0"),
              Arg("du", "scalar", "float32", "1.0"), Arg("dsrc", "scalar", "float32", "1.0 * N"),
              Arg("dbeta", "scalar", "float32", "2 * 3.141592653589793 / V"),
              Arg("q", "buffer", "float32", "V * (N * 5 // 4 + 16)"), Arg("cos_b", "buffer", "float32", "V"),
              Arg("sin_b", "buffer", "float32", "V"), Arg("img", "buffer", "float32", "N * N", "out")],
        gsize=[round_up("N", 32), round_up("N", 32)], local=L2, reference=_ref_fbp, make_inputs=_inputs_fbp)


# --- Kaiser-Bessel gridding of radial k-space, gather form, binned samples staged in __local, 2-D -------------------
def _inputs_kb(rng, sz):
    """A golden-angle radial trajectory (spokes of min(M, G) samples through the centre, out to 4 cells from the
    grid's edge) sorted by bin; values of a smooth object's spectrum (amplitude falling as 1 / (1 + (k/8)^2), a
    slowly varying phase) plus 1% noise; a ramp density compensation |k| / kmax plus a floor."""
    g, m = sz["G"], sz["M"]
    nread = min(m, g)
    nspoke = m // nread
    rmax = 0.5 * g - KB_WIDTH
    r = (np.arange(nread) - 0.5 * nread) * (2.0 * rmax / nread)
    theta = np.arange(nspoke) * np.radians(111.246117975)
    kx = (0.5 * g + np.cos(theta)[:, None] * r[None, :]).reshape(-1).astype(np.float32)
    ky = (0.5 * g + np.sin(theta)[:, None] * r[None, :]).reshape(-1).astype(np.float32)
    rr = np.hypot(kx - 0.5 * g, ky - 0.5 * g).astype(np.float64)
    amp = 1.0 / (1.0 + (rr / 8.0) ** 2)
    phase = 0.3 * kx / g + 2.0 * np.sin(ky / 17.0)
    re = amp * np.cos(phase) + 0.01 * rng.standard_normal(m)
    im = amp * np.sin(phase) + 0.01 * rng.standard_normal(m)
    dcf = rr / rmax + 1.0 / nread
    nbin = g // KB_BIN
    b = (ky.astype(np.int64) // KB_BIN) * nbin + kx.astype(np.int64) // KB_BIN
    order = np.argsort(b, kind="stable")
    start = np.concatenate([[0], np.cumsum(np.bincount(b, minlength=nbin * nbin))])
    return {"kx": kx[order], "ky": ky[order], "data_re": re[order], "data_im": im[order], "dcf": dcf[order],
            "bin_start": start}


def _ref_kb(inp, sz):
    g = sz["G"]
    half = 0.5 * float(np.float32(inp["width"]))
    beta = float(np.float32(inp["beta"]))
    kx, ky = _f64(inp["kx"]), _f64(inp["ky"])
    w = _f64(inp["dcf"])
    re, im = w * _f64(inp["data_re"]), w * _f64(inp["data_im"])
    reach = int(np.ceil(half)) + 1
    out_re, out_im = np.zeros(g * g), np.zeros(g * g)
    fx, fy = np.floor(kx).astype(np.int64), np.floor(ky).astype(np.int64)
    for oy in range(-reach, reach + 1):
        gy = fy + oy
        dy = gy - ky
        for ox in range(-reach, reach + 1):
            gx = fx + ox
            dx = gx - kx
            ok = (np.abs(dx) <= half) & (np.abs(dy) <= half) & (gx >= 0) & (gx < g) & (gy >= 0) & (gy < g)
            wx = np.i0(beta * np.sqrt(np.maximum(0.0, 1.0 - (dx / half) ** 2)))
            wy = np.i0(beta * np.sqrt(np.maximum(0.0, 1.0 - (dy / half) ** 2)))
            wt = np.where(ok, wx * wy / np.i0(beta) ** 2, 0.0)
            idx = np.where(ok, gy * g + gx, 0)
            out_re += np.bincount(idx, wt * re, minlength=g * g)
            out_im += np.bincount(idx, wt * im, minlength=g * g)
    return {"grid_re": out_re, "grid_im": out_im}


def kb_gridding_binned_local() -> KernelSpec:
    return _spec(
        "kb_gridding_binned_local", tol=SUMS,
        idiom="MRI Kaiser-Bessel gridding, gather per grid tile, 2-D: binned sample runs staged in __local, I0 window",
        sizes={"G": [128, 256, 512, 1024], "M": pow2(13, 19, 2)}, check={"G": 64, "M": 2048},
        args=[Arg("gsz", "scalar", "int32", "G"), Arg("nbin", "scalar", "int32", f"G // {KB_BIN}"),
              Arg("width", "scalar", "float32", str(KB_WIDTH)), Arg("beta", "scalar", "float32", str(KB_BETA)),
              Arg("kx", "buffer", "float32", "M"), Arg("ky", "buffer", "float32", "M"),
              Arg("data_re", "buffer", "float32", "M"), Arg("data_im", "buffer", "float32", "M"),
              Arg("dcf", "buffer", "float32", "M"),
              Arg("bin_start", "buffer", "int32", f"(G // {KB_BIN}) * (G // {KB_BIN}) + 1"),
              Arg("grid_re", "buffer", "float32", "G * G", "out"), Arg("grid_im", "buffer", "float32", "G * G", "out"),
              Arg("sx", "local", "float32", str(KB_TILE)), Arg("sy", "local", "float32", str(KB_TILE)),
              Arg("sre", "local", "float32", str(KB_TILE)), Arg("sim", "local", "float32", str(KB_TILE))],
        gsize=["G", "G"], local=L2, reference=_ref_kb, make_inputs=_inputs_kb)


# --- ultrasound plane-wave compounding, delay-and-sum with Hann aperture and coherence factor -----------------------
def _das_geometry(sz):
    c, a = sz["C"], sz["A"]
    elem_x = (np.arange(c) - 0.5 * (c - 1)) * DAS_PITCH
    ang = np.radians(np.linspace(-10.0, 10.0, a)) if a > 1 else np.zeros(1)
    return elem_x, np.sin(ang), np.cos(ang)


def _inputs_das(rng, sz):
    """A linear probe (pitch 0.3 mm, 5.2 MHz, sampled at 20.8 MHz) imaging 5 .. 45 mm deep: speckle from 400
    random scatterers (Rayleigh-ish amplitudes), 6 bright point targets and an anechoic cyst (no scatterers);
    each echo a Gaussian-windowed 5.2 MHz pulse at its two-way plane-wave delay; 1% white noise. Steering angles
    evenly spread over +-10 degrees (0 for one angle)."""
    c, a = sz["C"], sz["A"]
    elem_x, sa, ca = _das_geometry(sz)
    width = c * DAS_PITCH
    k = 400
    px = rng.uniform(-0.5 * width, 0.5 * width, k)
    pz = rng.uniform(0.006, 0.044, k)
    keep = np.hypot(px - 0.2 * width, pz - 0.025) > 0.004
    px, pz = px[keep], pz[keep]
    amp = rng.rayleigh(0.3, px.size) * rng.choice([-1.0, 1.0], px.size)
    px = np.concatenate([px, np.linspace(-0.3, 0.3, 6) * width])
    pz = np.concatenate([pz, np.linspace(0.01, 0.04, 6)])
    amp = np.concatenate([amp, np.full(6, 3.0)])
    xref = np.where(sa >= 0, elem_x[0], elem_x[-1])
    d_tx = pz[None, :] * ca[:, None] + (px[None, :] - xref[:, None]) * sa[:, None]  # (a, k)
    d_rx = np.hypot(pz[None, :], px[None, :] - elem_x[:, None])  # (c, k)
    tau = (d_tx[:, None, :] + d_rx[None, :, :]) * DAS_FS_C - DAS_T0  # (a, c, k) in samples
    taps = np.arange(-8, 9)
    kk = np.floor(tau)[..., None].astype(np.int64) + taps  # (a, c, k, 17)
    rel = kk - tau[..., None]
    pulse = amp[None, None, :, None] * np.exp(-(rel / 3.0) ** 2) * np.cos(2 * np.pi * DAS_F0 * rel)
    ok = (kk >= 0) & (kk < DAS_NSAMP)
    trace = (np.arange(a)[:, None, None, None] * c + np.arange(c)[None, :, None, None]) * DAS_NSAMP
    rf = np.bincount((trace + np.clip(kk, 0, DAS_NSAMP - 1))[ok], pulse[ok], minlength=a * c * DAS_NSAMP)
    rf += 0.01 * rng.standard_normal(rf.size)
    return {"elem_x": elem_x, "ang_sin": sa, "ang_cos": ca, "rf": rf}


def _ref_das(inp, sz):
    nx, nz, c, a = sz["NX"], sz["NZ"], sz["C"], sz["A"]
    ns = int(inp["nsamp"])
    x0, dxp, z0, dzp, fnum, fs_c, t0 = (float(np.float32(inp[k]))
                                        for k in ("x0", "dxp", "z0", "dzp", "fnum", "fs_c", "t0"))
    ex, sa, ca = _f64(inp["elem_x"]), _f64(inp["ang_sin"]), _f64(inp["ang_cos"])
    rf = _f64(inp["rf"]).reshape(a, c, ns)
    x = (x0 + np.arange(nx) * dxp)[None, :].repeat(nz, 0).reshape(-1)
    z = (z0 + np.arange(nz) * dzp)[:, None].repeat(nx, 1).reshape(-1)
    half = 0.5 * z / fnum
    s1, s2, used = np.zeros(x.size), np.zeros(x.size), np.zeros(x.size, dtype=np.int64)
    for ia in range(a):
        xref = ex[0] if sa[ia] >= 0 else ex[-1]
        d_tx = z * ca[ia] + (x - xref) * sa[ia]
        for e in range(c):
            dx = x - ex[e]
            s = (d_tx + np.sqrt(z * z + dx * dx)) * fs_c - t0
            k = np.floor(s).astype(np.int64)
            ok = (np.abs(dx) <= half) & (k >= 0) & (k < ns - 1)
            kc = np.clip(k, 0, ns - 2)
            f = s - kc
            val = (0.5 + 0.5 * np.cos(np.pi * dx / half)) * ((1.0 - f) * rf[ia, e, kc] + f * rf[ia, e, kc + 1])
            val = np.where(ok, val, 0.0)
            s1 += val
            s2 += val * val
            used += ok
    cf = np.where((used > 0) & (s2 > 0), s1 * s1 / (np.maximum(used, 1) * np.where(s2 > 0, s2, 1.0)), 0.0)
    return {"bf": s1, "cf": cf}


def das_planewave_coherence() -> KernelSpec:
    return _spec(
        "das_planewave_coherence", tol=(2e-3, 2e-2),
        idiom="ultrasound plane-wave DAS per pixel: angle x element delays, lerp RF, depth-grown Hann aperture, CF",
        sizes={"NX": [64, 256], "NZ": [128, 512, 2048], "C": [64, 128], "A": [1, 11]},
        check={"NX": 32, "NZ": 48, "C": 32, "A": 3},
        constraints=["NX * NZ * C * A <= 2**27"],
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("nz", "scalar", "int32", "NZ"),
              Arg("nch", "scalar", "int32", "C"), Arg("nang", "scalar", "int32", "A"),
              Arg("nsamp", "scalar", "int32", str(DAS_NSAMP)),
              Arg("x0", "scalar", "float32", f"-0.5 * {DAS_PITCH} * C"),
              Arg("dxp", "scalar", "float32", f"{DAS_PITCH} * C / NX"), Arg("z0", "scalar", "float32", "0.005"),
              Arg("dzp", "scalar", "float32", "0.04 / NZ"), Arg("fnum", "scalar", "float32", "1.5"),
              Arg("fs_c", "scalar", "float32", repr(DAS_FS_C)), Arg("t0", "scalar", "float32", str(DAS_T0)),
              Arg("elem_x", "buffer", "float32", "C"), Arg("ang_sin", "buffer", "float32", "A"),
              Arg("ang_cos", "buffer", "float32", "A"), Arg("rf", "buffer", "float32", f"A * C * {DAS_NSAMP}"),
              Arg("bf", "buffer", "float32", "NX * NZ", "out"), Arg("cf", "buffer", "float32", "NX * NZ", "out")],
        gsize=[round_up("NX * NZ")], local=[[256], [64]], reference=_ref_das, make_inputs=_inputs_das)


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
BUILDERS = (fanbeam_fbp_weighted_2d, kb_gridding_binned_local, das_planewave_coherence, pet_listmode_sino_atomic,
            siddon_drr_fp64, region_grow_window_3d)

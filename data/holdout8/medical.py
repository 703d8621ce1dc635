"""Holdout8 kernels, group medical (written by hand; see docs/HOLDOUT8.md): medical imaging and tomography as
application programmers write them: fan-beam filtered back-projection per image pixel on a 2-D NDRange with the
distance weight and a reconstruction circle, MRI gridding of radial k-space samples with a Kaiser-Bessel window in
gather form (binned samples staged through __local memory per grid tile, 2-D), and ultrasound plane-wave
compounding by delay-and-sum with a depth-dependent Hann aperture and a coherence factor. None of these three uses
atomics; the group's other three kernels are in :mod:`.medical_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L2, SUMS, _f64, _spec, pow2, round_up

KB_BIN = 8  # kb_gridding_binned_local: grid cells a bin side (BIN in the source)
KB_TILE = 256  # kb_gridding_binned_local: samples per __local stage (TILE in the source)
KB_WIDTH = 4.0  # kb_gridding_binned_local: window width in grid cells
KB_BETA = 8.99  # kb_gridding_binned_local: Kaiser-Bessel shape for width 4 at 2x oversampling (Beatty et al.)

DAS_PITCH = 0.3e-3  # das_planewave_coherence: element pitch (m)
DAS_FS_C = 20.8e6 / 1540.0  # das_planewave_coherence: sampling rate over sound speed (samples per metre)
DAS_F0 = 5.2e6 / 20.8e6  # das_planewave_coherence: centre frequency in cycles per sample
DAS_T0 = 12.0  # das_planewave_coherence: acquisition start (samples after the first element fires)
DAS_NSAMP = 1536  # das_planewave_coherence: samples per trace (a 45 mm deep image needs ~1350)


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


#: this group's builders, in the order of ``specs()``
BUILDERS = (fanbeam_fbp_weighted_2d, kb_gridding_binned_local, das_planewave_coherence)

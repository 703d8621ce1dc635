"""Holdout9 kernels, group astro, continued (written by hand; see docs/HOLDOUT9.md): reflection seismology and
radio interferometry: normal-moveout correction and stack of CMP gathers on a 2-D NDRange (time sample, CMP) with
each CMP's velocity picks bracketed by a data-dependent walk, hyperbolic reads by linear interpolation and a
stretch mute; automatic gain control of traces with a centred RMS window, a work-group per trace (num_groups
loop) with the trace staged in __local memory and each item sliding the window along its own chunk; and phase
rotation of visibilities to a new phase centre in fp64 (a sincos per integration, the phasor stepped across
channels) followed by flagged, weighted time-frequency averaging. None of these three uses atomics. Split from
:mod:`.astro` to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, round_up

NMO_DT = 0.002  # nmo_stack_picks_2d: sampling interval (s)
NMO_NPICK = 8  # nmo_stack_picks_2d: velocity picks per CMP
NMO_MUTE = 0.4  # nmo_stack_picks_2d: stretch mute (t / t0 - 1)
NMO_SPREAD = 3600.0  # nmo_stack_picks_2d: near-to-far offset span of the streamer (m)

AGC_DT = 0.004  # agc_sliding_rms_local: sampling interval (s)
AGC_CHAN = 96  # agc_sliding_rms_local: channels per shot record

VIS_TAVG = 4  # vis_rotate_average_fp64: integrations averaged together
VIS_OUTCH = 256  # vis_rotate_average_fp64: channels after averaging
VIS_F0, VIS_BW, VIS_TINT = 856e6, 856e6, 8.0  # vis_rotate_average_fp64: band start, bandwidth (Hz), integration (s)
VIS_DL, VIS_DM = 0.0123, -0.0071  # vis_rotate_average_fp64: the new phase centre's offset (direction cosines)
C_LIGHT = 299792458.0


# --- NMO correction and stack of CMP gathers with velocity picks, 2-D ------------------------------------------------
def _inputs_nmo(rng, sz):
    """Marine-like CMP gathers (2 ms): F traces from 150 m to 3.75 km offset with +-10 m of cable feathering,
    NMO_NPICK velocity picks per CMP from 0.05 s .. the record end at 1500 m/s + 900 t with a slow lateral swing
    and +-30 m/s picking noise; 14 gently dipping reflectors whose hyperbolas follow the picked velocities (Ricker
    wavelets of 30 Hz at their fractional times, random polarity, falling with offset), plus 5% white noise."""
    ns, c, f = sz["NS"], sz["C"], sz["F"]
    trec = ns * NMO_DT
    x = 150.0 + np.arange(f)[None, :] * (NMO_SPREAD / f) + rng.uniform(-10.0, 10.0, (c, f))
    pt = np.sort(rng.uniform(0.05, trec, (c, NMO_NPICK)), axis=1)
    swing = 1.0 + 0.08 * np.sin(2 * np.pi * np.arange(c) / max(c, 64) * 1.5)[:, None]
    pv = (1500.0 + 900.0 * pt) * swing + rng.uniform(-30.0, 30.0, (c, NMO_NPICK))
    traces = rng.standard_normal(c * f * ns, dtype=np.float32)
    traces *= np.float32(0.05)
    half = 12
    taps = np.arange(-half, half + 1)
    rows = (np.arange(c)[:, None] * f + np.arange(f)[None, :])[..., None] * ns  # (c, f, 1)
    for _ in range(14):
        t0 = rng.uniform(0.1, 0.95 * trec) + rng.uniform(-0.05, 0.05) * np.arange(c) / max(c, 64)
        v = np.array([np.interp(t0[i], pt[i], pv[i]) for i in range(c)])
        t = np.sqrt(t0[:, None] ** 2 + (x / v[:, None]) ** 2)  # (c, f)
        idx = np.rint(t / NMO_DT).astype(np.int64)[..., None] + taps
        arg = (np.pi * 30.0 * (idx * NMO_DT - t[..., None])) ** 2
        amp = rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 1.0) * (1.0 - 0.5 * x / x.max())[..., None]
        ok = (idx >= 0) & (idx < ns)
        traces[(rows + np.clip(idx, 0, ns - 1))[ok]] += (amp * (1.0 - 2.0 * arg) * np.exp(-arg))[ok]
    return {"traces": traces, "offsets": x, "pick_t": pt, "pick_v": pv}


def _ref_nmo(inp, sz):
    ns, c, f = sz["NS"], sz["C"], sz["F"]
    dt, mute = float(np.float32(inp["dt"])), float(np.float32(inp["stretch_mute"]))
    tr = _f64(inp["traces"]).reshape(c, f, ns)
    x = _f64(inp["offsets"]).reshape(c, f)
    pt, pv = _f64(inp["pick_t"]).reshape(c, -1), _f64(inp["pick_v"]).reshape(c, -1)
    t0 = np.arange(ns) * dt
    v = np.stack([np.interp(t0, pt[i], pv[i]) for i in range(c)])  # (c, ns)
    rows = np.arange(c)[:, None]
    total, live = np.zeros((c, ns)), np.zeros((c, ns), dtype=np.int64)
    for k in range(f):
        t = np.sqrt(t0[None, :] ** 2 + (x[:, k:k + 1] / v) ** 2)
        s = t / dt
        i0 = np.floor(s).astype(np.int64)
        ok = (t <= (1.0 + mute) * t0[None, :]) & (i0 < ns - 1)
        i0 = np.clip(i0, 0, ns - 2)
        fr = s - i0
        val = (1.0 - fr) * tr[rows, k, i0] + fr * tr[rows, k, i0 + 1]
        total += np.where(ok, val, 0.0)
        live += ok
    return {"stack": np.where(live > 0, total / np.maximum(live, 1), 0.0), "live": live}


def nmo_stack_picks_2d() -> KernelSpec:
    return _spec(
        "nmo_stack_picks_2d", tol=SUMS,
        idiom="NMO + CMP stack, 2-D (sample, CMP): walk to the bracketing velocity picks, hyperbolic lerp reads, mute",
        sizes={"NS": [1024, 2048], "C": [16, 64, 256, 1024], "F": [24, 48, 96]}, check={"NS": 512, "C": 16, "F": 12},
        constraints=["NS * C * F <= 2**26"],
        args=[Arg("nsamp", "scalar", "int32", "NS"), Arg("ncmp", "scalar", "int32", "C"),
              Arg("fold", "scalar", "int32", "F"), Arg("npick", "scalar", "int32", str(NMO_NPICK)),
              Arg("dt", "scalar", "float32", str(NMO_DT)), Arg("stretch_mute", "scalar", "float32", str(NMO_MUTE)),
              Arg("traces", "buffer", "float32", "C * F * NS"), Arg("offsets", "buffer", "float32", "C * F"),
              Arg("pick_t", "buffer", "float32", f"C * {NMO_NPICK}"),
              Arg("pick_v", "buffer", "float32", f"C * {NMO_NPICK}"),
              Arg("stack", "buffer", "float32", "C * NS", "out"), Arg("live", "buffer", "int32", "C * NS", "out")],
        gsize=["NS", "C"], local=L2, reference=_ref_nmo, make_inputs=_inputs_nmo)


# --- seismic AGC with a centred RMS window, a work-group per trace, trace in __local ---------------------------------
def _inputs_agc(rng, sz):
    """Shot records of AGC_CHAN channels (4 ms): 50 m .. 2.4 km offsets, noise-like reflectivity under a
    spherical-divergence envelope 1 / (1 + 6 t)^2 with a slow ripple, zeroed above the first break (offset / 1.8
    km/s: the top mute), 2% dead traces (all zeros) and 1% noisy traces (20x)."""
    n, ns = sz["N"], sz["NS"]
    t = np.arange(ns, dtype=np.float32) * np.float32(AGC_DT)
    env = (1.0 + 0.3 * np.sin(2 * np.pi * t / 0.7)) / (1.0 + 6.0 * t) ** 2
    data = rng.standard_normal((n, ns), dtype=np.float32)
    data *= env.astype(np.float32)[None, :]
    offset = 50.0 + (np.arange(n) % AGC_CHAN) * (2350.0 / (AGC_CHAN - 1))
    first = np.ceil(offset / 1800.0 / AGC_DT).astype(np.int64)
    data[np.arange(ns)[None, :] < first[:, None]] = 0.0
    data[rng.random(n) < 0.01] *= 20.0
    data[rng.random(n) < 0.02] = 0.0
    return {"data": data}


def _ref_agc(inp, sz):
    n, ns = sz["N"], sz["NS"]
    h = int(inp["hwin"])
    target, eps = float(np.float32(inp["target"])), float(np.float32(inp["eps"]))
    x = _f64(inp["data"]).reshape(n, ns)
    cs = np.concatenate([np.zeros((n, 1)), np.cumsum(x * x, axis=1)], axis=1)
    s = np.arange(ns)
    lo, hi = np.maximum(s - h, 0), np.minimum(s + h, ns - 1)
    rms = np.sqrt(np.maximum(cs[:, hi + 1] - cs[:, lo], 0.0) / (hi - lo + 1))
    g = np.where(rms > eps, target / np.where(rms > eps, rms, 1.0), 0.0)
    return {"agc_out": g * x, "gain": g}


def agc_sliding_rms_local() -> KernelSpec:
    return _spec(
        "agc_sliding_rms_local", tol=SUMS,
        idiom="seismic AGC, a group per trace (num_groups loop): trace in __local, a chunk per item, RMS window slid",
        sizes={"N": [256, 2048, 16384], "NS": [1000, 4000], "H": [12, 62, 250]},
        check={"N": 32, "NS": 1000, "H": 21},
        constraints=["N * (2 * H + 1) <= 2**21", "N * NS <= 2**25"],
        args=[Arg("ntrace", "scalar", "int32", "N"), Arg("nsamp", "scalar", "int32", "NS"),
              Arg("hwin", "scalar", "int32", "H"), Arg("target", "scalar", "float32", "1.0"),
              Arg("eps", "scalar", "float32", "1e-6"), Arg("data", "buffer", "float32", "N * NS"),
              Arg("agc_out", "buffer", "float32", "N * NS", "out"), Arg("gain", "buffer", "float32", "N * NS", "out"),
              Arg("tr", "local", "float32", "NS")],
        gsize=["min(N, 1024) * 64"], local=L1, reference=_ref_agc, make_inputs=_inputs_agc)


# --- visibility phase rotation in fp64 and time-frequency averaging --------------------------------------------------
def _nant(nbl):
    return int(round((1 + np.sqrt(1 + 8 * nbl)) / 2))


def _inputs_vis(rng, sz):
    """An array at latitude -30.7 deg (a dense core and longer arms, out to ~8 km) tracking a field at declination
    -45 deg for T 8 s integrations around transit; uvw from the antennas' equatorial coordinates. The sky: a 1 Jy
    source at the new phase centre (so rotation makes it coherent) plus complex triangular noise of sd 2; 8% of channels
    flagged for RFI, 1% random samples and 3% of whole rows (weight 0) flagged, weights 1 +- 20%."""
    bl, t, c = sz["BL"], sz["T"], sz["C"]
    na = _nant(bl)
    r = 8000.0 * rng.random(na) ** 2
    az = rng.uniform(0, 2 * np.pi, na)
    east, north, up = r * np.sin(az), r * np.cos(az), rng.uniform(-5, 5, na)
    lat, dec = np.radians(-30.7), np.radians(-45.0)
    ex = np.stack([-np.sin(lat) * north + np.cos(lat) * up, east, np.cos(lat) * north + np.sin(lat) * up])
    ha = (np.arange(t) - 0.5 * t) * VIS_TINT * 2 * np.pi / 86164.0905
    sh, ch = np.sin(ha)[None, :], np.cos(ha)[None, :]
    x, y, z = (ex[i][:, None] for i in range(3))
    ua = sh * x + ch * y
    va = -np.sin(dec) * ch * x + np.sin(dec) * sh * y + np.cos(dec) * z
    wa = np.cos(dec) * ch * x - np.cos(dec) * sh * y + np.sin(dec) * z
    a1, a2 = np.triu_indices(na, 1)
    a1, a2 = a1[:bl], a2[:bl]
    uvw = np.stack([ua[a2] - ua[a1], va[a2] - va[a1], wa[a2] - wa[a1]], axis=-1)  # (bl, t, 3)
    dn = np.sqrt(1.0 - VIS_DL**2 - VIS_DM**2) - 1.0
    d = uvw[..., 0] * VIS_DL + uvw[..., 1] * VIS_DM + uvw[..., 2] * dn  # (bl, t)
    freq = VIS_F0 + np.arange(c) * (VIS_BW / c)
    ph = (d / C_LIGHT).astype(np.float32)[..., None] * freq.astype(np.float32)  # turns, float32 is plenty here
    ph -= np.rint(ph)
    ph *= np.float32(-2.0 * np.pi)
    vis = rng.random((bl, t, c, 2), dtype=np.float32)  # triangular noise of sd 2: two uniforms (fast to draw)
    vis += rng.random((bl, t, c, 2), dtype=np.float32)
    vis -= np.float32(1.0)
    vis *= np.float32(2.0 * np.sqrt(6.0))
    vis[..., 0] += np.cos(ph)
    vis[..., 1] += np.sin(ph)
    flag = (rng.integers(0, 100, (bl, t, c), dtype=np.uint8) == 0).view(np.uint8)
    flag[:, :, rng.random(c) < 0.08] = 1
    weight = rng.uniform(0.8, 1.2, (bl, t)) * (rng.random((bl, t)) >= 0.03)
    return {"uvw": uvw, "vis": vis, "flag": flag, "weight": weight}


def _ref_vis(inp, sz):
    bl, t, c = sz["BL"], sz["T"], sz["C"]
    ta, fa = VIS_TAVG, c // VIS_OUTCH
    dl, dm, f0, df = (float(inp[k]) for k in ("dl", "dm", "freq0", "dfreq"))
    uvw = _f64(inp["uvw"]).reshape(bl, t, 3)
    vis = _f64(inp["vis"]).reshape(bl, t, c, 2)
    vis = vis[..., 0] + 1j * vis[..., 1]
    w = _f64(np.asarray(inp["weight"], dtype=np.float32)).reshape(bl, t)
    live = (np.asarray(inp["flag"]).reshape(bl, t, c) == 0) & (w[..., None] > 0)
    d = uvw[..., 0] * dl + uvw[..., 1] * dm + uvw[..., 2] * (np.sqrt(1.0 - dl * dl - dm * dm) - 1.0)
    turns = np.mod(d[..., None] / C_LIGHT * (f0 + np.arange(c) * df), 1.0)
    wv = np.where(live, w[..., None] * vis * np.exp(2j * np.pi * turns), 0.0)
    ww = np.where(live, w[..., None], 0.0)
    acc = wv.reshape(bl, t // ta, ta, c // fa, fa).sum(axis=(2, 4))
    wsum = ww.reshape(bl, t // ta, ta, c // fa, fa).sum(axis=(2, 4))
    mean = np.where(wsum > 0, acc / np.where(wsum > 0, wsum, 1.0), 0.0)
    return {"vis_avg": np.stack([mean.real, mean.imag], axis=-1), "wsum": wsum}


def vis_rotate_average_fp64() -> KernelSpec:
    return _spec(
        "vis_rotate_average_fp64", precision="fp64", tol=SUMS,
        idiom="visibility phase rotation in fp64 + flagged weighted time-frequency averaging: sincos per row, "
              "phasor steps",
        sizes={"BL": [120, 351, 2016], "T": [16, 32, 64], "C": [256, 1024, 4096]}, check={"BL": 28, "T": 8, "C": 256},
        constraints=["BL * T * C <= 2**24"],
        args=[Arg("nbl", "scalar", "int32", "BL"), Arg("ntime", "scalar", "int32", "T"),
              Arg("nchan", "scalar", "int32", "C"), Arg("tavg", "scalar", "int32", str(VIS_TAVG)),
              Arg("favg", "scalar", "int32", f"C // {VIS_OUTCH}"), Arg("dl", "scalar", "float64", str(VIS_DL)),
              Arg("dm", "scalar", "float64", str(VIS_DM)), Arg("freq0", "scalar", "float64", str(VIS_F0)),
              Arg("dfreq", "scalar", "float64", f"{VIS_BW} / C"), Arg("uvw", "buffer", "float64", "BL * T * 3"),
              Arg("vis", "buffer", "float32", "BL * T * C * 2"), Arg("flag", "buffer", "uint8", "BL * T * C"),
              Arg("weight", "buffer", "float32", "BL * T"),
              Arg("vis_avg", "buffer", "float32", f"BL * (T // {VIS_TAVG}) * {VIS_OUTCH} * 2", "out"),
              Arg("wsum", "buffer", "float32", f"BL * (T // {VIS_TAVG}) * {VIS_OUTCH}", "out")],
        gsize=[round_up(f"BL * (T // {VIS_TAVG}) * {VIS_OUTCH}")], local=L1, reference=_ref_vis,
        make_inputs=_inputs_vis)


#: this group's builders, in the order of ``specs()``
BUILDERS = (nmo_stack_picks_2d, agc_sliding_rms_local, vis_rotate_average_fp64)

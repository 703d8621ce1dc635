"""Holdout9 kernels, group astro (written by hand; see docs/HOLDOUT9.md): radio astronomy and geodesy as
application programmers write them: incoherent dedispersion of an 8-bit channel-major filterbank over trial
dispersion measures on a 2-D NDRange (output sample, DM trial) with bandpass flattening and zapped channels
skipped, folding of a packed uint32 8-bit time series at trial spin frequencies and derivatives with exact 64-bit
fixed-point phases, a work-group per trial (num_groups loop) summing into a __local profile with integer atomics
and finishing with the profile's chi^2, and spherical-harmonic synthesis of a gravity field model (geoid
undulation and gravity anomaly) at scattered points in fp64 by the forward column Legendre recursion. The
group's other three kernels, seismic processing and radio interferometry, are in :mod:`.astro_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f32, _f64, _spec, pow2, round_up

KDM = 4148.808  # dispersion constant (s MHz^2 cm^3 / pc)

DD_MAXD = 2048  # fb_dedisperse_dm_2d: input samples beyond the output's, the largest delay's room
DD_FTOP, DD_BW, DD_TSAMP = 1500.0, 300.0, 64e-6  # fb_dedisperse_dm_2d: L-band top (MHz), bandwidth (MHz), tsamp (s)

PF_TSAMP = 64e-6  # psr_fold_phase_u32_local: sampling time (s)
PF_F0, PF_FDOT = 173.6879458, -3.2e-6  # psr_fold_phase_u32_local: the injected binary MSP's spin (Hz, Hz/s)
PF_NFD = 4  # psr_fold_phase_u32_local: frequency-derivative trials per frequency trial

GEO_R, GEO_GM = 6378136.3, 3.986004415e14  # geoid_sh_synth_fp64: reference radius (m), GM (m^3/s^2)


# --- incoherent dedispersion over DM trials, 2-D ----------------------------------------------------------------------
def _dd_delays(c):
    f = DD_FTOP - (np.arange(c) + 0.5) * DD_BW / c
    return (KDM * (f**-2 - DD_FTOP**-2) / DD_TSAMP).astype(np.float32)


def _inputs_dd(rng, sz):
    """An L-band filterbank (1200 .. 1500 MHz, 64 us): per-channel bandpass levels rolling off at the band edges,
    triangular 8-bit noise (two uniform bytes), 2% of edge channels and ~7% of narrow-band RFI channels full of
    junk and zapped (scale 0); a dispersed burst at 0.6 of the largest trial DM a third into the output. DM trials
    evenly spaced from 0 to the DM whose bottom-channel delay fills the DD_MAXD spare samples. Bandpass offset and
    scale measured on the first 1024 samples, as a pipeline would."""
    t, d, c = sz["T"], sz["D"], sz["C"]
    n = t + DD_MAXD
    delay = _dd_delays(c)
    dm = np.linspace(0.0, (DD_MAXD - 2) / float(delay[-1]), d).astype(np.float32)
    x = (np.arange(c) + 0.5) / c
    base = np.rint(30.0 + 100.0 * np.clip(np.sin(np.pi * x) * 1.4, 0.0, 1.0)).astype(np.uint8)
    fb = rng.integers(0, 32, (c, n), dtype=np.uint8)
    fb += rng.integers(0, 32, (c, n), dtype=np.uint8)
    fb += base[:, None]
    zap = (rng.random(c) < 0.07) | (x < 0.02) | (x > 0.98)
    fb[zap] = rng.integers(0, 256, (int(zap.sum()), n), dtype=np.uint8)
    t0 = t // 3
    shift = np.rint(np.float32(0.6 * float(dm[-1])) * delay).astype(np.int64)
    for w in range(4):
        col = t0 + shift + w
        fb[np.arange(c), col] = np.minimum(fb[np.arange(c), col].astype(np.int64) + 24, 255).astype(np.uint8)
    head = fb[:, :1024].astype(np.float64)
    offset = head.mean(axis=1)
    scale = np.where(zap, 0.0, 1.0 / np.maximum(head.std(axis=1), 1.0))
    return {"fb": fb, "delay_s": delay, "dm_list": dm, "chan_offset": offset, "chan_scale": scale}


def _ref_dd(inp, sz):
    t, d, c = sz["T"], sz["D"], sz["C"]
    fb = np.asarray(inp["fb"]).reshape(c, t + DD_MAXD).astype(np.float64)
    delay = np.rint(_f32(inp["dm_list"])[:, None] * _f32(inp["delay_s"])[None, :]).astype(np.int64)  # (d, c)
    off, sc = _f64(inp["chan_offset"]), _f64(inp["chan_scale"])
    out = np.zeros((d, t))
    live = np.nonzero(sc != 0.0)[0]
    tt = np.arange(t)[None, :]
    for ch in live:
        out += (fb[ch][tt + delay[:, ch][:, None]] - off[ch]) * sc[ch]
    return {"dedisp": out / np.sqrt(live.size) if live.size else out}


def fb_dedisperse_dm_2d() -> KernelSpec:
    return _spec(
        "fb_dedisperse_dm_2d", tol=SUMS,
        idiom="incoherent dedispersion, 2-D (sample, DM): rint(dm * delay) per channel, uchar bandpass-flattened sum",
        sizes={"T": pow2(12, 16), "D": [16, 64, 256], "C": [128, 512]}, check={"T": 512, "D": 16, "C": 64},
        constraints=["T * D * C <= 2**27"],
        args=[Arg("nsamp_in", "scalar", "int32", f"T + {DD_MAXD}"), Arg("nout", "scalar", "int32", "T"),
              Arg("nchan", "scalar", "int32", "C"), Arg("ndm", "scalar", "int32", "D"),
              Arg("fb", "buffer", "uint8", f"C * (T + {DD_MAXD})"), Arg("delay_s", "buffer", "float32", "C"),
              Arg("dm_list", "buffer", "float32", "D"), Arg("chan_offset", "buffer", "float32", "C"),
              Arg("chan_scale", "buffer", "float32", "C"), Arg("dedisp", "buffer", "float32", "D * T", "out")],
        gsize=["T", "D"], local=L2, reference=_ref_dd, make_inputs=_inputs_dd)


# --- pulsar folding at trial (f, fdot) with 64-bit fixed-point phase, a work-group per trial, __local atomics --------
def _inputs_fold(rng, sz):
    """A dedispersed 8-bit series (64 us samples, mean ~96, sd 14) holding a binary millisecond pulsar (173.69 Hz,
    fdot -3.2e-6 Hz/s, a von Mises pulse of 8 counts peak and ~3% duty cycle); four samples a little-endian uint32
    word. Trials: F / 4 frequencies a quarter Fourier bin apart around the true one times 4 derivatives around the
    true one, the true pair among them; series mean and variance in stats."""
    t, f = sz["T"], sz["F"]
    tt = np.arange(t) * PF_TSAMP
    phase = np.mod(PF_F0 * tt + 0.5 * PF_FDOT * tt * tt, 1.0)
    pulse = 8.0 * np.exp((np.cos(2.0 * np.pi * (phase - 0.3)) - 1.0) / 0.003)
    x = 96.0 + 14.0 * rng.standard_normal(t, dtype=np.float32) + pulse
    samples = np.clip(np.rint(x), 0, 255).astype(np.uint8)
    span = t * PF_TSAMP
    nf = f // PF_NFD
    freqs = PF_F0 + (np.arange(nf) - nf // 2) * 0.25 / span
    fdots = PF_FDOT + (np.arange(PF_NFD) - PF_NFD // 2) * 0.5 / span**2
    dphi = [int(round(fr * PF_TSAMP * 2.0**64)) % 2**64 for fr in freqs for _ in range(PF_NFD)]
    ddphi = [int(round(0.5 * fd * PF_TSAMP**2 * 2.0**64)) % 2**64 for _ in range(nf) for fd in fdots]
    stats = np.array([samples.mean(), samples.var()])
    return {"series": samples.view(np.uint32), "trial_dphi": np.array(dphi, dtype=np.uint64),
            "trial_ddphi": np.array(ddphi, dtype=np.uint64), "stats": stats}


def _ref_fold(inp, sz):
    f, nb = sz["F"], sz["NB"]
    s = np.asarray(inp["series"], dtype=np.uint32).view(np.uint8).astype(np.float64)
    t = np.arange(s.size, dtype=np.uint64)
    tsq = t * t
    mean, var = (float(v) for v in _f32(inp["stats"]))
    prof, chi2 = np.zeros((f, nb)), np.zeros(f)
    for j in range(f):
        ph = t * np.uint64(inp["trial_dphi"][j]) + tsq * np.uint64(inp["trial_ddphi"][j])
        b = (((ph >> np.uint64(32)) * np.uint64(nb)) >> np.uint64(32)).astype(np.int64)
        cnt = np.bincount(b, minlength=nb)
        dev = np.where(cnt > 0, np.bincount(b, s, minlength=nb) / np.maximum(cnt, 1) - mean, 0.0)
        prof[j] = dev
        chi2[j] = (cnt * dev * dev).sum() / (var * (nb - 1))
    return {"prof": prof, "chi2": chi2}


def psr_fold_phase_u32_local() -> KernelSpec:
    return _spec(
        "psr_fold_phase_u32_local", tol=SUMS,
        idiom="pulsar folding, a group per (f, fdot) trial: 64-bit fixed-point phase bins, __local atomic profile, "
              "chi2",
        sizes={"T": pow2(14, 20, 2), "F": [16, 128], "NB": [64, 128]}, check={"T": 16384, "F": 8, "NB": 64},
        constraints=["T * F <= 2**25", "NB == 64 or T * F >= 2**20"],
        args=[Arg("nwords", "scalar", "int32", "T // 4"), Arg("nfold", "scalar", "int32", "F"),
              Arg("nbins", "scalar", "int32", "NB"), Arg("series", "buffer", "uint32", "T // 4"),
              Arg("trial_dphi", "buffer", "uint64", "F"), Arg("trial_ddphi", "buffer", "uint64", "F"),
              Arg("stats", "buffer", "float32", "2"), Arg("prof", "buffer", "float32", "F * NB", "out"),
              Arg("chi2", "buffer", "float32", "F", "out"),
              Arg("lsum", "local", "int32", "NB"), Arg("lcnt", "local", "int32", "NB")],
        gsize=["min(F, 64) * 256"], local=L1, reference=_ref_fold, make_inputs=_inputs_fold)


# --- spherical-harmonic synthesis of a gravity model at scattered points, fp64 ----------------------------------------
def _tri(nmax):
    n = np.concatenate([np.full(k + 1, k) for k in range(nmax + 1)])
    m = np.concatenate([np.arange(k + 1) for k in range(nmax + 1)])
    return n, m


def _inputs_geo(rng, sz):
    """Points uniform over the sphere between +-66 degrees of latitude (a TOPEX/Jason-like altimeter's
    footprints); a synthetic model whose fully normalised coefficients follow Kaula's rule (sd 1e-5 / n^2), none
    below degree 2; the recursion factors a(n,m), b(n,m) of the forward column method in the same
    lower-triangular order."""
    p, nmax = sz["P"], sz["N"]
    lat = np.arcsin(rng.uniform(-np.sin(np.radians(66.0)), np.sin(np.radians(66.0)), p))
    lon = rng.uniform(0.0, 2.0 * np.pi, p)
    n, m = _tri(nmax)
    nn, mm = n.astype(np.float64), m.astype(np.float64)
    sd = np.where(n >= 2, 1e-5 / np.maximum(nn, 1.0) ** 2, 0.0)
    cnm = sd * rng.standard_normal(n.size)
    snm = np.where(m > 0, sd * rng.standard_normal(n.size), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.sqrt((2 * nn - 1) * (2 * nn + 1) / ((nn - mm) * (nn + mm)))
        b = np.sqrt((2 * nn + 1) * (nn + mm - 1) * (nn - mm - 1) / ((nn - mm) * (nn + mm) * (2 * nn - 3)))
    a = np.where(n > m, a, 0.0)
    b = np.where(n > m + 1, b, 0.0)
    return {"lat": lat, "lon": lon, "cnm": cnm, "snm": snm, "anm": a, "bnm": b}


def _ref_geo(inp, sz):
    nmax = sz["N"]
    lat, lon = _f64(inp["lat"]), _f64(inp["lon"])
    c, s, a, b = (_f64(inp[k]) for k in ("cnm", "snm", "anm", "bnm"))
    t, u = np.sin(lat), np.cos(lat)
    sum_n, sum_g = np.zeros(lat.size), np.zeros(lat.size)
    pmm = np.ones(lat.size)
    for m in range(nmax + 1):
        if m > 0:
            pmm = pmm * (np.sqrt(3.0) if m == 1 else np.sqrt((2.0 * m + 1.0) / (2.0 * m))) * u
        cm, sm = np.cos(m * lon), np.sin(m * lon)
        p2, p1 = np.zeros(lat.size), pmm
        k = m * (m + 1) // 2 + m
        if m >= 2:
            term = pmm * (c[k] * cm + s[k] * sm)
            sum_n += term
            sum_g += (m - 1) * term
        for n in range(m + 1, nmax + 1):
            k += n
            p = a[k] * t * p1 - b[k] * p2
            p2, p1 = p1, p
            if n >= 2:
                term = p * (c[k] * cm + s[k] * sm)
                sum_n += term
                sum_g += (n - 1) * term
    r, gm = float(inp["radius"]), float(inp["gm"])
    return {"undulation": r * sum_n, "grav_anom": gm / (r * r) * sum_g * 1.0e5}


def geoid_sh_synth_fp64() -> KernelSpec:
    tri = "(N + 1) * (N + 2) // 2"
    return _spec(
        "geoid_sh_synth_fp64", precision="fp64", tol=(1e-9, 1e-9),
        idiom="gravity model synthesis per point in fp64: forward column Legendre recursion, m-angle recurrence, N, dg",
        sizes={"P": pow2(10, 20, 2), "N": [30, 90, 180, 300]}, check={"P": 256, "N": 24},
        constraints=["P * N * N <= 2**29"],
        args=[Arg("npts", "scalar", "int32", "P"), Arg("nmax", "scalar", "int32", "N"),
              Arg("radius", "scalar", "float64", str(GEO_R)), Arg("gm", "scalar", "float64", str(GEO_GM)),
              Arg("lat", "buffer", "float64", "P"), Arg("lon", "buffer", "float64", "P"),
              Arg("cnm", "buffer", "float64", tri), Arg("snm", "buffer", "float64", tri),
              Arg("anm", "buffer", "float64", tri), Arg("bnm", "buffer", "float64", tri),
              Arg("undulation", "buffer", "float64", "P", "out"), Arg("grav_anom", "buffer", "float64", "P", "out")],
        gsize=[round_up("P")], local=L1, reference=_ref_geo, make_inputs=_inputs_geo)


#: this group's builders, in the order of ``specs()``
BUILDERS = (fb_dedisperse_dm_2d, psr_fold_phase_u32_local, geoid_sh_synth_fp64)

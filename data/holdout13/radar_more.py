"""Holdout13 kernels, group radar, continued (written by hand; see docs/HOLDOUT13.md): Doppler processing of a
coherent processing interval, a work-group per range bin (looping by the number of groups) gathering the bin's
strided slow-time samples into __local memory under a Hamming window and its work-items taking Doppler bins, each
a direct DFT with twiddles from a __local table the group fills once by sincos (index k * p mod n kept by a
conditional subtraction), the power written Doppler-major with zero Doppler centred; and time-domain SAR
backprojection in fp64, a work-item per ground pixel summing over the pulses: slant range to the antenna phase
centre, its fractional range bin, linear interpolation of the range-compressed double2 profile, the carrier phase
restored by sincos, pulses whose swath misses the pixel skipped. Neither uses atomics. Split from :mod:`.radar` to
keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f64, _spec, round_up

DOP_TARGETS = 3  # doppler_dft_hamming_local: moving targets (slow-time tones) in every range bin's echo
DOP_CLUTTER = 4.0  # doppler_dft_hamming_local: amplitude of the zero-Doppler clutter, relative to the noise

SAR_SCENE = 512.0  # sar_backproject_lerp_fp64: side of the square ground scene (m), centred on the origin
SAR_TRACK = (-1500.0, 1000.0, 400.0)  # sar_backproject_lerp_fp64: track's ground offset y, height, length (m)
SAR_R0, SAR_DR, SAR_NBIN = 1600.0, 0.5, 1024  # sar_backproject_lerp_fp64: near range, bin spacing, bins
SAR_WAVELENGTH = 0.23  # sar_backproject_lerp_fp64: L band carrier (m)
#: sar_backproject_lerp_fp64's (rtol, atol): the carrier phase kr * R (~1e5 rad) turns one ulp of R (a contracted
#: fma, another sqrt) into ~1e-11 rad a term, and pixels whose pulses nearly cancel are small sums
SAR_TOL = (1e-8, 1e-9)


# --- Doppler processing: windowed DFT across pulses, a work-group per range bin ---------------------------------
def _inputs_dop(rng, sz):
    """NP x NR complex samples (pulse-major): unit complex Gaussian noise, a stationary clutter return of
    DOP_CLUTTER times its amplitude with a random phase per range bin, and DOP_TARGETS slow-time tones of random
    Doppler frequency and amplitude 0.5 .. 3 per range bin."""
    n, nr = sz["NP"], sz["NR"]
    x = (rng.standard_normal((n, nr)) + 1j * rng.standard_normal((n, nr))) * np.sqrt(0.5)
    x += DOP_CLUTTER * np.exp(2j * np.pi * rng.random(nr))[None, :]
    p = np.arange(n)[:, None]
    for _ in range(DOP_TARGETS):
        fd, amp = rng.uniform(-0.5, 0.5, nr), rng.uniform(0.5, 3.0, nr)
        x += amp[None, :] * np.exp(2j * np.pi * (fd[None, :] * p + rng.random(nr)[None, :]))
    return {"x": np.stack([x.real, x.imag], axis=2).astype(np.float32).reshape(-1)}


def _ref_dop(inp, sz):
    n, nr = sz["NP"], sz["NR"]
    x = _f64(inp["x"]).reshape(n, nr, 2)
    x = x[..., 0] + 1j * x[..., 1]
    win = 0.54 - 0.46 * np.cos(2.0 * np.pi * np.arange(n) / (n - 1))
    spec = np.fft.fft(x * win[:, None], axis=0)
    return {"pow_map": np.roll(np.abs(spec) ** 2, n // 2, axis=0)}


def doppler_dft_hamming_local() -> KernelSpec:
    return _spec(
        "doppler_dft_hamming_local", tol=SUMS,
        idiom="radar Doppler DFT, a group per range bin (num_groups loop): strided slow-time gather into __local "
              "under a Hamming window, sincos twiddle table in __local, item per Doppler bin, centred power map",
        sizes={"NP": [16, 64, 384], "NR": [256, 2048, 16384]}, check={"NP": 24, "NR": 48},
        constraints=["NR * NP * NP <= 2**29"],
        args=[Arg("nrange", "scalar", "int32", "NR"), Arg("npulse", "scalar", "int32", "NP"),
              Arg("x", "buffer", "float32", "2 * NP * NR"), Arg("pow_map", "buffer", "float32", "NP * NR", "out"),
              Arg("tw", "local", "float32", "2 * NP"), Arg("slow", "local", "float32", "2 * NP")],
        gsize=["NR * 16"], local=L1, reference=_ref_dop, make_inputs=_inputs_dop)


# --- SAR time-domain backprojection, fp64, a work-item per pixel ------------------------------------------------
def _inputs_sar(rng, sz):
    """A straight track along x (SAR_TRACK: ground offset, height, length) with NP evenly spaced pulses and up to
    0.5 m of motion error in each coordinate; range-compressed profiles of unit complex Gaussian samples."""
    n = sz["NP"]
    yoff, h, length = SAR_TRACK
    ant = np.stack([np.linspace(-length / 2, length / 2, n), np.full(n, yoff), np.full(n, h)], axis=1)
    ant += rng.uniform(-0.5, 0.5, (n, 3))
    rc = rng.standard_normal((n, SAR_NBIN, 2)) * np.sqrt(0.5)
    return {"ant": ant, "rc": rc}


def _ref_sar(inp, sz):
    """Pulse by pulse over every pixel at once, the kernel's arithmetic in its order."""
    nx, n, nb = sz["NX"], sz["NP"], int(inp["nbin"])
    x0, y0, dx = float(inp["x0"]), float(inp["y0"]), float(inp["dx"])
    r0, kr, inv_dr = float(inp["r0"]), float(inp["kr"]), 1.0 / float(inp["dr"])
    ant = _f64(inp["ant"]).reshape(n, 3)
    rc = _f64(inp["rc"]).reshape(n, nb, 2)
    i = np.arange(nx * nx)
    px, py = x0 + (i % nx) * dx, y0 + (i // nx) * dx
    acc = np.zeros(nx * nx, dtype=np.complex128)
    for p in range(n):
        ax, ay, az = px - ant[p, 0], py - ant[p, 1], ant[p, 2]
        rng_ = np.sqrt(ax * ax + ay * ay + az * az)
        fb = (rng_ - r0) * inv_dr
        b = np.floor(fb).astype(np.int64)
        ok = (b >= 0) & (b < nb - 1)
        b, w = np.where(ok, b, 0), fb - b
        s = rc[p, b, 0] + w * (rc[p, b + 1, 0] - rc[p, b, 0]) + 1j * (rc[p, b, 1] + w * (rc[p, b + 1, 1] - rc[p, b, 1]))
        acc += np.where(ok, s * np.exp(1j * kr * rng_), 0.0)
    return {"img": np.stack([acc.real, acc.imag], axis=1)}


def sar_backproject_lerp_fp64() -> KernelSpec:
    return _spec(
        "sar_backproject_lerp_fp64", tol=SAR_TOL, precision="fp64",
        idiom="SAR time-domain backprojection in fp64, an item per pixel: slant range to each pulse's antenna, "
              "out-of-swath skip, lerp of a double2 range profile, carrier phase by sincos, complex sum",
        sizes={"NX": [32, 128, 256, 512], "NP": [32, 128, 512]}, check={"NX": 24, "NP": 20},
        constraints=["NX * NX * NP <= 2**24"],
        args=[Arg("nx", "scalar", "int32", "NX"), Arg("ny", "scalar", "int32", "NX"),
              Arg("npulse", "scalar", "int32", "NP"), Arg("nbin", "scalar", "int32", str(SAR_NBIN)),
              Arg("x0", "scalar", "float64", str(-SAR_SCENE / 2)), Arg("y0", "scalar", "float64", str(-SAR_SCENE / 2)),
              Arg("dx", "scalar", "float64", f"{SAR_SCENE} / NX"), Arg("r0", "scalar", "float64", str(SAR_R0)),
              Arg("dr", "scalar", "float64", str(SAR_DR)),
              Arg("kr", "scalar", "float64", f"4 * 3.141592653589793 / {SAR_WAVELENGTH}"),
              Arg("ant", "buffer", "float64", "3 * NP"), Arg("rc", "buffer", "float64", f"2 * NP * {SAR_NBIN}"),
              Arg("img", "buffer", "float64", "2 * NX * NX", "out")],
        gsize=[round_up("NX * NX")], local=L1, reference=_ref_sar, make_inputs=_inputs_sar)


#: this group's builders, in the order of ``specs()``
BUILDERS = (doppler_dft_hamming_local, sar_backproject_lerp_fp64)

"""Holdout13 kernels, group radar (written by hand; see docs/HOLDOUT13.md): the first two steps of a pulse-Doppler
radar's signal chain as a GPU port launches them. Range compression by a time-domain matched filter on a 2-D
(range bin, pulse) NDRange: the ADC's samples arrive as uint32 words of packed int16 I/Q, decoded inline by
sign-extending casts and correlated with a windowed linear-FM chirp replica of scalar length (complex float2
taps, conjugated), the tail of each pulse seeing a partial replica. And greatest-of cell-averaging CFAR
detection on the range-Doppler power map, 2-D (range cell, Doppler bin): leading and lagging training windows
beyond guard cells averaged separately and clipped at the row ends, the larger mean times a scalar factor as the
threshold, a detection flag per cell and an integer atomic count of detections per Doppler row. The group's other
two kernels (Doppler DFT, SAR backprojection) are in :mod:`.radar_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L2, SUMS, _f64, _spec, round_up

IQ_FULL = 4096  # range_compress_iq16_2d: ADC counts of the I and Q samples lie in [-IQ_FULL, IQ_FULL)
CHIRP_TBP = 0.5  # range_compress_iq16_2d: time-bandwidth product of the chirp per replica tap

CFAR_GUARD = 2  # cfar_goca_doppler_rows_2d: guard cells each side of the cell under test
CFAR_QUANT = 16  # cfar_goca_doppler_rows_2d: powers are multiples of 1 / CFAR_QUANT (float32 sums exact)
CFAR_CLUTTER = (0.6, 10.0)  # cfar_goca_doppler_rows_2d: clutter starts at this share of the range, this strong
CFAR_TARGETS = 0.003  # cfar_goca_doppler_rows_2d: share of cells holding a target


# --- range compression: packed int16 I/Q words against a chirp replica --------------------------------------------
def _inputs_rc(rng, sz):
    """P pulses of NS ADC words, I in the low and Q in the high half, uniform in [-IQ_FULL, IQ_FULL); the replica
    a linear-FM chirp of L taps under a Hamming window."""
    p, ns, nr = sz["P"], sz["NS"], sz["L"]
    iq = rng.integers(-IQ_FULL, IQ_FULL, (2, p * ns)).astype(np.int64)
    raw = (iq[0] & 0xFFFF) | ((iq[1] & 0xFFFF) << 16)
    t = np.arange(nr) / nr - 0.5
    phase = np.pi * CHIRP_TBP * nr * t * t
    win = 0.54 - 0.46 * np.cos(2.0 * np.pi * np.arange(nr) / max(nr - 1, 1))
    repl = np.stack([win * np.cos(phase), win * np.sin(phase)], axis=1)
    return {"raw": raw.astype(np.uint32), "repl": repl.astype(np.float32).reshape(-1)}


def _ref_rc(inp, sz):
    p, ns, nr = sz["P"], sz["NS"], sz["L"]
    raw = np.asarray(inp["raw"]).astype(np.uint32).reshape(p, ns)
    xi = (raw & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.float64)
    xq = (raw >> 16).astype(np.uint16).view(np.int16).astype(np.float64)
    x = (xi + 1j * xq) * float(inp["scale"])
    h = _f64(inp["repl"]).reshape(nr, 2)
    h = h[:, 0] + 1j * h[:, 1]
    y = np.zeros((p, ns), dtype=np.complex128)
    for k in range(min(nr, ns)):
        y[:, :ns - k] += x[:, k:] * np.conj(h[k])
    return {"out": np.stack([y.real, y.imag], axis=2)}


def range_compress_iq16_2d() -> KernelSpec:
    return _spec(
        "range_compress_iq16_2d", tol=SUMS,
        idiom="radar range compression, 2-D (range bin, pulse): packed int16 I/Q uint32 words sign-extended by "
              "casts, time-domain correlation with a conjugated float2 chirp replica of scalar length, clipped tail",
        sizes={"NS": [512, 2048, 8192, 32768], "P": [16, 128], "L": [32, 256]},
        check={"NS": 300, "P": 5, "L": 40},
        constraints=["P * NS * L <= 2**28"],
        args=[Arg("npulse", "scalar", "int32", "P"), Arg("nsamp", "scalar", "int32", "NS"),
              Arg("nrepl", "scalar", "int32", "L"), Arg("scale", "scalar", "float32", "1.0 / 32768"),
              Arg("raw", "buffer", "uint32", "P * NS"), Arg("repl", "buffer", "float32", "2 * L"),
              Arg("out", "buffer", "float32", "2 * P * NS", "out")],
        gsize=[round_up("NS", 32), round_up("P", 16)], local=L2, reference=_ref_rc, make_inputs=_inputs_rc)


# --- greatest-of CA-CFAR along range, per Doppler row ------------------------------------------------------------
def _inputs_cfar(rng, sz):
    """ND x NR powers: exponential noise of mean 1, CFAR_CLUTTER[1] times stronger beyond CFAR_CLUTTER[0] of the
    range (a clutter edge), CFAR_TARGETS of the cells with a target of 30 .. 300 added; all rounded to multiples
    of 1 / CFAR_QUANT."""
    nr, nd = sz["NR"], sz["ND"]
    level = np.where(np.arange(nr) >= int(CFAR_CLUTTER[0] * nr), CFAR_CLUTTER[1], 1.0)
    pw = rng.exponential(1.0, (nd, nr)) * level[None, :]
    pw += np.where(rng.random((nd, nr)) < CFAR_TARGETS, rng.uniform(30.0, 300.0, (nd, nr)), 0.0)
    return {"power": np.round(pw * CFAR_QUANT) / CFAR_QUANT}


def _ref_cfar(inp, sz):
    """Window sums by cumulative sums (exact: the powers are coarse binary fractions); the noise mean and the
    threshold rounded through float32 as the kernel forms them, so the detections are the kernel's."""
    nr, nd = sz["NR"], sz["ND"]
    g, t = int(inp["nguard"]), int(inp["ntrain"])
    pw = _f64(inp["power"]).reshape(nd, nr)
    cs = np.zeros((nd, nr + 1))
    np.cumsum(pw, axis=1, out=cs[:, 1:])
    r = np.arange(nr)
    lo0, lo1 = np.clip(r - g - t, 0, None), np.clip(r - g, 0, None)
    hi0, hi1 = np.minimum(r + g + 1, nr), np.minimum(r + g + t + 1, nr)
    nlead, nlag = (lo1 - lo0).astype(np.float32), (hi1 - hi0).astype(np.float32)
    lead = (cs[:, lo1] - cs[:, lo0]).astype(np.float32)
    lag = (cs[:, hi1] - cs[:, hi0]).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        mlead, mlag = lead / nlead, lag / nlag
    noise = np.where((nlead > 0) & (nlag > 0), np.fmax(mlead, mlag), np.where(nlead > 0, mlead, mlag))
    thr32 = np.float32(inp["alpha"]) * noise.astype(np.float32)
    det = pw.astype(np.float32) > thr32
    with np.errstate(divide="ignore", invalid="ignore"):
        m64 = np.where((nlead > 0) & (nlag > 0), np.fmax(_f64(lead) / nlead, _f64(lag) / nlag),
                       np.where(nlead > 0, _f64(lead) / nlead, _f64(lag) / nlag))
    return {"thresh": float(inp["alpha"]) * m64, "det": det.astype(np.uint8), "row_hits": det.sum(axis=1)}


def cfar_goca_doppler_rows_2d() -> KernelSpec:
    return _spec(
        "cfar_goca_doppler_rows_2d",
        idiom="greatest-of CA-CFAR, 2-D (range cell, Doppler bin): leading / lagging training windows beyond guard "
              "cells clipped at the row ends, larger mean x scalar factor, uint8 flags, atomic_inc hits per row",
        sizes={"NR": [1024, 8192, 65536], "ND": [16, 128, 1024], "T": [8, 32]},
        check={"NR": 200, "ND": 6, "T": 8},
        constraints=["NR * ND <= 2**24"],
        args=[Arg("nrange", "scalar", "int32", "NR"), Arg("ndopp", "scalar", "int32", "ND"),
              Arg("nguard", "scalar", "int32", str(CFAR_GUARD)), Arg("ntrain", "scalar", "int32", "T"),
              Arg("alpha", "scalar", "float32", "T * (1000.0 ** (1.0 / T) - 1.0)"),
              Arg("power", "buffer", "float32", "ND * NR"),
              Arg("thresh", "buffer", "float32", "ND * NR", "out"),
              Arg("det", "buffer", "uint8", "ND * NR", "out"),
              Arg("row_hits", "buffer", "int32", "ND", "out")],
        gsize=[round_up("NR", 32), round_up("ND", 16)], local=L2, reference=_ref_cfar, make_inputs=_inputs_cfar)


#: this group's builders, in the order of ``specs()``
BUILDERS = (range_compress_iq16_2d, cfar_goca_doppler_rows_2d)

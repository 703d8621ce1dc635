"""Holdout9 kernels, group audio (written by hand; see docs/HOLDOUT9.md): audio and music analysis as application
programmers write it: rational sample-rate conversion (44.1 <-> 48 kHz) of interleaved multichannel audio through
a polyphase windowed-sinc filter bank, an output frame per work-item with the tap range clipped at the signal's
ends; MFCCs of STFT frames, a work-group per frame (looping by the number of groups) that squares the bins into a
__local power spectrum, sums triangular mel bands, takes decibels and a DCT-II of the __local log-mel frame; and
a chromagram from spectral peaks on a 2-D (bin, frame) NDRange whose peaks add their magnitude in fixed point to
the frame's pitch class by integer atomics. The group's other three kernels are in :mod:`.audio_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, pow2, round_up

RS_TAPS = 32  # polyphase_sinc_resample: taps per phase
RS_BETA = 8.6  # polyphase_sinc_resample: Kaiser window shape (about 90 dB stop band)

MEL_SR = 22050.0  # mfcc_frame_local: sample rate the mel scale is laid on (Hz)
MEL_NCEP = 13  # mfcc_frame_local: cepstral coefficients kept
MEL_AMIN = 1e-10  # mfcc_frame_local: power floor before decibels

CH_SR = 44100.0  # chroma_peak_fixed_2d: sample rate (Hz)
CH_FLO, CH_FHI = 55.0, 4200.0  # chroma_peak_fixed_2d: analysed range (A1 .. about C8)
CH_HALFW = 3  # chroma_peak_fixed_2d: a peak beats every bin within this many on either side
CH_THRESH = 0.02  # chroma_peak_fixed_2d: magnitude a peak must exceed
CH_SCALE = 1024.0  # chroma_peak_fixed_2d: fixed-point units per unit magnitude


# --- polyphase windowed-sinc resampling of interleaved multichannel audio -----------------------------------------
def _rs_bank(up, down, taps=RS_TAPS):
    """Phase ph of the bank: a Kaiser-windowed sinc sampled at distances ph / up + taps/2 - 1 - k input frames,
    cut-off 0.47 of the lower of the two sample rates (in input cycles per frame), each phase summing to 1."""
    fc = 0.47 * min(1.0, up / down)
    d = np.arange(up)[:, None] / up + taps // 2 - 1 - np.arange(taps)[None, :]
    z = np.clip(1.0 - (d / (taps / 2)) ** 2, 0.0, None)
    h = 2 * fc * np.sinc(2 * fc * d) * np.i0(RS_BETA * np.sqrt(z)) / np.i0(RS_BETA)
    return h / h.sum(axis=1, keepdims=True)


def _inputs_rs(rng, sz):
    """Music-like interleaved audio: per channel four partials of random pitch (a bass, two mid tones, a bright
    one) with slow tremolo, plus -50 dB noise; the bank for up / down."""
    up, down, c = sz["L"], sz["M"], sz["C"]
    nin = sz["N"] * down // up
    t = np.arange(nin, dtype=np.float32)[:, None]
    x = np.zeros((nin, c), dtype=np.float32)
    for amp, flo, fhi in ((0.3, 0.001, 0.005), (0.2, 0.01, 0.03), (0.15, 0.03, 0.08), (0.05, 0.1, 0.4)):
        f = rng.uniform(flo, fhi, c).astype(np.float32)
        ph = rng.uniform(0, 2 * np.pi, c).astype(np.float32)
        trem = 1.0 + 0.3 * np.sin(np.float32(2e-5 * 2 * np.pi) * t + ph)
        x += np.float32(amp) * trem * np.sin(np.float32(2 * np.pi) * ((f * t) % 1.0) + ph)
    x += 0.003 * rng.standard_normal((nin, c), dtype=np.float32)
    return {"bank": _rs_bank(up, down), "x": x}


def _ref_rs(inp, sz):
    n, up, down, c = sz["N"], sz["L"], sz["M"], sz["C"]
    nin, taps = int(inp["nin"]), int(inp["ntaps"])
    bank = _f64(inp["bank"]).reshape(up, taps)
    x = _f64(inp["x"]).reshape(nin, c)
    pos = np.arange(n, dtype=np.int64) * down
    i0, ph = pos // up, pos % up
    first = i0 - taps // 2 + 1
    y = np.zeros((n, c))
    for k in range(taps):
        j = first + k
        ok = (j >= 0) & (j < nin)
        y += (bank[ph, k] * ok)[:, None] * x[np.clip(j, 0, nin - 1)]
    return {"y": y}


def polyphase_sinc_resample() -> KernelSpec:
    return _spec(
        "polyphase_sinc_resample", tol=SUMS,
        idiom="polyphase L/M resampling, frame per item: n*M div/mod L pick frame, phase; clipped taps, channel sums",
        sizes={"N": pow2(14, 20, 2), "L": [147, 160], "M": [147, 160], "C": [2, 6]},
        check={"N": 4096, "L": 160, "M": 147, "C": 6},
        constraints=["L != M"],
        args=[Arg("nout", "scalar", "int32", "N"), Arg("nin", "scalar", "int32", "N * M // L"),
              Arg("nch", "scalar", "int32", "C"), Arg("up", "scalar", "int32", "L"),
              Arg("down", "scalar", "int32", "M"), Arg("ntaps", "scalar", "int32", str(RS_TAPS)),
              Arg("bank", "buffer", "float32", f"L * {RS_TAPS}"), Arg("x", "buffer", "float32", "N * M // L * C"),
              Arg("y", "buffer", "float32", "N * C", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_rs, make_inputs=_inputs_rs)


# --- MFCCs: a work-group per frame, power spectrum and log-mel frame in __local -------------------------------------
def _mel(hz):
    return 2595.0 * np.log10(1.0 + hz / 700.0)


def _mel_points(nfft, nmel):
    """nmel + 2 fractional bin positions, evenly spaced on the HTK mel scale from 0 Hz to Nyquist."""
    m = np.linspace(0.0, _mel(MEL_SR / 2), nmel + 2)
    hz = 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    return hz * nfft / MEL_SR


def _inputs_mfcc(rng, sz):
    """STFT frames of a harmonic source: a -1/2 slope spectral tilt times a comb of harmonics of a per-frame pitch
    (4 .. 40 bins apart, sharp |cos|^8 teeth over a 0.2 floor), Rayleigh magnitudes and uniform phases by complex
    normal draws; frame levels log-normal over about 40 dB, 5% of the frames digital silence."""
    f, nfft, nmel = sz["F"], sz["K"], sz["B"]
    nb = nfft // 2 + 1
    k = np.arange(nb, dtype=np.float32)[None, :]
    f0 = rng.uniform(4.0, 40.0, (f, 1)).astype(np.float32)
    gain = (10.0 ** rng.uniform(-1.0, 1.0, (f, 1)) * (rng.random((f, 1)) > 0.05)).astype(np.float32)
    amp = gain / np.sqrt(1.0 + k / 8.0) * (0.2 + np.cos(np.float32(np.pi) * k / f0) ** 8)
    spec = rng.standard_normal((f, nb, 2), dtype=np.float32) * (np.float32(np.sqrt(0.5)) * amp)[:, :, None]
    return {"spec": spec, "mel_pts": _mel_points(nfft, nmel)}


def _ref_mfcc(inp, sz):
    f, nfft, nmel = sz["F"], sz["K"], sz["B"]
    nb, ncep, amin = nfft // 2 + 1, int(inp["ncep"]), float(np.float32(inp["amin"]))
    spec = _f64(inp["spec"]).reshape(f, nb, 2)
    pw = spec[:, :, 0] ** 2 + spec[:, :, 1] ** 2
    pts = _f64(inp["mel_pts"])
    k = np.arange(nb, dtype=np.float64)
    w = np.zeros((nmel, nb))
    for m in range(nmel):
        lo, mid, hi = pts[m], pts[m + 1], pts[m + 2]
        inside = (k >= np.floor(lo) + 1) & (k < hi)
        tri = np.where(k <= mid, (k - lo) / (mid - lo), (hi - k) / (hi - mid))
        w[m] = np.where(inside, tri, 0.0) * 2.0 / (hi - lo)
    db = 10.0 * np.log10(np.maximum(pw @ w.T, amin))
    c = np.arange(ncep)[:, None]
    pi32 = float(np.float32(np.pi))
    dct = np.cos(pi32 * c * (np.arange(nmel)[None, :] + 0.5) / nmel) * np.where(c == 0, np.sqrt(1.0 / nmel),
                                                                                 np.sqrt(2.0 / nmel))
    return {"logmel": db, "mfcc": db @ dct.T}


def mfcc_frame_local() -> KernelSpec:
    return _spec(
        "mfcc_frame_local", tol=(1e-3, 2e-3),
        idiom="MFCC, a group per frame (num_groups loop): |X|^2 to __local, triangle mel sums, dB, DCT-II of __local",
        sizes={"F": [128, 512, 2048, 8192], "K": [512, 2048], "B": [40, 128]},
        check={"F": 64, "K": 512, "B": 40},
        args=[Arg("nframes", "scalar", "int32", "F"), Arg("nbins", "scalar", "int32", "K // 2 + 1"),
              Arg("nmel", "scalar", "int32", "B"), Arg("ncep", "scalar", "int32", str(MEL_NCEP)),
              Arg("amin", "scalar", "float32", str(MEL_AMIN)),
              Arg("spec", "buffer", "float32", "F * (K // 2 + 1) * 2"), Arg("mel_pts", "buffer", "float32", "B + 2"),
              Arg("logmel", "buffer", "float32", "F * B", "out"),
              Arg("mfcc", "buffer", "float32", f"F * {MEL_NCEP}", "out"),
              Arg("pw", "local", "float32", "K // 2 + 1"), Arg("lm", "local", "float32", "B")],
        gsize=["min(F, 1024) * 64"], local=L1, reference=_ref_mfcc, make_inputs=_inputs_mfcc)


# --- chromagram from spectral peaks, 2-D (bin, frame), fixed-point atomics ----------------------------------------
def _bin_pc(nfft):
    """Pitch class (0 = C) of each bin's nearest equal-tempered note, -1 outside CH_FLO .. CH_FHI and at the ends."""
    nb = nfft // 2 + 1
    hz = np.arange(nb) * CH_SR / nfft
    ok = (hz >= CH_FLO) & (hz <= CH_FHI)
    ok[0] = ok[-1] = False
    midi = np.rint(12.0 * np.log2(np.where(ok, hz, 440.0) / 440.0)).astype(np.int64) + 69
    return np.where(ok, midi % 12, -1)


def _inputs_chroma(rng, sz):
    """Magnitude spectra of triads: per frame a random major or minor chord, its three notes in two random octaves
    (MIDI 36 .. 90), six harmonics each falling as 1/h from a random level, every partial spread over five bins by
    a Hann main lobe at its fractional bin; over an exponential noise floor (mean 0.004); 3% of the frames are
    floor only."""
    f, nfft = sz["F"], sz["K"]
    nb = nfft // 2 + 1
    mag = (0.004 * rng.standard_exponential((f, nb), dtype=np.float32)).reshape(-1)
    root = rng.integers(0, 12, f)
    third = np.where(rng.random(f) < 0.5, 4, 3)
    notes = np.stack([root, root + third, root + 7], axis=1)[:, :, None] + 12 * rng.integers(3, 7, (f, 3, 2))
    notes = notes.reshape(f, 6)
    h = np.arange(1, 7)
    hz = 440.0 * 2.0 ** ((notes[:, :, None] - 69) / 12.0) * h[None, None, :]
    level = rng.uniform(0.3, 3.0, (f, 6, 1)) / h[None, None, :] * (rng.random((f, 1, 1)) > 0.03)
    pos = (hz * nfft / CH_SR).reshape(f, -1)
    level = level.reshape(f, -1)
    base = np.floor(pos).astype(np.int64)
    rows = np.arange(f)[:, None] * nb
    for off in range(-2, 3):
        b = base + off
        d = b - pos
        w = np.where(np.abs(d) < 2.0, 0.5 + 0.5 * np.cos(np.pi * d / 2.0), 0.0)
        ok = (b >= 0) & (b < nb) & (level > 0)
        np.add.at(mag, (rows + b)[ok], (level * w)[ok].astype(np.float32))
    return {"mag": mag, "bin_pc": _bin_pc(nfft)}


def _ref_chroma(inp, sz):
    f, nfft = sz["F"], sz["K"]
    nb, halfw = nfft // 2 + 1, int(inp["halfw"])
    thresh, scale = np.float32(inp["thresh"]), np.float32(inp["scale"])
    mag = np.asarray(inp["mag"], dtype=np.float32).reshape(f, nb)
    pc = np.asarray(inp["bin_pc"]).astype(np.int64)
    pad = np.pad(mag, ((0, 0), (halfw, halfw)), constant_values=-np.inf)
    peak = (pc >= 0)[None, :] & (mag > thresh)
    for d in range(1, halfw + 1):
        peak &= (pad[:, halfw - d:halfw - d + nb] < mag) & (pad[:, halfw + d:halfw + d + nb] < mag)
    t, k = np.nonzero(peak)
    vote = np.floor((mag[t, k] * scale).astype(np.float32)).astype(np.int64)
    chroma = np.bincount(t * 12 + pc[k], weights=vote, minlength=f * 12)
    return {"chroma": np.rint(chroma).astype(np.int64), "npeaks": np.bincount(t, minlength=f)}


def chroma_peak_fixed_2d() -> KernelSpec:
    return _spec(
        "chroma_peak_fixed_2d",
        idiom="chroma of spectral peaks, 2-D (bin, frame): pitch-class table, strict window max, fixed-point atomics",
        sizes={"F": [64, 256, 1024, 4096, 16384], "K": [1024, 4096, 16384]}, check={"F": 64, "K": 2048},
        constraints=["F * K <= 2**26"],
        args=[Arg("nbins", "scalar", "int32", "K // 2 + 1"), Arg("nframes", "scalar", "int32", "F"),
              Arg("halfw", "scalar", "int32", str(CH_HALFW)), Arg("thresh", "scalar", "float32", str(CH_THRESH)),
              Arg("scale", "scalar", "float32", str(CH_SCALE)),
              Arg("mag", "buffer", "float32", "F * (K // 2 + 1)"), Arg("bin_pc", "buffer", "int32", "K // 2 + 1"),
              Arg("chroma", "buffer", "uint32", "F * 12", "out"), Arg("npeaks", "buffer", "uint32", "F", "out")],
        gsize=[round_up("K // 2 + 1", 32), "F"], local=L2, reference=_ref_chroma, make_inputs=_inputs_chroma)


#: this group's builders, in the order of ``specs()``
BUILDERS = (polyphase_sinc_resample, mfcc_frame_local, chroma_peak_fixed_2d)

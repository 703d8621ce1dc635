"""Holdout9 kernels, group audio, continued (written by hand; see docs/HOLDOUT9.md): a stereo-linked soft-knee
compressor over the tracks of a mixer, a work-item per track walking its frames in time order (16-bit stereo PCM
packed in uint32 words, attack or release smoothing of the gain reduction in dB, branchy gain computer); linear
prediction of speech frames in fp64, a work-item per frame (pre-emphasised, windowed autocorrelation, lag window,
Levinson-Durbin with a silence skip and an early stop); and granular synthesis by overlap-add gathered per output
sample: a binary search of the sorted grain onsets, then every sounding grain read at a 16.16 fixed-point rate,
interpolated, Hann-windowed and panned. None of these three uses atomics or __local memory. Split from
:mod:`.audio` to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import math

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f64, _spec, round_up

DRC_FS = 48000.0  # compressor_softknee_tracks: sample rate (Hz)
DRC_KNEE = 6.0  # compressor_softknee_tracks: knee width (dB)
DRC_ATT = math.exp(-1.0 / (0.003 * DRC_FS))  # compressor_softknee_tracks: 3 ms attack
DRC_REL = math.exp(-1.0 / (0.12 * DRC_FS))  # compressor_softknee_tracks: 120 ms release

LPC_FS = 16000.0  # lpc_levinson_frames_fp64: sample rate (Hz)
LPC_PRE = 0.97  # lpc_levinson_frames_fp64: pre-emphasis
LPC_SILENCE = 1e-6  # lpc_levinson_frames_fp64: least frame energy r[0] analysed
LPC_WNC = 1.0001  # lpc_levinson_frames_fp64: white-noise correction (-40 dB) on r[0]
LPC_BW = 60.0  # lpc_levinson_frames_fp64: lag window bandwidth (Hz)

GR_MAXLEN = 4096  # granular_ola_gather: longest grain (samples)
GR_SRC = 2**20  # granular_ola_gather: source length (samples, 22 s at 48 kHz)


# --- stereo-linked soft-knee compressor, a track per work-item, sequential in time ----------------------------------
def _inputs_drc(rng, sz):
    """Tracks of a mix: each a circularly shifted copy of one of 8 stereo clips at random levels (so large mixes
    are quick to make); a clip is percussive hits (decaying noise and a low tone, 1 .. 6 ms attack, 20 .. 200 ms decay)
    at random times over a quiet pad, so the level crosses the threshold both ways. Thresholds -30 .. -8 dB,
    ratios 2 .. 20, make-up 0 .. 6 dB."""
    t, f = sz["T"], sz["F"]
    n = np.arange(f, dtype=np.float32)
    clips = np.zeros((8, f, 2), dtype=np.float32)
    for c in range(8):
        env = np.zeros(f, dtype=np.float32)
        for s in rng.integers(0, f, max(2, f // 6000)):
            dt = n[s:] - s
            env[s:] += rng.uniform(0.2, 1.0) * (1 - np.exp(-dt / rng.uniform(48, 288))) * np.exp(
                -dt / rng.uniform(960, 9600))
        tone = np.sin(np.float32(2 * np.pi * rng.uniform(0.001, 0.004)) * n)
        noise = rng.standard_normal((f, 2), dtype=np.float32)
        pad = 0.02 * np.sin(np.float32(2 * np.pi * rng.uniform(0.005, 0.02)) * n)
        clips[c] = (env * tone)[:, None] * 0.7 + (env[:, None] * noise) * 0.3 + pad[:, None]
    clips *= rng.uniform(0.3, 1.0, (8, 1, 1)).astype(np.float32)
    pcm = np.clip(np.rint(clips * 32767.0), -32768, 32767).astype(np.int16)
    words = pcm[..., 0].view(np.uint16).astype(np.uint32) | (pcm[..., 1].view(np.uint16).astype(np.uint32) << 16)
    pick, shift = rng.integers(0, 8, t), rng.integers(0, f, t)
    tracks = np.empty((t, f), dtype=np.uint32)
    for j in range(t):
        tracks[j] = np.roll(words[pick[j]], shift[j])
    return {"thr_db": rng.uniform(-30.0, -8.0, t), "ratio": rng.choice([2.0, 3.0, 4.0, 8.0, 20.0], t),
            "makeup_db": rng.uniform(0.0, 6.0, t), "pcm": tracks.T}


def _ref_drc(inp, sz):
    t, f = sz["T"], sz["F"]
    knee, att, rel = (float(np.float32(inp[k])) for k in ("knee_db", "att", "rel"))
    thr, makeup = _f64(inp["thr_db"]), _f64(inp["makeup_db"])
    slope = 1.0 / _f64(inp["ratio"]) - 1.0
    w = np.asarray(inp["pcm"]).reshape(f, t)
    lr = np.stack([(w & 0xFFFF).astype(np.uint16).view(np.int16), (w >> 16).astype(np.uint16).view(np.int16)], -1)
    lr = lr.astype(np.float64) / 32768.0
    level = 20.0 * np.log10(np.maximum(np.abs(lr).max(-1), 1e-6))
    over = level - thr[None, :]
    target = np.where(over <= -0.5 * knee, 0.0,
                      np.where(over < 0.5 * knee, slope * (over + 0.5 * knee) ** 2 / (2.0 * knee), slope * over))
    g, gmin = np.zeros(t), np.zeros(t)
    gs = np.empty((f, t))
    for i in range(f):
        c = np.where(target[i] < g, att, rel)
        g = c * g + (1.0 - c) * target[i]
        gmin = np.minimum(gmin, g)
        gs[i] = g
    gain = 10.0 ** ((gs + makeup[None, :]) / 20.0)
    return {"out": lr * gain[:, :, None], "gr_min": gmin}


def compressor_softknee_tracks() -> KernelSpec:
    return _spec(
        "compressor_softknee_tracks", tol=SUMS,
        idiom="soft-knee stereo-linked compressor, track per item in time: int16 pair from uint, dB gain, att/rel",
        sizes={"T": [64, 256, 1024, 4096], "F": [1024, 4096, 16384]}, check={"T": 64, "F": 2048},
        constraints=["T * F <= 2**22"],
        args=[Arg("ntracks", "scalar", "int32", "T"), Arg("nframes", "scalar", "int32", "F"),
              Arg("knee_db", "scalar", "float32", str(DRC_KNEE)), Arg("att", "scalar", "float32", repr(DRC_ATT)),
              Arg("rel", "scalar", "float32", repr(DRC_REL)),
              Arg("thr_db", "buffer", "float32", "T"), Arg("ratio", "buffer", "float32", "T"),
              Arg("makeup_db", "buffer", "float32", "T"), Arg("pcm", "buffer", "uint32", "T * F"),
              Arg("out", "buffer", "float32", "2 * T * F", "out"), Arg("gr_min", "buffer", "float32", "T", "out")],
        gsize=[round_up("T")], local=L1, reference=_ref_drc, make_inputs=_inputs_drc)


# --- LPC by autocorrelation and Levinson-Durbin in fp64, a frame per work-item ---------------------------------------
def _inputs_lpc(rng, sz):
    """Speech-like audio at 16 kHz in 100 ms segments: voiced (an impulse train at 90 .. 250 Hz plus 5% noise),
    unvoiced (noise) or silent (exact zeros, 10%), each through its own all-pole vocal tract of four formants
    (300 .. 3800 Hz, pole radius 0.90 .. 0.985), scaled to a random level; a Hamming window and a Gaussian lag
    window with the white-noise correction on lag 0. The all-pole filters run in the frequency domain, padded to
    twice the segment (their impulse responses have died out by then)."""
    f, n, p = sz["F"], sz["N"], sz["P"]
    total = (f - 1) * (n // 2) + n
    seg = 1600
    x = np.zeros(total)
    for s0 in range(0, total, seg):
        m = min(seg, total - s0)
        kind = rng.random()
        if kind < 0.1:
            continue
        if kind < 0.65:
            e = np.zeros(m)
            e[rng.integers(0, 40)::int(LPC_FS / rng.uniform(90.0, 250.0))] = 1.0
            e += 0.05 * rng.standard_normal(m)
        else:
            e = rng.standard_normal(m)
        ang = 2 * np.pi * np.sort(rng.uniform(300.0, 3800.0, 4)) / LPC_FS
        poles = rng.uniform(0.90, 0.985, 4) * np.exp(1j * ang)
        a = np.real(np.poly(np.concatenate([poles, poles.conj()])))
        y = np.fft.irfft(np.fft.rfft(e, 2 * m) / np.fft.rfft(a, 2 * m), 2 * m)[:m]
        x[s0:s0 + m] = y * (10.0 ** rng.uniform(-2.5, -0.5) / max(np.abs(y).max(), 1e-12))
    lag = np.arange(p + 1)
    lagw = np.exp(-0.5 * (2 * np.pi * LPC_BW * lag / LPC_FS) ** 2)
    lagw[0] = LPC_WNC
    return {"x": x.astype(np.float32), "win": np.hamming(n), "lagw": lagw}


def _ref_lpc(inp, sz):
    f, n, p = sz["F"], sz["N"], sz["P"]
    hop, pre, silence = int(inp["hop"]), float(inp["preemph"]), float(inp["silence"])
    x = _f64(inp["x"])
    idx = np.arange(f)[:, None] * hop + np.arange(n)[None, :]
    prev = np.where(idx > 0, x[np.maximum(idx - 1, 0)], 0.0)
    s = (x[idx] - pre * prev) * _f64(inp["win"])[None, :]
    lagw = _f64(inp["lagw"])
    r = np.stack([(s[:, l:] * s[:, :n - l]).sum(1) * lagw[l] for l in range(p + 1)], axis=1)
    a = np.zeros((f, p + 1))
    a[:, 0] = 1.0
    k = np.zeros((f, p + 1))
    e = r[:, 0].copy()
    live = e >= silence
    reached = np.zeros(f, dtype=np.int64)
    for i in range(1, p + 1):
        acc = r[:, i] + (a[:, 1:i] * r[:, i - 1:0:-1]).sum(1)
        ki = -acc / np.where(live, e, 1.0)
        live &= np.abs(ki) < 1.0
        ki = np.where(live, ki, 0.0)
        a[:, 1:i] = a[:, 1:i] + ki[:, None] * a[:, i - 1:0:-1]
        a[:, i] = ki
        k[:, i] = ki
        e = np.where(live, e * (1.0 - ki * ki), e)
        reached = np.where(live, i, reached)
    e = np.where(r[:, 0] >= silence, e, 0.0)
    return {"lpc": a[:, 1:], "refl": k[:, 1:], "err": e, "reached": reached}


def lpc_levinson_frames_fp64() -> KernelSpec:
    return _spec(
        "lpc_levinson_frames_fp64", precision="fp64", tol=(1e-7, 1e-9),
        idiom="speech LPC per frame in fp64: pre-emphasised windowed autocorrelation, lag window, Levinson, early stop",
        sizes={"F": [1024, 4096, 16384, 65536], "N": [320, 1024], "P": [10, 24]}, check={"F": 256, "N": 320, "P": 16},
        constraints=["F * N * (P + 1) <= 2**28"],
        args=[Arg("nframes", "scalar", "int32", "F"), Arg("hop", "scalar", "int32", "N // 2"),
              Arg("len", "scalar", "int32", "N"), Arg("order", "scalar", "int32", "P"),
              Arg("preemph", "scalar", "float64", str(LPC_PRE)), Arg("silence", "scalar", "float64", str(LPC_SILENCE)),
              Arg("x", "buffer", "float32", "(F - 1) * (N // 2) + N"), Arg("win", "buffer", "float64", "N"),
              Arg("lagw", "buffer", "float64", "P + 1"),
              Arg("lpc", "buffer", "float64", "F * P", "out"), Arg("refl", "buffer", "float64", "F * P", "out"),
              Arg("err", "buffer", "float64", "F", "out"), Arg("reached", "buffer", "int32", "F", "out")],
        gsize=[round_up("F")], local=L1, reference=_ref_lpc, make_inputs=_inputs_lpc)


# --- granular synthesis, overlap-add gathered per output sample ---------------------------------------------------
def _inputs_gr(rng, sz):
    """A 22 s source of three harmonic voices with vibrato over light noise; a grain cloud of N * D / 2048 grains
    (mean length about 2300 samples, so about D grains sound at once): uniform onsets over the output, lengths
    512 .. 4096, rates 0.5 .. 2 (pitch shifts of +-1 octave) in 16.16, start points anywhere in the source (some
    grains run off its end and fall silent there), amplitudes 0.05 .. 0.3, pans uniform."""
    n, d = sz["N"], sz["D"]
    g = n * d // 2048
    t = np.arange(GR_SRC, dtype=np.float64)
    src = 0.01 * rng.standard_normal(GR_SRC)
    for f0 in rng.uniform(0.004, 0.02, 3):
        ph = 2 * np.pi * np.cumsum(f0 * (1.0 + 0.01 * np.sin(2 * np.pi * t / 9000.0)))
        for h in range(1, 5):
            src += 0.25 / h * np.sin(h * ph)
    rate = rng.uniform(0.5, 2.0, g)
    return {"onset": np.sort(rng.integers(0, n, g)), "glen": rng.integers(512, GR_MAXLEN + 1, g),
            "gstart": rng.integers(0, GR_SRC - 2048, g), "grate": np.rint(rate * 65536.0),
            "gamp": rng.uniform(0.05, 0.3, g), "gpan": rng.random(g), "src": src}


def _ref_gr(inp, sz):
    n = sz["N"]
    onset, glen = np.asarray(inp["onset"]).astype(np.int64), np.asarray(inp["glen"]).astype(np.int64)
    start, rate = np.asarray(inp["gstart"]).astype(np.int64), np.asarray(inp["grate"]).astype(np.int64)
    amp, pan, src = _f64(inp["gamp"]), _f64(inp["gpan"]), _f64(inp["src"])
    out = np.zeros((n, 2))
    for g in range(onset.size):
        u = np.arange(min(glen[g], n - onset[g]))
        phase = u * rate[g]
        i = start[g] + (phase >> 16)
        frac = (phase & 0xFFFF) / 65536.0
        ok = i + 1 < src.size
        i0, i1 = np.clip(i, 0, src.size - 1), np.clip(i + 1, 0, src.size - 1)
        s = np.where(ok, src[i0] + frac * (src[i1] - src[i0]), 0.0)
        v = amp[g] * (0.5 - 0.5 * np.cos(2 * np.pi * u / glen[g])) * s
        th = pan[g] * np.pi / 2
        out[onset[g] + u, 0] += v * np.cos(th)
        out[onset[g] + u, 1] += v * np.sin(th)
    return {"out": out}


def granular_ola_gather() -> KernelSpec:
    return _spec(
        "granular_ola_gather", tol=SUMS,
        idiom="granular overlap-add gathered per sample: bisect sorted onsets, 16.16 uint read offset, lerp, Hann, pan",
        sizes={"N": [2**14, 2**16, 2**18, 2**20], "D": [4, 8, 24]}, check={"N": 16384, "D": 8},
        constraints=["N * D <= 3 * 2**21"],
        args=[Arg("nout", "scalar", "int32", "N"), Arg("ngrains", "scalar", "int32", "N * D // 2048"),
              Arg("maxlen", "scalar", "int32", str(GR_MAXLEN)), Arg("srclen", "scalar", "int32", str(GR_SRC)),
              Arg("onset", "buffer", "int32", "N * D // 2048"), Arg("glen", "buffer", "int32", "N * D // 2048"),
              Arg("gstart", "buffer", "uint32", "N * D // 2048"), Arg("grate", "buffer", "uint32", "N * D // 2048"),
              Arg("gamp", "buffer", "float32", "N * D // 2048"), Arg("gpan", "buffer", "float32", "N * D // 2048"),
              Arg("src", "buffer", "float32", str(GR_SRC)), Arg("out", "buffer", "float32", "2 * N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_gr, make_inputs=_inputs_gr)


#: this group's builders, in the order of ``specs()``
BUILDERS = (compressor_softknee_tracks, lpc_levinson_frames_fp64, granular_ola_gather)

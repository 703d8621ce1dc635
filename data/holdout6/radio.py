"""Holdout6 kernels: software radio, audio and sensor signal processing as application programmers write them: a DTMF
decoder by Goertzel filters per frame, a CIC decimator on packed 16-bit IQ in wrapping uint arithmetic, a max-log
QAM soft demapper behind a zero-forcing equaliser, a QPSK Costas loop per burst in fp64, a Hampel outlier filter on a
2-D (sample, channel) NDRange and a YIN pitch detector with a work-group per frame in __local memory. The one kernel
with atomics (the Hampel filter) only counts outliers per channel with atomic_inc, so no output depends on the
work-items' order."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, pow2, round_up

FS_PHONE = 8000.0  # goertzel_dtmf_frames: telephone audio sample rate
DTMF_HZ = np.array([697.0, 770.0, 852.0, 941.0, 1209.0, 1336.0, 1477.0, 1633.0])  # rows, then columns
CIC_STAGES = 4  # cic_decim_iq_u32: integrator / comb pairs (gain rate^4 <= 2^16 for rate <= 16)
ADC_LSB = 1.0 / 1024  # hampel_sensor_2d: the sensors' quantisation step


# --- DTMF decoder: eight Goertzel filters per frame, row/column decision ---------------------------------------------
def _inputs_dtmf(rng, sz):
    """8 kHz audio in segments of half a frame to four frames: key presses (a row and a column tone up to 1.5% off
    nominal, amplitudes 0.08 .. 0.5 with up to 7 dB twist, line noise) 55%, quiet line 15%, speech-like sums of six
    partials at 100 .. 3000 Hz 30%. Frames overlap by half, so some straddle two segments."""
    f, n = sz["F"], sz["N"]
    total = f * (n // 2) + n
    audio = np.empty(total)
    t0 = 0
    while t0 < total:
        seg = int(rng.integers(n // 2, 4 * n))
        t = np.arange(seg) / FS_PHONE
        kind = rng.random()
        if kind < 0.55:
            hz = DTMF_HZ[[rng.integers(0, 4), rng.integers(4, 8)]] * (1.0 + rng.uniform(-0.015, 0.015, 2))
            amp = rng.uniform(0.08, 0.5) * np.array([1.0, 10 ** (rng.uniform(-7, 7) / 20)])
            sig = (amp[:, None] * np.sin(2 * np.pi * hz[:, None] * t + rng.uniform(0, 2 * np.pi, (2, 1)))).sum(0)
            sig += rng.normal(0.0, 0.01, seg)
        elif kind < 0.7:
            sig = rng.normal(0.0, 0.003, seg)
        else:
            hz, amp = rng.uniform(100.0, 3000.0, 6), rng.uniform(0.02, 0.3, 6)
            sig = (amp[:, None] * np.sin(2 * np.pi * hz[:, None] * t + rng.uniform(0, 2 * np.pi, (6, 1)))).sum(0)
        audio[t0:t0 + seg] = sig[:total - t0]
        t0 += seg
    return {"audio": audio, "coeff": 2.0 * np.cos(2 * np.pi * DTMF_HZ / FS_PHONE)}


def _ref_dtmf(inp, sz):
    f, n, hop = sz["F"], sz["N"], int(inp["hop"])
    frames = np.lib.stride_tricks.sliding_window_view(_f64(inp["audio"]), n)[::hop][:f]
    w = np.arccos(_f64(inp["coeff"]) / 2.0)  # the kernel's tones: its float32 coefficients' frequencies
    p = np.abs(frames @ np.exp(-1j * np.outer(np.arange(n), w))) ** 2 * 4.0 / n**2  # |DFT at w|^2 = Goertzel's
    rows, cols = p[:, :4], p[:, 4:]
    row, col = rows.argmax(axis=1), cols.argmax(axis=1)
    pr, pc = rows.max(axis=1), cols.max(axis=1)
    second = lambda g, k: np.where(np.arange(4) == k[:, None], -np.inf, g).max(axis=1)  # noqa: E731
    min_p, twist_max, dom = float(inp["min_power"]), float(inp["max_twist"]), float(inp["dominance"])
    with np.errstate(divide="ignore", invalid="ignore"):
        twist = pc / pr
    ok = (pr >= min_p) & (pc >= min_p) & (twist <= twist_max) & (twist * twist_max >= 1.0)
    ok &= (second(rows, row) * dom <= pr) & (second(cols, col) * dom <= pc)
    ok &= pr + pc >= 0.6 * 2.0 * (frames**2).sum(axis=1) / n
    return {"power": p, "key": np.where(ok, 4 * row + col, -1)}


def goertzel_dtmf_frames() -> KernelSpec:
    return _spec(
        "goertzel_dtmf_frames", tol=SUMS,
        idiom="DTMF decoder, a frame per item: 8 Goertzel recurrences in private arrays, row/column, twist, dominance",
        sizes={"F": pow2(8, 18, 2), "N": [205, 410]}, check={"F": 700, "N": 205},
        constraints=["F * N <= 2**27"],
        args=[Arg("nframes", "scalar", "int32", "F"), Arg("frame_len", "scalar", "int32", "N"),
              Arg("hop", "scalar", "int32", "N // 2"), Arg("min_power", "scalar", "float32", "0.01"),
              Arg("max_twist", "scalar", "float32", "4.0"), Arg("dominance", "scalar", "float32", "4.0"),
              Arg("audio", "buffer", "float32", "F * (N // 2) + N"), Arg("coeff", "buffer", "float32", "8"),
              Arg("power", "buffer", "float32", "8 * F", "out"), Arg("key", "buffer", "int32", "F", "out")],
        gsize=[round_up("F")], local=L1, reference=_ref_dtmf, make_inputs=_inputs_dtmf)


# --- CIC decimator per channel: packed int16 IQ in uint, wrapping integrators, combs after decimation ----------------
def _inputs_cic(rng, sz):
    """Per channel: a carrier at a random offset of up to 0.05 rad/sample, amplitude 500 .. 30000 (a tenth of the
    channels overdriven and clipped at the int16 limits), plus a few LSB of noise; I and Q packed in a uint."""
    c, n = sz["C"], sz["n"]
    phase = (rng.uniform(-0.05, 0.05, (c, 1)) * np.arange(n) + rng.uniform(0, 2 * np.pi, (c, 1))).astype(np.float32)
    amp = (rng.uniform(500.0, 30000.0, (c, 1)) * np.where(rng.random((c, 1)) < 0.1, 1.6, 1.0)).astype(np.float32)
    iq = np.zeros((c, n), dtype=np.uint32)
    for k, wave in enumerate((np.cos, np.sin)):
        v = amp * wave(phase) + rng.integers(-6, 7, (c, n), dtype=np.int16)
        iq |= (np.clip(np.rint(v), -32768, 32767).astype(np.int32).astype(np.uint32) & 0xFFFF) << (16 * k)
    return {"iq": iq}


def _ref_cic(inp, sz):
    c, n, rate = sz["C"], sz["n"], 2 ** sz["B"]
    stages, shift = int(inp["nstages"]), int(inp["shift"])
    words = inp["iq"].astype(np.int64).reshape(c, n)
    nout = n // rate
    out = {}
    for name, half in (("out_i", words & 0xFFFF), ("out_q", words >> 16)):
        v = (half.astype(np.uint16).view(np.int16).astype(np.int64)[:, :nout * rate]).astype(np.uint64)
        for _ in range(stages):
            v = np.cumsum(v, axis=1, dtype=np.uint64)  # wraps modulo 2^64: exact once the combs are through
        v = v[:, rate - 1::rate]
        for _ in range(stages):
            v = np.diff(v, axis=1, prepend=np.zeros((c, 1), dtype=np.uint64))
        out[name] = v.astype(np.int64) >> shift
    return out


def cic_decim_iq_u32() -> KernelSpec:
    return _spec(
        "cic_decim_iq_u32",
        idiom="CIC decimator per channel: int16 I/Q unpacked from a uint, wrapping uint integrators, combs, shift",
        sizes={"C": pow2(6, 14, 2), "n": [4096, 65536], "B": [2, 4]}, check={"C": 40, "n": 3000, "B": 4},
        constraints=["C * n <= 2**26"],
        args=[Arg("nchan", "scalar", "int32", "C"), Arg("nin", "scalar", "int32", "n"),
              Arg("rate", "scalar", "int32", "2**B"), Arg("nstages", "scalar", "int32", str(CIC_STAGES)),
              Arg("shift", "scalar", "int32", f"{CIC_STAGES} * B"), Arg("iq", "buffer", "uint32", "C * n"),
              Arg("out_i", "buffer", "int32", "C * (n // 2**B)", "out"),
              Arg("out_q", "buffer", "int32", "C * (n // 2**B)", "out")],
        gsize=[round_up("C")], local=L1, reference=_ref_cic, make_inputs=_inputs_cic)


# --- max-log QAM soft demapper after zero-forcing equalisation --------------------------------------------------------
def _constellation(bits: int) -> np.ndarray:
    """Square Gray-labelled QAM with 2^bits points of unit mean energy, indexed by label: (2^bits, 2) re, im. The
    label's high half picks the I level, its low half the Q level, each Gray-coded."""
    k = bits // 2
    m = 2**k
    levels = np.empty(m, dtype=np.int64)
    levels[np.arange(m) ^ (np.arange(m) >> 1)] = np.arange(m)  # Gray code -> level index
    label = np.arange(2**bits)
    pts = np.stack([2 * levels[label >> k] - (m - 1), 2 * levels[label & (m - 1)] - (m - 1)], axis=1)
    return pts / np.sqrt(2.0 * (2**bits - 1) / 3.0)


def _inputs_qam(rng, sz):
    """Random labels through a Rayleigh channel (one complex gain per subcarrier, CN(0, 1), 3% in deep fades
    beyond it) plus noise of the kernel's variance."""
    n, bits = sz["n"], sz["B"]
    const = _constellation(bits)
    x = const[rng.integers(0, 2**bits, n)] @ np.array([1.0, 1j])
    h = (rng.normal(size=n) + 1j * rng.normal(size=n)) / np.sqrt(2.0)
    h *= np.where(rng.random(n) < 0.03, 0.05, 1.0)
    noise_var = 0.02
    y = h * x + np.sqrt(noise_var / 2) * (rng.normal(size=n) + 1j * rng.normal(size=n))
    return {"rx": np.stack([y.real, y.imag], axis=1), "chan": np.stack([h.real, h.imag], axis=1), "constel": const}


def _ref_qam(inp, sz):
    n, bits = sz["n"], sz["B"]
    y, h = _f64(inp["rx"]).reshape(n, 2) @ np.array([1.0, 1j]), _f64(inp["chan"]).reshape(n, 2) @ np.array([1.0, 1j])
    g = np.abs(h) ** 2
    erased = g < float(inp["fade_floor"])
    z = y * np.conj(h) / np.where(erased, 1.0, g)
    pts = _f64(inp["constel"]).reshape(-1, 2) @ np.array([1.0, 1j])
    d = np.abs(z[:, None] - pts[None, :]) ** 2  # (n, points)
    label = np.arange(pts.size)
    llr = np.stack([d[:, (label >> b) & 1 == 1].min(axis=1) - d[:, (label >> b) & 1 == 0].min(axis=1)
                    for b in range(bits)], axis=1) * (g / float(inp["noise_var"]))[:, None]
    return {"llr": np.where(erased[:, None], 0.0, llr)}


def qam_maxlog_llr() -> KernelSpec:
    return _spec(
        "qam_maxlog_llr", tol=(1e-3, 1e-2),
        idiom="max-log QAM soft demapper: ZF-equalise by h, distances to __constant points, per-bit minima, erasures",
        sizes={"n": pow2(10, 22, 2), "B": [2, 6, 8]}, check={"n": 3000, "B": 6},
        constraints=["n * 2**B <= 2**24"],
        args=[Arg("nsym", "scalar", "int32", "n"), Arg("npoints", "scalar", "int32", "2**B"),
              Arg("bits_per_sym", "scalar", "int32", "B"), Arg("noise_var", "scalar", "float32", "0.02"),
              Arg("fade_floor", "scalar", "float32", "0.01"), Arg("rx", "buffer", "float32", "2 * n"),
              Arg("chan", "buffer", "float32", "2 * n"), Arg("constel", "buffer", "float32", "2 * 2**B"),
              Arg("llr", "buffer", "float32", "n * B", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_qam, make_inputs=_inputs_qam)


# --- QPSK Costas loop per burst, fp64 -----------------------------------------------------------------------------------
def _inputs_costas(rng, sz):
    """QPSK bursts of unit energy with a carrier offset up to 0.004 rad/sample, a random start phase and an SNR
    of 6 .. 20 dB; a tenth of the channels carry noise only. Interleaved sample by sample across bursts."""
    s, length = sz["S"], sz["L"]
    bits = rng.integers(0, 2, (2, length, s)) * 2 - 1
    sym = (bits[0] + 1j * bits[1]) / np.sqrt(2.0)
    freq, phase0 = rng.uniform(-0.004, 0.004, s), rng.uniform(-np.pi, np.pi, s)
    snr = 10 ** (rng.uniform(6.0, 20.0, s) / 10)
    gain = np.where(rng.random(s) < 0.1, 0.0, 1.0)
    t = np.arange(length)[:, None]
    rx = gain * sym * np.exp(1j * (freq * t + phase0))
    rx += np.sqrt(0.5 / snr) * (rng.normal(size=(length, s)) + 1j * rng.normal(size=(length, s)))
    return {"rx": np.stack([rx.real, rx.imag], axis=2)}


def _ref_costas(inp, sz):
    s, length = sz["S"], sz["L"]
    rx = _f64(inp["rx"]).reshape(length, s, 2)
    alpha, beta, tol = float(inp["alpha"]), float(inp["beta"]), float(inp["lock_tol"])
    phase, freq, nlock = np.zeros(s), np.zeros(s), np.zeros(s, dtype=np.int64)
    out = np.empty_like(rx)
    for t in range(length):
        re, im = rx[t, :, 0], rx[t, :, 1]
        c, sn = np.cos(phase), np.sin(phase)
        zi, zq = re * c + im * sn, im * c - re * sn
        out[t, :, 0], out[t, :, 1] = zi, zq
        err = np.where(zi >= 0.0, zq, -zq) - np.where(zq >= 0.0, zi, -zi)
        if 2 * t >= length:
            nlock += np.abs(err) < tol
        freq = freq + beta * err
        phase = phase + (freq + alpha * err)
        phase = np.where(phase > np.pi, phase - 2.0 * np.pi, np.where(phase <= -np.pi, phase + 2.0 * np.pi, phase))
    return {"sym": out, "freq_out": freq, "phase_out": phase, "locked": nlock}


def costas_qpsk_fp64() -> KernelSpec:
    return _spec(
        "costas_qpsk_fp64", precision="fp64", tol=FP64,
        idiom="QPSK Costas loop per burst in fp64: sincos NCO derotation, sign-decision error, PI filter, lock count",
        sizes={"S": pow2(5, 13, 2), "L": [512, 4096, 32768]}, check={"S": 40, "L": 1500},
        constraints=["S * L <= 2**22"],
        args=[Arg("nburst", "scalar", "int32", "S"), Arg("burst_len", "scalar", "int32", "L"),
              Arg("alpha", "scalar", "float64", "0.02"), Arg("beta", "scalar", "float64", "0.0002"),
              Arg("lock_tol", "scalar", "float64", "0.1"), Arg("rx", "buffer", "float64", "2 * S * L"),
              Arg("sym", "buffer", "float64", "2 * S * L", "out"), Arg("freq_out", "buffer", "float64", "S", "out"),
              Arg("phase_out", "buffer", "float64", "S", "out"), Arg("locked", "buffer", "int32", "S", "out")],
        gsize=[round_up("S")], local=L1, reference=_ref_costas, make_inputs=_inputs_costas)


# --- Hampel outlier filter, 2-D (sample, channel) ---------------------------------------------------------------------
def _inputs_hampel(rng, sz):
    """Quantised sensor channels (steps of 1/1024, within +-16): vibration (sinusoids), drifting temperature
    (random walk, often flat within an LSB, where the MAD is 0) and steps (a switched load), each with 0.5 .. 3%
    spikes and now and then a short dropout to the negative rail."""
    n, c = sz["n"], sz["C"]
    t = np.arange(n)
    kind = rng.integers(0, 3, c)
    vib = (rng.uniform(0.5, 4.0, (c, 1)) * np.sin(rng.uniform(0.001, 0.3, (c, 1)) * t + rng.uniform(0, 6, (c, 1)))
           + rng.normal(0.0, 0.02, (c, n)))
    drift = np.cumsum(rng.normal(0.0, 0.0004, (c, n)), axis=1) + rng.uniform(-2, 2, (c, 1))
    steps = np.cumsum(np.where(rng.random((c, n)) < 0.002, rng.uniform(-3, 3, (c, n)), 0.0), axis=1)
    sig = np.where(kind[:, None] == 0, vib, np.where(kind[:, None] == 1, drift, steps + rng.normal(0, 0.01, (c, n))))
    spikes = rng.random((c, n)) < rng.uniform(0.005, 0.03, (c, 1))
    sig = np.where(spikes, sig + rng.choice([-1.0, 1.0], (c, n)) * rng.uniform(0.5, 8.0, (c, n)), sig)
    dropout = np.repeat(rng.random((c, n // 64 + 1)) < 0.01, 64, axis=1)[:, :n] & (t % 64 < 3)
    sig = np.where(dropout, -16.0, sig)
    return {"x": np.clip(np.rint(sig / ADC_LSB), -16384, 16383) * ADC_LSB}


def _ref_hampel(inp, sz):
    n, c, half, nsigma = sz["n"], sz["C"], int(inp["radius"]), float(inp["nsigma"])
    x = _f64(inp["x"]).reshape(c, n)
    win = np.lib.stride_tricks.sliding_window_view(x, 2 * half + 1, axis=1)  # (c, n - 2 half, w)
    med = np.median(win, axis=2)
    mad = np.median(np.abs(win - med[..., None]), axis=2)
    mid = x[:, half:n - half]
    out = np.abs(mid - med) > nsigma * 1.4826 * mad
    y = x.copy()
    y[:, half:n - half] = np.where(out, med, mid)
    return {"y": y, "outliers": out.sum(axis=1)}


def hampel_sensor_2d() -> KernelSpec:
    return _spec(
        "hampel_sensor_2d",
        idiom="Hampel filter, 2-D (sample, channel): window median and MAD by private insertion sorts, atomic_inc",
        sizes={"n": pow2(9, 19, 2), "C": [16, 64]}, check={"n": 1500, "C": 16},
        constraints=["n * C <= 2**21"],
        args=[Arg("nsamp", "scalar", "int32", "n"), Arg("nchan", "scalar", "int32", "C"),
              Arg("radius", "scalar", "int32", "7"), Arg("nsigma", "scalar", "float32", "3.0"),
              Arg("x", "buffer", "float32", "n * C"), Arg("y", "buffer", "float32", "n * C", "out"),
              Arg("outliers", "buffer", "int32", "C", "out")],
        gsize=[round_up("n"), "C"], local=[[256, 1], [64, 4], [16, 16]], reference=_ref_hampel,
        make_inputs=_inputs_hampel)


# --- YIN pitch detector, a work-group per frame ----------------------------------------------------------------------
def _inputs_yin(rng, sz):
    """16 kHz speech-like audio in segments of one to four windows: voiced (a harmonic tone of integer period
    minlag + 4 .. maxlag / 2, one to six harmonics with amplitudes ~1/k, a little breath noise) 60%, unvoiced
    (white noise) 25%, silence 15%. Frames straddling two segments dip less or not at all."""
    f, w = sz["F"], sz["W"]
    total = f * (w // 2) + 2 * w
    audio = np.empty(total)
    t0 = 0
    while t0 < total:
        seg = int(rng.integers(w, 4 * w))
        t = np.arange(seg)
        kind = rng.random()
        if kind < 0.6:
            period = int(rng.integers(w // 8 + 4, w // 2 + 1))
            k = np.arange(1, int(rng.integers(1, 7)) + 1)[:, None]
            amp = rng.uniform(0.3, 1.0, k.shape) / k
            sig = (amp * np.sin(2 * np.pi * k * t / period + rng.uniform(0, 2 * np.pi, k.shape))).sum(0)
            sig += rng.normal(0.0, 0.01, seg)
        elif kind < 0.85:
            sig = rng.normal(0.0, 0.2, seg)
        else:
            sig = rng.normal(0.0, 0.001, seg)
        audio[t0:t0 + seg] = sig[:total - t0]
        t0 += seg
    return {"audio": audio}


def _ref_yin(inp, sz):
    f = sz["F"]
    hop, win, minlag, maxlag = (int(inp[k]) for k in ("hop", "win", "minlag", "maxlag"))
    thresh = float(inp["thresh"])
    x = _f64(inp["audio"])
    frames = x[np.arange(f)[:, None] * hop + np.arange(win + maxlag)]
    d = np.stack([((frames[:, :win] - frames[:, tau:tau + win]) ** 2).sum(axis=1) for tau in range(maxlag + 1)], 1)
    running = np.cumsum(d[:, 1:], axis=1)
    cm = np.ones_like(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        cm[:, 1:] = np.where(running > 0, d[:, 1:] * np.arange(1, maxlag + 1) / running, 1.0)
    period = np.zeros(f)
    for i in range(f):
        below = np.flatnonzero(cm[i, minlag:maxlag] < thresh)
        if below.size == 0:
            continue
        tau = minlag + int(below[0])
        while tau + 1 < maxlag and cm[i, tau + 1] < cm[i, tau]:
            tau += 1
        a, m, c = cm[i, tau - 1], cm[i, tau], cm[i, tau + 1]
        den = a - 2.0 * m + c
        period[i] = tau + (0.5 * (a - c) / den if den > 0 else 0.0)
    return {"cmnd": cm, "period": period}


def yin_pitch_local() -> KernelSpec:
    return _spec(
        "yin_pitch_local", tol=SUMS,
        idiom="YIN pitch, a work-group per frame: frame in __local, lag sums per item, serial CMND and dip search",
        sizes={"F": pow2(6, 13), "W": [256, 512]}, check={"F": 160, "W": 256},
        constraints=["F * W * W <= 2**29"],
        args=[Arg("nframes", "scalar", "int32", "F"), Arg("hop", "scalar", "int32", "W // 2"),
              Arg("win", "scalar", "int32", "W"), Arg("minlag", "scalar", "int32", "W // 8"),
              Arg("maxlag", "scalar", "int32", "W"), Arg("thresh", "scalar", "float32", "0.15"),
              Arg("audio", "buffer", "float32", "F * (W // 2) + 2 * W"),
              Arg("cmnd", "buffer", "float32", "F * (W + 1)", "out"), Arg("period", "buffer", "float32", "F", "out"),
              Arg("frame", "local", "float32", "2 * W"), Arg("diff", "local", "float32", "W + 1")],
        gsize=["64 * min(F, 4096)"], local=L1, reference=_ref_yin, make_inputs=_inputs_yin)


#: this group's builders, in the order of ``specs()``
BUILDERS = (goertzel_dtmf_frames, cic_decim_iq_u32, qam_maxlog_llr, costas_qpsk_fp64, hampel_sensor_2d,
            yin_pitch_local)

"""Holdout14 kernels, group comms (written by hand; see docs/HOLDOUT14.md): two steps of an OFDM receiver's
physical layer. Pilot-based channel estimation and equalisation of a slot grid on a 2-D (subcarrier, OFDM symbol)
NDRange in float32, every resource element forming least-squares estimates at the staggered-comb reference
symbols around it, interpolating them linearly in frequency (end pilots held) and in time between the bracketing
pilot symbols (the last one held), and equalising its sample by the MMSE one-tap filter; and linear MMSE detection
of four spatial layers in fp64, a work-item per subcarrier forming H^H H + noise I, factoring it by Cholesky in
private memory, solving for the layers of every OFDM symbol by forward and back substitution and writing the
layers' post-detection SINR from the inverse factor's column norms. Neither uses atomics or __local memory; the
group's other two kernels are in :mod:`.comms_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f32, _f64, _spec, round_up

PSTEP = 4  # dmrs_ls_interp_mmse_eq_2d: OFDM symbols between pilot symbols
PCOMB = 6  # dmrs_ls_interp_mmse_eq_2d: subcarriers between pilots of one pilot symbol (stagger pcomb / 2)
NOISE_EQ = 0.05  # dmrs_ls_interp_mmse_eq_2d: noise variance of the MMSE one-tap equaliser

NL = 4  # mimo4_mmse_chol_sinr_fp64: spatial layers
NRX = 4  # mimo4_mmse_chol_sinr_fp64: receive antennas
NOISE_MIMO = 0.1  # mimo4_mmse_chol_sinr_fp64: noise variance


# --- pilot LS channel estimation, frequency / time interpolation and MMSE one-tap equalisation -----------------
def _inputs_chest(rng, sz):
    """A slot grid of 12 P subcarriers x T symbols: a 4-path channel (delays up to 1/16 of a 4096-point symbol,
    Doppler up to 0.01 cycles a symbol) times unit QPSK symbols plus noise; the pilots are QPSK too."""
    nsc, nsym = 12 * sz["P"], sz["T"]
    k, t = np.arange(nsc), np.arange(nsym)
    hgrid = np.zeros((nsym, nsc), dtype=np.complex64)
    for _ in range(4):
        g = (rng.normal() + 1j * rng.normal()) * 0.5
        fk = np.exp(-2j * np.pi * k * rng.uniform(0, 256) / 4096).astype(np.complex64)
        ft = np.exp(2j * np.pi * t * rng.uniform(-0.01, 0.01)).astype(np.complex64)
        hgrid += np.complex64(g) * np.outer(ft, fk)
    qpsk = np.array([1 + 1j, 1 - 1j, -1 + 1j, -1 - 1j], dtype=np.complex64) / np.float32(np.sqrt(2))
    x = qpsk[rng.integers(0, 4, (nsym, nsc))]
    npsym, npil = (nsym - 1) // PSTEP + 1, nsc // PCOMB
    pil = qpsk[rng.integers(0, 4, (npsym, npil))]
    for m in range(npsym):
        x[m * PSTEP, (m & 1) * (PCOMB // 2)::PCOMB] = pil[m]
    noise = (rng.standard_normal((nsym, nsc), dtype=np.float32)
             + 1j * rng.standard_normal((nsym, nsc), dtype=np.float32)) * np.float32(0.1)
    rx = hgrid * x + noise
    return {"rx": rx.view(np.float32).reshape(-1), "pilot": pil.view(np.float32).reshape(-1)}


def _ref_chest(inp, sz):
    nsc, nsym = int(inp["nsc"]), int(inp["nsym"])
    pstep, pcomb, nv = int(inp["pstep"]), int(inp["pcomb"]), float(inp["noise_var"])
    rx = _f64(inp["rx"])[:2 * nsc * nsym].reshape(nsym, nsc, 2)
    rx = rx[..., 0] + 1j * rx[..., 1]
    npil, npsym = nsc // pcomb, (nsym - 1) // pstep + 1
    pil = _f64(inp["pilot"])[:2 * npil * npsym].reshape(npsym, npil, 2)
    pil = pil[..., 0] + 1j * pil[..., 1]
    k = np.arange(nsc)
    hf = np.zeros((npsym, nsc), dtype=np.complex128)
    for m in range(npsym):
        off = (m & 1) * (pcomb // 2)
        ls = rx[m * pstep, off + pcomb * np.arange(npil)] * np.conj(pil[m]) / np.abs(pil[m]) ** 2
        p = np.clip((k - off) // pcomb, 0, npil - 2)
        w = np.clip((k - off - p * pcomb) / pcomb, 0.0, 1.0)
        w = np.where(k <= off, 0.0, w)
        hf[m] = ls[p] + w * (ls[p + 1] - ls[p])
    lsym = np.arange(nsym)
    m0 = lsym // pstep
    dl = lsym - m0 * pstep
    m1 = np.minimum(m0 + 1, npsym - 1)
    t = np.where((dl > 0) & (m0 + 1 < npsym), dl / pstep, 0.0)[:, None]
    h = hf[m0] + t * (hf[m1] - hf[m0])
    xe = rx * np.conj(h) / (np.abs(h) ** 2 + nv)
    return {"hest": np.stack([h.real, h.imag], -1).reshape(-1), "xeq": np.stack([xe.real, xe.imag], -1).reshape(-1)}


def dmrs_ls_interp_mmse_eq_2d() -> KernelSpec:
    return _spec(
        "dmrs_ls_interp_mmse_eq_2d", tol=SUMS,
        idiom="OFDM pilot channel estimation, 2-D (subcarrier, symbol): LS y conj(x) / |x|^2 at staggered-comb "
              "pilots, edge-held linear interpolation in frequency then time, MMSE one-tap equaliser",
        sizes={"P": [25, 100, 275, 1100], "T": [14, 56, 224, 896]}, check={"P": 9, "T": 19},
        args=[Arg("nsc", "scalar", "int32", "12 * P"), Arg("nsym", "scalar", "int32", "T"),
              Arg("pstep", "scalar", "int32", str(PSTEP)), Arg("pcomb", "scalar", "int32", str(PCOMB)),
              Arg("noise_var", "scalar", "float32", str(NOISE_EQ)),
              Arg("rx", "buffer", "float32", "2 * 12 * P * T"),
              Arg("pilot", "buffer", "float32", f"2 * 12 * P // {PCOMB} * ((T - 1) // {PSTEP} + 1)"),
              Arg("hest", "buffer", "float32", "2 * 12 * P * T", "out"),
              Arg("xeq", "buffer", "float32", "2 * 12 * P * T", "out")],
        gsize=[round_up("12 * P", 32), round_up("T", 16)], local=L2, reference=_ref_chest,
        make_inputs=_inputs_chest)


# --- 4-layer MIMO MMSE detection per subcarrier, Cholesky, fp64 -------------------------------------------------
def _inputs_mimo(rng, sz):
    """Rayleigh NRX x 4 channels (unit-variance complex entries) per subcarrier; y = H s + n for unit-power QPSK
    layers s and noise of variance NOISE_MIMO."""
    n, t = sz["N"], sz["T"]
    hc = (rng.standard_normal((n, NRX, NL)) + 1j * rng.standard_normal((n, NRX, NL))) / np.sqrt(2)
    s = (rng.choice([-1.0, 1.0], (t, n, NL)) + 1j * rng.choice([-1.0, 1.0], (t, n, NL))) / np.sqrt(2)
    y = np.einsum("nrl,tnl->tnr", hc, s)
    y += (rng.standard_normal(y.shape) + 1j * rng.standard_normal(y.shape)) * np.sqrt(NOISE_MIMO / 2)
    return {"h": hc.view(np.float64).reshape(-1), "y": y.view(np.float64).reshape(-1)}


def _ref_mimo(inp, sz):
    n, t, nrx, nv = int(inp["nsc"]), int(inp["nsym"]), int(inp["nrx"]), float(inp["noise_var"])
    hc = _f64(inp["h"])[:2 * n * nrx * NL].reshape(n, nrx, NL, 2)
    hc = hc[..., 0] + 1j * hc[..., 1]
    y = _f64(inp["y"])[:2 * t * n * nrx].reshape(t, n, nrx, 2)
    y = y[..., 0] + 1j * y[..., 1]
    g = np.einsum("nri,nrj->nij", hc.conj(), hc) + nv * np.eye(NL)
    z = np.einsum("nri,tnr->nit", hc.conj(), y)
    x = np.linalg.solve(g, z).transpose(2, 0, 1)
    ginv = np.real(np.diagonal(np.linalg.inv(g), axis1=1, axis2=2))
    return {"x": np.stack([x.real, x.imag], -1).reshape(-1), "sinr": (1.0 / (nv * ginv) - 1.0).reshape(-1)}


def mimo4_mmse_chol_sinr_fp64() -> KernelSpec:
    return _spec(
        "mimo4_mmse_chol_sinr_fp64", tol=FP64, precision="fp64",
        idiom="4-layer MIMO MMSE detection in fp64, an item per subcarrier: complex Gram + noise, private 4x4 "
              "Cholesky, per-symbol H^H y forward / back substitution, SINR from L^-1 column norms",
        sizes={"N": [512, 2048, 8192, 32768, 131072], "T": [1, 14]}, check={"N": 150, "T": 3},
        args=[Arg("nsc", "scalar", "int32", "N"), Arg("nsym", "scalar", "int32", "T"),
              Arg("nrx", "scalar", "int32", str(NRX)), Arg("noise_var", "scalar", "float64", str(NOISE_MIMO)),
              Arg("h", "buffer", "float64", f"2 * N * {NRX * NL}"),
              Arg("y", "buffer", "float64", f"2 * T * N * {NRX}"),
              Arg("x", "buffer", "float64", f"2 * T * N * {NL}", "out"),
              Arg("sinr", "buffer", "float64", f"N * {NL}", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_mimo, make_inputs=_inputs_mimo)


#: this group's builders, in the order of ``specs()``
BUILDERS = (dmrs_ls_interp_mmse_eq_2d, mimo4_mmse_chol_sinr_fp64)

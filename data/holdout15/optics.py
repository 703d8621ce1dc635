"""Holdout15 kernels, group optics (written by hand; see docs/HOLDOUT15.md): thin-film and diffraction optics. The
s- and p-reflectance of an interference multilayer on a 2-D (angle of incidence, wavelength) NDRange in fp64,
every work-item multiplying the layers' 2x2 complex characteristic matrices (Abeles' method: tilted indices by a
principal complex square root, complex cos / sin of the phase thickness through sincos, cosh and sinh) over a
runtime layer count and forming R from the substrate admittance; and the angular-spectrum propagation of a stack
of float2 spectra in place on a 2-D (fx, fy) NDRange, every work-item looping over the planes' wavelengths,
zeroing frequencies past Matsushima's band limit, damping evanescent ones and multiplying propagating ones by a
carrier-free phase factor. Neither uses atomics or __local memory; the group's other two kernels are in
:mod:`.optics_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L2, SUMS, _f64, _spec, round_up

N_INC = 1.0  # tmm_multilayer_rsp_2d_fp64: incidence medium (air)

DX_UM = 0.25  # asm_bandlimit_prop_planes_2d: sample pitch (um)
Z_UM = 20.0  # asm_bandlimit_prop_planes_2d: propagation distance (um)


# --- thin-film multilayer reflectance, characteristic matrices, fp64 --------------------------------------------
def _inputs_tmm(rng, sz):
    """A quarter-wave-ish high / low stack (dispersive TiO2-like and SiO2-like layers, weak absorption, thickness
    jittered 20 %) around 600 nm, with one thin absorbing metal-like layer in every tenth position, on glass;
    angles 0 .. 80 degrees and wavelengths 380 .. 1000 nm, both evenly spaced."""
    na, nw, nl = sz["A"], sz["W"], sz["L"]
    lam = np.linspace(380.0, 1000.0, nw)
    hi = 2.25 + 0.12 * (450.0 / lam) ** 2
    lo = 1.45 + 0.004 * (450.0 / lam) ** 2
    nk = np.zeros((nw, nl, 2))
    thick = np.zeros(nl)
    for j in range(nl):
        if j % 10 == 9:
            nk[:, j, 0], nk[:, j, 1] = 0.2 + 0.1 * lam / 1000.0, 3.0 + 3.0 * lam / 1000.0
            thick[j] = rng.uniform(1.0, 4.0)
        else:
            base = hi if j % 2 == 0 else lo
            nk[:, j, 0] = base
            nk[:, j, 1] = rng.uniform(1e-5, 2e-3)
            thick[j] = 600.0 / (4.0 * base[nw // 2]) * rng.uniform(0.8, 1.2)
    nsub = np.stack([1.52 + 0.0 * lam, np.full(nw, 1e-6)], -1)
    return {"theta": np.deg2rad(np.linspace(0.0, 80.0, na)), "lambda_nm": lam, "nk": nk.reshape(-1),
            "thick": thick, "nsub": nsub.reshape(-1)}


def _ref_tmm(inp, sz):
    na, nw, nl, n0 = int(inp["nang"]), int(inp["nwl"]), int(inp["nlayer"]), float(inp["n_inc"])
    th = _f64(inp["theta"])[:na][None, :]
    lam = _f64(inp["lambda_nm"])[:nw][:, None]
    nk = _f64(inp["nk"])[:2 * nw * nl].reshape(nw, nl, 2)
    nn = nk[..., 0] - 1j * nk[..., 1]
    d = _f64(inp["thick"])[:nl]
    ns = _f64(inp["nsub"])[:2 * nw].reshape(nw, 2)
    ns = (ns[:, 0] - 1j * ns[:, 1])[:, None]
    beta2 = (n0 * np.sin(th)) ** 2
    k0 = 2.0 * np.pi / lam
    eta0 = {"s": n0 * np.cos(th), "p": n0 / np.cos(th)}
    out = {}
    for pol, name in (("s", "r_s"), ("p", "r_p")):
        a = np.ones((nw, na), complex)
        b = np.zeros((nw, na), complex)
        c = np.zeros((nw, na), complex)
        e = np.ones((nw, na), complex)
        for j in range(nl):
            n = nn[:, j][:, None]
            q = np.sqrt(n * n - beta2 + 0j)
            dl = k0 * d[j] * q
            eta = q if pol == "s" else n * n / q
            cs, isn = np.cos(dl), 1j * np.sin(dl)
            a, b, c, e = a * cs + b * isn * eta, a * isn / eta + b * cs, c * cs + e * isn * eta, c * isn / eta + e * cs
        qs = np.sqrt(ns * ns - beta2 + 0j)
        es = qs if pol == "s" else ns * ns / qs
        bb, cc = a + b * es, c + e * es
        r = (eta0[pol] * bb - cc) / (eta0[pol] * bb + cc)
        out[name] = (np.abs(r) ** 2).reshape(-1)
    return out


def tmm_multilayer_rsp_2d_fp64() -> KernelSpec:
    return _spec(
        "tmm_multilayer_rsp_2d_fp64", tol=FP64, precision="fp64",
        idiom="thin-film stack s/p reflectance in fp64, 2-D (angle, wavelength): runtime layer loop of 2x2 "
              "complex characteristic matrices, principal complex sqrt, sincos with cosh / sinh, admittance ratio",
        sizes={"A": [32, 128, 512], "W": [64, 256, 1024], "L": [9, 41]}, check={"A": 37, "W": 45, "L": 41},
        constraints=["2**16 <= A * W * L <= 6 * 2**20"],
        args=[Arg("nang", "scalar", "int32", "A"), Arg("nwl", "scalar", "int32", "W"),
              Arg("nlayer", "scalar", "int32", "L"), Arg("n_inc", "scalar", "float64", str(N_INC)),
              Arg("theta", "buffer", "float64", "A"), Arg("lambda_nm", "buffer", "float64", "W"),
              Arg("nk", "buffer", "float64", "2 * W * L"), Arg("thick", "buffer", "float64", "L"),
              Arg("nsub", "buffer", "float64", "2 * W"),
              Arg("r_s", "buffer", "float64", "W * A", "out"), Arg("r_p", "buffer", "float64", "W * A", "out")],
        gsize=[round_up("A", 32), round_up("W", 16)], local=L2, reference=_ref_tmm, make_inputs=_inputs_tmm)


# --- angular-spectrum propagation with band limit, float2 in place ------------------------------------------------
def _inputs_asm(rng, sz):
    """B spectra of an N x N field (complex Gaussian noise, like the FFT of a diffuser's field), wavelengths
    spread over 0.45 .. 0.65 um."""
    n, nb = sz["N"], sz["B"]
    spec = rng.standard_normal((nb, n, n, 2), dtype=np.float32)
    return {"lambda_um": np.linspace(0.45, 0.65, nb).astype(np.float32), "spec": spec.reshape(-1)}


def _ref_asm(inp, sz):
    nx, ny, nb = int(inp["nx"]), int(inp["ny"]), int(inp["nplane"])
    dx, z = float(np.float32(inp["dx"])), float(np.float32(inp["z"]))
    lam = _f64(inp["lambda_um"])[:nb]
    u = _f64(inp["spec"])[:2 * nb * nx * ny].reshape(-1, 2)[:nb * nx * ny].reshape(nb, ny, nx, 2)
    u = u[..., 0] + 1j * u[..., 1]
    fx = np.fft.fftfreq(nx, dx)[None, :]
    fy = np.fft.fftfreq(ny, dx)[:, None]
    f2 = fx * fx + fy * fy
    out = np.empty_like(u)
    for p in range(nb):
        il = 1.0 / lam[p]
        limx = il / np.sqrt((2.0 * z / (nx * dx)) ** 2 + 1.0)
        limy = il / np.sqrt((2.0 * z / (ny * dx)) ** 2 + 1.0)
        g = il * il - f2
        sg = np.sqrt(np.abs(g))
        h = np.where(g >= 0.0, np.exp(2j * np.pi * z * (-f2 / (il + sg))), np.exp(-2.0 * np.pi * z * sg))
        h = np.where((np.abs(fx) > limx) | (np.abs(fy) > limy), 0.0, h)
        out[p] = u[p] * h
    return {"spec": np.stack([out.real, out.imag], -1).reshape(-1)}


def asm_bandlimit_prop_planes_2d() -> KernelSpec:
    return _spec(
        "asm_bandlimit_prop_planes_2d", tol=SUMS,
        idiom="angular-spectrum propagation in place on float2 spectra, 2-D (fx, fy) in FFT order, loop over "
              "wavelength planes: band-limit zeroing, evanescent exp damping, carrier-free sincos phase multiply",
        sizes={"N": [128, 256, 512, 1024, 1536, 2048, 4096], "B": [1, 3]}, check={"N": 96, "B": 2},
        constraints=["N * N * B <= 2**24"],
        args=[Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"),
              Arg("nplane", "scalar", "int32", "B"), Arg("dx", "scalar", "float32", str(DX_UM)),
              Arg("z", "scalar", "float32", str(Z_UM)), Arg("lambda_um", "buffer", "float32", "B"),
              Arg("spec", "buffer", "float32", "B * N * N * 2", "inout")],
        gsize=[round_up("N", 32), round_up("N", 16)], local=L2, reference=_ref_asm, make_inputs=_inputs_asm)


#: this group's builders, in the order of ``specs()``
BUILDERS = (tmm_multilayer_rsp_2d_fp64, asm_bandlimit_prop_planes_2d)

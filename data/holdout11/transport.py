"""Holdout11 kernels, group transport (written by hand; see docs/HOLDOUT11.md): Monte Carlo particle transport as
reactor-physics and detector-simulation codes write it: the macroscopic cross-section lookup of a neutron code in
fp64 (XSBench's unionized energy grid: one binary search of the union grid, then per nuclide of the lookup's
material an index-grid read and a linear interpolation of five cross sections, weighted by the number density);
an analog history-based neutron random walk through a multi-region 1-D slab in fp64, Philox4x32-10 draws keyed by
(history, flight), surface tracking by optical depth, scatter / absorb / escape branches and every tally (track
length per spatial bin in fixed point, events per region, leakage) by uint atomics; and photon cascades by Compton
scattering, the Klein-Nishina angle from Kahn's rejection method, a photo-absorption test after each scatter and
an xorshift128 state per photon read and written back (uint32). One of these three kernels uses atomics, on
integers; the group's other three kernels are in :mod:`.transport_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, pow2, round_up

#: xs_macro_unionized_fp64: nuclides per material after the fuel (XSBench's small problem; the fuel gets I // 2)
XS_MAT_NUCS = (5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9)
#: xs_macro_unionized_fp64: how often each material is looked up (XSBench's distribution, fuel first)
XS_MAT_P = (0.140, 0.052, 0.275, 0.134, 0.154, 0.064, 0.066, 0.055, 0.008, 0.015, 0.025, 0.013)
XS_EMIN, XS_EMAX = 1e-5, 2e7  # xs_macro_unionized_fp64: energy range of the tables (eV)

SLAB_REGIONS = 6  # slab_walk_philox_fixed: regions of the slab
SLAB_SEED = (0x1234ABCD, 0x0BADF00D)  # slab_walk_philox_fixed: the Philox key
SLAB_MAX_FLIGHT = 400  # slab_walk_philox_fixed: flights after which a history is cut
PHILOX_M = (0xD2511F53, 0xCD9E8D57)
PHILOX_W = (0x9E3779B9, 0xBB67AE85)

KAHN_MEC2 = float(np.float32(0.51099895))  # compton_kahn_cascade: MEC2 in the source (MeV)
KAHN_TWO_PI = float(np.float32(6.2831853))
KAHN_CUT, KAHN_PE_A, KAHN_MAX = 0.04, 2e-5, 64  # compton_kahn_cascade: cut-off (MeV), pe_a (MeV^3), max_scat


# --- XSBench-style macroscopic cross sections: unionized grid, fp64 ----------------------------------------------
def _xs_materials(rng, nnuc):
    """Twelve materials: the fuel with nnuc // 2 nuclides, the rest XS_MAT_NUCS (distinct nuclides each), number
    densities log-uniform 1e-5 .. 5e-2 atoms per barn-cm."""
    counts = [nnuc // 2] + [min(c, nnuc) for c in XS_MAT_NUCS]
    nucs = np.concatenate([rng.choice(nnuc, c, replace=False) for c in counts])
    return np.concatenate([[0], np.cumsum(counts)]), nucs, 10.0 ** rng.uniform(-5.0, np.log10(5e-2), nucs.size)


def _inputs_xs(rng, sz):
    """I nuclides of G log-uniform energies each (both ends included); elastic 2 .. 20 b with noise, absorption
    1/v with random resonances, a fifth of the nuclides fissile (fission a share of absorption, nu 2.4 .. 2.9); the
    union grid and its index grid; lookups log-uniform in energy, materials by XS_MAT_P."""
    n, nnuc, g = sz["N"], sz["I"], sz["G"]
    lo, hi = np.log(XS_EMIN), np.log(XS_EMAX)
    e = np.exp(np.sort(rng.uniform(lo, hi, (nnuc, g)), axis=1))
    e[:, 0], e[:, -1] = XS_EMIN, XS_EMAX
    el = rng.uniform(2.0, 20.0, (nnuc, 1)) * (1.0 + 0.3 * rng.random((nnuc, g)))
    res = 1.0 + 200.0 * rng.random((nnuc, g)) ** 40
    ab = rng.uniform(0.1, 5.0, (nnuc, 1)) * np.sqrt(0.0253 / e) * res + 1e-3
    fissile = rng.random((nnuc, 1)) < 0.2
    fi = np.where(fissile, ab * rng.uniform(0.3, 0.8, (nnuc, 1)), 0.0)
    grid = np.stack([e, el + ab, el, ab, fi, fi * rng.uniform(2.4, 2.9, (nnuc, 1))], axis=2)
    union = np.sort(e.ravel())
    index = np.empty((union.size, nnuc), dtype=np.int32)
    for k in range(nnuc):
        index[:, k] = np.clip(np.searchsorted(e[k], union, side="right") - 1, 0, g - 2)
    off, nucs, conc = _xs_materials(rng, nnuc)
    p = np.array(XS_MAT_P) / sum(XS_MAT_P)
    return {"p_energy": np.exp(rng.uniform(lo, hi, n)), "p_mat": rng.choice(len(p), n, p=p),
            "union_energy": union, "union_index": index, "nuc_grid": grid, "mat_off": off, "mat_nuc": nucs,
            "mat_conc": conc}


def _ref_xs(inp, sz):
    nnuc, g = sz["I"], sz["G"]
    e = _f64(inp["p_energy"])
    mat = np.asarray(inp["p_mat"]).astype(np.int64)
    union = _f64(inp["union_energy"])
    lo = np.clip(np.searchsorted(union, e, side="right") - 1, 0, union.size - 2)
    index = np.asarray(inp["union_index"]).astype(np.int64).reshape(union.size, nnuc)
    grid = _f64(inp["nuc_grid"]).reshape(nnuc, g, 6)
    off = np.asarray(inp["mat_off"]).astype(np.int64)
    nucs, conc = np.asarray(inp["mat_nuc"]).astype(np.int64), _f64(inp["mat_conc"])
    xs = np.zeros((e.size, 5))
    for k in range(int((off[1:] - off[:-1]).max())):
        has = off[mat] + k < off[mat + 1]
        at = np.where(has, off[mat] + k, 0)
        nuc = nucs[at]
        j = index[lo, nuc]
        low, high = grid[nuc, j], grid[nuc, j + 1]
        f = (high[:, 0] - e) / (high[:, 0] - low[:, 0])
        xs += np.where(has[:, None], conc[at][:, None] * (high[:, 1:] - f[:, None] * (high[:, 1:] - low[:, 1:])), 0)
    return {"macro_xs": xs}


def xs_macro_unionized_fp64() -> KernelSpec:
    return _spec(
        "xs_macro_unionized_fp64", tol=FP64, precision="fp64",
        idiom="XSBench macroscopic lookup in fp64: binary search of the unionized energy grid, then per nuclide of "
              "the material an index-grid read, two gathered grid points and interpolation of five cross sections",
        sizes={"N": pow2(10, 20, 2), "I": [34, 68], "G": [4096]}, check={"N": 2000, "I": 34, "G": 64},
        constraints=["I >= 27"],
        args=[Arg("nlookup", "scalar", "int32", "N"), Arg("nnuc", "scalar", "int32", "I"),
              Arg("ngrid", "scalar", "int32", "G"), Arg("nunion", "scalar", "int32", "I * G"),
              Arg("p_energy", "buffer", "float64", "N"), Arg("p_mat", "buffer", "int32", "N"),
              Arg("union_energy", "buffer", "float64", "I * G"), Arg("union_index", "buffer", "int32", "I * G * I"),
              Arg("nuc_grid", "buffer", "float64", "I * G * 6"), Arg("mat_off", "buffer", "int32", "13"),
              Arg("mat_nuc", "buffer", "int32", f"I // 2 + {sum(XS_MAT_NUCS)}"),
              Arg("mat_conc", "buffer", "float64", f"I // 2 + {sum(XS_MAT_NUCS)}"),
              Arg("macro_xs", "buffer", "float64", "N * 5", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_xs, make_inputs=_inputs_xs)


# --- neutron histories in a 1-D slab: Philox draws, surface tracking, uint atomic tallies (fp64) ------------------
def _philox4x32_10(c0, c1, key):
    """Philox4x32-10 of the counters (c0, c1, 0, 0) under key, as uint64 arrays holding 32-bit words."""
    mask = np.uint64(0xFFFFFFFF)
    c0, c1 = np.asarray(c0, dtype=np.uint64), np.asarray(c1, dtype=np.uint64) + np.zeros_like(c0, dtype=np.uint64)
    c2, c3 = np.zeros_like(c0), np.zeros_like(c0)
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for _ in range(10):
        p0, p1 = np.uint64(PHILOX_M[0]) * c0, np.uint64(PHILOX_M[1]) * c2
        c0, c1, c2, c3 = (p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & mask, (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & mask
        k0, k1 = (k0 + np.uint64(PHILOX_W[0])) & mask, (k1 + np.uint64(PHILOX_W[1])) & mask
    return c0, c1, c2, c3


def _u01(r):
    return (r.astype(np.float64) + 0.5) * 2.0**-32


def _inputs_slab(rng, sz):
    """A shield of SLAB_REGIONS layers 0.5 .. 3 cm thick, total cross sections 0.3 .. 1.5 /cm (about 9 mean free
    paths in all), scattering ratios 0.7 .. 0.99."""
    widths = rng.uniform(0.5, 3.0, SLAB_REGIONS)
    return {"bnd": np.concatenate([[0.0], np.cumsum(widths)]), "sig_t": rng.uniform(0.3, 1.5, SLAB_REGIONS),
            "c_scat": rng.uniform(0.7, 0.99, SLAB_REGIONS)}


def _ref_slab(inp, sz):
    """All live histories flight by flight, the region crossings of a flight by a loop over those still moving."""
    nh, nreg, nbin = sz["H"], int(inp["nreg"]), sz["B"]
    bnd, st, cs = _f64(inp["bnd"]), _f64(inp["sig_t"]), _f64(inp["c_scat"])
    scale, key = float(inp["fx_scale"]), (int(inp["seed_lo"]), int(inp["seed_hi"]))
    bin_w = bnd[nreg] / nbin
    x, mu, reg = np.zeros(nh), np.ones(nh), np.zeros(nh, dtype=np.int64)
    fate, alive = np.full(nh, 2), np.ones(nh, dtype=bool)
    track, events = np.zeros(nbin, dtype=np.int64), np.zeros(2 * nreg, dtype=np.int64)

    def score(xa, xb, inv_mu):
        lo, hi = np.minimum(xa, xb), np.maximum(xa, xb)
        b0 = np.maximum((lo / bin_w).astype(np.int64), 0)
        b1 = np.minimum((hi / bin_w).astype(np.int64), nbin - 1)
        cnt = b1 - b0 + 1
        seg = np.repeat(np.arange(lo.size), cnt)
        b = np.repeat(b0, cnt) + np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        piece = np.minimum(hi[seg], (b + 1) * bin_w) - np.maximum(lo[seg], b * bin_w)
        ok = piece > 0.0
        np.add.at(track, b[ok], np.floor(piece[ok] * inv_mu[seg[ok]] * scale + 0.5).astype(np.int64))

    for flight in range(int(inp["max_flight"])):
        idx = np.flatnonzero(alive)
        if not idx.size:
            break
        r = _philox4x32_10(idx, flight, key)
        tau, inv_mu = -np.log(_u01(r[0])), 1.0 / np.abs(mu[idx])
        xs, ms, rs = x[idx], mu[idx], reg[idx]
        moving, hit_any = np.ones(idx.size, dtype=bool), np.zeros(idx.size, dtype=bool)
        while moving.any():
            m = np.flatnonzero(moving)
            edge = np.where(ms[m] > 0.0, bnd[rs[m] + 1], bnd[rs[m]])
            to_edge = (edge - xs[m]) / ms[m]
            s = st[rs[m]]
            hit = tau[m] < s * to_edge
            xn = np.where(hit, xs[m] + ms[m] * tau[m] / s, edge)
            score(xs[m], xn, inv_mu[m])
            xs[m] = xn
            hit_any[m[hit]], moving[m[hit]] = True, False
            go = m[~hit]
            tau[go] -= s[~hit] * to_edge[~hit]
            rs[go] += np.where(ms[go] > 0.0, 1, -1)
            moving[go[(rs[go] < 0) | (rs[go] >= nreg)]] = False
        x[idx], reg[idx] = xs, rs
        esc = idx[~hit_any]
        fate[esc], alive[esc] = np.where(reg[esc] < 0, 0, 1), False
        col = np.flatnonzero(hit_any)
        scat = _u01(r[1][col]) < cs[rs[col]]
        hid = idx[col]
        np.add.at(events, 2 * reg[hid] + ~scat, 1)
        mu[hid[scat]] = 2.0 * _u01(r[2][col[scat]]) - 1.0
        fate[hid[~scat]], alive[hid[~scat]] = 3, False
    return {"track_fx": track & 0xFFFFFFFF, "events": events, "leak": np.bincount(fate, minlength=4)[:3]}


def slab_walk_philox_fixed() -> KernelSpec:
    return _spec(
        "slab_walk_philox_fixed", precision="fp64",
        idiom="neutron history per item in a 1-D multi-region slab, fp64: Philox4x32-10 per flight, optical-depth "
              "surface tracking, scatter / absorb / escape branches, uint atomic tallies of fixed-point track length "
              "per bin, events per region and leakage",
        sizes={"H": pow2(8, 18, 2), "B": [16, 128]}, check={"H": 1500, "B": 40},
        args=[Arg("nhist", "scalar", "int32", "H"), Arg("nreg", "scalar", "int32", str(SLAB_REGIONS)),
              Arg("nbin", "scalar", "int32", "B"), Arg("max_flight", "scalar", "int32", str(SLAB_MAX_FLIGHT)),
              Arg("seed_lo", "scalar", "uint32", str(SLAB_SEED[0])),
              Arg("seed_hi", "scalar", "uint32", str(SLAB_SEED[1])),
              Arg("fx_scale", "scalar", "float64", "67108864.0 / H"),
              Arg("bnd", "buffer", "float64", str(SLAB_REGIONS + 1)),
              Arg("sig_t", "buffer", "float64", str(SLAB_REGIONS)),
              Arg("c_scat", "buffer", "float64", str(SLAB_REGIONS)),
              Arg("track_fx", "buffer", "uint32", "B", "out"),
              Arg("events", "buffer", "uint32", str(2 * SLAB_REGIONS), "out"),
              Arg("leak", "buffer", "uint32", "3", "out")],
        gsize=[round_up("H")], local=L1, reference=_ref_slab, make_inputs=_inputs_slab)


# --- photon cascades: Klein-Nishina by Kahn's rejection, xorshift128 state per photon (uint32) --------------------
def _inputs_kahn(rng, sz):
    """Photon energies from a gamma-source mix (lines of Cs-137, Co-60, Na-22, Am-241 and a 0.05 .. 3 MeV
    continuum), cosines uniform in -1 .. 1, xorshift128 states random and never all zero."""
    n = sz["N"]
    lines = np.array([0.662, 1.173, 1.332, 0.511, 1.275, 0.0595])
    pick = rng.random(n) < 0.7
    e = np.where(pick, lines[rng.integers(0, lines.size, n)], np.exp(rng.uniform(np.log(0.05), np.log(3.0), n)))
    state = rng.integers(0, 1 << 32, (n, 4), dtype=np.uint32)
    state[:, 3] |= 1
    return {"e_in": e, "w_in": rng.uniform(-1.0, 1.0, n), "rng": state}


def _xorshift128(s, idx):
    """Advances the states of photons idx (rows of s, uint32) one step; returns their uniforms."""
    x, w = s[idx, 0], s[idx, 3]
    t = x ^ (x << np.uint32(11))
    s[idx, 0:3] = s[idx, 1:4]
    s[idx, 3] = w ^ (w >> np.uint32(19)) ^ (t ^ (t >> np.uint32(8)))
    return (s[idx, 3] >> np.uint32(8)).astype(np.float64) * 2.0**-24


def _ref_kahn(inp, sz):
    """All live photons scatter by scatter; the rejection loop over the photons still sampling."""
    n = sz["N"]
    s = np.asarray(inp["rng"]).astype(np.uint32).reshape(n, 4).copy()
    e, w = _f64(_f64(inp["e_in"]).astype(np.float32)), _f64(_f64(inp["w_in"]).astype(np.float32))
    cut, pe_a = float(np.float32(inp["e_cut"])), float(np.float32(inp["pe_a"]))
    nsc, fate = np.zeros(n, dtype=np.int64), np.full(n, 2)
    live = np.ones(n, dtype=bool)
    for _ in range(int(inp["max_scat"])):
        low = live & (e < cut)
        fate[low], live[low] = 0, False
        idx = np.flatnonzero(live)
        if not idx.size:
            break
        alpha = e[idx] / KAHN_MEC2
        eta, mu = np.zeros(idx.size), np.zeros(idx.size)
        todo = np.ones(idx.size, dtype=bool)
        while todo.any():
            t = np.flatnonzero(todo)
            r1, r2, r3 = (_xorshift128(s, idx[t]) for _ in range(3))
            a2 = 2.0 * alpha[t]
            first = r1 <= (1.0 + a2) / (9.0 + a2)
            et = np.where(first, 1.0 + a2 * r2, (1.0 + a2) / (1.0 + a2 * r2))
            m = np.where(first, 1.0 - 2.0 * r2, 1.0 - (et - 1.0) / alpha[t])
            ok = np.where(first, r3 <= 4.0 * (1.0 / et - 1.0 / (et * et)), r3 <= 0.5 * (m * m + 1.0 / et))
            eta[t[ok]], mu[t[ok]], todo[t[ok]] = et[ok], m[ok], False
        phi = KAHN_TWO_PI * _xorshift128(s, idx)
        wi = w[idx]
        sw, st = np.sqrt(np.maximum(0.0, 1.0 - wi * wi)), np.sqrt(np.maximum(0.0, 1.0 - mu * mu))
        w[idx] = wi * mu + sw * st * np.cos(phi)
        e[idx] /= eta
        nsc[idx] += 1
        absorbed = idx[_xorshift128(s, idx) * (pe_a + e[idx] ** 3) < pe_a]
        fate[absorbed], live[absorbed] = 1, False
    return {"rng": s, "e_out": e, "w_out": w, "n_scat": nsc, "fate": fate}


def compton_kahn_cascade() -> KernelSpec:
    return _spec(
        "compton_kahn_cascade", tol=SUMS,
        idiom="photon cascade per item (global-size stride loop): Klein-Nishina angle by Kahn's two-branch rejection "
              "loop, azimuthal direction update, energy-dependent absorption test, uint4 xorshift128 state in place",
        sizes={"N": pow2(9, 19, 2), "P": [1, 8]}, check={"N": 1024, "P": 2},
        args=[Arg("nphot", "scalar", "int32", "N"), Arg("max_scat", "scalar", "int32", str(KAHN_MAX)),
              Arg("e_cut", "scalar", "float32", str(KAHN_CUT)), Arg("pe_a", "scalar", "float32", str(KAHN_PE_A)),
              Arg("e_in", "buffer", "float32", "N"), Arg("w_in", "buffer", "float32", "N"),
              Arg("rng", "buffer", "uint32", "N * 4", "inout"), Arg("e_out", "buffer", "float32", "N", "out"),
              Arg("w_out", "buffer", "float32", "N", "out"), Arg("n_scat", "buffer", "int32", "N", "out"),
              Arg("fate", "buffer", "int32", "N", "out")],
        gsize=[round_up("N // P")], local=L1, reference=_ref_kahn, make_inputs=_inputs_kahn)


#: this group's builders, in the order of ``specs()``
BUILDERS = (xs_macro_unionized_fp64, slab_walk_philox_fixed, compton_kahn_cascade)

"""Holdout15 kernels, group optics, continued (written by hand; see docs/HOLDOUT15.md): an exact ray trace of a
spot diagram through a lens of coaxial spherical surfaces in fp64, a work-item per ray transferring it surface
by surface over a runtime surface count, intersecting each sphere in Spencer and Murty's form, refracting by the
vector Snell law and accumulating the optical path, and leaving early when the ray misses a sphere, falls outside
a clear aperture or is totally reflected (the surface's uint32 vignetting counter raised by atomic_inc); and laser
speckle contrast imaging on a 2-D NDRange, every work-group staging each 12-bit uint32 camera frame's tile with a
replicated halo in __local memory between barriers, every item summing its window's counts and squared counts
exactly in uint32 and averaging sigma / mean over the frames. Split from :mod:`.optics` to keep each module
short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, round_up

N_INC = 1.0  # lens_stack_trace_vignette_fp64: object space (air)
IMG_GAP = 40.0  # lens_stack_trace_vignette_fp64: last vertex to the image plane (mm)

MAX_COUNT = 4095  # lsci_contrast_frames_local: 12-bit camera


# --- exact ray trace through spherical surfaces, vignetting counted atomically, fp64 ----------------------------
def _inputs_trace(rng, sz):
    """S surfaces in singlets (glass of index 1.5 .. 1.75 between two surfaces, air after), curvatures up to
    1 / 40 mm, gaps 1 .. 6 mm, clear semi-apertures 9 .. 13 mm; R rays from a 10 mm disc on the entrance plane
    with field angles up to about 6 degrees."""
    nr, ns = sz["R"], sz["S"]
    curv = rng.uniform(-0.025, 0.025, ns)
    curv[rng.random(ns) < 0.1] = 0.0
    glass = rng.uniform(1.5, 1.75, ns)
    n_after = np.where(np.arange(ns) % 2 == 0, glass, 1.0)
    gap = rng.uniform(1.0, 6.0, ns)
    semi = rng.uniform(9.0, 13.0, ns)
    rad = 10.0 * np.sqrt(rng.random(nr))
    phi = rng.uniform(0.0, 2.0 * np.pi, nr)
    ang = rng.uniform(-0.1, 0.1, (nr, 2))
    rays = np.stack([rad * np.cos(phi), rad * np.sin(phi), np.sin(ang[:, 0]), np.sin(ang[:, 1])], -1)
    return {"rays": rays.reshape(-1), "curv": curv, "gap": gap, "semi_ap": semi, "n_after": n_after}


def _ref_trace(inp, sz):
    nr, ns = int(inp["nray"]), int(inp["nsurf"])
    r = _f64(inp["rays"])[:4 * nr].reshape(nr, 4)
    curv, gap, semi, nafter = (_f64(inp[k])[:ns] for k in ("curv", "gap", "semi_ap", "n_after"))
    x, y, z, el, em = r[:, 0].copy(), r[:, 1].copy(), np.zeros(nr), r[:, 2].copy(), r[:, 3].copy()
    en = np.sqrt(1.0 - el * el - em * em)
    n1, path = np.full(nr, float(inp["n_inc"])), np.zeros(nr)
    lost = np.full(nr, -1, dtype=np.int64)
    vign = np.zeros(ns, dtype=np.int64)
    for s in range(ns):
        on = lost < 0
        c = curv[s]
        z = z - gap[s]
        f = c * (x * x + y * y + z * z) - 2.0 * z
        g = en - c * (x * el + y * em + z * en)
        disc = g * g - c * f
        bad = disc < 0.0
        t = f / (g + np.sqrt(np.where(bad, 0.0, disc)))
        x, y, z = x + t * el, y + t * em, z + t * en
        bad |= x * x + y * y > semi[s] ** 2
        ex, ey, ez = -c * x, -c * y, 1.0 - c * z
        cosi = el * ex + em * ey + en * ez
        mu = n1 / nafter[s]
        k = 1.0 - mu * mu * (1.0 - cosi * cosi)
        bad |= k < 0.0
        gg = np.sqrt(np.where(k < 0.0, 0.0, k)) - mu * cosi
        el, em, en = mu * el + gg * ex, mu * em + gg * ey, mu * en + gg * ez
        path = path + n1 * t
        n1 = np.full(nr, nafter[s])
        newly = on & bad
        lost[newly] = s
        vign[s] = int(newly.sum())
    t = (float(inp["img_gap"]) - z) / en
    ok = lost < 0
    img = np.where(ok[:, None], np.stack([x + t * el, y + t * em], -1), 0.0)
    return {"img_xy": img.reshape(-1), "opl": np.where(ok, path + n1 * t, 0.0), "lost": lost, "vignetted": vign}


def lens_stack_trace_vignette_fp64() -> KernelSpec:
    return _spec(
        "lens_stack_trace_vignette_fp64", tol=FP64, precision="fp64",
        idiom="exact spherical-surface ray trace in fp64, a ray per item over a runtime surface count: Spencer-"
              "Murty sphere hit, vector Snell refraction, optical path; early exit on miss / aperture / TIR with a "
              "uint32 atomic_inc per surface",
        sizes={"R": [16384, 65536, 262144, 1048576], "S": [8, 32]}, check={"R": 3000, "S": 10},
        args=[Arg("nray", "scalar", "int32", "R"), Arg("nsurf", "scalar", "int32", "S"),
              Arg("n_inc", "scalar", "float64", str(N_INC)), Arg("img_gap", "scalar", "float64", str(IMG_GAP)),
              Arg("rays", "buffer", "float64", "4 * R"), Arg("curv", "buffer", "float64", "S"),
              Arg("gap", "buffer", "float64", "S"), Arg("semi_ap", "buffer", "float64", "S"),
              Arg("n_after", "buffer", "float64", "S"),
              Arg("img_xy", "buffer", "float64", "2 * R", "out"), Arg("opl", "buffer", "float64", "R", "out"),
              Arg("lost", "buffer", "int32", "R", "out"), Arg("vignetted", "buffer", "uint32", "S", "out")],
        gsize=[round_up("R")], local=L1, reference=_ref_trace, make_inputs=_inputs_trace)


# --- laser speckle contrast over windows, frames tiled through __local ------------------------------------------
def _inputs_lsci(rng, sz):
    """F frames of N x N 12-bit speckle: fully developed speckle (exponential intensity, contrast 1) over static
    tissue, a vessel band whose moving scatterers blur it (gamma of shape 4 .. 16, contrast 0.25 .. 0.5), a
    smooth illumination falloff and a dark corner; clipped at 4095."""
    n, nf = sz["N"], sz["F"]
    yy, xx = np.mgrid[0:n, 0:n] / max(n - 1, 1)
    mean = 300.0 + 1200.0 * np.exp(-((xx - 0.5) ** 2 + (yy - 0.5) ** 2) * 3.0)
    shape = np.where(np.abs(yy - 0.6 - 0.15 * np.sin(6.0 * xx)) < 0.08, 4.0 + 12.0 * xx, 1.0)
    fr = rng.gamma(np.broadcast_to(shape, (nf, n, n)), (mean / shape)[None], (nf, n, n))
    fr[:, : n // 8, : n // 8] = 0.0
    return {"frames": np.minimum(fr, MAX_COUNT).astype(np.uint32).reshape(-1)}


def _ref_lsci(inp, sz):
    nx, ny, nf, r = int(inp["nx"]), int(inp["ny"]), int(inp["nframe"]), int(inp["r"])
    fr = _f64(inp["frames"])[:nf * nx * ny].reshape(nf, ny, nx)
    pad = np.pad(fr, ((0, 0), (r, r), (r, r)), mode="edge")
    s1 = np.zeros_like(fr)
    s2 = np.zeros_like(fr)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            v = pad[:, dy:dy + ny, dx:dx + nx]
            s1 += v
            s2 += v * v
    nwin = (2 * r + 1) ** 2
    m = s1 / nwin
    var = np.maximum(s2 / nwin - m * m, 0.0)
    k = np.where(s1 > 0, np.sqrt(var) / np.where(s1 > 0, m, 1.0), 0.0)
    return {"kmean": k.mean(axis=0).reshape(-1)}


def lsci_contrast_frames_local() -> KernelSpec:
    return _spec(
        "lsci_contrast_frames_local", tol=SUMS,
        idiom="laser speckle contrast, 2-D: per frame a tile + r halo (clamped) of uint32 counts in __local between "
              "barriers, window sums and squared sums exact in uint, sigma / mean averaged over a runtime frame count",
        sizes={"N": [256, 512, 1024, 2048], "F": [1, 8], "R": [2, 3]}, check={"N": 70, "F": 3, "R": 2},
        constraints=["N * N * F <= 2**23"],
        args=[Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"),
              Arg("nframe", "scalar", "int32", "F"), Arg("r", "scalar", "int32", "R"),
              Arg("frames", "buffer", "uint32", "F * N * N"), Arg("kmean", "buffer", "float32", "N * N", "out"),
              Arg("tile", "local", "uint32", "(l0 + 2 * R) * (l1 + 2 * R)")],
        gsize=[round_up("N", 32), round_up("N", 16)], local=L2, reference=_ref_lsci, make_inputs=_inputs_lsci)


#: this group's builders, in the order of ``specs()``
BUILDERS = (lens_stack_trace_vignette_fp64, lsci_contrast_frames_local)

"""Holdout9 kernels, group graphics (written by hand; see docs/HOLDOUT9.md): computer graphics and rendering as
application programmers write them: tiled deferred shading of a packed G-buffer (uint32 octahedral normals and
RGBA8 albedo) with many point lights, a work-group per screen tile finding its depth bounds with local atomic
min/max and culling the lights into a __local bit mask (2-D); closest-hit ray casting against spheres through a
flattened BVH with slab tests and a short private stack, near child first; and software texturing of a ground
plane seen in perspective, analytic uv derivatives driving anisotropic probes of trilinear RGBA8 mip-mapped
samples with exponential fog (2-D). The group's other three kernels are in :mod:`.graphics_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, pow2, round_up

DEF_ZFAR = 60.0  # deferred_tile_lights_mask: the scene's far end (view-space depth)


# --- tiled deferred shading, tile depth bounds by local atomics, lights culled into a __local bit mask, 2-D ---------
def _def_camera(sz):
    w, h = sz["W"], sz["W"] * 9 // 16
    return w, h, 0.9 * w, 0.9 * w, 0.5 * w, 0.5 * h


def _oct_encode(n):
    n = n / np.abs(n).sum(-1, keepdims=True)
    x, y, z = n[..., 0], n[..., 1], n[..., 2]
    ox = np.where(z < 0, (1.0 - np.abs(y)) * np.where(x >= 0, 1.0, -1.0), x)
    oy = np.where(z < 0, (1.0 - np.abs(x)) * np.where(y >= 0, 1.0, -1.0), y)
    u, v = (np.rint((o * 0.5 + 0.5) * 65535.0).astype(np.uint32) for o in (ox, oy))
    return u | (v << 16)


def _oct_decode(packed):
    packed = np.asarray(packed).astype(np.int64)
    fx, fy = (packed & 0xFFFF) * (2.0 / 65535.0) - 1.0, (packed >> 16) * (2.0 / 65535.0) - 1.0
    nz = 1.0 - np.abs(fx) - np.abs(fy)
    t = np.maximum(-nz, 0.0)
    n = np.stack([fx + np.where(fx >= 0, -t, t), fy + np.where(fy >= 0, -t, t), nz], -1)
    return n / np.linalg.norm(n, axis=-1, keepdims=True)


def _inputs_def(rng, sz):
    """A view-space scene (y down, depth = z): a ground plane 1.6 below the eye, which looks 7 degrees down, out
    to depth 60 (the sky above it is empty, depth 0), and 24 spheres of radius 0.4 .. 2.5 floating above it; their
    normals octahedron-encoded, a checker albedo on the ground and one colour per sphere, gloss random per object.
    Lights: three quarters hover 0.2 .. 1.2 above random visible surface points, the rest anywhere in the view
    volume; radii 0.5 .. 2, colours 0.2 .. 1, intensities 1 .. 12."""
    w, h, fx, fy, cx, cy = _def_camera(sz)
    nl = sz["L"]
    px, py = (np.arange(w) + 0.5 - cx) / fx, (np.arange(h) + 0.5 - cy) / fy
    dx, dy = np.meshgrid(px, py)
    d = np.stack([dx, dy, np.ones_like(dx)], -1)  # ray direction with d.z = 1, so t is the depth
    gn = np.array([0.0, -1.0, -0.12])
    gn /= np.linalg.norm(gn)
    ndd = d @ gn
    tg = np.where(ndd < -1e-9, -1.6 / np.where(ndd < -1e-9, ndd, -1.0), np.inf)
    tg = np.where(tg < DEF_ZFAR, tg, np.inf)
    best = tg.copy()
    nrm = np.broadcast_to(gn, d.shape).copy()
    hit_pt = d * np.where(np.isfinite(tg), tg, 0.0)[..., None]
    alb = np.where(((np.floor(hit_pt[..., 0]) + np.floor(hit_pt[..., 2] * 0.5)) % 2) == 0, 0.75, 0.3)
    albedo = np.stack([alb, alb * 0.9, alb * 0.8], -1)
    gloss = np.full(best.shape, 0.3)
    k = 24
    sd = rng.uniform(6.0, 45.0, k)
    sxv = rng.uniform(-0.6, 0.6, k) * sd
    rad = rng.uniform(0.4, 2.5, k)
    ground_y = (-1.6 - gn[0] * sxv - gn[2] * sd) / gn[1]  # y of the ground under each sphere's centre
    sy = ground_y - rad * rng.uniform(1.0, 2.5, k)
    for c, r, col, g in zip(np.stack([sxv, sy, sd], -1), rad, rng.uniform(0.1, 0.95, (k, 3)), rng.uniform(0, 1, k)):
        # the sphere's screen rectangle from the extreme x/z and y/z ratios of its bounding box
        qx = [(c[0] + a) / (c[2] + b) for a in (-r, r) for b in (-r, r)]
        qy = [(c[1] + a) / (c[2] + b) for a in (-r, r) for b in (-r, r)]
        i0, i1 = np.searchsorted(px, min(qx)), np.searchsorted(px, max(qx))
        j0, j1 = np.searchsorted(py, min(qy)), np.searchsorted(py, max(qy))
        if i0 >= i1 or j0 >= j1:
            continue
        win = (slice(j0, j1), slice(i0, i1))
        dw = d[win]
        dd = (dw * dw).sum(-1)
        b = dw @ c
        disc = b * b - dd * (c @ c - r * r)
        t = np.where(disc > 0, (b - np.sqrt(np.maximum(disc, 0.0))) / dd, np.inf)
        t = np.where(t > 0.1, t, np.inf)
        take = t < best[win]
        best[win] = np.where(take, t, best[win])
        nrm[win] = np.where(take[..., None], (dw * np.where(take, t, 0.0)[..., None] - c) / r, nrm[win])
        albedo[win] = np.where(take[..., None], col, albedo[win])
        gloss[win] = np.where(take, g, gloss[win])
    hit = np.isfinite(best)
    depth = np.where(hit, best, 0.0).astype(np.float32)
    packed_a = (np.rint(albedo * 255).astype(np.uint32) * np.array([1, 256, 65536], dtype=np.uint32)).sum(-1)
    packed_a = packed_a.astype(np.uint32) | (np.rint(gloss * 255).astype(np.uint32) << 24)
    # lights
    pts, nn, near = (d * np.where(hit, best, 0.0)[..., None])[hit], nrm[hit], nl * 3 // 4
    pick = rng.integers(0, len(pts), near)
    lp_near = pts[pick] + nn[pick] * rng.uniform(0.2, 1.2, (near, 1))
    zf = rng.uniform(2.0, 50.0, nl - near)
    lp_far = np.stack([rng.uniform(-0.6, 0.6, nl - near) * zf, rng.uniform(-0.4, 0.3, nl - near) * zf, zf], -1)
    lp = np.concatenate([lp_near, lp_far])[rng.permutation(nl)]
    light_pos = np.concatenate([lp, rng.uniform(0.5, 2.0, (nl, 1))], 1)
    light_col = np.concatenate([rng.uniform(0.2, 1.0, (nl, 3)), rng.uniform(1.0, 12.0, (nl, 1))], 1)
    return {"depth": depth, "gnormal": _oct_encode(nrm).reshape(-1), "galbedo": packed_a.reshape(-1),
            "light_pos": light_pos, "light_col": light_col}


def _ref_def(inp, sz):
    w, h = int(inp["width"]), int(inp["height"])
    fx, fy, cx, cy = (float(np.float32(inp[k])) for k in ("fx", "fy", "cx", "cy"))
    z = _f64(inp["depth"]).reshape(h, w)
    px = ((np.arange(w) + 0.5 - cx) / fx)[None, :] * z
    py = ((np.arange(h) + 0.5 - cy) / fy)[:, None] * z
    p = np.stack([px, py, z], -1).reshape(-1, 3)
    geo = z.reshape(-1) > 0
    n = _oct_decode(inp["gnormal"])
    a = np.asarray(inp["galbedo"]).astype(np.int64)
    alb = np.stack([a & 255, (a >> 8) & 255, (a >> 16) & 255], -1) / 255.0
    shin = np.exp2(1.0 + 10.0 * (a >> 24) / 255.0)
    v = -p / np.maximum(np.linalg.norm(p, axis=-1, keepdims=True), 1e-30)
    spec_norm = (shin + 8.0) / (8.0 * np.pi)
    lpos, lcol = _f64(inp["light_pos"]).reshape(-1, 4), _f64(inp["light_col"]).reshape(-1, 4)
    acc = np.zeros_like(p)
    for lp, lc in zip(lpos, lcol):
        lv = lp[:3] - p
        d2 = (lv * lv).sum(-1)
        r2 = lp[3] * lp[3]
        l = lv / np.sqrt(np.maximum(d2, 1e-30))[:, None]
        ndl = (n * l).sum(-1)
        ok = geo & (d2 < r2) & (ndl > 0)
        win = (1.0 - (d2 / r2) ** 2) ** 2
        hv = l + v
        hv /= np.maximum(np.linalg.norm(hv, axis=-1, keepdims=True), 1e-30)
        spec = spec_norm * np.maximum((n * hv).sum(-1), 0.0) ** shin
        term = lc[:3][None, :] * (lc[3] * win / (d2 + 1.0) * ndl)[:, None] * (alb + 0.04 * spec[:, None])
        acc += np.where(ok[:, None], term, 0.0)
    return {"hdr": acc}


def deferred_tile_lights_mask() -> KernelSpec:
    return _spec(
        "deferred_tile_lights_mask", tol=SUMS,
        idiom="tiled deferred shading, 2-D: tile depth bounds by local atomic_min/max, lights culled to a __local "
              "bit mask, Blinn-Phong",
        sizes={"W": [320, 640, 1280, 1920, 2560], "L": [16, 64, 256, 1024, 4096]}, check={"W": 80, "L": 300},
        constraints=["W * W * L <= 2**29"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "W * 9 // 16"),
              Arg("nlights", "scalar", "int32", "L"), Arg("fx", "scalar", "float32", "0.9 * W"),
              Arg("fy", "scalar", "float32", "0.9 * W"), Arg("cx", "scalar", "float32", "0.5 * W"),
              Arg("cy", "scalar", "float32", "0.5 * (W * 9 // 16)"),
              Arg("depth", "buffer", "float32", "W * (W * 9 // 16)"),
              Arg("gnormal", "buffer", "uint32", "W * (W * 9 // 16)"),
              Arg("galbedo", "buffer", "uint32", "W * (W * 9 // 16)"),
              Arg("light_pos", "buffer", "float32", "4 * L"), Arg("light_col", "buffer", "float32", "4 * L"),
              Arg("hdr", "buffer", "float32", "3 * W * (W * 9 // 16)", "out")],
        gsize=[round_up("W", 32), round_up("W * 9 // 16", 16)], local=L2, reference=_ref_def,
        make_inputs=_inputs_def)



# --- closest-hit ray casting through a flattened BVH of spheres, slab tests, short private stack -------------------
def _bvh_scene(rng, p):
    """Spheres in distinct cells of a g^3 lattice (g^3 >= 1.3 P cells), radius 0.15 .. 0.4, jittered inside their
    cell so that any two are at least 0.1 apart; sorted along a Morton curve of their cells."""
    g = int(np.ceil((1.3 * p) ** (1.0 / 3.0)))
    cells = np.sort(rng.choice(g**3, p, replace=False))
    ci = np.stack([cells % g, (cells // g) % g, cells // (g * g)], -1)
    code = np.zeros(p, dtype=np.int64)
    for b in range(8):
        for a in range(3):
            code |= ((ci[:, a] >> b) & 1) << (3 * b + a)
    ci = ci[np.argsort(code, kind="stable")]
    r = rng.uniform(0.15, 0.4, p)
    c = ci + rng.uniform(0.0, 1.0, (p, 3)) * (1.0 - 2.0 * r[:, None] - 0.1) + r[:, None] + 0.05
    return g, np.concatenate([c, r[:, None]], 1).astype(np.float32)


def _bvh_tree(sph):
    """The complete binary tree over leaves of 4 consecutive spheres, bottom-up boxes padded by 1e-3, flattened
    depth-first: (lo, hi, meta) with meta (second child, axis << 8) inside and (first sphere, 4) at the leaves."""
    p = len(sph)
    m = int(np.log2(p // 4))
    c, r = sph[:, :3].astype(np.float64), sph[:, 3:].astype(np.float64)
    lo = [None] * m + [(c - r).reshape(-1, 4, 3).min(1) - 1e-3]
    hi = [None] * m + [(c + r).reshape(-1, 4, 3).max(1) + 1e-3]
    for lev in range(m - 1, -1, -1):
        lo[lev] = np.minimum(lo[lev + 1][0::2], lo[lev + 1][1::2])
        hi[lev] = np.maximum(hi[lev + 1][0::2], hi[lev + 1][1::2])
    nn = 2 ** (m + 1) - 1
    out_lo, out_hi, meta = np.zeros((nn, 4)), np.zeros((nn, 4)), np.zeros((nn, 2), dtype=np.int64)
    dfs = np.zeros(1, dtype=np.int64)
    for lev in range(m + 1):
        out_lo[dfs, :3], out_hi[dfs, :3] = lo[lev], hi[lev]
        if lev == m:
            meta[dfs, 0], meta[dfs, 1] = 4 * np.arange(2**m), 4
            break
        sub = 2 ** (m - lev) - 1  # nodes in a child's subtree
        meta[dfs, 0] = dfs + 1 + sub
        meta[dfs, 1] = np.argmax(hi[lev] - lo[lev], axis=1) << 8
        dfs = np.stack([dfs + 1, dfs + 1 + sub], 1).reshape(-1)
    return out_lo, out_hi, meta


def _bvh_cast(org, dirs, tmin, tmax, sph):
    """Closest hits by brute force in float64 (t, index, smallest h^2 / r^2 among spheres ahead)."""
    c, r = _f64(sph[:, :3]), _f64(sph[:, 3])
    oc = c[None, :, :] - org[:, None, :]
    tca = (oc * dirs[:, None, :]).sum(-1)
    q = oc - tca[..., None] * dirs[:, None, :]
    h2 = r[None, :] ** 2 - (q * q).sum(-1)
    t = tca - np.sqrt(np.maximum(h2, 0.0))
    ok = (h2 >= 0) & (t > tmin[:, None]) & (t < tmax[:, None])
    tt = np.where(ok, t, np.inf)
    k = np.argmin(tt, axis=1)
    graze = np.where(tca > 0, np.abs(h2) / r[None, :] ** 2, np.inf).min(1)
    return np.where(np.isfinite(tt.min(1)), tt.min(1), -1.0), np.where(np.isfinite(tt.min(1)), k, -1), graze


def _inputs_bvh(rng, sz):
    """Primary rays of a pinhole camera in pixel order (an image of R pixels, 1:1 or 2:1), a 70 degree wide view from
    outside the lattice's corner towards its centre, so some rays miss it; tmin 1e-3, tmax 4 g. Where R * P is small
    (the check), rays within 2% of grazing a sphere (h^2 < 0.02 r^2) are jittered until none is, so that float32
    and float64 agree on which sphere is hit."""
    nr, p = sz["R"], sz["P"]
    g, sph = _bvh_scene(rng, p)
    lo, hi, meta = _bvh_tree(sph)
    w = 2 ** ((int(np.log2(nr)) + 1) // 2)
    cam = np.array([1.35 * g, 1.1 * g, -0.55 * g])
    fwd = np.array([0.5 * g, 0.45 * g, 0.5 * g]) - cam
    fwd /= np.linalg.norm(fwd)
    right = np.cross([0.0, 1.0, 0.0], fwd) / np.linalg.norm(np.cross([0.0, 1.0, 0.0], fwd))
    up = np.cross(fwd, right)
    sx = ((np.arange(nr) % w) + 0.5) / w * 2.0 - 1.0
    sy = (((np.arange(nr) // w) + 0.5) / (nr // w) * 2.0 - 1.0) * (nr // w) / w
    dirs = fwd[None, :] + np.tan(np.radians(35.0)) * (sx[:, None] * right[None, :] - sy[:, None] * up[None, :])
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    org = np.broadcast_to(cam, dirs.shape).astype(np.float32).astype(np.float64)
    tmin, tmax = np.full(nr, 1e-3), np.full(nr, 4.0 * g)
    if nr * p <= 2**22:
        bad = np.arange(nr)
        for _ in range(40):
            d32 = dirs[bad].astype(np.float32).astype(np.float64)
            near = np.concatenate([_bvh_cast(org[bad[s:s + 256]], d32[s:s + 256], tmin[bad[s:s + 256]],
                                             tmax[bad[s:s + 256]], sph)[2] for s in range(0, len(bad), 256)])
            bad = bad[near < 0.02]
            if not len(bad):
                break
            dirs[bad] += rng.normal(0.0, 5e-3, (len(bad), 3))
            dirs[bad] /= np.linalg.norm(dirs[bad], axis=1, keepdims=True)
    return {"ray_org": np.concatenate([org, tmin[:, None]], 1), "ray_dir": np.concatenate([dirs, tmax[:, None]], 1),
            "node_lo": lo, "node_hi": hi, "node_meta": meta, "spheres": sph}


def _ref_bvh(inp, sz):
    org, dirs = _f64(inp["ray_org"]).reshape(-1, 4), _f64(inp["ray_dir"]).reshape(-1, 4)
    sph = _f64(inp["spheres"]).reshape(-1, 4)
    hits = [_bvh_cast(org[s:s + 256, :3], dirs[s:s + 256, :3], org[s:s + 256, 3], dirs[s:s + 256, 3], sph)
            for s in range(0, len(org), 256)]
    return {"hit_t": np.concatenate([t for t, _, _ in hits]), "hit_id": np.concatenate([k for _, k, _ in hits])}


def bvh_sphere_shortstack() -> KernelSpec:
    return _spec(
        "bvh_sphere_shortstack", tol=SUMS,
        idiom="closest-hit rays through a depth-first flattened BVH: slab test clipped by the hit so far, near child "
              "first, short private stack, sphere leaves",
        sizes={"R": pow2(12, 20, 2), "P": [2**10, 2**14, 2**18]}, check={"R": 2048, "P": 512},
        constraints=["R * P <= 2**36"],
        args=[Arg("nrays", "scalar", "int32", "R"),
              Arg("ray_org", "buffer", "float32", "4 * R"), Arg("ray_dir", "buffer", "float32", "4 * R"),
              Arg("node_lo", "buffer", "float32", "4 * (P // 2 - 1)"),
              Arg("node_hi", "buffer", "float32", "4 * (P // 2 - 1)"),
              Arg("node_meta", "buffer", "int32", "2 * (P // 2 - 1)"),
              Arg("spheres", "buffer", "float32", "4 * P"),
              Arg("hit_t", "buffer", "float32", "R", "out"), Arg("hit_id", "buffer", "int32", "R", "out")],
        gsize=[round_up("R")], local=L1, reference=_ref_bvh, make_inputs=_inputs_bvh)


# --- ground plane textured by anisotropic probes of a trilinear RGBA8 mip chain, analytic uv derivatives, 2-D -------
def _aniso_camera(sz):
    """Eye 1.7 above the ground, looking 12 degrees down, a horizontal field of view of about 64 degrees."""
    w = sz["W"]
    pitch, yaw = np.radians(12.0), np.radians(30.0)
    fwd = np.array([np.sin(yaw) * np.cos(pitch), -np.sin(pitch), np.cos(yaw) * np.cos(pitch)])
    right = np.array([np.cos(yaw), 0.0, -np.sin(yaw)])
    up = np.cross(fwd, right)
    return w, w * 9 // 16, np.concatenate([[3.0, 1.7, -2.0], right, up, fwd])


def _mip_chain(rng, s):
    """A seamless RGBA8 texture of s^2 texels (a sum of integer-frequency waves per channel, tile mortar lines,
    +-6 levels of noise) and its 2x2 box-filtered mip chain down to 1x1, packed one texel per uint."""
    u = np.arange(s) / s
    mortar = (np.abs((u * 8) % 1.0 - 0.5) > 0.45).astype(np.float32)  # 8 x 8 tiles
    mortar = 1.0 - 0.5 * np.maximum(mortar[:, None], mortar[None, :])
    packed = None
    for ch in range(4):
        k = rng.integers(1, 9, (3, 2))
        ph = rng.uniform(0, 2 * np.pi, (3, 2))
        fu = sum(np.sin(2 * np.pi * k[j, 0] * u + ph[j, 0]) for j in range(3)) / 6.0
        fv = sum(np.sin(2 * np.pi * k[j, 1] * u + ph[j, 1]) for j in range(3)) / 6.0
        img = (0.5 + 0.35 * fv[:, None].astype(np.float32) * fu[None, :].astype(np.float32)) * np.float32(255.0)
        if ch < 3:
            img *= mortar
        img = np.rint(img).astype(np.int16) + rng.integers(-6, 7, img.shape, dtype=np.int16)
        levels = [np.clip(img, 0, 255).astype(np.uint16)]
        while levels[-1].shape[0] > 1:
            a = levels[-1]
            levels.append((a[0::2, 0::2] + a[1::2, 0::2] + a[0::2, 1::2] + a[1::2, 1::2] + 2) >> 2)
        chan = np.concatenate([lv.reshape(-1) for lv in levels]).astype(np.uint32) << (8 * ch)
        packed = chan if packed is None else packed | chan
    sizes = [(s >> lev) ** 2 for lev in range(int(np.log2(s)) + 1)]
    return packed, np.concatenate([[0], np.cumsum(sizes)[:-1]])


def _inputs_aniso(rng, sz):
    """The camera of :func:`_aniso_camera` and a 2^LS texture's mip chain (:func:`_mip_chain`)."""
    _, _, cam = _aniso_camera(sz)
    mips, offs = _mip_chain(rng, 2 ** sz["LS"])
    return {"cam": cam, "mips": mips, "level_off": offs}


def _bilinear_ref(mips, offs, tex, lev, uv):
    size = tex >> lev
    f = (uv - np.floor(uv)) * size[:, None] - 0.5
    f0 = np.floor(f)
    w = f - f0
    ix, iy, off = f0[:, 0].astype(np.int64), f0[:, 1].astype(np.int64), offs[lev]

    def tx(i, j):
        c = mips[off + (j & (size - 1)) * size + (i & (size - 1))]
        return np.stack([c & 255, (c >> 8) & 255, (c >> 16) & 255, c >> 24], -1) / 255.0

    a = tx(ix, iy) + (tx(ix + 1, iy) - tx(ix, iy)) * w[:, :1]
    b = tx(ix, iy + 1) + (tx(ix + 1, iy + 1) - tx(ix, iy + 1)) * w[:, :1]
    return a + (b - a) * w[:, 1:]


def _ref_aniso(inp, sz):
    w, h, tex, nlev, amax = (int(inp[k]) for k in ("width", "height", "tex_size", "nlevels", "max_aniso"))
    focal, uvs, dens = (float(np.float32(inp[k])) for k in ("focal", "uv_scale", "fog_density"))
    cam = _f64(inp["cam"])
    eye, right, up, fwd = cam[0:3], cam[3:6], cam[6:9], cam[9:12]
    mips = np.asarray(inp["mips"]).astype(np.int64)
    offs = np.asarray(inp["level_off"]).astype(np.int64)
    sx = ((np.arange(w) + 0.5 - 0.5 * w) / focal)[None, :].repeat(h, 0).reshape(-1)
    sy = ((0.5 * h - (np.arange(h) + 0.5)) / focal)[:, None].repeat(w, 1).reshape(-1)
    d = fwd[None, :] + sx[:, None] * right[None, :] + sy[:, None] * up[None, :]
    ln = np.linalg.norm(d, axis=1)
    fog, zen = np.array([0.70, 0.76, 0.84, 1.0]), np.array([0.25, 0.42, 0.78, 1.0])
    sky = d[:, 1] / ln > -1e-3
    out = fog + (zen - fog) * np.maximum(d[:, 1] / ln, 0.0)[:, None]
    g = ~sky
    dg, lg = d[g], ln[g]
    t = eye[1] / -dg[:, 1]
    p = eye + t[:, None] * dg
    uv = p[:, [0, 2]] * uvs
    dpx = (t / focal)[:, None] * (right + (right[1] / -dg[:, 1])[:, None] * dg)
    dpy = (-t / focal)[:, None] * (up + (up[1] / -dg[:, 1])[:, None] * dg)
    duvx, duvy = dpx[:, [0, 2]] * uvs, dpy[:, [0, 2]] * uvs
    lx, ly = np.linalg.norm(duvx, axis=1) * tex, np.linalg.norm(duvy, axis=1) * tex
    pmax, pmin = np.maximum(lx, ly), np.maximum(np.minimum(lx, ly), 1e-8)
    axis = np.where((lx >= ly)[:, None], duvx, duvy)
    n = np.minimum(np.ceil(pmax / pmin), amax)
    lod = np.clip(np.log2(pmax / n), 0.0, nlev - 1)
    l0 = lod.astype(np.int64)
    fl = (lod - l0)[:, None]
    l1 = np.minimum(l0 + 1, nlev - 1)
    acc = np.zeros((len(t), 4))
    for i in range(amax):
        q = uv + (((i + 0.5) / n - 0.5))[:, None] * axis
        s0 = _bilinear_ref(mips, offs, tex, l0, q)
        s = np.where((l0 + 1 < nlev)[:, None], s0 + (_bilinear_ref(mips, offs, tex, l1, q) - s0) * fl, s0)
        acc += np.where((i < n)[:, None], s, 0.0)
    acc /= n[:, None]
    out[g] = fog + (acc - fog) * np.exp(-dens * t * lg)[:, None]
    return {"rgba": out}


def ground_aniso_mip_rgba8() -> KernelSpec:
    return _spec(
        "ground_aniso_mip_rgba8", tol=SUMS,
        idiom="ground plane texturing, 2-D: analytic uv derivatives, anisotropic probes along the major axis of "
              "trilinear RGBA8 wrap samples, fog",
        sizes={"W": [320, 640, 1280, 2560], "LS": [8, 10, 12], "A": [2, 16]}, check={"W": 96, "LS": 6, "A": 8},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "W * 9 // 16"),
              Arg("tex_size", "scalar", "int32", "2 ** LS"), Arg("nlevels", "scalar", "int32", "LS + 1"),
              Arg("max_aniso", "scalar", "int32", "A"), Arg("focal", "scalar", "float32", "0.8 * W"),
              Arg("uv_scale", "scalar", "float32", "0.25"), Arg("fog_density", "scalar", "float32", "0.02"),
              Arg("cam", "buffer", "float32", "12"), Arg("mips", "buffer", "uint32", "(4 ** (LS + 1) - 1) // 3"),
              Arg("level_off", "buffer", "int32", "LS + 1"),
              Arg("rgba", "buffer", "float32", "4 * W * (W * 9 // 16)", "out")],
        gsize=[round_up("W", 32), round_up("W * 9 // 16", 16)], local=L2, reference=_ref_aniso,
        make_inputs=_inputs_aniso)


#: this group's builders, in the order of ``specs()``
BUILDERS = (deferred_tile_lights_mask, bvh_sphere_shortstack, ground_aniso_mip_rgba8)

"""Holdout13 kernels, group anim, continued (written by hand; see docs/HOLDOUT13.md): the narrow phase of
sphere-vs-terrain-mesh collision in fp64, a work-item per sphere over its broadphase candidate triangles (a CSR
list), the closest point of each triangle by Ericson's barycentric region tests and the deepest penetration's
depth, normal and triangle kept; and forward kinematics with the skinning palette of many characters sharing
one skeleton, a work-group per character (looping by the number of groups) composing the blended local
quaternion / translation / scale transforms level by level of the bone hierarchy in __local memory between
barriers, then each model transform times its inverse bind matrix. Neither uses atomics. Split from
:mod:`.anim` to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, SUMS, _f64, _spec, round_up

MESH_CELLS = 512  # sphere_tri_contact_fp64: the terrain heightfield's cells per side (two triangles a cell)
MESH_VERTS = (MESH_CELLS + 1) ** 2
CAND = "8 * R * R"  # sphere_tri_contact_fp64: candidate triangles per sphere (a 2R x 2R cell window)

FK_LEVELS = "B // 8 + 4"  # fk_levels_palette_local: depth levels of the skeleton's hierarchy
FK_MAX_ANGLE = 0.8  # fk_levels_palette_local: largest local rotation angle (radians)


# --- sphere vs terrain triangles, narrow phase in fp64 -----------------------------------------------------------
def _height(x, y):
    return 1.5 * np.sin(0.11 * x) * np.cos(0.07 * y) + 0.6 * np.sin(0.31 * x + 0.23 * y)


def _inputs_sphere(rng, sz):
    """A MESH_CELLS^2 heightfield (smooth waves plus +-0.1 noise per vertex), cells split along the diagonal;
    S spheres of radius 0.3 .. R - 1 with centres over the inner terrain, from half a radius inside it to 2
    radii above; each sphere's candidates: both triangles of every cell of the 2R x 2R window around its cell
    (which covers its footprint), row by row."""
    s, r = sz["S"], sz["R"]
    g = MESH_CELLS
    iy, ix = np.meshgrid(np.arange(g + 1), np.arange(g + 1), indexing="ij")
    vert = np.stack([ix, iy, _height(ix, iy) + rng.uniform(-0.1, 0.1, ix.shape)], axis=-1).reshape(-1, 3)
    cy, cx = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
    v00 = (cy * (g + 1) + cx).ravel()
    tri = np.empty((g * g, 2, 3), dtype=np.int32)
    tri[:, 0] = np.stack([v00, v00 + 1, v00 + g + 2], axis=1)
    tri[:, 1] = np.stack([v00, v00 + g + 2, v00 + g + 1], axis=1)
    xy = rng.uniform(r, g - r, (s, 2))
    rad = rng.uniform(0.3, r - 1.0, s)
    z = _height(xy[:, 0], xy[:, 1]) + rng.uniform(-0.5, 2.0, s) * rad
    off = np.arange(-r + 1, r + 1)
    wy = np.floor(xy[:, 1]).astype(np.int64)[:, None, None] + off[None, :, None]
    wx = np.floor(xy[:, 0]).astype(np.int64)[:, None, None] + off[None, None, :]
    cells = (wy * g + wx).reshape(s, -1)
    cand = (2 * cells[:, :, None] + np.arange(2)[None, None, :]).reshape(-1)
    return {"centre": np.column_stack([xy, z]), "radius": rad, "vert": vert, "tri": tri.reshape(-1),
            "cand_start": np.arange(s + 1) * (8 * r * r), "cand_tri": cand}


def _closest(p, a, b, c):
    """Ericson's closest point on triangles abc to points p, row by row, the regions tested in his order."""
    def dot(u, v):
        return (u * v).sum(axis=1)
    ab, ac, ap, bp, cp = b - a, c - a, p - a, p - b, p - c
    d1, d2, d3, d4, d5, d6 = dot(ab, ap), dot(ac, ap), dot(ab, bp), dot(ac, bp), dot(ab, cp), dot(ac, cp)
    vc, vb, va = d1 * d4 - d3 * d2, d5 * d2 - d1 * d6, d3 * d6 - d5 * d4
    with np.errstate(divide="ignore", invalid="ignore"):
        e_ab = a + (d1 / (d1 - d3))[:, None] * ab
        e_ac = a + (d2 / (d2 - d6))[:, None] * ac
        e_bc = b + ((d4 - d3) / ((d4 - d3) + (d5 - d6)))[:, None] * (c - b)
        den = 1.0 / (va + vb + vc)
        face = a + (vb * den)[:, None] * ab + (vc * den)[:, None] * ac
    conds = [(d1 <= 0) & (d2 <= 0), (d3 >= 0) & (d4 <= d3), (vc <= 0) & (d1 >= 0) & (d3 <= 0),
             (d6 >= 0) & (d5 <= d6), (vb <= 0) & (d2 >= 0) & (d6 <= 0),
             (va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0)]
    out = face
    for cond, val in reversed(list(zip(conds, [a, b, e_ab, c, e_ac, e_bc]))):
        out = np.where(cond[:, None], val, out)
    return out


def _ref_sphere(inp, sz):
    s = sz["S"]
    centre, rad = _f64(inp["centre"]).reshape(s, 3), _f64(inp["radius"])
    vert, tri = _f64(inp["vert"]).reshape(-1, 3), np.asarray(inp["tri"]).astype(np.int64).reshape(-1, 3)
    start, cand = np.asarray(inp["cand_start"]).astype(np.int64), np.asarray(inp["cand_tri"]).astype(np.int64)
    owner = np.repeat(np.arange(s), np.diff(start))
    p, t = centre[owner], tri[cand]
    a, b, c = vert[t[:, 0]], vert[t[:, 1]], vert[t[:, 2]]
    d = p - _closest(p, a, b, c)
    dist = np.sqrt((d * d).sum(axis=1))
    pen = np.where(dist * dist < rad[owner] ** 2, rad[owner] - dist, 0.0)
    face = np.cross(b - a, c - a)
    face /= np.linalg.norm(face, axis=1)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        nrm = np.where((dist > 1e-12)[:, None], d / dist[:, None], face)
    depth, normal, hit = np.zeros(s), np.zeros((s, 3)), np.full(s, -1, dtype=np.int64)
    for i in range(s):
        seg = slice(start[i], start[i + 1])
        if start[i + 1] > start[i] and pen[seg].max() > 0.0:
            k = start[i] + int(np.argmax(pen[seg]))
            depth[i], normal[i], hit[i] = pen[k], nrm[k], cand[k]
    return {"depth": depth, "normal": normal.ravel(), "hit_tri": hit}


def sphere_tri_contact_fp64() -> KernelSpec:
    return _spec(
        "sphere_tri_contact_fp64", tol=FP64, precision="fp64",
        idiom="sphere vs mesh narrow phase in fp64, an item per sphere over CSR candidate triangles: Ericson "
              "closest point by barycentric region branches, deepest penetration's depth, normal and triangle",
        sizes={"S": [1024, 8192, 32768, 131072], "R": [2, 4]}, check={"S": 60, "R": 3},
        args=[Arg("nspheres", "scalar", "int32", "S"), Arg("centre", "buffer", "float64", "3 * S"),
              Arg("radius", "buffer", "float64", "S"), Arg("cand_start", "buffer", "int32", "S + 1"),
              Arg("cand_tri", "buffer", "int32", f"{CAND} * S"),
              Arg("tri", "buffer", "int32", str(6 * MESH_CELLS * MESH_CELLS)),
              Arg("vert", "buffer", "float64", str(3 * MESH_VERTS)),
              Arg("depth", "buffer", "float64", "S", "out"), Arg("normal", "buffer", "float64", "3 * S", "out"),
              Arg("hit_tri", "buffer", "int32", "S", "out")],
        gsize=[round_up("S")], local=L1, reference=_ref_sphere, make_inputs=_inputs_sphere)


# --- forward kinematics and skinning palette, a work-group per character ----------------------------------------
def _skeleton(rng, b, levels):
    """Parents-first bones: a root, then depths 1 .. levels - 1 each used at least once; every bone's parent a
    random bone one level up."""
    depth = np.sort(np.concatenate([[0], np.arange(1, levels), rng.integers(1, levels, b - levels)]))
    parent = np.full(b, -1, dtype=np.int64)
    for lev in range(1, levels):
        up = np.flatnonzero(depth == lev - 1)
        here = depth == lev
        parent[here] = rng.choice(up, int(here.sum()))
    return parent, depth


def _rigid(rng, n, angle, shift):
    """n random rotations (angle up to ``angle``) as quaternions (x, y, z, w) and shifts in [-shift, shift)."""
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    half = rng.uniform(0.0, angle, n)[:, None] / 2
    return np.hstack([axis * np.sin(half), np.cos(half)]), rng.uniform(-shift, shift, (n, 3))


def _mat(q, t, s):
    """3 x 4 transforms [s R(q) | t] of (normalised) quaternions q, translations t, scales s."""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = (q[..., k] for k in range(4))
    rot = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1)
    rot = rot.reshape(*q.shape[:-1], 3, 3) * s[..., None, None]
    return np.concatenate([rot, t[..., :, None]], axis=-1)


def _compose(p, l):
    """p * l of 3 x 4 affine transforms."""
    return np.concatenate([p[..., :3] @ l[..., :3], (p[..., :3] @ l[..., 3:]) + p[..., 3:]], axis=-1)


def _inputs_fk(rng, sz):
    """A skeleton of B bones and FK_LEVELS levels; per character and bone a blended local rotation (angle up to
    FK_MAX_ANGLE, magnitude 0.9 .. 1.1), a bone offset of 0.1 .. 0.3 along y plus +-0.05, a scale 0.95 .. 1.05;
    inverse bind matrices random rigid transforms."""
    c, b = sz["NC"], sz["B"]
    levels = b // 8 + 4
    parent, depth = _skeleton(rng, b, levels)
    q, _ = _rigid(rng, c * b, FK_MAX_ANGLE, 0.0)
    q *= rng.uniform(0.9, 1.1, (c * b, 1))
    trans = np.empty((c * b, 4))
    trans[:, :3] = rng.uniform(-0.05, 0.05, (c * b, 3))
    trans[:, 1] += rng.uniform(0.1, 0.3, c * b)
    trans[:, 3] = rng.uniform(0.95, 1.05, c * b)
    bq, bt = _rigid(rng, b, np.pi, 1.0)
    return {"parent": parent, "depth": depth, "lrot": q, "ltrans": trans,
            "inv_bind": _mat(bq, bt, np.ones(b)).reshape(-1)}


def _ref_fk(inp, sz):
    c, b = sz["NC"], sz["B"]
    parent = np.asarray(inp["parent"]).astype(np.int64)
    q = _f64(np.asarray(inp["lrot"], dtype=np.float32)).reshape(c, b, 4)
    t = _f64(np.asarray(inp["ltrans"], dtype=np.float32)).reshape(c, b, 4)
    local = _mat(q, t[..., :3], t[..., 3])
    model = np.empty_like(local)
    for k in range(b):  # parents first
        model[:, k] = local[:, k] if parent[k] < 0 else _compose(model[:, parent[k]], local[:, k])
    inv_bind = _f64(np.asarray(inp["inv_bind"], dtype=np.float32)).reshape(1, b, 3, 4)
    return {"palette": _compose(model, inv_bind).reshape(-1)}


def fk_levels_palette_local() -> KernelSpec:
    return _spec(
        "fk_levels_palette_local", tol=SUMS,
        idiom="skeletal FK + skinning palette, a group per character (num_groups loop): quaternion / translation / "
              "scale to 3x4, parent compose in __local level by level between barriers, times inverse bind",
        sizes={"NC": [32, 256, 2048, 16384], "B": [40, 160]}, check={"NC": 5, "B": 37},
        args=[Arg("nchar", "scalar", "int32", "NC"), Arg("nbones", "scalar", "int32", "B"),
              Arg("nlevels", "scalar", "int32", FK_LEVELS), Arg("parent", "buffer", "int32", "B"),
              Arg("depth", "buffer", "int32", "B"), Arg("lrot", "buffer", "float32", "4 * NC * B"),
              Arg("ltrans", "buffer", "float32", "4 * NC * B"), Arg("inv_bind", "buffer", "float32", "12 * B"),
              Arg("palette", "buffer", "float32", "12 * NC * B", "out"), Arg("model", "local", "float32", "12 * B")],
        gsize=["NC * 64"], local=L1, reference=_ref_fk, make_inputs=_inputs_fk)


#: this group's builders, in the order of ``specs()``
BUILDERS = (sphere_tri_contact_fp64, fk_levels_palette_local)

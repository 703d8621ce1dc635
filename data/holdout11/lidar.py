"""Holdout11 kernels, group lidar (written by hand; see docs/HOLDOUT11.md): the first stages of a lidar perception
pipeline on a car, as robotics programmers write them: voxel-grid downsampling of accumulated sweeps, the
accumulation pass over integer-millimetre driver points into a dense crop-box grid, counting each voxel's points and
summing their exact fixed-point offsets from the voxel's corner and their reflectivity by integer atomics; the
spherical projection of a cloud into a range image with a z-buffer, the nearest return of every pixel kept by one
atomic_min of a uint key packing the quantised range over the reflectivity, and the pixel of every point written
back; and ground segmentation in a polar grid, a work-group per azimuth sector (looping by the number of groups)
finding each range bin's lowest point into __local memory, one work-item walking the bins outward under a slope
limit, then every point labelled ground / obstacle / overhang by its height above its bin's ground. Two of these
kernels use atomics, on integers; the group's other three kernels are in :mod:`.lidar_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, _f32, _f64, _spec, pow2, round_up

VOX_BOX_XY = 102400  # voxel_mm_centroid_fixed_atomic: crop box side in x and y (mm), centred on the vehicle
VOX_BOX_Z = 6400  # voxel_mm_centroid_fixed_atomic: crop box height (mm) from VOX_MIN_Z
VOX_MIN_Z = -2400
VOX_GROUND_Z = -1730  # the road under a roof-mounted sensor (mm)

RIMG_FOV_UP, RIMG_FOV_DOWN = np.radians(3.0), np.radians(-25.0)  # range_image_zbuf_packed_u32 (HDL-64E)
RIMG_MIN_R, RIMG_MAX_R = 0.5, 120.0
RIMG_STEPS = 250.0  # 4 mm range steps in the packed key (RANGE_STEPS_PER_M in the source)

GSEG_BINS = 160  # ground_polar_slope_local: range bins of 0.5 m a sector, out to 80 m
GSEG_BIN_LEN = 0.5
GSEG_SENSOR_H, GSEG_SLOPE, GSEG_TOL, GSEG_MAX_H = 1.73, 0.1405, 0.15, 2.5  # tan(8 deg) the slope limit


# --- voxel-grid downsampling: integer-mm points, per-voxel count and fixed-point sums by atomics ----------------------
def _vox_grid(leaf):
    return VOX_BOX_XY // leaf, VOX_BOX_XY // leaf, VOX_BOX_Z // leaf


def _vox_points(rng, n):
    """n driver points (integer mm) of a street scene around the car: ranges log-uniform 1.5 .. 90 m (some outside
    the crop box), 60% road (a slight camber and 2 cm noise), 37% walls / cars / poles up to 4 m, 3% canopy above the
    box; 5% beams without a return (all zero); reflectivity low on the road, anything on objects."""
    az = rng.uniform(-np.pi, np.pi, n)
    r = 1500.0 * 60.0 ** rng.random(n)
    kind = rng.random(n)
    x, y = r * np.cos(az), r * np.sin(az)
    road = VOX_GROUND_Z + 0.004 * x + rng.normal(0.0, 20.0, n)
    z = np.where(kind < 0.6, road, np.where(kind < 0.97, road + rng.uniform(0.0, 5700.0, n),
                                             road + rng.uniform(6500.0, 9000.0, n)))
    pts = np.rint(np.stack([x, y, z], 1)).astype(np.int32)
    pts[rng.random(n) < 0.05] = 0
    refl = np.where(kind < 0.6, rng.integers(5, 41, n), rng.integers(10, 256, n)).astype(np.uint8)
    return pts, refl


def _vox_accumulate(pts, refl, leaf, count, sums):
    """Adds the points to count (V) and sums (V x 4) in place, as the kernel does."""
    g = _vox_grid(leaf)
    p = pts.astype(np.int64).reshape(-1, 3)
    rel = p - np.array([-VOX_BOX_XY // 2, -VOX_BOX_XY // 2, VOX_MIN_Z])
    idx = rel // leaf
    ok = np.any(p != 0, 1) & np.all(rel >= 0, 1) & np.all(idx < np.array(g), 1)
    v = ((idx[ok, 2] * g[1] + idx[ok, 1]) * g[0] + idx[ok, 0])
    vcount = count.size
    count += np.bincount(v, minlength=vcount).astype(count.dtype)
    off = rel[ok] - idx[ok] * leaf
    cols = [off[:, 0], off[:, 1], off[:, 2], refl.astype(np.int64)[ok]]
    for c, w in enumerate(cols):
        sums[:, c] += np.bincount(v, weights=w, minlength=vcount).astype(np.int64).astype(sums.dtype)


def _inputs_vox(rng, sz):
    """This sweep's N points; the grid holding an earlier sweep of N / 4 points (same street, new noise)."""
    n, leaf = sz["N"], sz["L"]
    gx, gy, gz = _vox_grid(leaf)
    count = np.zeros(gx * gy * gz, dtype=np.int32)
    sums = np.zeros((gx * gy * gz, 4), dtype=np.int32)
    _vox_accumulate(*_vox_points(rng, max(n // 4, 1)), leaf, count, sums)
    pts, refl = _vox_points(rng, n)
    return {"pts_mm": pts, "refl": refl, "vox_count": count, "vox_sum": sums}


def _ref_vox(inp, sz):
    leaf = int(inp["leaf_mm"])
    count = np.asarray(inp["vox_count"]).astype(np.int64).copy()
    sums = np.asarray(inp["vox_sum"]).astype(np.int64).reshape(-1, 4).copy()
    _vox_accumulate(np.asarray(inp["pts_mm"]), np.asarray(inp["refl"]), leaf, count, sums)
    return {"vox_count": count, "vox_sum": sums}


def voxel_mm_centroid_fixed_atomic() -> KernelSpec:
    return _spec(
        "voxel_mm_centroid_fixed_atomic",
        idiom="voxel-grid downsampling, accumulation pass: integer-mm point to a dense crop-box voxel by integer "
              "division, no-return and out-of-box skips, atomic_inc count and 4 int atomic_adds of exact offsets",
        sizes={"N": pow2(14, 22, 2), "L": [200, 400]}, check={"N": 3000, "L": 800},
        args=[Arg("npts", "scalar", "int32", "N"), Arg("leaf_mm", "scalar", "int32", "L"),
              Arg("gx", "scalar", "int32", f"{VOX_BOX_XY} // L"), Arg("gy", "scalar", "int32", f"{VOX_BOX_XY} // L"),
              Arg("gz", "scalar", "int32", f"{VOX_BOX_Z} // L"),
              Arg("min_x", "scalar", "int32", str(-VOX_BOX_XY // 2)),
              Arg("min_y", "scalar", "int32", str(-VOX_BOX_XY // 2)), Arg("min_z", "scalar", "int32", str(VOX_MIN_Z)),
              Arg("pts_mm", "buffer", "int32", "N * 3"), Arg("refl", "buffer", "uint8", "N"),
              Arg("vox_count", "buffer", "int32", f"({VOX_BOX_XY} // L) ** 2 * ({VOX_BOX_Z} // L)", "inout"),
              Arg("vox_sum", "buffer", "int32", f"4 * ({VOX_BOX_XY} // L) ** 2 * ({VOX_BOX_Z} // L)", "inout")],
        gsize=[round_up("N")], local=L1, reference=_ref_vox, make_inputs=_inputs_vox)


# --- range-image projection with a packed uint z-buffer (atomic_min) --------------------------------------------------
def _inputs_rimg(rng, sz):
    """N returns of a 64- or 128-beam sensor (cols = 16 rows), several sweeps projected together: a pixel drawn per
    return (rows 6% beyond the field of view either side), its direction within 0.3 px of the pixel's centre; the
    range from a scene per pixel (road below the horizon out to 100 m, facades 8 .. 60 m by column, cars nearer in a
    few column spans), 3% noise, 2% dust 0.2 .. 3 m, 1% beyond max range, 3% no return (NaN); the range put within
    0.3 of the middle of its 4 mm step, so that no float rounding moves a point or its key."""
    n, rows = sz["N"], sz["H"]
    cols = 16 * rows
    fov = RIMG_FOV_UP - RIMG_FOV_DOWN
    row = rng.integers(-(rows * 6) // 100, rows + (rows * 6) // 100, n)
    col = rng.integers(0, cols, n)
    v = row + 0.5 + rng.uniform(-0.3, 0.3, n)
    u = col + 0.5 + rng.uniform(-0.3, 0.3, n)
    pitch = RIMG_FOV_DOWN + (1.0 - v / rows) * fov
    yaw = np.pi * (1.0 - 2.0 * u / cols)
    road = np.where(pitch < -0.01, 1.73 / np.sin(np.maximum(-pitch, 1e-3)), 1e9)
    facade = 8.0 + 52.0 * (0.5 + 0.5 * np.sin(col * (2 * np.pi / cols) * 3 + 1.0)) ** 2
    rng_col = np.random.default_rng(int(rng.integers(0, 2**31)))
    car = np.zeros(cols)
    for c0 in rng_col.integers(0, cols, 12):
        car[c0:c0 + cols // 40] = rng_col.uniform(4.0, 25.0)
    car_hit = (car[col] > 0) & (pitch > -0.2) & (pitch < 0.02)
    r = np.minimum(np.minimum(road, facade[col]), np.where(car_hit, car[col], 1e9))
    r = np.minimum(r, 100.0) * (1.0 + rng.normal(0.0, 0.03, n))
    kind = rng.random(n)
    r = np.where(kind < 0.02, rng.uniform(0.2, 3.0, n), np.where(kind < 0.03, rng.uniform(125.0, 200.0, n), r))
    q = np.floor(r * RIMG_STEPS)
    r = (q + 0.5 + rng.uniform(-0.3, 0.3, n)) / RIMG_STEPS
    xyz = np.stack([r * np.cos(pitch) * np.cos(yaw), r * np.cos(pitch) * np.sin(yaw), r * np.sin(pitch)], 1)
    xyz[kind > 0.97] = np.nan
    refl = rng.integers(0, 1 << 16, n).astype(np.uint16)
    return {"xyz": xyz.astype(np.float32), "refl": refl, "zbuf": np.full(rows * cols, 0xFFFFFFFF, dtype=np.uint32)}


def _ref_rimg(inp, sz):
    rows, cols = int(inp["rows"]), int(inp["cols"])
    xyz = _f64(inp["xyz"]).reshape(-1, 3)
    with np.errstate(invalid="ignore"):
        r = np.sqrt((xyz**2).sum(1))
        ok = (r >= float(inp["min_range"])) & (r < float(inp["max_range"]))
    x, y, z, r = xyz[ok, 0], xyz[ok, 1], xyz[ok, 2], r[ok]
    up, down = float(inp["fov_up"]), float(inp["fov_down"])
    u = 0.5 * (1.0 - np.arctan2(y, x) / np.pi) * cols
    v = (1.0 - (np.arcsin(z / r) - down) / (up - down)) * rows
    col = np.floor(u).astype(np.int64)
    col = np.clip(np.where(col >= cols, col - cols, col), 0, None)
    row = np.floor(v).astype(np.int64)
    keep = (row >= 0) & (row < rows)
    p = np.full(ok.size, -1, dtype=np.int64)
    at = np.flatnonzero(ok)[keep]
    p[at] = row[keep] * cols + col[keep]
    key = (np.minimum(np.floor(r[keep] * RIMG_STEPS), 0xFFFF).astype(np.int64) << 16) \
        | np.asarray(inp["refl"]).astype(np.int64)[at]
    zbuf = np.asarray(inp["zbuf"]).astype(np.int64).copy()
    np.minimum.at(zbuf, p[at], key)
    return {"zbuf": zbuf, "pix": p}


def range_image_zbuf_packed_u32() -> KernelSpec:
    return _spec(
        "range_image_zbuf_packed_u32",
        idiom="lidar spherical projection: atan2 / asin to (row, col), range and FOV drops, z-buffer by one "
              "atomic_min of a uint packing 4 mm range over 16-bit reflectivity, per-point pixel written back",
        sizes={"N": pow2(14, 22, 2), "H": [64, 128]}, check={"N": 4000, "H": 16},
        args=[Arg("npts", "scalar", "int32", "N"), Arg("rows", "scalar", "int32", "H"),
              Arg("cols", "scalar", "int32", "16 * H"), Arg("fov_up", "scalar", "float32", repr(float(RIMG_FOV_UP))),
              Arg("fov_down", "scalar", "float32", repr(float(RIMG_FOV_DOWN))),
              Arg("min_range", "scalar", "float32", repr(RIMG_MIN_R)),
              Arg("max_range", "scalar", "float32", repr(RIMG_MAX_R)),
              Arg("xyz", "buffer", "float32", "N * 3"), Arg("refl", "buffer", "uint16", "N"),
              Arg("zbuf", "buffer", "uint32", "16 * H * H", "inout"), Arg("pix", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_rimg, make_inputs=_inputs_rimg)


# --- ground segmentation in polar bins: lowest point per bin in __local, slope walk, labels ---------------------------
def _gseg_ground(x, y):
    return -GSEG_SENSOR_H + 0.02 * x + 0.5 * np.sin(x / 15.0) * np.cos(y / 20.0)


def _inputs_gseg(rng, sz):
    """N returns of a scene on rolling ground (slopes under 4 deg): 62% ground (3 cm noise), 30% on about S / 4
    objects (within 1.5 m of their centres, 5 cm .. 2 m tall), 5% canopy 2.8 .. 6 m up, 3% multipath 0.3 .. 1 m
    below the ground; ranges log-uniform 2 .. 80 m (objects 4 .. 70 m). Counting-sorted by (sector, 0.5 m bin)."""
    n, s = sz["N"], sz["S"]
    kind = rng.random(n)
    az = rng.uniform(-np.pi, np.pi, n)
    r = np.minimum(2.0 * 40.0 ** rng.random(n), GSEG_BINS * GSEG_BIN_LEN - 1e-3)
    x, y = r * np.cos(az), r * np.sin(az)
    nobj = max(s // 4, 4)
    oa, orr = rng.uniform(-np.pi, np.pi, nobj), rng.uniform(5.5, 68.5, nobj)
    pick = rng.integers(0, nobj, n)
    obj = (kind >= 0.62) & (kind < 0.92)
    x = np.where(obj, orr[pick] * np.cos(oa[pick]) + rng.uniform(-1.5, 1.5, n), x)
    y = np.where(obj, orr[pick] * np.sin(oa[pick]) + rng.uniform(-1.5, 1.5, n), y)
    zg = _gseg_ground(x, y)
    z = np.select([kind < 0.62, kind < 0.92, kind < 0.97],
                  [zg + rng.normal(0.0, 0.03, n), zg + rng.uniform(0.05, 2.0, n), zg + rng.uniform(2.8, 6.0, n)],
                  zg - rng.uniform(0.3, 1.0, n))
    r = np.hypot(x, y)
    sect = np.minimum(((np.arctan2(y, x) + np.pi) * (s / (2 * np.pi))).astype(np.int64), s - 1)
    key = sect * GSEG_BINS + np.minimum((r / GSEG_BIN_LEN).astype(np.int64), GSEG_BINS - 1)
    order = np.argsort(key, kind="stable")
    off = np.concatenate([[0], np.cumsum(np.bincount(key, minlength=s * GSEG_BINS))])
    return {"px": x[order], "py": y[order], "pz": z[order], "cell_off": off}


def _ref_gseg(inp, sz):
    """Every sector at once: the lowest point per cell (first on a tie), the walk bin by bin, heights in float32."""
    s = sz["S"]
    px, py, pz = _f32(inp["px"]), _f32(inp["py"]), _f32(inp["pz"])
    off = np.asarray(inp["cell_off"]).astype(np.int64)
    cells = s * GSEG_BINS
    cell = np.repeat(np.arange(cells), off[1:] - off[:-1])
    order = np.lexsort((np.arange(pz.size), pz, cell))
    full = off[1:] > off[:-1]
    first = order[off[:-1][full]]
    low_z = np.full(cells, np.inf)
    low_r = np.zeros(cells)
    low_z[full] = pz[first]
    low_r[full] = np.hypot(_f64(px[first]), _f64(py[first]))
    low_z, low_r = low_z.reshape(s, GSEG_BINS), low_r.reshape(s, GSEG_BINS)
    slope, tol = float(inp["max_slope"]), float(inp["ground_tol"])
    gz, gr = np.full(s, -float(inp["sensor_h"])), np.zeros(s)
    ground = np.zeros((s, GSEG_BINS))
    for b in range(GSEG_BINS):
        z = low_z[:, b]
        with np.errstate(invalid="ignore"):
            up = np.isfinite(z) & (np.abs(z - gz) <= slope * (low_r[:, b] - gr) + tol)
        gz, gr = np.where(up, z, gz), np.where(up, low_r[:, b], gr)
        ground[:, b] = gz
    h = pz - ground.reshape(-1)[cell].astype(np.float32)
    lab = np.where(h <= np.float32(inp["ground_tol"]), 1, np.where(h > np.float32(inp["max_height"]), 2, 0))
    return {"label": lab, "hag": h}


def ground_polar_slope_local() -> KernelSpec:
    return _spec(
        "ground_polar_slope_local",
        idiom="polar-grid ground segmentation, a group per sector (num_groups loop): bins' lowest points into "
              "__local, a serial outward walk under a slope limit by item 0, per-point bin bisection and 3-way label",
        sizes={"N": pow2(14, 22, 2), "S": [360, 1440]}, check={"N": 4000, "S": 72},
        args=[Arg("nsect", "scalar", "int32", "S"), Arg("nbin", "scalar", "int32", str(GSEG_BINS)),
              Arg("sensor_h", "scalar", "float32", repr(GSEG_SENSOR_H)),
              Arg("max_slope", "scalar", "float32", repr(GSEG_SLOPE)),
              Arg("ground_tol", "scalar", "float32", repr(GSEG_TOL)),
              Arg("max_height", "scalar", "float32", repr(GSEG_MAX_H)),
              Arg("px", "buffer", "float32", "N"), Arg("py", "buffer", "float32", "N"),
              Arg("pz", "buffer", "float32", "N"), Arg("cell_off", "buffer", "int32", f"S * {GSEG_BINS} + 1"),
              Arg("label", "buffer", "int32", "N", "out"), Arg("hag", "buffer", "float32", "N", "out"),
              Arg("low_z", "local", "float32", str(GSEG_BINS)), Arg("low_r", "local", "float32", str(GSEG_BINS)),
              Arg("ground_z", "local", "float32", str(GSEG_BINS))],
        gsize=["S * 64"], local=L1, reference=_ref_gseg, make_inputs=_inputs_gseg)


#: this group's builders, in the order of ``specs()``
BUILDERS = (voxel_mm_centroid_fixed_atomic, range_image_zbuf_packed_u32, ground_polar_slope_local)

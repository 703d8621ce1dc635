"""All-pairs n-body accelerations with softening (rsqrt): naive (unrolled) and local-memory tiled."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, render

INTERACT = """
$T4 interact($T4 a, $T4 pi, $T4 pj, $T eps2)
{
    const $T dx = pj.x - pi.x;
    const $T dy = pj.y - pi.y;
    const $T dz = pj.z - pi.z;
    const $T inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);
    const $T s = pj.w * inv * inv * inv;
    a.x += s * dx;
    a.y += s * dy;
    a.z += s * dz;
    return a;
}
"""

NAIVE = INTERACT + """
__kernel void nbody_naive(const int n, const $T eps2, __global const $T4* pos, __global $T4* acc)
{
    const int i = get_global_id(0);
    const $T4 pi = pos[i];
    $T4 a = ($T4)(0.0$F);
    for (int j = 0; j < n; j += $U) {
$BODY
    }
    acc[i] = a;
}
"""

TILED = INTERACT + """
#define TS $TS
__kernel __attribute__((reqd_work_group_size(TS, 1, 1)))
void nbody_tiled(const int n, const $T eps2, __global const $T4* pos, __global $T4* acc)
{
    __local $T4 tile[TS];
    const int i = get_global_id(0);
    const int lid = get_local_id(0);
    const $T4 pi = pos[i];
    $T4 a = ($T4)(0.0$F);
    for (int t = 0; t < n; t += TS) {
        tile[lid] = pos[t + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < TS; ++j) {
            a = interact(a, pi, tile[j], eps2);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc[i] = a;
}
"""

EPS2 = 0.01


def _make_inputs(prec: Precision):
    def make_inputs(rng, sizes):
        pos = rng.uniform(-1.0, 1.0, (sizes["n"], 4))
        pos[:, 3] = rng.uniform(0.5, 1.0, sizes["n"])
        return {"pos": pos.astype(prec.np)}
    return make_inputs


def _reference(inp, sizes):
    pos = inp["pos"].astype(np.float64).reshape(-1, 4)
    d = pos[None, :, :3] - pos[:, None, :3]
    inv = 1.0 / np.sqrt((d * d).sum(axis=2) + float(inp["eps2"]))
    a = ((pos[None, :, 3] * inv**3)[:, :, None] * d).sum(axis=1)
    return {"acc": np.concatenate([a, np.zeros((len(pos), 1))], axis=1)}


def _spec(prec: Precision, family: str, parts, variant, source, local, constraints,
          n_sizes: list[int]) -> KernelSpec:
    rtol, atol = (2e-3, 2e-3) if prec.name == "fp32" else (1e-8, 1e-8)
    return KernelSpec(
        kernel_id=kernel_id(family, *parts, prec.name), family=family,
        variant={**variant, "precision": prec.name}, kernel_name=family, source=source,
        sizes={"n": n_sizes}, check_sizes={"n": 1024}, constraints=constraints,
        args=[Arg("n", "scalar", "int32", "n"), Arg("eps2", "scalar", prec.dtype, str(EPS2)),
              Arg("pos", "buffer", prec.dtype, "n * 4"), Arg("acc", "buffer", prec.dtype, "n * 4", "out")],
        global_size=["n"], local_sizes=local, make_inputs=_make_inputs(prec), reference=_reference,
        rtol=rtol, atol=atol)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        for u in (1, 4):
            body = "\n".join(f"        a = interact(a, pi, pos[j + {k}], eps2);" for k in range(u))
            out.append(_spec(prec, "nbody_naive", [f"u{u}"], {"unroll": u},
                             render(NAIVE, prec, U=u, BODY=body, T4=f"{prec.ctype}4"), LOCAL_1D,
                             [f"n % {u} == 0"], dense_sizes(8, 18, 4)))
        for ts in (64, 128, 256):
            out.append(_spec(prec, "nbody_tiled", [f"t{ts}"], {"tile": ts},
                             render(TILED, prec, TS=ts, T4=f"{prec.ctype}4"), [[ts]], [f"n % {ts} == 0"],
                             dense_sizes(8, 18, 32)))
    return out

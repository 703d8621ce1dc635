"""Holdout12 kernels, group ops, continued (written by hand; see docs/HOLDOUT12.md): the fitness evaluation of a
genetic algorithm for the job-shop problem in fp64, a work-item per chromosome decoding its operation-based
sequence (a job's k-th occurrence is its k-th operation, on the machine its route names) into the semi-active
schedule with per-job and per-machine free times in private arrays, then the makespan and the total weighted
tardiness; and one step of a multi-start 2-opt local search for the symmetric TSP, a work-group per tour (looping
by the number of groups) with the tour and its edge lengths in __local memory, every move (i, j) priced from the
integer distance matrix, the best improving move per tour by a (delta, move) tree reduction between barriers.
Neither uses atomics. Split from :mod:`.ops` to keep each module short; :mod:`.catalog` lists it after that
group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _f64, _spec, round_up

JSP_WEIGHTS = ((1.0, 2.0, 4.0), (0.2, 0.6, 0.2))  # jobshop_opseq_decode_fp64: job weights and their shares
JSP_DUE = (0.3, 1.1)  # jobshop_opseq_decode_fp64: due dates as a share of the mean machine load

TSP_SIDE = 10000  # two_opt_best_move_local: cities on an integer grid of this side


# --- job-shop GA fitness: decode operation-based chromosomes, fp64 ----------------------------------------------
def _inputs_jsp(rng, sz):
    """P chromosomes of J jobs on M machines, each a random order of the multiset {j x M}; every job's route a
    random permutation of the machines; processing times uniform in [1, 99); due dates JSP_DUE of the mean
    machine load (so some jobs are late and some are not); weights 1, 2, 4 in the shares of JSP_WEIGHTS."""
    p, j, m = sz["P"], sz["J"], sz["M"]
    chrom = rng.permuted(np.broadcast_to(np.repeat(np.arange(j, dtype=np.int32), m), (p, j * m)), axis=1)
    route = np.argsort(rng.random((j, m)), axis=1)
    ptime = rng.uniform(1.0, 99.0, (j, m))
    load = ptime.sum() / m
    return {"chrom": chrom, "route": route, "ptime": ptime, "due": rng.uniform(*JSP_DUE, j) * load,
            "weight": rng.choice(JSP_WEIGHTS[0], j, p=JSP_WEIGHTS[1])}


def _ref_jsp(inp, sz):
    """The semi-active decoding of every chromosome at once, gene by gene."""
    p, j, m = sz["P"], sz["J"], sz["M"]
    chrom = np.asarray(inp["chrom"]).astype(np.int64).reshape(p, j * m)
    route = np.asarray(inp["route"]).astype(np.int64).reshape(j, m)
    ptime = _f64(inp["ptime"]).reshape(j, m)
    job_free, mach_free = np.zeros((p, j)), np.zeros((p, m))
    nxt = np.zeros((p, j), dtype=np.int64)
    rows = np.arange(p)
    for s in range(j * m):
        job = chrom[:, s]
        k = nxt[rows, job]
        nxt[rows, job] += 1
        mach = route[job, k]
        end = np.maximum(job_free[rows, job], mach_free[rows, mach]) + ptime[job, k]
        job_free[rows, job] = end
        mach_free[rows, mach] = end
    late = job_free - _f64(inp["due"])[None, :]
    twt = np.where(late > 0.0, _f64(inp["weight"])[None, :] * late, 0.0).sum(axis=1)
    return {"makespan": job_free.max(axis=1), "tardiness": twt}


def jobshop_opseq_decode_fp64() -> KernelSpec:
    return _spec(
        "jobshop_opseq_decode_fp64", tol=FP64, precision="fp64",
        idiom="job-shop GA fitness in fp64, an item per chromosome: operation-based decoding with job and "
              "machine free times in private arrays, route / time gathers, makespan and weighted tardiness",
        sizes={"J": [10, 20, 50], "M": [10, 20], "P": [1024, 65536]}, check={"J": 7, "M": 5, "P": 100},
        constraints=["M <= J"],
        args=[Arg("npop", "scalar", "int32", "P"), Arg("njobs", "scalar", "int32", "J"),
              Arg("nmach", "scalar", "int32", "M"), Arg("chrom", "buffer", "int32", "P * J * M"),
              Arg("route", "buffer", "int32", "J * M"), Arg("ptime", "buffer", "float64", "J * M"),
              Arg("due", "buffer", "float64", "J"), Arg("weight", "buffer", "float64", "J"),
              Arg("makespan", "buffer", "float64", "P", "out"), Arg("tardiness", "buffer", "float64", "P", "out")],
        gsize=[round_up("P")], local=L1, reference=_ref_jsp, make_inputs=_inputs_jsp)


# --- multi-start 2-opt for the TSP: the best move of each tour, a work-group per tour ---------------------------
def _inputs_tsp(rng, sz):
    """N cities on a TSP_SIDE grid, TSPLIB EUC_2D distances (nearest integer of the Euclidean length); T random
    tours (the restarts of a multi-start search)."""
    n, t = sz["N"], sz["T"]
    xy = rng.integers(0, TSP_SIDE, (n, 2)).astype(np.float64)
    dist = np.floor(np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) + 0.5)
    tours = rng.permuted(np.broadcast_to(np.arange(n, dtype=np.int32), (t, n)), axis=1)
    return {"dist": dist.astype(np.int32), "tours": tours}


def _ref_tsp(inp, sz):
    n, t = sz["N"], sz["T"]
    dist = np.asarray(inp["dist"]).astype(np.int64).reshape(n, n)
    tours = np.asarray(inp["tours"]).astype(np.int64).reshape(t, n)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    valid = (j >= i + 2) & ~((i == 0) & (j == n - 1))
    delta_out, move_out = np.zeros(t, dtype=np.int64), np.full(t, -1, dtype=np.int64)
    for k in range(t):
        c = tours[k]
        cn = np.roll(c, -1)
        edge = dist[c, cn]
        delta = dist[c[:, None], c[None, :]] + dist[cn[:, None], cn[None, :]] - edge[:, None] - edge[None, :]
        delta = np.where(valid, delta, 0)
        best = int(np.argmin(delta))  # row-major: the lowest i, then j, among equal changes
        if delta.flat[best] < 0:
            delta_out[k], move_out[k] = delta.flat[best], best
    return {"best_delta": delta_out, "best_move": move_out}


def two_opt_best_move_local() -> KernelSpec:
    return _spec(
        "two_opt_best_move_local",
        idiom="multi-start 2-opt best move, a group per tour (num_groups loop): tour and edge lengths in __local, "
              "items over i scanning j with integer distance-matrix gathers, (delta, i * n + j) min tree",
        sizes={"N": [128, 256, 512, 1024, 2048], "T": [32, 256]}, check={"N": 90, "T": 12},
        constraints=["T * N * N <= 2**28"],
        args=[Arg("ntour", "scalar", "int32", "T"), Arg("n", "scalar", "int32", "N"),
              Arg("dist", "buffer", "int32", "N * N"), Arg("tours", "buffer", "int32", "T * N"),
              Arg("best_delta", "buffer", "int32", "T", "out"), Arg("best_move", "buffer", "int32", "T", "out"),
              Arg("city", "local", "int32", "N"), Arg("edge", "local", "int32", "N"),
              Arg("red_delta", "local", "int32", "l0"), Arg("red_move", "local", "int32", "l0")],
        gsize=["T * 64"], local=L1, reference=_ref_tsp, make_inputs=_inputs_tsp)


#: this group's builders, in the order of ``specs()``
BUILDERS = (jobshop_opseq_decode_fp64, two_opt_best_move_local)

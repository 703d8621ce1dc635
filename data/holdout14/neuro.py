"""Holdout14 kernels, group neuro (written by hand; see docs/HOLDOUT14.md): two steps of a spiking-network
simulator. A population of single-compartment Hodgkin-Huxley neurons advanced in fp64 by a scalar number of
sub-steps, a work-item per neuron updating its m, h, n gates by the exponential (Rush-Larsen) rule (eight exp
calls a sub-step, two rate functions with a removable singularity) and its membrane potential by forward Euler,
counting upward threshold crossings and stamping the last one; and the spike delivery of one time step, a
work-item per presynaptic neuron testing its bit in a uint32 spike mask and, if it fired, walking its CSR fan-out
list and adding each weight (inhibitory ones scaled by -g_inh) to its target's input current in fixed point with
an integer atomic_add. Neither uses __local memory; the group's other two kernels are in :mod:`.neuro_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, _f32, _f64, _spec, round_up

# hh_soma_rush_larsen_fp64: squid-axon constants (mS/cm^2, mV, uF/cm^2), sub-step (ms)
HH = {"g_na": 120.0, "g_k": 36.0, "g_l": 0.3, "e_na": 50.0, "e_k": -77.0, "e_l": -54.387, "c_m": 1.0}
HH_DT = 0.01
HH_T0 = 250.0  # the interval's start time (ms)

EXC = 0.8  # synapse_fanout_spikebits_atomic: excitatory share of the neurons
G_INH = 4.0  # synapse_fanout_spikebits_atomic: inhibitory weight scale
Q_SCALE = 65536.0  # synapse_fanout_spikebits_atomic: fixed-point units per unit of current
RATE = 0.06  # synapse_fanout_spikebits_atomic: share of neurons that fired this step


# --- Hodgkin-Huxley population, Rush-Larsen gates, fp64 -----------------------------------------------------------
def _inputs_hh(rng, sz):
    """Neurons caught anywhere in their cycle: V uniform -80 .. 30 mV, gates uniform in their usual ranges; injected
    currents 0 .. 20 uA/cm^2 (below and above the rheobase); a few earlier spikes each."""
    n = sz["N"]
    return {"i_ext": rng.uniform(0.0, 20.0, n), "v": rng.uniform(-80.0, 30.0, n),
            "m": rng.uniform(0.02, 0.95, n), "h": rng.uniform(0.05, 0.65, n), "nk": rng.uniform(0.3, 0.75, n),
            "spike_count": rng.integers(0, 20, n), "last_spike": rng.uniform(0.0, HH_T0, n)}


def _ref_hh(inp, sz):
    nsub, dt, t0, vth = sz["S"], float(inp["dt"]), float(inp["t0"]), float(inp["v_thresh"])
    p = {k: float(inp[k]) for k in HH}
    vm, gm, gh, gn = (_f64(inp[k]).copy() for k in ("v", "m", "h", "nk"))
    inj = _f64(inp["i_ext"])
    count = np.asarray(inp["spike_count"]).astype(np.int64).copy()
    tlast = _f64(inp["last_spike"]).copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in range(nsub):
            xm, xn = vm + 40.0, vm + 55.0
            am = np.where(np.abs(xm) < 1e-7, 1.0, 0.1 * xm / (1.0 - np.exp(-0.1 * xm)))
            bm = 4.0 * np.exp(-(vm + 65.0) / 18.0)
            ah = 0.07 * np.exp(-(vm + 65.0) / 20.0)
            bh = 1.0 / (1.0 + np.exp(-0.1 * (vm + 35.0)))
            an = np.where(np.abs(xn) < 1e-7, 0.1, 0.01 * xn / (1.0 - np.exp(-0.1 * xn)))
            bn = 0.125 * np.exp(-(vm + 65.0) / 80.0)
            sm, sh, sn = am + bm, ah + bh, an + bn
            gm = am / sm + (gm - am / sm) * np.exp(-dt * sm)
            gh = ah / sh + (gh - ah / sh) * np.exp(-dt * sh)
            gn = an / sn + (gn - an / sn) * np.exp(-dt * sn)
            i_ion = (p["g_na"] * gm**3 * gh * (vm - p["e_na"]) + p["g_k"] * gn**4 * (vm - p["e_k"])
                     + p["g_l"] * (vm - p["e_l"]))
            vnew = vm + dt * (inj - i_ion) / p["c_m"]
            up = (vm < vth) & (vnew >= vth)
            count += up
            tlast = np.where(up, t0 + (s + 1) * dt, tlast)
            vm = vnew
    return {"v": vm, "m": gm, "h": gh, "nk": gn, "spike_count": count, "last_spike": tlast}


def hh_soma_rush_larsen_fp64() -> KernelSpec:
    return _spec(
        "hh_soma_rush_larsen_fp64", tol=FP64, precision="fp64",
        idiom="Hodgkin-Huxley population in fp64, an item per neuron: scalar-bound sub-step loop, 8 exp rate / "
              "Rush-Larsen gate updates (0/0 limit branches), Euler voltage, threshold-crossing spike count",
        sizes={"N": [4096, 16384, 65536, 262144], "S": [10, 40, 160]}, check={"N": 300, "S": 50},
        constraints=["N * S <= 2**23"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("nsub", "scalar", "int32", "S"),
              Arg("dt", "scalar", "float64", repr(HH_DT)), Arg("t0", "scalar", "float64", repr(HH_T0)),
              Arg("v_thresh", "scalar", "float64", "0.0"),
              *(Arg(k, "scalar", "float64", repr(val)) for k, val in HH.items()),
              Arg("i_ext", "buffer", "float64", "N"), Arg("v", "buffer", "float64", "N", "inout"),
              Arg("m", "buffer", "float64", "N", "inout"), Arg("h", "buffer", "float64", "N", "inout"),
              Arg("nk", "buffer", "float64", "N", "inout"), Arg("spike_count", "buffer", "int32", "N", "inout"),
              Arg("last_spike", "buffer", "float64", "N", "inout")],
        gsize=[round_up("N")], local=L1, reference=_ref_hh, make_inputs=_inputs_hh)


# --- spike delivery through CSR fan-out lists, fixed-point atomics -------------------------------------------------
def _inputs_fanout(rng, sz):
    """N neurons, out-degrees uniform 0 .. 2 K - 1 (the edge arrays padded to N K entries), targets uniform,
    lognormal weights (median 0.05); a random RATE share of the neurons fired; inputs already hold a few
    external contributions (fixed point, -2**16 .. 2**16)."""
    n, k = sz["N"], sz["K"]
    deg = rng.integers(0, 2 * k, n)
    over = int(deg.sum()) - n * k
    while over > 0:  # trim the excess off the largest lists so the edges fit N * K
        cut = min(over, n)
        deg[np.argsort(deg)[-cut:]] -= 1
        over -= cut
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=start[1:])
    ne = int(start[-1])
    fired = rng.random(n) < RATE
    bits = np.packbits(np.concatenate([fired, np.zeros((-n) % 32, dtype=bool)]), bitorder="little")
    target, weight = np.zeros(n * k, dtype=np.int32), np.zeros(n * k, dtype=np.float32)
    target[:ne] = rng.integers(0, n, ne, dtype=np.int32)
    weight[:ne] = np.exp(rng.standard_normal(ne, dtype=np.float32) * np.float32(0.6) + np.float32(np.log(0.05)))
    return {"spike_bits": bits.view(np.uint32), "out_start": start, "out_target": target, "out_weight": weight,
            "i_syn": rng.integers(-2**16, 2**16, n, dtype=np.int32)}


def _ref_fanout(inp, sz):
    n = sz["N"]
    bits = np.unpackbits(np.asarray(inp["spike_bits"], dtype=np.uint32).view(np.uint8), bitorder="little")[:n]
    start = np.asarray(inp["out_start"]).astype(np.int64)
    deg = np.diff(start)
    pre = np.repeat(np.arange(n), deg)
    on = bits[pre].astype(bool)
    e = np.flatnonzero(on)
    q = np.float32(float(inp["q_scale"]))
    s = np.where(pre[e] < int(inp["n_exc"]), q, np.float32(-float(inp["g_inh"])) * q).astype(np.float32)
    add = np.rint(_f32(inp["out_weight"])[e] * s).astype(np.int64)
    i_syn = np.asarray(inp["i_syn"]).astype(np.int64).copy()
    np.add.at(i_syn, np.asarray(inp["out_target"]).astype(np.int64)[e], add)
    return {"i_syn": i_syn}


def synapse_fanout_spikebits_atomic() -> KernelSpec:
    return _spec(
        "synapse_fanout_spikebits_atomic",
        idiom="spike delivery, an item per presynaptic neuron: bit test in a uint32 spike mask (early exit), "
              "CSR fan-out walk, E / I weight sign, float -> fixed-point rte, scattered integer atomic_add",
        sizes={"N": [4096, 16384, 65536, 262144, 1048576], "K": [8, 32]}, check={"N": 500, "K": 10},
        constraints=["N * K <= 2**25"],
        args=[Arg("n", "scalar", "int32", "N"), Arg("n_exc", "scalar", "int32", f"N * {int(EXC * 10)} // 10"),
              Arg("g_inh", "scalar", "float32", str(G_INH)), Arg("q_scale", "scalar", "float32", str(Q_SCALE)),
              Arg("spike_bits", "buffer", "uint32", "(N + 31) // 32"), Arg("out_start", "buffer", "int32", "N + 1"),
              Arg("out_target", "buffer", "int32", "N * K"), Arg("out_weight", "buffer", "float32", "N * K"),
              Arg("i_syn", "buffer", "int32", "N", "inout")],
        gsize=[round_up("N")], local=L1, reference=_ref_fanout, make_inputs=_inputs_fanout)


#: this group's builders, in the order of ``specs()``
BUILDERS = (hh_soma_rush_larsen_fp64, synapse_fanout_spikebits_atomic)

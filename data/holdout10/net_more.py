"""Holdout10 kernels, group net, continued (written by hand; see docs/HOLDOUT10.md): a stateless firewall's
first-match classification of IPv4 5-tuples against an ordered access-control list (masked addresses, port ranges,
protocol or any), the rules walked in tiles staged in __local memory by the work-group, each packet stopping at
its first match; a count-min sketch of bytes per flow, MurmurHash3 of the flow key once per row with the row's
seed and an integer atomic_add of the length per row; and policer dimensioning by trace replay in fp64, the
single-rate three-colour marker of RFC 2697 run over every flow's packets in time order under every candidate
profile on a 2-D (profile, flow) NDRange. One of these kernels uses atomics, on integers. Split from :mod:`.net`
to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f64, _spec, pow2, round_up

ACL_DEFAULT = 0  # acl_first_match_tiles: the action of a packet no rule matches (deny)
ACL_DPORTS = (22, 25, 53, 80, 123, 161, 443, 445, 3389, 8080, 8443)

CMS_DEPTH = 4  # cms_flow_bytes_atomic: sketch rows
CMS_SEEDS = (0x9747B28C, 0x2F3A8D11, 0xC0FFEE42, 0x5BD1E995)  # cms_flow_bytes_atomic: a seed per row

TCM_PKTS = 32  # srtcm_replay_fp64_2d: packets a flow on average (the trace holds exactly F * TCM_PKTS)


# --- firewall: first-match ACL over rule tiles in __local ----------------------------------------------------------
def _prefix_mask(length):
    return ((0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF) * (length > 0)


def _inputs_acl(rng, sz):
    """R rules: source any (45%), a /8 .. /24 of a few internal networks (35%) or a host; destination any (5%), a
    /16 .. /28 of the server networks (70%) or a host; source ports any (85%) or 1024-65535; destination ports any
    (20%), a well-known port (55%) or a range; TCP 45%, UDP 35%, ICMP 5%, any 15%; actions 1 .. 3. Packets: 70%
    built inside a random rule (it or an earlier rule matches), the rest drawn from the same networks."""
    n, r = sz["N"], sz["R"]
    inside = np.array([0x0A000000, 0x0A010000, 0xAC100000, 0xC0A80000, 0x0A140000], dtype=np.int64)
    servers = (0xC6336400 + 256 * rng.integers(0, 64, 16)).astype(np.int64)
    kind = rng.random((2, r))
    slen = np.select([kind[0] < 0.45, kind[0] < 0.8], [0, rng.integers(8, 25, r)], 32)
    dlen = np.select([kind[1] < 0.05, kind[1] < 0.75], [0, rng.integers(16, 29, r)], 32)
    src = np.where(slen == 32, rng.integers(0, 1 << 32, r), inside[rng.integers(0, inside.size, r)]
                   | rng.integers(0, 1 << 16, r))
    dst = servers[rng.integers(0, servers.size, r)] | rng.integers(0, 256, r)
    smask, dmask = _prefix_mask(slen), _prefix_mask(dlen)
    sp = np.where(rng.random(r) < 0.85, 0xFFFF << 16, (0xFFFF << 16) | 1024)
    well = np.array(ACL_DPORTS, dtype=np.int64)[rng.integers(0, len(ACL_DPORTS), r)]
    lo = rng.integers(1024, 60000, r)
    dkind = rng.random(r)
    span = lo | ((lo + rng.integers(0, 2000, r)) << 16)
    dp = np.select([dkind < 0.2, dkind < 0.75], [0xFFFF << 16, well * 65537], span)
    proto = rng.choice([6, 17, 1, 0], r, p=[0.45, 0.35, 0.05, 0.15])
    rules = np.stack([src & smask, smask, dst & dmask, dmask, sp, dp, proto | ((proto > 0) * 0xFF << 8),
                      rng.integers(1, 4, r)], 1)
    k = rng.integers(0, r, n)
    built = rng.random(n) < 0.7
    rnd = rng.integers(0, 1 << 32, (4, n))
    psrc = np.where(built, rules[k, 0] | (rnd[0] & ~rules[k, 1] & 0xFFFFFFFF),
                    inside[rnd[1] % inside.size] | (rnd[0] & 0xFFFF))
    pdst = np.where(built, rules[k, 2] | (rnd[1] & ~rules[k, 3] & 0xFFFFFFFF),
                    servers[rnd[2] % servers.size] | (rnd[1] & 255))
    dlo, dhi = rules[k, 5] & 0xFFFF, rules[k, 5] >> 16
    other = np.where(rnd[3] % 2 == 0, well[rnd[2] % r], rnd[2] & 0xFFFF)
    dport = np.where(built, dlo + rnd[2] % (dhi - dlo + 1), other)
    sport = np.where(rnd[3] % 16 == 0, rnd[3] >> 16 & 1023, 1024 + (rnd[3] >> 8) % 64512)
    pproto = np.array([6, 17, 1], dtype=np.int64)[rnd[3] % 5 % 3]
    pproto = np.where(built & (rules[k, 6] > 0), rules[k, 6] & 255, pproto)
    tuples = np.stack([psrc, pdst, (sport << 16) | dport, pproto], 1)
    return {"tuples": tuples.astype(np.uint32), "rules": rules.astype(np.uint32)}


def _ref_acl(inp, sz):
    """The packets against all rules at once (a chunk of packets at a time): the first True of each row."""
    n, r = sz["N"], sz["R"]
    t = np.asarray(inp["tuples"]).astype(np.int64).reshape(n, 4)
    ru = np.asarray(inp["rules"]).astype(np.int64).reshape(r, 8)
    hit = np.full(n, -1, dtype=np.int64)
    for c in range(0, n, 4096):
        s, d = t[c:c + 4096, 0:1], t[c:c + 4096, 1:2]
        sp, dp, pr = t[c:c + 4096, 2:3] >> 16, t[c:c + 4096, 2:3] & 0xFFFF, t[c:c + 4096, 3:4]
        m = ((s & ru[:, 1]) == ru[:, 0]) & ((d & ru[:, 3]) == ru[:, 2])
        m &= (sp >= (ru[:, 4] & 0xFFFF)) & (sp <= (ru[:, 4] >> 16))
        m &= (dp >= (ru[:, 5] & 0xFFFF)) & (dp <= (ru[:, 5] >> 16))
        m &= (pr & (ru[:, 6] >> 8)) == (ru[:, 6] & 0xFF)
        hit[c:c + 4096] = np.where(m.any(1), m.argmax(1), -1)
    act = np.where(hit >= 0, ru[np.maximum(hit, 0), 7], int(inp["default_action"]))
    return {"rule_hit": hit, "action": act}


def acl_first_match_tiles() -> KernelSpec:
    return _spec(
        "acl_first_match_tiles",
        idiom="first-match ACL per 5-tuple: rule tiles of 8 uint words staged in __local with barriers, masked "
              "address / port range / protocol tests, scan stops at the packet's first match",
        sizes={"N": pow2(12, 20, 2), "R": [64, 256, 1024]}, check={"N": 2000, "R": 300},
        args=[Arg("npkt", "scalar", "int32", "N"), Arg("nrule", "scalar", "int32", "R"),
              Arg("default_action", "scalar", "int32", str(ACL_DEFAULT)), Arg("tuples", "buffer", "uint32", "N * 4"),
              Arg("rules", "buffer", "uint32", "R * 8"), Arg("rule_hit", "buffer", "int32", "N", "out"),
              Arg("action", "buffer", "int32", "N", "out"), Arg("tile", "local", "uint32", "l0 * 8")],
        gsize=[round_up("N")], local=L1, reference=_ref_acl, make_inputs=_inputs_acl)


# --- count-min sketch of bytes per flow: MurmurHash3 per row, integer atomics --------------------------------------
def _murmur3_key16(words, seed):
    """MurmurHash3_x86_32 of four uint32 words (little-endian bytes, as the kernel's word loads) for each row."""
    m32 = 0xFFFFFFFF
    rotl = lambda x, s: ((x << s) | (x >> (32 - s))) & m32  # noqa: E731
    h = np.full(words.shape[0], seed, dtype=np.int64)
    for j in range(4):
        k = (words[:, j] * 0xCC9E2D51) & m32
        k = (rotl(k, 15) * 0x1B873593) & m32
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & m32
    h ^= 16
    h = ((h ^ (h >> 16)) * 0x85EBCA6B) & m32
    h = ((h ^ (h >> 13)) * 0xC2B2AE35) & m32
    return h ^ (h >> 16)


def _inputs_cms(rng, sz):
    """N packets of N / 16 flows (random 5-tuples), a flow's rank drawn log-uniform (a few elephants, many mice);
    Ethernet IMIX lengths 64 / 594 / 1518 (7 : 4 : 1); the sketch holding an earlier batch's counts."""
    n, w = sz["N"], sz["W"]
    f = max(n // 16, 2)
    keys = rng.integers(0, 1 << 32, (f, 4), dtype=np.uint32)
    keys[:, 3] = rng.choice(np.array([6, 17, 1], dtype=np.uint32), f, p=[0.8, 0.18, 0.02])
    rank = (f ** rng.random(n)).astype(np.int64) - 1
    lens = np.array([64, 64, 64, 64, 64, 64, 64, 594, 594, 594, 594, 1518], dtype=np.int32)
    return {"flow_key": keys[np.minimum(rank, f - 1)], "pkt_len": lens[rng.integers(0, 12, n)],
            "row_seed": np.array(CMS_SEEDS, dtype=np.uint32),
            "sketch": rng.integers(0, 1 << 20, CMS_DEPTH * w, dtype=np.uint32)}


def _ref_cms(inp, sz):
    n, w = sz["N"], sz["W"]
    keys = np.asarray(inp["flow_key"]).astype(np.int64).reshape(n, 4)
    lens = np.asarray(inp["pkt_len"]).astype(np.int64)
    sk = np.asarray(inp["sketch"]).astype(np.int64).reshape(-1, w).copy()
    for r in range(int(inp["depth"])):
        h = _murmur3_key16(keys, int(np.asarray(inp["row_seed"])[r]))
        sk[r] += np.bincount(h & (w - 1), weights=lens, minlength=w).astype(np.int64)
    return {"sketch": sk & 0xFFFFFFFF}


def cms_flow_bytes_atomic() -> KernelSpec:
    return _spec(
        "cms_flow_bytes_atomic",
        idiom="count-min sketch of flow bytes per packet: MurmurHash3 of the 4-word key once per row seed, "
              "uint atomic_add of the length into each row, Zipf-like flow contention",
        sizes={"N": pow2(10, 22, 2), "W": [2**12, 2**16]}, check={"N": 3000, "W": 2**10},
        args=[Arg("npkt", "scalar", "int32", "N"), Arg("depth", "scalar", "int32", str(CMS_DEPTH)),
              Arg("width_mask", "scalar", "uint32", "W - 1"), Arg("flow_key", "buffer", "uint32", "N * 4"),
              Arg("pkt_len", "buffer", "int32", "N"), Arg("row_seed", "buffer", "uint32", str(CMS_DEPTH)),
              Arg("sketch", "buffer", "uint32", f"{CMS_DEPTH} * W", "inout")],
        gsize=[round_up("N")], local=L1, reference=_ref_cms, make_inputs=_inputs_cms)


# --- policer sweep: srTCM (RFC 2697) per (profile, flow) in fp64, 2-D ------------------------------------------------
def _inputs_tcm(rng, sz):
    """F flows of F * TCM_PKTS packets (a share each from log-normal weights, at least one), each with a
    log-normal rate (median 200 kB/s), mostly full-size or mostly small packets, and on-off arrivals (gaps a
    fifth of the mean 80% of the time, four times it otherwise) from a start in the first 10 s. Profiles: CIR
    log-uniform 10 kB/s .. 10 MB/s, CBS the CIR times 5 .. 200 ms (at least 1500 bytes), EBS 1 .. 4 CBS."""
    f, p = sz["F"], sz["P"]
    m = f * TCM_PKTS
    w = rng.lognormal(0.0, 1.2, f)
    cnt = 1 + rng.multinomial(m - f, w / w.sum())
    off = np.concatenate([[0], np.cumsum(cnt)])
    flow = np.repeat(np.arange(f), cnt)
    big = rng.random(f) < 0.5
    lens = np.where(rng.random(m) < np.where(big, 0.85, 0.15)[flow], 1500, rng.integers(40, 600, m))
    rate = 2e5 * rng.lognormal(0.0, 1.5, f)
    gap = rng.exponential(1.0, m) * np.where(rng.random(m) < 0.8, 0.2, 4.2) * lens / rate[flow]
    gap[off[:-1]] = rng.uniform(0.0, 10.0, f)
    cum = np.cumsum(gap)
    t = cum - np.repeat(cum[off[:-1]] - gap[off[:-1]], cnt)
    cir = 10.0 ** rng.uniform(4.0, 7.0, p)
    cbs = np.maximum(cir * 10.0 ** rng.uniform(np.log10(0.005), np.log10(0.2), p), 1500.0)
    return {"flow_off": off, "pkt_time": t, "pkt_len": lens, "cir": cir, "cbs": cbs,
            "ebs": cbs * rng.uniform(1.0, 4.0, p)}


def _ref_tcm(inp, sz):
    """Every (flow, profile) pair at once, packet k of each flow in step k."""
    f, p = sz["F"], sz["P"]
    off = np.asarray(inp["flow_off"]).astype(np.int64)
    t, ln = _f64(inp["pkt_time"]), _f64(inp["pkt_len"])
    cir, cbs, ebs = (_f64(inp[k])[None, :] for k in ("cir", "cbs", "ebs"))
    cnt = off[1:] - off[:-1]
    tc, te = np.repeat(cbs, f, 0), np.repeat(ebs, f, 0)
    col = np.zeros((3, f, p))
    last = t[np.minimum(off[:-1], t.size - 1)][:, None]
    for k in range(int(cnt.max())):
        live = (k < cnt)[:, None]
        j = np.minimum(off[:-1] + k, t.size - 1)
        tk, b = t[j][:, None], ln[j][:, None]
        add = (tk - last) * cir
        last = np.where(live, tk, last)
        room = cbs - tc
        fill = add <= room
        tc1 = np.where(fill, tc + add, cbs)
        te1 = np.where(fill, te, np.minimum(ebs, te + (add - room)))
        g = tc1 >= b
        y = ~g & (te1 >= b)
        tc = np.where(live, np.where(g, tc1 - b, tc1), tc)
        te = np.where(live, np.where(y, te1 - b, te1), te)
        col += np.where(live, np.stack([g, y, ~g & ~y]) * b, 0.0)
    return {"color_bytes": np.stack(col, 2), "bucket_end": np.stack([tc, te], 2)}


def srtcm_replay_fp64_2d() -> KernelSpec:
    return _spec(
        "srtcm_replay_fp64_2d", tol=FP64, precision="fp64",
        idiom="srTCM policer replay in fp64, 2-D (profile, flow): walk the flow's packets in time order, token "
              "fill with spill and caps, green / yellow / red branch per packet, byte counts and end buckets",
        sizes={"F": pow2(9, 16), "P": [24, 64]}, check={"F": 150, "P": 24},
        constraints=["F * P <= 2**21"],
        args=[Arg("nprof", "scalar", "int32", "P"), Arg("nflow", "scalar", "int32", "F"),
              Arg("flow_off", "buffer", "int32", "F + 1"), Arg("pkt_time", "buffer", "float64", f"F * {TCM_PKTS}"),
              Arg("pkt_len", "buffer", "int32", f"F * {TCM_PKTS}"), Arg("cir", "buffer", "float64", "P"),
              Arg("cbs", "buffer", "float64", "P"), Arg("ebs", "buffer", "float64", "P"),
              Arg("color_bytes", "buffer", "int32", "F * P * 3", "out"),
              Arg("bucket_end", "buffer", "float64", "F * P * 2", "out")],
        gsize=[round_up("P", 32), round_up("F", 16)], local=L2, reference=_ref_tcm, make_inputs=_inputs_tcm)


#: this group's builders, in the order of ``specs()``
BUILDERS = (acl_first_match_tiles, cms_flow_bytes_atomic, srtcm_replay_fp64_2d)

"""Holdout10 kernels, group net (written by hand; see docs/HOLDOUT10.md): software data planes as packet-processing
programmers write them: the IPv4 forwarding step of a router, a TTL check and then the longest-prefix match of
the destination in a 16-8-8 multibit trie built by controlled prefix expansion (one, two or three uint32 table
reads depending on the address); receive-side scaling in software, the Toeplitz hash of IPv4 or IPv6 flow fields
(2 to 9 input words by the packet's flags) under a 40-byte key by a loop over the input bits, then the redirection
table; and checksum verification of a receive batch, a work-group per variable-length packet (looping by the
number of groups) summing the IPv4 header and the TCP / UDP / ICMP words in __local memory before the pseudo-header
and the carry fold. None of these three uses atomics; the group's other three kernels are in :mod:`.net_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, _spec, pow2, round_up

LPM_EXT = 0x80000000  # lpm16_8_8_forward_ttl: the entry names a chunk of the next level (EXT in the source)
LPM_HOPS = 4096  # lpm16_8_8_forward_ttl: next-hop ids 1 .. LPM_HOPS - 1

#: toeplitz_rss_reta_v4v6: the 40-byte key of the Microsoft RSS specification (the drivers' default)
RSS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")
RSS_QUEUES = 16  # toeplitz_rss_reta_v4v6: receive queues the redirection table spreads over
RSS_DPORTS = (80, 443, 53, 22, 25, 123, 8080, 3306, 5432, 6379, 11211, 4789)

CS_IMIX = (46, 576, 1500)  # inet_csum_verify_group: IP lengths of the simple IMIX, 7 : 4 : 1 (6 bytes cut at most)
CS_SLOT = 352  # inet_csum_verify_group: bytes of pkt a packet on average (the IMIX mean is 343.8)


# --- IPv4 forwarding: TTL check, longest-prefix match in a 16-8-8 trie ---------------------------------------------
def _lpm_routes(rng, r):
    """About r distinct routes (prefix, length, next hop) of a BGP-like table: an eleventh of them /8 .. /16, a
    thirty-second /25 .. /32, the rest /17 .. /24 (most /24); the routes longer than /16 fall in r / 8 /16 blocks."""
    n_short, n_long = r // 11, r // 32
    n_mid = r - n_short - n_long
    blocks = rng.choice(np.arange(1 << 8, 224 << 8), r // 8, replace=False).astype(np.int64)
    ls = rng.choice(np.arange(8, 17), n_short, p=np.array([1, 1, 1, 1, 2, 2, 3, 4, 20]) / 35)
    lm = rng.choice(np.arange(17, 25), n_mid, p=np.array([2, 2, 3, 4, 5, 9, 10, 65]) / 100)
    ll = rng.choice(np.arange(25, 33), n_long, p=np.array([1, 1, 1, 1, 1, 1, 2, 4]) / 12)
    ps = rng.integers(1 << 24, 224 << 24, n_short)
    pm = (blocks[rng.integers(0, blocks.size, n_mid)] << 16) | rng.integers(0, 1 << 16, n_mid)
    pl = (blocks[rng.integers(0, blocks.size, n_long)] << 16) | rng.integers(0, 1 << 16, n_long)
    ln = np.concatenate([ls, lm, ll]).astype(np.int64)
    pfx = np.concatenate([ps, pm, pl]) & ((0xFFFFFFFF << (32 - ln)) & 0xFFFFFFFF)
    _, first = np.unique(pfx * 64 + ln, return_index=True)
    pfx, ln = pfx[first], ln[first]
    return pfx, ln, rng.integers(1, LPM_HOPS, pfx.size)


def _lpm_expand(table, base, ln, nh, lo, hi):
    """Controlled prefix expansion of the routes of lengths lo .. hi into one level (its last bit hi), shortest
    first so that longer prefixes win; base: each route's first entry."""
    for length in range(lo, hi + 1):
        sel = ln == length
        if sel.any():
            span = 1 << (hi - length)
            table[(base[sel][:, None] + np.arange(span)[None, :]).ravel()] = np.repeat(nh[sel], span)


def _inputs_lpm(rng, sz):
    """The trie of _lpm_routes (tbl24 room for r / 8 chunks, tbl32 for r / 32); destinations 80% inside a random
    route's prefix, 20% anywhere; TTLs 2 .. 128, 3% of them 0 or 1."""
    n, r = sz["N"], sz["R"]
    pfx, ln, nh = _lpm_routes(rng, r)
    t16 = np.zeros(1 << 16, dtype=np.int64)
    _lpm_expand(t16, pfx >> 16, ln, nh, 0, 16)
    slots = np.unique(pfx[ln > 16] >> 16)
    chunk2 = np.zeros(1 << 16, dtype=np.int64)
    chunk2[slots] = np.arange(slots.size)
    t24 = np.repeat(t16[slots], 256)
    _lpm_expand(t24, chunk2[pfx >> 16] * 256 + ((pfx >> 8) & 255), ln, nh, 17, 24)
    k24 = np.unique(pfx[ln > 24] >> 8)
    pos24 = chunk2[k24 >> 8] * 256 + (k24 & 255)
    t32 = np.repeat(t24[pos24], 256)
    chunk3 = np.searchsorted(k24, pfx >> 8)
    _lpm_expand(t32, np.minimum(chunk3, max(k24.size - 1, 0)) * 256 + (pfx & 255), ln, nh, 25, 32)
    t24[pos24] = LPM_EXT | np.arange(k24.size)
    t16[slots] = LPM_EXT | np.arange(slots.size)
    tbl24 = np.zeros(r // 8 * 256, dtype=np.uint32)
    tbl24[:t24.size] = t24
    tbl32 = np.zeros(r // 32 * 256, dtype=np.uint32)
    tbl32[:t32.size] = t32
    pick = rng.integers(0, pfx.size, n, dtype=np.int32)
    low, ctl = rng.integers(0, 1 << 32, (2, n), dtype=np.uint32)  # ctl: bits 0-9 inside, 10-19 punt, 20- TTL
    host = ((1 << (32 - ln)) - 1).astype(np.uint32)
    dst = np.where((ctl & 1023) < 819, pfx.astype(np.uint32)[pick] | (low & host[pick]), low)
    ttl = np.where(((ctl >> 10) & 1023) < 31, (ctl >> 20) & 1, 2 + (ctl >> 20) % 127)
    return {"dst_addr": dst, "ttl": ttl.astype(np.uint8), "tbl16": t16.astype(np.uint32),
            "tbl24": tbl24, "tbl32": tbl32}


def _ref_lpm(inp, sz):
    """The trie walked for all packets at once, level by level; then the TTL rule."""
    a = np.asarray(inp["dst_addr"]).astype(np.int64)
    ttl = np.asarray(inp["ttl"]).astype(np.int64)
    tabs = [np.asarray(inp[k]).astype(np.int64) for k in ("tbl16", "tbl24", "tbl32")]
    e = tabs[0][a >> 16]
    for tab, shift in ((tabs[1], 8), (tabs[2], 0)):
        ext = (e & LPM_EXT) != 0
        idx = ((e & ~LPM_EXT) << 8) | ((a >> shift) & 255)
        e = np.where(ext, tab[np.where(ext, idx, 0)], e)
    punt = ttl <= 1
    hop = np.where(punt, -2, np.where(e == 0, -1, e))
    return {"next_hop": hop, "ttl": np.where(hop > 0, ttl - 1, ttl)}


def lpm16_8_8_forward_ttl() -> KernelSpec:
    return _spec(
        "lpm16_8_8_forward_ttl",
        idiom="IPv4 forwarding per packet: TTL punt, then longest-prefix match in a 16-8-8 expanded trie, 1-3 "
              "dependent uint32 table reads by the address, TTL decrement in place",
        sizes={"N": pow2(12, 24, 2), "R": [2**12, 2**16]}, check={"N": 3000, "R": 2**11},
        args=[Arg("npkt", "scalar", "int32", "N"), Arg("dst_addr", "buffer", "uint32", "N"),
              Arg("ttl", "buffer", "uint8", "N", "inout"), Arg("tbl16", "buffer", "uint32", "65536"),
              Arg("tbl24", "buffer", "uint32", "R // 8 * 256"), Arg("tbl32", "buffer", "uint32", "R // 32 * 256"),
              Arg("next_hop", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_lpm, make_inputs=_inputs_lpm)


# --- software RSS: Toeplitz hash of IPv4 / IPv6 flow fields, redirection table ----------------------------------------
def _rss_key_words():
    return np.frombuffer(RSS_KEY, dtype=">u4").astype(np.uint32)


def _inputs_rss(rng, sz):
    """Descriptors: 30% IPv6; 92% with TCP/UDP ports, 3% fragments; IPv4 addresses from a few hundred /16s,
    IPv6 ones random under 2001:db8::/32; ephemeral source ports, well-known destination ports. The redirection
    table spreads Q entries round-robin over RSS_QUEUES queues."""
    n, q = sz["N"], sz["Q"]
    d = np.zeros((n, 10), dtype=np.uint32)
    v6 = rng.random(n) < 0.3
    l4 = rng.random(n) < 0.92
    frag = rng.random(n) < 0.03
    d[:, 0] = v6 * 1 + l4 * 2 + frag * 4
    nets = rng.integers(0x0A00, 0xDF00, 300, dtype=np.uint32)
    for col in (1, 5):
        d[:, col] = (nets[rng.integers(0, nets.size, n)] << 16) | rng.integers(0, 1 << 16, n, dtype=np.uint32)
        words = rng.integers(0, 1 << 32, (n, 4), dtype=np.uint32)
        words[:, 0] = 0x20010DB8
        d[v6, col:col + 4] = words[v6]
    dport = np.array(RSS_DPORTS, dtype=np.uint32)[rng.integers(0, len(RSS_DPORTS), n)]
    d[:, 9] = np.where(l4, (rng.integers(32768, 61000, n, dtype=np.uint32) << 16) | dport, 0)
    return {"desc": d, "rss_key": _rss_key_words(), "reta": (np.arange(q) % RSS_QUEUES).astype(np.int32)}


def _ref_rss(inp, sz):
    n = sz["N"]
    d = np.asarray(inp["desc"]).astype(np.int64).reshape(n, 10)
    key = [int(k) for k in np.asarray(inp["rss_key"])]
    v6 = (d[:, 0] & 1) != 0
    ports = ((d[:, 0] & 2) != 0) & ((d[:, 0] & 4) == 0)
    words = np.where(v6[:, None], d[:, 1:10], 0)
    words[~v6, 0], words[~v6, 1], words[~v6, 2] = d[~v6, 1], d[~v6, 5], d[~v6, 9]
    words[v6 & ~ports, 8] = 0
    words[~v6 & ~ports, 2] = 0
    h = np.zeros(n, dtype=np.int64)
    for w in range(9):
        window = (key[w] << 32) | key[w + 1]
        for b in range(32):
            bit = (words[:, w] >> (31 - b)) & 1
            h ^= bit * ((window >> (32 - b)) & 0xFFFFFFFF)
    reta = np.asarray(inp["reta"]).astype(np.int64)
    return {"rss_hash": h, "rx_queue": reta[h & int(inp["reta_mask"])]}


def toeplitz_rss_reta_v4v6() -> KernelSpec:
    return _spec(
        "toeplitz_rss_reta_v4v6",
        idiom="software RSS per packet: flag-dependent 2-9 uint words, Toeplitz hash by a loop over input bits "
              "XORing 64-bit key windows, redirection-table gather",
        sizes={"N": pow2(10, 22, 2), "Q": [128, 512]}, check={"N": 2000, "Q": 128},
        args=[Arg("npkt", "scalar", "int32", "N"), Arg("reta_mask", "scalar", "uint32", "Q - 1"),
              Arg("desc", "buffer", "uint32", "N * 10"), Arg("rss_key", "buffer", "uint32", "10"),
              Arg("reta", "buffer", "int32", "Q"), Arg("rss_hash", "buffer", "uint32", "N", "out"),
              Arg("rx_queue", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_rss, make_inputs=_inputs_rss)


# --- checksum verification, a work-group per packet: header and L4 sums in __local -----------------------------------
def _word_sums(buf, starts, ends):
    """Ones'-complement style sums (no fold) of big-endian 16-bit words over [starts, ends) of buf, each range
    from its own start (an odd last byte padded), by prefix sums of the bytes at even and odd positions."""
    b = np.asarray(buf).astype(np.int64)
    pos = np.arange(b.size)
    ce = np.concatenate([[0], np.cumsum(np.where(pos % 2 == 0, b, 0))])
    co = np.concatenate([[0], np.cumsum(np.where(pos % 2 == 1, b, 0))])
    se, so = ce[ends] - ce[starts], co[ends] - co[starts]
    return np.where(starts % 2 == 0, (se << 8) + so, (so << 8) + se)


def _fold(s):
    s = np.asarray(s, dtype=np.int64)
    while np.any(s >> 16):
        s = (s & 0xFFFF) + (s >> 16)
    return s


def _inputs_csum(rng, sz):
    """P IPv4 packets back to back, IMIX lengths (7 : 4 : 1 of 46, 576, 1500 bytes, 0 .. 6 cut off), random
    payload; 10% of the longer ones carry 4 .. 12 bytes of options; TCP 70%, UDP 25%, ICMP 4%, GRE 1%; correct
    checksums (10% of the UDP ones zero), then damage: 2% a header byte, 3% a payload byte, 1% a total length
    above the captured one, 0.5% version 6."""
    p = sz["P"]
    n46, n576 = 7 * p // 12, 4 * p // 12
    ln = np.concatenate([np.full(n46, CS_IMIX[0]), np.full(n576, CS_IMIX[1]), np.full(p - n46 - n576, CS_IMIX[2])])
    ln = rng.permutation(ln) - rng.integers(0, 7, p)
    off = np.concatenate([[0], np.cumsum(ln)])
    buf = rng.integers(0, 256, int(off[-1]), dtype=np.uint8)
    at = off[:-1]
    ihl = np.where((rng.random(p) < 0.1) & (ln > 100), rng.integers(6, 9, p), 5) * 4
    proto = rng.choice([6, 17, 1, 47], p, p=[0.70, 0.25, 0.04, 0.01])
    nb = ln - ihl
    fields = {0: 0x40 | ihl // 4, 1: 0, 2: ln >> 8, 3: ln & 255, 6: 0x40, 7: 0, 9: proto, 10: 0, 11: 0}
    for k, v in fields.items():
        buf[at + k] = v
    l4 = at + ihl
    udp = proto == 17
    buf[l4[udp] + 4], buf[l4[udp] + 5] = nb[udp] >> 8, nb[udp] & 255
    cpos = np.select([proto == 6, udp, proto == 1], [l4 + 16, l4 + 6, l4 + 2], -1)
    has = cpos >= 0
    buf[cpos[has]], buf[cpos[has] + 1] = 0, 0
    idx = np.stack([at, l4], 1).reshape(-1)
    s16 = lambda x: ((x[0::2].astype(np.int64) << 8) | x[1::2])  # noqa: E731 - big-endian words of a row
    even, odd = buf.copy(), buf.copy()
    even[1::2], odd[0::2] = 0, 0
    se = np.add.reduceat(even, idx, dtype=np.int64)
    so = np.add.reduceat(odd, idx, dtype=np.int64)
    sums = np.where(idx % 2 == 0, (se << 8) + so, (so << 8) + se).reshape(p, 2)
    hdr = ~_fold(sums[:, 0]) & 0xFFFF
    buf[at + 10], buf[at + 11] = hdr >> 8, hdr & 255
    pseudo = s16(buf[(at[:, None] + np.arange(12, 20)[None, :])].T).sum(0) + proto + nb
    l4c = ~_fold(sums[:, 1] + np.where((proto == 6) | udp, pseudo, 0)) & 0xFFFF
    l4c = np.where(udp & (l4c == 0), 0xFFFF, l4c)
    l4c = np.where(udp & (rng.random(p) < 0.1), 0, l4c)
    buf[cpos[has]], buf[cpos[has] + 1] = l4c[has] >> 8, l4c[has] & 255
    dmg = rng.random(p)
    r = np.flatnonzero(dmg < 0.02)
    buf[at[r] + 8] += 1  # the TTL
    r = np.flatnonzero((dmg >= 0.02) & (dmg < 0.05))
    buf[l4[r] + (rng.random(r.size) * nb[r]).astype(np.int64)] ^= rng.integers(1, 256, r.size, dtype=np.uint8)
    r = np.flatnonzero((dmg >= 0.05) & (dmg < 0.06))
    buf[at[r] + 2], buf[at[r] + 3] = (ln[r] + 4) >> 8, (ln[r] + 4) & 255
    buf[at[(dmg >= 0.06) & (dmg < 0.065)]] = 0x65
    full = np.zeros(p * CS_SLOT, dtype=np.uint8)
    full[:buf.size] = buf
    return {"pkt": full, "pkt_off": off}


def _ref_csum(inp, sz):
    buf = np.asarray(inp["pkt"]).astype(np.int64)
    off = np.asarray(inp["pkt_off"]).astype(np.int64)
    at, cap = off[:-1], off[1:] - off[:-1]
    ver, ihl = buf[at] >> 4, (buf[at] & 15) * 4
    tot, proto = (buf[at + 2] << 8) | buf[at + 3], buf[at + 9]
    bad = (ver != 4) | (ihl < 20) | (tot < ihl) | (tot > cap)
    ihl_ok, tot_ok = np.where(bad, 20, ihl), np.where(bad, 20, tot)
    hs = _fold(_word_sums(buf, at, at + ihl_ok))
    nb = tot_ok - ihl_ok
    ls = _word_sums(buf, at + ihl_ok, at + tot_ok)
    pw = lambda k: (buf[at + k] << 8) | buf[at + k + 1]  # noqa: E731
    tcp, udp = proto == 6, proto == 17
    ls = ls + np.where(tcp | udp, pw(12) + pw(14) + pw(16) + pw(18) + proto + nb, 0)
    l4 = at + ihl_ok
    field = buf[np.minimum(l4 + 6, buf.size - 1)] | buf[np.minimum(l4 + 7, buf.size - 1)]
    udp_sent = udp & (nb >= 8) & (field != 0)
    check = ~bad & (tcp | (proto == 1) | udp_sent)
    l4s = np.where(check, _fold(ls), 0)
    st = np.where(bad, 9, 2 * (hs != 0xFFFF) + 4 * (check & (l4s != 0xFFFF)) + 8 * ~check)
    return {"status": st, "l4_sum": l4s}


def inet_csum_verify_group() -> KernelSpec:
    return _spec(
        "inet_csum_verify_group",
        idiom="IPv4 + TCP/UDP/ICMP checksum check, a group per variable-length packet (num_groups loop): strided "
              "16-bit word sums, two __local tree sums, pseudo-header and carry fold by item 0",
        sizes={"P": pow2(8, 17)}, check={"P": 600},
        args=[Arg("npkt", "scalar", "int32", "P"), Arg("pkt", "buffer", "uint8", f"P * {CS_SLOT}"),
              Arg("pkt_off", "buffer", "int32", "P + 1"), Arg("status", "buffer", "int32", "P", "out"),
              Arg("l4_sum", "buffer", "uint32", "P", "out"), Arg("hsum", "local", "uint32", "l0"),
              Arg("lsum", "local", "uint32", "l0")],
        gsize=["min(P, 4096) * 64"], local=L1, reference=_ref_csum, make_inputs=_inputs_csum)


#: this group's builders, in the order of ``specs()``
BUILDERS = (lpm16_8_8_forward_ttl, toeplitz_rss_reta_v4v6, inet_csum_verify_group)

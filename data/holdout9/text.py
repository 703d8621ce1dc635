"""Holdout9 kernels, group text (written by hand; see docs/HOLDOUT9.md): text processing and security as
application programmers write them: a multi-pattern signature scan of web log records with an Aho-Corasick automaton
in its goto / failure-link form (case folded, a record per work-item), a typosquatting check of domain names against
brand names by Myers' bit-vector Levenshtein distance on a 2-D (domain, brand) NDRange with a give-up bound, and
AES-128 in counter mode with the T-tables staged in __local memory (uint32 data, four blocks a work-item). None of
these three uses atomics; the group's other three kernels are in :mod:`.text_more`."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, _spec, pow2, round_up

#: ac_signature_scan_records: the signatures (lower case; at most 32, one bit each in pat_mask)
AC_SIGNATURES = (
    "union select", "select ", " or 1=1", "' or '", "drop table", "insert into", "sleep(", "benchmark(",
    "information_schema", "xp_cmdshell", "<script", "javascript:", "onerror=", "onload=", "alert(",
    "document.cookie", "eval(", "../", "..%2f", "/etc/passwd", "/bin/sh", "cmd.exe", "wget http", "curl http",
    "%00", "${jndi:", "base64_decode", "phpinfo", "<?php", "/wp-admin", ".env", "select",
)
#: ac_signature_scan_records: benign words the request lines are made of
AC_WORDS = (
    "get", "post", "head", "/index.html", "/api/v2/items", "/static/app.js", "/images/logo.png", "http/1.1",
    "user-agent:", "mozilla/5.0", "(x11; linux x86_64)", "accept:", "text/html", "id=", "page=", "q=", "&",
    "?", "=", "200", "404", "301", "-", "\"", "search", "login", "session", "token", "lang=en", "sort=asc",
    "select-box", "orders", "1", "42", "2024", "union", "table", "script", "admin", "passwd", "/", "..",
)
AC_BLOCK = 1 << 22  # ac_signature_scan_records: bytes of text drawn; longer texts repeat it, rotated

MY_STRIDE = 64  # myers_typosquat_2d: bytes a domain slot
MY_MAXD = 3  # myers_typosquat_2d: the give-up bound (distances above it report MAXD + 1)
MY_BRANDS = (
    "paypal", "google", "microsoft", "apple", "amazon", "facebook", "instagram", "netflix", "linkedin",
    "dropbox", "github", "wellsfargo", "bankofamerica", "chase", "coinbase", "binance", "outlook", "office365",
    "icloud", "whatsapp", "telegram", "steamcommunity", "blockchain", "americanexpress", "dhl", "fedex",
    "adobe", "docusign", "salesforce", "zoom", "twitter", "yahoo", "spotify", "walmart", "ebay", "alibaba",
    "booking", "airbnb", "uber", "stripe",
)
MY_TLDS = (".com", ".net", ".org", ".co", ".io", ".info", ".xyz", ".online", ".app", ".de", ".ru", ".cn")

AES_NONCE = (0xCAFEBABE, 0xFACEDBAD, 0xDECAF888)  # aes128_ctr_ttable_local: the 96-bit nonce
AES_CTR0 = 0xFFFFFE00  # aes128_ctr_ttable_local: the first counter (wraps after 512 blocks)
AES_BPI = 4  # aes128_ctr_ttable_local: blocks a work-item (BPI in the source)


# --- Aho-Corasick signature scan of log records, goto table and failure links ----------------------------------------
@lru_cache(maxsize=1)
def _ac_automaton():
    """(goto_tab (states, 256), fail, pat_mask, pat_count) of AC_SIGNATURES, failure links by BFS."""
    edges = [{}]
    own = [0]
    for k, sig in enumerate(AC_SIGNATURES):
        s = 0
        for ch in sig.encode():
            if ch not in edges[s]:
                edges.append({})
                own.append(0)
                edges[s][ch] = len(edges) - 1
            s = edges[s][ch]
        own[s] |= 1 << k
    n = len(edges)
    goto = np.full((n, 256), -1, dtype=np.int64)
    for s, e in enumerate(edges):
        for ch, t in e.items():
            goto[s, ch] = t
    goto[0][goto[0] < 0] = 0
    fail = np.zeros(n, dtype=np.int64)
    mask = np.array(own, dtype=np.int64)
    queue = [t for t in edges[0].values()]
    while queue:
        s = queue.pop(0)
        mask[s] |= mask[fail[s]]
        for ch, t in edges[s].items():
            f = fail[s]
            while goto[f, ch] < 0:
                f = fail[f]
            fail[t] = goto[f, ch]
            queue.append(t)
    count = np.array([bin(int(m)).count("1") for m in mask], dtype=np.int64)
    return goto, fail, mask, count


AC_NSTATE = _ac_automaton()[0].shape[0]


def _ac_text(rng, nbytes):
    """Request-line-like text: words of AC_WORDS joined by spaces, 2% of the tokens a signature; a tenth of the
    letters case-flipped (filter evasion)."""
    toks = [w.encode() + b" " for w in AC_WORDS] + [s.encode() + b" " for s in AC_SIGNATURES]
    lens = np.array([len(t) for t in toks])
    start = np.concatenate([[0], np.cumsum(lens)[:-1]])
    blob = np.frombuffer(b"".join(toks), dtype=np.uint8)
    nw, ns = len(AC_WORDS), len(AC_SIGNATURES)
    prob = np.concatenate([np.full(nw, 0.98 / nw), np.full(ns, 0.02 / ns)])
    block = min(nbytes, AC_BLOCK)
    ids = rng.choice(nw + ns, block // 4 + 64, p=prob)
    ln = lens[ids]
    first = np.cumsum(ln) - ln
    pos = np.repeat(start[ids] - first, ln) + np.arange(ln.sum())
    text = blob[pos][:block]
    reps = -(-nbytes // block)
    shifts = rng.integers(0, block, reps)
    text = np.concatenate([np.roll(text, int(s)) for s in shifts])[:nbytes]
    letter = ((text >= ord("a")) & (text <= ord("z"))) & (rng.integers(0, 10, nbytes, dtype=np.uint8) == 0)
    return np.where(letter, text - 32, text).astype(np.uint8)


def _inputs_ac(rng, sz):
    """Records of L/2 .. 3L/2 bytes (mean L) back to back; the automaton of AC_SIGNATURES (goto edges -1 where
    absent, the root's complete)."""
    n, ln = sz["N"], sz["L"]
    off = np.arange(n + 1, dtype=np.int64) * ln + rng.integers(0, ln // 2, n + 1)
    off[0], off[-1] = 0, n * ln
    goto, fail, mask, count = _ac_automaton()
    return {"text": _ac_text(rng, n * ln), "rec_off": off, "goto_tab": goto.reshape(-1), "fail": fail,
            "pat_mask": mask, "pat_count": count}


def _ref_ac(inp, sz):
    """The complete DFA (delta from goto and fail), run over all records at once, position by position."""
    goto = np.asarray(inp["goto_tab"]).astype(np.int64).reshape(-1, 256)
    fail = np.asarray(inp["fail"]).astype(np.int64)
    mask, count = np.asarray(inp["pat_mask"]).astype(np.int64), np.asarray(inp["pat_count"]).astype(np.int64)
    delta = goto.copy()
    level = sorted(set(goto[0][goto[0] > 0].tolist()))
    while level:  # breadth first: a failure link points to a shallower state, already complete
        for s in level:
            delta[s] = np.where(goto[s] >= 0, goto[s], delta[fail[s]])
        level = sorted({int(t) for s in level for t in goto[s][goto[s] >= 0]})
    text = np.asarray(inp["text"]).astype(np.int64)
    text = np.where((text >= 65) & (text <= 90), text + 32, text)
    off = np.asarray(inp["rec_off"]).astype(np.int64)
    lens = off[1:] - off[:-1]
    state = np.zeros(lens.size, dtype=np.int64)
    hits, seen = np.zeros(lens.size, dtype=np.int64), np.zeros(lens.size, dtype=np.int64)
    for j in range(int(lens.max())):
        live = lens > j
        c = text[np.where(live, off[:-1] + j, 0)]
        state = np.where(live, delta[state, c], state)
        hits += np.where(live, count[state], 0)
        seen |= np.where(live, mask[state], 0)
    return {"hits": hits, "seen": seen}


def ac_signature_scan_records() -> KernelSpec:
    return _spec(
        "ac_signature_scan_records",
        idiom="Aho-Corasick signature scan per log record: case fold, goto edge or failure-link while loop, "
              "hit count and pattern mask",
        sizes={"N": pow2(10, 18, 2), "L": [64, 256]}, check={"N": 700, "L": 64},
        args=[Arg("nrec", "scalar", "int32", "N"), Arg("text", "buffer", "uint8", "N * L"),
              Arg("rec_off", "buffer", "int32", "N + 1"),
              Arg("goto_tab", "buffer", "int32", f"{AC_NSTATE} * 256"), Arg("fail", "buffer", "int32", str(AC_NSTATE)),
              Arg("pat_mask", "buffer", "uint32", str(AC_NSTATE)), Arg("pat_count", "buffer", "int32", str(AC_NSTATE)),
              Arg("hits", "buffer", "int32", "N", "out"), Arg("seen", "buffer", "uint32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_ac, make_inputs=_inputs_ac)


# --- typosquatting: Myers bit-vector Levenshtein of domain labels against brands, 2-D --------------------------------
def _brands(rng, p):
    """The first p names of MY_BRANDS, then made-up brands of 2 .. 4 syllables."""
    names = list(MY_BRANDS[:p])
    syl = ["ka", "lo", "ni", "tex", "ver", "zon", "pa", "ri", "go", "mex", "tra", "bel", "sun", "ix", "cor", "fy"]
    while len(names) < p:
        name = "".join(rng.choice(syl, rng.integers(2, 5)))
        if name not in names:
            names.append(name)
    return names


def _inputs_myers(rng, sz):
    """Observed domains: 35% a brand's label with 0 .. 3 random edits (substitution, often by a look-alike;
    deletion; insertion; swap of neighbours), 5% the brand with '-login' / 'secure-' around it, the rest random
    labels of 4 .. 18 letters and digits; a TLD after each (dom_len counts the label only)."""
    d, p = sz["D"], sz["P"]
    brands = _brands(rng, p)
    blen = np.array([len(b) for b in brands])
    peq = np.zeros((p, 256), dtype=np.uint32)
    bmat = np.zeros((p, MY_STRIDE), dtype=np.uint8)
    for i, b in enumerate(brands):
        bmat[i, :len(b)] = np.frombuffer(b.encode(), dtype=np.uint8)
        for k, ch in enumerate(b.encode()):
            peq[i, ch] |= np.uint32(1 << k)
    alpha = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", dtype=np.uint8)
    pool = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzaeiourstln0123", dtype=np.uint8)
    kind = rng.random(d)
    typo, wrapped = np.flatnonzero(kind < 0.35), np.flatnonzero((kind >= 0.35) & (kind < 0.4))
    pick = rng.integers(0, p, d)
    lab = pool[rng.integers(0, pool.size, (d, MY_STRIDE), dtype=np.uint8)]
    ln = rng.integers(4, 19, d)
    look = np.full(256, -1)
    look[np.frombuffer(b"olieas", dtype=np.uint8)] = np.frombuffer(b"011345", dtype=np.uint8)
    t, tl = bmat[pick[typo]], blen[pick[typo]]
    cols = np.arange(MY_STRIDE)[None, :]
    nt = typo.size
    row = np.arange(nt)
    for _ in range(3):
        edit = rng.random(nt) < 0.6
        op = rng.integers(0, 4, nt)
        pos = (rng.random(nt) * tl).astype(np.int64)
        sub = edit & (op == 0)
        new = look[t[row, pos]]
        new = np.where((new < 0) | (rng.random(nt) < 0.5), alpha[rng.integers(0, 26, nt)], new)
        t[sub, pos[sub]] = new[sub]
        dele = edit & (op == 1) & (tl > 3)
        t = np.take_along_axis(t, np.where(dele[:, None] & (cols >= pos[:, None]),
                                           np.minimum(cols + 1, MY_STRIDE - 1), cols), 1)
        ins = edit & (op == 2) & (tl < 30)
        t = np.take_along_axis(t, np.where(ins[:, None] & (cols > pos[:, None]), cols - 1, cols), 1)
        t[ins, pos[ins]] = alpha[rng.integers(0, 26, nt)][ins]
        swp = edit & (op == 3) & (pos + 1 < tl)
        a, b = t[swp, pos[swp]].copy(), t[swp, pos[swp] + 1].copy()
        t[swp, pos[swp]], t[swp, pos[swp] + 1] = b, a
        tl = tl - dele + ins
    lab[typo], ln[typo] = t, tl
    for idx in wrapped:
        name = (brands[pick[idx]] + "-login") if rng.random() < 0.5 else ("secure-" + brands[pick[idx]])
        lab[idx, :len(name)] = np.frombuffer(name.encode(), dtype=np.uint8)
        ln[idx] = len(name)
    tld = rng.integers(0, len(MY_TLDS), d)
    end = ln.copy()
    for k, name in enumerate(MY_TLDS):
        rows = np.flatnonzero(tld == k)
        text = np.frombuffer(name.encode(), dtype=np.uint8)
        lab[rows[:, None], ln[rows][:, None] + np.arange(len(text))[None, :]] = text
        end[rows] += len(text)
    lab[cols >= end[:, None]] = 0
    return {"domains": lab, "dom_len": ln, "peq": peq, "brand_len": blen}


def _ref_myers(inp, sz):
    """Levenshtein distances by the dynamic programme over every (brand, domain) pair at once, capped at
    max_dist + 1; the brands' characters recovered from their match masks."""
    d, p = sz["D"], sz["P"]
    maxd = int(inp["max_dist"])
    dom = np.asarray(inp["domains"]).reshape(d, -1).astype(np.int64)
    n = np.asarray(inp["dom_len"]).astype(np.int64)
    peq = np.asarray(inp["peq"]).astype(np.int64).reshape(p, 256)
    m = np.asarray(inp["brand_len"]).astype(np.int64)
    brand = np.zeros((p, 32), dtype=np.int64)
    for k in range(32):
        hit = (peq >> k) & 1
        brand[:, k] = np.where(hit.any(1), hit.argmax(1), -1)
    nmax = int(n.max())
    prev = np.broadcast_to(np.arange(nmax + 1), (p, d, nmax + 1)).astype(np.int64)
    final = np.zeros((p, d), dtype=np.int64)
    for i in range(1, int(m.max()) + 1):
        cur = np.empty_like(prev)
        cur[..., 0] = i
        ne = (brand[:, i - 1][:, None, None] != dom[None, :, :nmax]).astype(np.int64)
        diag = prev[..., :-1] + ne
        up = prev[..., 1:] + 1
        best = np.minimum(diag, up)
        for j in range(1, nmax + 1):
            cur[..., j] = np.minimum(best[..., j - 1], cur[..., j - 1] + 1)
        prev = cur
        rows = np.flatnonzero(m == i)
        final[rows] = np.take_along_axis(cur[rows], n[None, :, None].repeat(rows.size, 0), 2)[..., 0]
    return {"dist": np.minimum(final, maxd + 1)}


def myers_typosquat_2d() -> KernelSpec:
    return _spec(
        "myers_typosquat_2d",
        idiom="typosquat check, 2-D (domain, brand): Myers/Hyyro bit-vector Levenshtein, uint match masks, "
              "give up once the bound is out of reach",
        sizes={"D": pow2(10, 18, 2), "P": [16, 32, 128]}, check={"D": 300, "P": 40},
        constraints=["D * P <= 2**23"],
        args=[Arg("ndom", "scalar", "int32", "D"), Arg("nbrand", "scalar", "int32", "P"),
              Arg("dom_stride", "scalar", "int32", str(MY_STRIDE)), Arg("max_dist", "scalar", "int32", str(MY_MAXD)),
              Arg("domains", "buffer", "uint8", f"D * {MY_STRIDE}"), Arg("dom_len", "buffer", "int32", "D"),
              Arg("peq", "buffer", "uint32", "P * 256"), Arg("brand_len", "buffer", "int32", "P"),
              Arg("dist", "buffer", "int32", "P * D", "out")],
        gsize=[round_up("D", 32), round_up("P", 16)], local=L2, reference=_ref_myers, make_inputs=_inputs_myers)


# --- AES-128 CTR with T-tables in __local ---------------------------------------------------------------------------
def _xtime(a):
    return ((a << 1) ^ np.where(a & 0x80, 0x1B, 0)) & 0xFF


@lru_cache(maxsize=1)
def _aes_sbox():
    """The AES S-box: the inverse in GF(2^8) (0 for 0, from powers of the generator 3) through the affine map."""
    exp, log = np.zeros(255, dtype=np.int64), np.zeros(256, dtype=np.int64)
    x = 1
    for i in range(255):
        exp[i], log[x] = x, i
        x ^= ((x << 1) ^ (0x1B if x & 0x80 else 0)) & 0xFF
    inv = np.zeros(256, dtype=np.int64)
    inv[1:] = exp[(255 - log[1:]) % 255]
    rot = lambda v, k: ((v << k) | (v >> (8 - k))) & 0xFF  # noqa: E731
    return inv ^ rot(inv, 1) ^ rot(inv, 2) ^ rot(inv, 3) ^ rot(inv, 4) ^ 0x63


def _aes_key_words(key: bytes) -> np.ndarray:
    """The 44 round-key words of AES-128 (FIPS-197 KeyExpansion), big-endian."""
    sbox = _aes_sbox()
    w = [int.from_bytes(key[4 * i:4 * i + 4], "big") for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = w[i - 1]
        if i % 4 == 0:
            t = ((t << 8) | (t >> 24)) & 0xFFFFFFFF
            t = int.from_bytes(bytes(int(sbox[(t >> s) & 0xFF]) for s in (24, 16, 8, 0)), "big") ^ (rcon << 24)
            rcon = int(_xtime(np.int64(rcon)))
        w.append(w[i - 4] ^ t)
    return np.array(w, dtype=np.uint32)


def _inputs_aes(rng, sz):
    """A random key (expanded), OpenSSL's Te0..Te3 from the S-box, random data words."""
    s = _aes_sbox()
    s2, s3 = _xtime(s), _xtime(s) ^ s
    te0 = (s2 << 24) | (s << 16) | (s << 8) | s3
    te = [te0]
    for _ in range(3):
        te.append(((te[-1] >> 8) | (te[-1] << 24)) & 0xFFFFFFFF)
    key = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    return {"rk": _aes_key_words(key), "te": np.concatenate(te).astype(np.uint32),
            "data_in": rng.integers(0, 2**32, sz["B"] * 4, dtype=np.uint32)}


def _aes_encrypt(state: np.ndarray, rk: np.ndarray) -> np.ndarray:
    """FIPS-197 Cipher on (n, 16) state bytes (column-major, as the input bytes), byte-oriented."""
    sbox = _aes_sbox()
    keys = ((rk.astype(np.int64)[:, None] >> np.array([24, 16, 8, 0])) & 0xFF).reshape(11, 16)
    shift = np.array([(i + 4 * (i % 4)) % 16 for i in range(16)])  # new[r + 4c] = old[r + 4(c + r)]
    st = state ^ keys[0]
    for rnd in range(1, 11):
        st = sbox[st][:, shift]
        if rnd < 10:
            col = st.reshape(-1, 4, 4)
            a0, a1, a2, a3 = (col[:, :, r] for r in range(4))
            mixed = np.stack([_xtime(a0) ^ _xtime(a1) ^ a1 ^ a2 ^ a3, a0 ^ _xtime(a1) ^ _xtime(a2) ^ a2 ^ a3,
                              a0 ^ a1 ^ _xtime(a2) ^ _xtime(a3) ^ a3, _xtime(a0) ^ a0 ^ a1 ^ a2 ^ _xtime(a3)], 2)
            st = mixed.reshape(-1, 16)
        st = st ^ keys[rnd]
    return st


def _ref_aes(inp, sz):
    b = sz["B"]
    ctr = (int(inp["ctr0"]) + np.arange(b, dtype=np.int64)) & 0xFFFFFFFF
    words = np.stack([np.full(b, int(inp[k])) for k in ("nonce0", "nonce1", "nonce2")] + [ctr], 1)
    blocks = ((words[:, :, None] >> np.array([24, 16, 8, 0])) & 0xFF).reshape(b, 16)
    ks = _aes_encrypt(blocks, np.asarray(inp["rk"])).reshape(b, 4, 4)
    ks_words = (ks[..., 0] << 24) | (ks[..., 1] << 16) | (ks[..., 2] << 8) | ks[..., 3]
    return {"data_out": np.asarray(inp["data_in"]).astype(np.int64).reshape(b, 4) ^ ks_words}


def aes128_ctr_ttable_local() -> KernelSpec:
    return _spec(
        "aes128_ctr_ttable_local",
        idiom="AES-128 CTR, 4 blocks a work-item: Te0..Te3 copied to __local, 9 T-table rounds + S-box bytes "
              "from T-tables, 32-bit wrapping counter",
        sizes={"B": pow2(10, 23)}, check={"B": 1000},
        args=[Arg("nblk", "scalar", "int32", "B"), Arg("nonce0", "scalar", "uint32", str(AES_NONCE[0])),
              Arg("nonce1", "scalar", "uint32", str(AES_NONCE[1])), Arg("nonce2", "scalar", "uint32", str(AES_NONCE[2])),
              Arg("ctr0", "scalar", "uint32", str(AES_CTR0)), Arg("rk", "buffer", "uint32", "44"),
              Arg("te", "buffer", "uint32", "1024"), Arg("data_in", "buffer", "uint32", "B * 4"),
              Arg("data_out", "buffer", "uint32", "B * 4", "out"), Arg("lte", "local", "uint32", "1024")],
        gsize=[round_up(f"(B + {AES_BPI - 1}) // {AES_BPI}")], local=L1, reference=_ref_aes, make_inputs=_inputs_aes)


#: this group's builders, in the order of ``specs()``
BUILDERS = (ac_signature_scan_records, myers_typosquat_2d, aes128_ctr_ttable_local)

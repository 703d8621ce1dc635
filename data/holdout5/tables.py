"""Holdout5 kernels: database and analytics operators on columns and tables, as application programmers write them: a
star join through a hash table built in __local memory, TPC-H query 1 in exact 64-bit fixed point, a bitmap-index
query per zone, top-k per segment in private registers, dictionary encoding of a CHAR column by binary search and
day-count interest accrual in fp64. The two kernels with atomics use them for integer sums and for claiming hash
slots (the probe results do not depend on which slot a key got), so no output depends on the work-items' order."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import ELEMWISE, FP64, L1, _f64, _spec, pow2, round_up

EMPTY_KEY = 0xFFFFFFFF  # dim_join_local_hash's empty-slot marker: no key may take this value
ZONE_WORDS = 32  # bitmap_crosstab_2d: 32 words (1024 rows) per zone
NBITMAPS = 32  # bitmap_crosstab_2d: value bitmaps of three columns (4 + 8 + 20 values)
STR_WIDTH = 32  # dict_encode_bsearch_str: CHAR(32) records


# --- star join: dimension hash table built in __local by atomic_cmpxchg + linear probing, then probed -------------
def _inputs_join(rng, sz):
    """Unique product keys (never EMPTY_KEY); 85% of the lines name a product (skewed: a few best sellers), 15% a
    key outside the dimension. Discounts 0.00 .. 0.10 in steps of 0.01, quantities 1 .. 50."""
    n, d = sz["n"], sz["D"]
    keys = rng.permutation(np.unique(rng.integers(0, EMPTY_KEY, 4 * d, dtype=np.uint64)))[:2 * d]
    prod, absent = keys[:d], keys[d:]  # absent: keys certainly outside the dimension
    hit = rng.random(n) < 0.85
    line = np.where(hit, prod[(d * rng.random(n) ** 2).astype(np.int64)], absent[rng.integers(0, d, n)])
    return {"product_key": prod.astype(np.uint32), "unit_price": rng.uniform(1.0, 200.0, d).astype(np.float32),
            "line_product": line.astype(np.uint32), "line_qty": rng.integers(1, 51, n),
            "line_discount": (rng.integers(0, 11, n) / 100.0).astype(np.float32)}


def _ref_join(inp, sz):
    keys = inp["product_key"].astype(np.int64)
    order = np.argsort(keys)
    line = inp["line_product"].astype(np.int64)
    pos = np.minimum(np.searchsorted(keys[order], line), keys.size - 1)
    row = np.where(keys[order][pos] == line, order[pos], -1)
    rev = inp["line_qty"] * _f64(inp["unit_price"])[np.maximum(row, 0)] * (1.0 - _f64(inp["line_discount"]))
    return {"line_match": row, "line_revenue": np.where(row >= 0, rev, 0.0)}


def dim_join_local_hash() -> KernelSpec:
    return _spec(
        "dim_join_local_hash", precision="fp32",
        idiom="star join: per-group __local hash table built by atomic_cmpxchg + linear probing, grid-stride probe",
        sizes={"n": pow2(11, 23, 2), "D": [256, 2048]}, check={"n": 3000, "D": 64},
        args=[Arg("nlines", "scalar", "int32", "n"), Arg("nproducts", "scalar", "int32", "D"),
              Arg("table_size", "scalar", "int32", "2 * D"), Arg("product_key", "buffer", "uint32", "D"),
              Arg("unit_price", "buffer", "float32", "D"), Arg("line_product", "buffer", "uint32", "n"),
              Arg("line_qty", "buffer", "int32", "n"), Arg("line_discount", "buffer", "float32", "n"),
              Arg("line_match", "buffer", "int32", "n", "out"), Arg("line_revenue", "buffer", "float32", "n", "out"),
              Arg("slot_key", "local", "uint32", "2 * D"), Arg("slot_row", "local", "int32", "2 * D")],
        gsize=[round_up("min(n, 2**15)")], local=L1, reference=_ref_join, make_inputs=_inputs_join, tol=ELEMWISE)


# --- TPC-H Q1: private per-group accumulators, 64-bit fixed-point atom_add -----------------------------------------
def _inputs_q1(rng, sz):
    """Ship dates 0 .. 2525 (seven years); lines shipped after day 1263 are open ('O') and not yet returned ('N'),
    earlier ones mostly returned ('R') or accepted ('A'), a few received late ('N', 'F'). Extended prices in cents
    are quantity x a retail price of 900.00 .. 2000.00; discount 0 .. 10%, tax 0 .. 8%."""
    n = sz["n"]
    ship = rng.integers(0, 2526, n)
    qty = rng.integers(1, 51, n)
    late = ship + rng.integers(1, 31, n) > 1263
    flag = np.where(late, ord("N"), np.where(rng.random(n) < 0.5, ord("R"), ord("A")))
    return {"shipdate": ship, "quantity": qty, "extprice": qty * rng.integers(90000, 200001, n),
            "discount": rng.integers(0, 11, n), "tax": rng.integers(0, 9, n), "returnflag": flag,
            "linestatus": np.where(ship > 1263, ord("O"), ord("F"))}


def _ref_q1(inp, sz):
    keep = inp["shipdate"] <= inp["cutoff"]
    flag = inp["returnflag"]
    grp = 2 * np.where(flag == ord("A"), 0, np.where(flag == ord("N"), 1, 2)) + (inp["linestatus"] == ord("O"))
    price = inp["extprice"].astype(np.int64)
    disc = price * (100 - inp["discount"].astype(np.int64))
    cols = (inp["quantity"].astype(np.int64), price, disc, disc * (100 + inp["tax"].astype(np.int64)))
    sums = np.zeros((6, 4), dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    for g in range(6):
        sel = keep & (grp == g)
        sums[g] = [c[sel].sum() for c in cols]
        counts[g] = sel.sum()
    return {"sums": sums, "counts": counts}


def q1_pricing_fixed64() -> KernelSpec:
    return _spec(
        "q1_pricing_fixed64", precision="int64",
        idiom="TPC-H Q1: date filter, (flag, status) groups in private arrays, fixed-point int64 sums by atom_add",
        sizes={"n": pow2(11, 23, 2), "S": [90, 1800]}, check={"n": 5000, "S": 400},
        args=[Arg("nrows", "scalar", "int32", "n"), Arg("cutoff", "scalar", "int32", "2525 - S"),
              Arg("shipdate", "buffer", "int32", "n"), Arg("quantity", "buffer", "int32", "n"),
              Arg("extprice", "buffer", "int32", "n"), Arg("discount", "buffer", "uint8", "n"),
              Arg("tax", "buffer", "uint8", "n"), Arg("returnflag", "buffer", "uint8", "n"),
              Arg("linestatus", "buffer", "uint8", "n"), Arg("sums", "buffer", "int64", "24", "out"),
              Arg("counts", "buffer", "int32", "6", "out")],
        gsize=[round_up("min(n // 16, 2**15)")], local=L1, reference=_ref_q1, make_inputs=_inputs_q1)


# --- bitmap index: AND of two value bitmaps and a live mask per zone, popcount and first set bit, 2-D ---------------
def _inputs_bitmap(rng, sz):
    """Three columns of 4, 8 and 20 values (skewed, the third partly tied to the second), one bitmap per value;
    rows deleted in runs (whole zones now and then). Queries pair values of two different columns."""
    r = sz["R"]
    col_a = np.minimum((4 * rng.random(r) ** 1.5).astype(np.int64), 3)
    col_b = rng.choice(8, r, p=np.array([30, 20, 15, 12, 10, 7, 4, 2]) / 100)
    col_c = np.where(rng.random(r) < 0.6, 2 * col_b + rng.integers(0, 2, r), rng.integers(0, 20, r))
    value = np.stack([col_a, 4 + col_b, 12 + col_c])  # bitmap index of each row's value in each column
    bits = np.zeros((NBITMAPS, r), dtype=bool)
    for col in value:
        bits[col, np.arange(r)] = True
    dead = np.repeat(rng.random(r // 256) < 0.03, 256) | (rng.random(r) < 0.01)
    words = lambda b: np.packbits(b.reshape(*b.shape[:-1], -1, 32), axis=-1, bitorder="little").view("<u4")  # noqa: E731
    pair = rng.integers(0, 3, (sz["Q"], 2))
    pair[:, 1] = (pair[:, 0] + 1 + rng.integers(0, 2, sz["Q"])) % 3  # two different columns
    lo, width = np.array([0, 4, 12]), np.array([4, 8, 20])
    query = lo[pair] + (rng.random(pair.shape) * width[pair]).astype(np.int64)
    return {"bitmaps": words(bits).reshape(-1), "live": words(~dead).reshape(-1),
            "query_a": query[:, 0], "query_b": query[:, 1]}


def _ref_bitmap(inp, sz):
    r, nw = sz["R"], sz["R"] // 32
    unpack = lambda w: np.unpackbits(w.view(np.uint8), bitorder="little").astype(bool)  # noqa: E731
    bits = unpack(inp["bitmaps"]).reshape(NBITMAPS, r)
    match = bits[inp["query_a"]] & bits[inp["query_b"]] & unpack(inp["live"])  # (Q, R)
    zones = match.reshape(sz["Q"], -1, ZONE_WORDS * 32)
    first = np.where(zones.any(axis=2), zones.argmax(axis=2) + np.arange(zones.shape[1]) * ZONE_WORDS * 32, -1)
    assert nw % ZONE_WORDS == 0
    return {"zone_count": zones.sum(axis=2), "zone_first": first}


def bitmap_crosstab_2d() -> KernelSpec:
    return _spec(
        "bitmap_crosstab_2d", precision="uint32",
        idiom="bitmap-index query, 2-D (zone, query): AND of two gathered bitmaps and a live mask, popcount, first row",
        sizes={"R": pow2(14, 24, 2), "Q": [16, 128]}, check={"R": 2**14, "Q": 16},
        args=[Arg("nwords", "scalar", "int32", "R // 32"), Arg("block_words", "scalar", "int32", str(ZONE_WORDS)),
              Arg("bitmaps", "buffer", "uint32", f"{NBITMAPS} * (R // 32)"), Arg("query_a", "buffer", "int32", "Q"),
              Arg("query_b", "buffer", "int32", "Q"), Arg("live", "buffer", "uint32", "R // 32"),
              Arg("zone_count", "buffer", "int32", "Q * (R // 1024)", "out"),
              Arg("zone_first", "buffer", "int32", "Q * (R // 1024)", "out")],
        gsize=[round_up("R // 1024", 64), "Q"], local=[[64, 4], [32, 8], [16, 16]], reference=_ref_bitmap,
        make_inputs=_inputs_bitmap)


# --- top-k per segment by insertion into private sorted arrays ---------------------------------------------------
def _inputs_topk(rng, sz):
    """Segment lengths 0 .. 2L (mean 2L/3, many shorter than k); a quarter of the users' rows come in ascending
    score order (every row inserts), the rest at random. Scores in (0, 1) as float32, item ids up to 10^6."""
    s, length = sz["S"], sz["L"]
    lens = (2 * length * rng.random(s) ** 2).astype(np.int64)
    ptr = np.r_[0, np.minimum(np.cumsum(lens), s * length)]
    score = rng.random(s * length).astype(np.float32) * np.float32(0.999) + np.float32(0.0005)
    owner = np.repeat(np.arange(s), np.diff(ptr))
    rising = rng.random(s) < 0.25
    key = np.where(rising[owner], score[:ptr[-1]], 0.0)  # sort the rising users' rows by score, in place
    order = np.lexsort((key, owner))
    score[:ptr[-1]] = score[:ptr[-1]][order]
    return {"seg_ptr": ptr, "score": score, "item": rng.integers(0, 10**6, s * length)}


def _ref_topk(inp, sz):
    s, k, ptr = sz["S"], int(inp["k"]), inp["seg_ptr"].astype(np.int64)
    owner = np.repeat(np.arange(s), np.diff(ptr))
    score = inp["score"][:ptr[-1]]
    order = np.lexsort((np.arange(ptr[-1]), -score.astype(np.float64), owner))  # by user, score down, row up
    rank = np.arange(ptr[-1]) - ptr[owner[order]]
    top = rank < k
    out_s, out_i = np.zeros((s, k)), np.full((s, k), -1, dtype=np.int64)
    out_s[owner[order][top], rank[top]] = score[order][top]
    out_i[owner[order][top], rank[top]] = inp["item"][order][top]
    return {"top_score": out_s, "top_item": out_i}


def topk_segment_insert() -> KernelSpec:
    return _spec(
        "topk_segment_insert", precision="fp32",
        idiom="top-k per CSR segment, an item per segment: sorted private arrays, shift-insert, ties keep order",
        sizes={"S": pow2(8, 18, 2), "L": [32, 256]}, check={"S": 300, "L": 40},
        constraints=["S * L <= 2**24"],
        args=[Arg("nseg", "scalar", "int32", "S"), Arg("k", "scalar", "int32", "min(16, L // 8)"),
              Arg("seg_ptr", "buffer", "int32", "S + 1"), Arg("score", "buffer", "float32", "S * L"),
              Arg("item", "buffer", "int32", "S * L"),
              Arg("top_score", "buffer", "float32", "S * min(16, L // 8)", "out"),
              Arg("top_item", "buffer", "int32", "S * min(16, L // 8)", "out")],
        gsize=[round_up("S")], local=L1, reference=_ref_topk, make_inputs=_inputs_topk, tol=ELEMWISE)


# --- dictionary encoding of a CHAR(32) column by binary search ----------------------------------------------------
_WORDS = ("almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood burnished chartreuse "
          "chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim dodger drab firebrick floral forest "
          "frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory khaki lace lavender lawn lemon light "
          "lime linen magenta maroon medium metallic midnight mint misty moccasin navajo navy olive orange orchid pale "
          "papaya peach peru pink plum powder puff purple red rose rosy royal saddle salmon sandy seashell sienna sky "
          "slate smoke snow spring steel tan thistle tomato turquoise violet wheat white yellow").split()


def _inputs_dict(rng, sz):
    """Dictionary entries like TPC-H part names: two colour words (the first skewed, so many entries share a
    prefix) and a number, sorted bytewise. 90% of the records are entries (skewed towards popular ones), 10% near
    misses: an entry with one byte changed."""
    n, d = sz["n"], sz["D"]
    names = set()
    while len(names) < d:
        m = d - len(names) + 16
        w1 = np.minimum((len(_WORDS) * rng.random(m) ** 2).astype(np.int64), len(_WORDS) - 1)
        w2, num = rng.integers(0, len(_WORDS), m), rng.integers(0, 1000, m)
        names.update(f"{_WORDS[a]} {_WORDS[b]} {c}" for a, b, c in zip(w1, w2, num))
    names = sorted(names)  # a set's order varies from run to run: draw from the sorted list
    entries = np.sort(np.array(names, dtype=f"S{STR_WIDTH}")[rng.choice(len(names), d, replace=False)])
    table = entries.view(np.uint8).reshape(d, STR_WIDTH)
    rec = table[(d * rng.random(n) ** 1.5).astype(np.int64)].copy()
    miss = np.flatnonzero(rng.random(n) < 0.1)
    lens = (rec[miss] != 0).sum(axis=1)
    col = (lens * rng.random(miss.size)).astype(np.int64)
    rec[miss, col] = rng.integers(97, 123, miss.size)  # a lower-case letter (maybe the same one: then a hit)
    return {"records": rec.reshape(-1), "dict": table.reshape(-1)}


def _ref_dict(inp, sz):
    entries = inp["dict"].view(f"S{STR_WIDTH}")
    rec = inp["records"].view(f"S{STR_WIDTH}")
    pos = np.minimum(np.searchsorted(entries, rec), entries.size - 1)
    return {"code": np.where(entries[pos] == rec, pos, -1)}


def dict_encode_bsearch_str() -> KernelSpec:
    return _spec(
        "dict_encode_bsearch_str", precision="uint8",
        idiom="dictionary-encode CHAR(32) strings: binary search of a sorted dictionary, bytewise compare helper",
        sizes={"n": pow2(8, 20, 2), "D": [512, 65536]}, check={"n": 4000, "D": 300},
        args=[Arg("nrec", "scalar", "int32", "n"), Arg("ndict", "scalar", "int32", "D"),
              Arg("width", "scalar", "int32", str(STR_WIDTH)),
              Arg("records", "buffer", "uint8", f"n * {STR_WIDTH}"), Arg("dict", "buffer", "uint8", f"D * {STR_WIDTH}"),
              Arg("code", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_dict, make_inputs=_inputs_dict)


# --- interest accrual with per-row day-count basis, fp64 ------------------------------------------------------------
def _ymd(days):
    """Days since 1970-01-01 -> int yyyymmdd, through numpy's calendar."""
    day = np.asarray(days, dtype="datetime64[D]")
    y = day.astype("datetime64[Y]").astype(np.int64) + 1970
    m = day.astype("datetime64[M]").astype(np.int64) % 12 + 1
    d = (day - day.astype("datetime64[M]")).astype(np.int64) + 1
    return y * 10000 + m * 100 + d


def _inputs_accrual(rng, sz):
    """Start dates 2000 .. 2024, a fifth of them at a month's end; terms 0 .. 30 years (most under 5); bases
    ACT/365F, ACT/360, 30/360, ACT/ACT in 3:3:2:2; frequencies 1, 2, 4, 12 or 365 per year; rates 0.1 .. 12%."""
    n = sz["n"]
    t1 = rng.integers(10957, 20089, n)
    month_end = (t1.astype("datetime64[D]").astype("datetime64[M]") + 1).astype("datetime64[D]").astype(np.int64) - 1
    t1 = np.where(rng.random(n) < 0.2, month_end, t1)
    t2 = t1 + (10958 * rng.random(n) ** 3).astype(np.int64)
    return {"start_date": _ymd(t1), "end_date": _ymd(t2), "basis": rng.choice(4, n, p=[0.3, 0.3, 0.2, 0.2]),
            "freq": rng.choice([1, 2, 4, 12, 365], n), "principal": rng.uniform(1e3, 1e6, n),
            "rate": rng.uniform(0.001, 0.12, n)}


def _ref_accrual(inp, sz):
    s, e = inp["start_date"].astype(np.int64), inp["end_date"].astype(np.int64)
    (y1, m1, d1), (y2, m2, d2) = ((v // 10000, v // 100 % 100, v % 100) for v in (s, e))
    days = lambda y, m, d: ((y - 1970).astype("datetime64[Y]").astype("datetime64[M]")  # noqa: E731
                            + (m - 1).astype("timedelta64[M]")).astype("datetime64[D]") + (d - 1).astype("timedelta64[D]")
    t1, t2 = days(y1, m1, d1).astype(np.int64), days(y2, m2, d2).astype(np.int64)
    jan1 = lambda y: days(y, np.ones_like(y), np.ones_like(y)).astype(np.int64)  # noqa: E731
    leap = lambda y: np.where(((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0), 366.0, 365.0)  # noqa: E731
    actact = np.where(y1 == y2, (t2 - t1) / leap(y1),
                      (jan1(y1 + 1) - t1) / leap(y1) + (y2 - y1 - 1) + (t2 - jan1(y2)) / leap(y2))
    dd1 = np.where(d1 == 31, 30, d1)
    dd2 = np.where((d2 == 31) & (dd1 == 30), 30, d2)
    thirty = (360 * (y2 - y1) + 30 * (m2 - m1) + (dd2 - dd1)) / 360.0
    yf = np.choose(inp["basis"], [(t2 - t1) / 365.0, (t2 - t1) / 360.0, thirty, actact])
    f = inp["freq"].astype(np.float64)
    return {"year_frac": yf, "accrued": inp["principal"] * ((1.0 + inp["rate"] / f) ** (f * yf) - 1.0)}


def accrued_daycount_fp64() -> KernelSpec:
    return _spec(
        "accrued_daycount_fp64", precision="fp64", tol=FP64,
        idiom="interest accrual per row: yyyymmdd to day numbers, switch on day-count basis, year loop, fp64 pow",
        sizes={"n": pow2(8, 21)}, check={"n": 3000},
        args=[Arg("nrows", "scalar", "int32", "n"), Arg("start_date", "buffer", "int32", "n"),
              Arg("end_date", "buffer", "int32", "n"), Arg("basis", "buffer", "int32", "n"),
              Arg("freq", "buffer", "int32", "n"), Arg("principal", "buffer", "float64", "n"),
              Arg("rate", "buffer", "float64", "n"), Arg("year_frac", "buffer", "float64", "n", "out"),
              Arg("accrued", "buffer", "float64", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_accrual, make_inputs=_inputs_accrual)


#: this group's builders, in the order of ``specs()``
BUILDERS = (dim_join_local_hash, q1_pricing_fixed64, bitmap_crosstab_2d, topk_segment_insert, dict_encode_bsearch_str,
            accrued_daycount_fp64)

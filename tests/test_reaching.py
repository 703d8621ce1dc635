"""Locals without one value in access indices (kgraph/analysis/reaching.py) and strided sites priced together as a
row (kgraph.analysis.traffic.row_groups): each case by hand, against the pattern and traffic it must give."""
from __future__ import annotations

import sympy as sp

import kgraph
from kgraph.analysis.traffic import SECTOR_BYTES, TRAFFIC_KEYS, row_groups, traffic_exprs

LOCALS = """
__kernel void csr(__global const int *ptr, __global const float *val, __global float *y)
{
    int r = get_global_id(0);
    int p = ptr[r];                     // from memory
    float acc = 0.0f;
    while (p < ptr[r + 1]) { acc += val[p]; p++; }
    y[r] = acc;
}
__kernel void walk(int n, __global const float *x, __global float *y)
{
    int i = get_global_id(0);
    int p = i;                          // slope 1 in gid0, kept by p += n
    float acc = 0.0f;
    for (int k = 0; k < 4; k++) { acc += x[p]; p += n; }
    y[i] = acc;
}
__kernel void stride2(int n, __global const float *x, __global float *y)
{
    int i = get_global_id(0);
    int p = 2 * i;                      // slope 2: strided
    p = p + n;
    y[i] = x[p];
}
__kernel void bsearch(int n, __global const int *keys, __global const int *q, __global int *out)
{
    int i = get_global_id(0);
    int lo = 0, hi = n, x = q[i];
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (keys[mid] < x) lo = mid + 1; else hi = mid;   // set under a branch on data
    }
    out[i] = keys[lo];
}
__kernel void pingpong(int n, __global float *buf)
{
    int l = get_local_id(0);
    int src = 0;
    for (int s = 0; s < 4; s++) { buf[src * n + l] += 1.0f; src = 1 - src; }   // slope 0: kept opaque
}
__kernel void disagree(int n, __global const float *x, __global float *y)
{
    int i = get_global_id(0);
    int p = i;
    if (n > 4) p = 3 * i;               // two slopes: unknown, left as it was
    y[i] = x[p];
}
__kernel void match(int m, __global const char *t, __global const char *pat, __global int *out)
{
    int i = get_global_id(0);
    int k = 0;
    while (k < m && t[i + k] == pat[k]) k++;   // a loop's condition: the lanes in it share k
    out[i] = k;
}
"""

ROWS = """
__kernel void rows(__global const float *a, __global float *b, __global float *c)
{
    int i = get_global_id(0);
    int w = 4 * i;
    float s = a[w] + a[w + 1] + a[w + 2] + a[w + 3];  // one row of 4: together contiguous
    b[2 * i] = s;                                     // only half of a stride-2 row: stays strided
    c[3 * i] = a[w] * 2.0f;
    c[3 * i + 1] = s;
}
"""


def _analysis(source: str, name: str):
    return next(g for g in kgraph.from_source(source, "opencl", filename="<t>") if g.name == name).analysis


def _patterns(name: str, buffer: str) -> list[tuple[str, object]]:
    return [(a.pattern, a.stride) for a in _analysis(LOCALS, name).accesses if a.buffer == buffer]


def test_a_local_loaded_from_memory_is_a_gather():
    assert _patterns("csr", "val") == [("indirect", None)]


def test_an_agreed_slope_classifies_the_access():
    assert _patterns("walk", "x") == [("coalesced", 1)]
    assert _patterns("stride2", "x") == [("strided", 2)]


def test_a_local_set_under_a_branch_on_data_is_a_gather():
    assert ("indirect", None) in _patterns("bsearch", "keys")
    assert all(p == "indirect" for p, _ in _patterns("bsearch", "keys")[-1:])  # out[i] = keys[lo]


def test_slope_zero_and_disagreement_leave_the_index_as_it_was():
    assert _patterns("pingpong", "buf") == [("coalesced", 1), ("coalesced", 1)]  # += reads and writes buf
    assert _patterns("disagree", "x") == [("broadcast", 0)]


def test_a_loop_condition_does_not_make_its_counter_a_gather():
    t = _patterns("match", "t")
    assert t and all(p == "coalesced" for p, _ in t)


def test_row_groups_are_the_sites_that_fill_their_stride():
    analysis = _analysis(ROWS, "rows")
    covered = {(analysis.accesses[k].buffer, analysis.accesses[k].index) for k in row_groups(analysis.accesses)}
    assert covered == {("a", "w"), ("a", "w + 1"), ("a", "w + 2"), ("a", "w + 3")}


def test_a_row_group_is_priced_as_coalesced():
    values = dict(zip(TRAFFIC_KEYS, (float(sp.sympify(e)) for e in traffic_exprs(_analysis(ROWS, "rows")))))
    # a: 4 row sites + a[w] again (c's line) = 5 loads of 4 bytes, coalesced; b[2i], c[3i], c[3i+1] strided
    assert values["global_coalesced_bytes"] == 20
    assert values["global_strided_bytes"] == 12
    # coalesced 4 bytes each; b stride 2: 8 bytes; c stride 3: 12 bytes each
    assert values["global_sector_bytes"] == 20 + min(SECTOR_BYTES, 8) + 2 * min(SECTOR_BYTES, 12)

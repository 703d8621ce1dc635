"""The OpenCL C text the instrumenter adds: counter layout, private counters, helpers, flush.

Layout of the two extra kernel arguments:

* ``__global ulong *__kg_counters`` — ``COUNTER_SLOTS`` slots of ``COUNTER_STRIDE`` ulongs (one
  64-byte line each), the first ``len(COUNTER_NAMES)`` of a slot being partial totals in that
  order; each work-item adds its private counts with 64-bit atomics once, when it finishes, into
  slot ``global linear id % COUNTER_SLOTS``, so that neighbouring work-items do not contend on one
  address (one shared set of 7 totals made every launch serialise on them: ~300x slower than the
  kernel on PoCL). The host sums the slots (exact: integer sums).
* ``__global uint *__kg_marks`` — a header of ``MARK_HEADER_WORDS`` uints per global buffer
  parameter (word offset of its byte map, capacity in elements, highest element index + 1 over the
  accesses that fell *outside* the capacity, out-of-range access count), then the byte maps the
  header points to: one ``uchar`` per element, set to 1 by a plain store when the element is
  touched (races between work-items all store 1, so they are benign). The host counts the nonzero
  bytes (footprint) and finds the last nonzero one (extent); atomics are only used on the rare
  out-of-range path, so marking costs one byte store per element accessed.
"""
from __future__ import annotations

# Order of the counters in __kg_counters and of the private per-work-item variables (kgraph.count_keys).
from kgraph.count_keys import COUNTER_NAMES

# Private variable holding each counter inside the instrumented kernel.
PRIVATE_NAME: dict[str, str] = {name: f"__kg_c_{name}" for name in COUNTER_NAMES}

COUNTER_SLOTS = 256
COUNTER_STRIDE = 8  # ulongs per slot: 64 bytes, one cache line
MARK_HEADER_WORDS = 4  # word offset of byte map, capacity (elements), out-of-range max index + 1, out-of-range count
COUNTERS_ARG = "__kg_counters"
MARKS_ARG = "__kg_marks"

_HELPERS = r"""
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
/* ---- kgraph instrumentation helpers (generated) ---- */
void __kg_mark(__global uint *m, uint b, ulong elem, long off, ulong nbytes)
{
    __global uint *h = m + 4u * b;
    if (off < 0 || nbytes == 0) { atomic_inc(&h[3]); return; }
    ulong first, last;
    if ((elem & (elem - 1ul)) == 0ul) {  /* power-of-two element: shifts, no 64-bit division */
        uint sh = popcount(elem - 1ul);
        first = (ulong)off >> sh;
        last = ((ulong)off + nbytes - 1ul) >> sh;
    } else {
        first = (ulong)off / elem;
        last = ((ulong)off + nbytes - 1ul) / elem;
    }
    ulong cap = (ulong)h[1];
    if (last >= cap) {
        atomic_max(&h[2], (uint)min(last + 1ul, (ulong)0xffffffffu));
        atomic_inc(&h[3]);
        if (first >= cap) return;
        last = cap - 1ul;
    }
    __global uchar *map = (__global uchar *)(m + h[0]);
    for (ulong e = first; e <= last; ++e)
        map[e] = (uchar)1;
}
/* One global access: count its bytes, mark the elements it touches, give its index back. */
long __kg_access(__private ulong *ld, __private ulong *st, ulong nld, ulong nst,
                        __global uint *m, uint b, ulong elem, long ptr_off, long i,
                        ulong scale, ulong nbytes)
{
    *ld += nld;
    *st += nst;
    __kg_mark(m, b, elem, ptr_off + i * (long)scale, nbytes);
#ifdef __KG_BOUNDED
    /* sizing run: an access outside the buffer passed (recorded above) is redirected to the
       buffer's first element, so the kernel never reads or writes out of bounds */
    long off = ptr_off + i * (long)scale;
    long cap = (long)m[4u * b + 1u] * (long)elem;
    if (off < 0 || off + (long)nbytes > cap) {
        long s = (long)scale;
        return ptr_off <= 0 ? (s - 1 - ptr_off) / s : -(ptr_off / s);
    }
#endif
    return i;
}
void __kg_flush(__global ulong *c, ulong v, uint k)
{
    if (v == 0ul) return;
    ulong id = get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));
    atom_add(&c[(id % COUNTER_SLOTSul) * COUNTER_STRIDEul + k], v);
}
/* ---- end of kgraph helpers ---- */
"""


def helpers_text(bounded: bool = False) -> str:
    """The helper functions and pragmas prepended to an instrumented source.

    ``bounded``: every instrumented access is checked against the capacity of the buffer actually
    passed (the header's word 1); one that falls outside is recorded (as always) and redirected to
    the buffer's first element instead of being performed (the buffer-sizing run of
    :mod:`kgraph.data.instrumented.extents`, whose buffers start too small on purpose).
    """
    text = (_HELPERS.replace("COUNTER_SLOTSul", f"{COUNTER_SLOTS}ul")
            .replace("COUNTER_STRIDEul", f"{COUNTER_STRIDE}ul"))
    return ("#define __KG_BOUNDED 1\n" + text) if bounded else text


def declare_counters() -> str:
    """The declaration of the private counters, placed first in the kernel body."""
    names = ", ".join(f"{PRIVATE_NAME[n]} = 0" for n in COUNTER_NAMES)
    return f" ulong {names};"


def flush_counters() -> str:
    """Statements adding the private counters into ``__kg_counters`` (end of kernel, returns)."""
    return "".join(
        f" __kg_flush({COUNTERS_ARG}, {PRIVATE_NAME[n]}, {k}u);" for k, n in enumerate(COUNTER_NAMES)
    )


def extra_params() -> str:
    """The extra kernel parameters, appended after the kernel's own."""
    return f"__global ulong *{COUNTERS_ARG}, __global uint *{MARKS_ARG}"

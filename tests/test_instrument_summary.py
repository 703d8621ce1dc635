"""The device-side reduction of footprint byte maps equals the host scan of the same maps."""
import numpy as np

from kgraph.instrument.prelude import MARK_HEADER_WORDS
from kgraph.instrument.summary import MAX_ITEMS, summarise_marks


def _layout(capacities):
    header = np.zeros(MARK_HEADER_WORDS * len(capacities), np.uint32)
    offset = header.size
    for b, cap in enumerate(capacities):
        header[MARK_HEADER_WORDS * b:MARK_HEADER_WORDS * b + 2] = (offset, cap)
        offset += (cap + 3) // 4
    return header, offset


def test_summary_matches_host_scan(ctx):
    import pyopencl as cl

    rng = np.random.default_rng(3)
    # odd capacities (a partial last word), an untouched buffer, one longer than MAX_ITEMS words
    capacities = [7, 1001, 64, 4 * MAX_ITEMS + 4 * 37 + 3]
    header, words = _layout(capacities)
    marks = np.zeros(words, np.uint32)
    marks[:header.size] = header
    maps = []
    for b, cap in enumerate(capacities):
        touched = np.zeros(cap, np.uint8) if b == 2 else (rng.random(cap) < 0.3).astype(np.uint8) * rng.integers(1, 4, cap).astype(np.uint8)
        if b == 0:
            touched[-1] = 1  # the very last element (byte 2 of the last word)
        maps.append(touched)
        start = int(header[MARK_HEADER_WORDS * b])
        view = marks[start:start + (cap + 3) // 4].view(np.uint8)
        view[:cap] = touched
    marks[2] = 11  # buffer 0: an out-of-range access at index 10 (max index + 1), counted once
    marks[3] = 1
    queue = cl.CommandQueue(ctx)
    marks_dev = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=marks)
    got_header, summary = summarise_marks(queue, marks_dev, len(capacities), max((c + 3) // 4 for c in capacities))
    np.testing.assert_array_equal(got_header, marks[:header.size])
    for b, touched in enumerate(maps):
        nz = np.flatnonzero(touched)
        expected_last = int(nz[-1]) + 1 if nz.size else 0
        assert tuple(int(x) for x in summary[b]) == (nz.size, expected_last), b
    assert summary[0, 1] == 7 and summary[2].tolist() == [0, 0]

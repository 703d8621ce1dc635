"""Footprint byte maps reduced on the device: two words per buffer come back instead of the maps.

An instrumented launch marks every element it touches in a byte map per global buffer (one byte
per element, :mod:`kgraph.instrument.prelude`). Reading the maps back costs one byte per element of
every buffer (64 MiB for a 2^26-element buffer) plus a host scan; on the H200 campaign that was most
of the 17 ms an instrumented count cost per launch. :func:`summarise_marks` runs one small kernel
over the maps (a 2D NDRange: words x buffers) that counts the touched elements and finds the last
touched index per buffer with 32-bit atomics, and reads back the header and those two words.

Layout (written by :func:`kgraph.data.instrumented.marks.mark_layout`): buffer ``b``'s header is
``marks[4b:4b+4] = (word offset of its map, capacity in elements, out-of-range max index + 1,
out-of-range count)``; element ``i`` of its map is byte ``i % 4`` (little endian) of word
``offset + i // 4``.
"""
from __future__ import annotations

import weakref

import numpy as np

from kgraph.instrument.prelude import MARK_HEADER_WORDS

SUMMARY_SOURCE = f"""
__kernel void kgraph_mark_summary(__global const uint *marks, __global uint *summary)
{{
    const uint b = (uint)get_global_id(1);
    const uint word0 = marks[{MARK_HEADER_WORDS} * b];
    const uint capacity = marks[{MARK_HEADER_WORDS} * b + 1];
    const uint words = capacity / 4u + (capacity % 4u != 0u);
    uint touched = 0u, last_plus1 = 0u;
    for (uint w = (uint)get_global_id(0); w < words; w += (uint)get_global_size(0)) {{
        const uint v = marks[word0 + w];
        if (v != 0u) {{
            for (uint k = 0u; k < 4u; ++k) {{
                const uint i = 4u * w + k;
                if (i < capacity && ((v >> (8u * k)) & 0xffu) != 0u) {{
                    touched += 1u;
                    last_plus1 = i + 1u;
                }}
            }}
        }}
    }}
    if (touched != 0u) {{
        atomic_add(&summary[2u * b], touched);
        atomic_max(&summary[2u * b + 1u], last_plus1);
    }}
}}
"""

MAX_ITEMS = 1 << 16  # work-items per buffer (each strides over the map)
_programs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def summary_kernel(ctx):
    """The summary kernel, built and retrieved once per context (None if the device cannot build it)."""
    import pyopencl as cl

    if ctx not in _programs:
        try:
            _programs[ctx] = cl.Kernel(cl.Program(ctx, SUMMARY_SOURCE).build(), "kgraph_mark_summary")
        except cl.Error:
            _programs[ctx] = None
    return _programs[ctx]


def summarise_marks(queue, marks_dev, buffers: int, max_words_per_buffer: int):
    """``(header, summary)`` of a marks buffer on the device, or None when the kernel is unavailable.

    Args:
        queue: a queue on the marks buffer's context.
        marks_dev: the ``pyopencl.Buffer`` the instrumented kernel wrote.
        buffers: how many global buffers have a header.
        max_words_per_buffer: the longest byte map in 32-bit words (sizes the NDRange).

    Shapes:
        header: uint32[MARK_HEADER_WORDS * buffers]; summary: uint32[buffers, 2] = (touched
        elements, last touched index + 1).
    """
    import pyopencl as cl

    kernel = summary_kernel(queue.context)
    if kernel is None or buffers == 0:
        return None
    summary = np.zeros((buffers, 2), dtype=np.uint32)
    header = np.empty(MARK_HEADER_WORDS * buffers, dtype=np.uint32)
    summary_dev = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=summary)
    try:
        items = int(min(MAX_ITEMS, max(1, max_words_per_buffer)))
        kernel(queue, (items, buffers), None, marks_dev, summary_dev)
        cl.enqueue_copy(queue, summary, summary_dev)
        cl.enqueue_copy(queue, header, marks_dev)
        queue.finish()
    finally:
        summary_dev.release()
    return header, summary

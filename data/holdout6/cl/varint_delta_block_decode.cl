/* Decodes a sorted uint column stored as delta + varint (LEB128) blocks, as inverted-index and columnar
 * formats store postings and sorted keys, one block per work-item. Block b holds values
 * [b * block_len, min((b + 1) * block_len, n)): its first value is block_base[b], the following ones are coded
 * as the varint-coded gaps to their predecessors in bytes [block_off[b], block_off[b + 1]) of `bytes`
 * (seven bits a byte, least significant group first, the high bit set on all but a varint's last byte).
 * The decoder validates as it goes: a varint running past the block's bytes, one longer than five bytes or
 * with bits above 2^32 in its fifth byte, and bytes left over after the block's last gap all mark the block
 * corrupt. The values decoded before the error stay written; corrupt blocks are counted with atomic_inc and
 * the first one is kept with atomic_min (first_bad starts at INT_MAX). */
__kernel void varint_delta_block_decode(const int n,
                                        const int block_len,
                                        __global const uint *block_base,
                                        __global const int *block_off,
                                        __global const uchar *bytes,
                                        __global uint *values,
                                        __global int *first_bad,
                                        __global int *nbad)
{
    const int b = get_global_id(0);
    const int nblocks = (n + block_len - 1) / block_len;
    if (b >= nblocks)
        return;

    const int first = b * block_len;
    const int count = min(block_len, n - first);
    int p = block_off[b];
    const int end = block_off[b + 1];
    uint v = block_base[b];
    values[first] = v;

    bool bad = false;
    for (int k = 1; k < count && !bad; k++) {
        uint gap = 0;
        int shift = 0;
        while (1) {
            if (p >= end || shift > 28) {
                bad = true; /* truncated, or longer than five bytes */
                break;
            }
            const uint byte = bytes[p++];
            if (shift == 28 && (byte & 0x70u) != 0u) {
                bad = true; /* more than 32 bits */
                break;
            }
            gap |= (byte & 0x7Fu) << shift;
            shift += 7;
            if ((byte & 0x80u) == 0u)
                break;
        }
        if (bad)
            break;
        v += gap;
        values[first + k] = v;
    }
    if (!bad && p != end)
        bad = true; /* trailing bytes */

    if (bad) {
        atomic_inc(nbad);
        atomic_min(first_bad, b);
    }
}

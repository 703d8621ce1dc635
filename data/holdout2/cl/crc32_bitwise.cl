/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) of fixed-length messages, computed bit by
 * bit without a table; one message per work-item. */
__kernel void crc32_bitwise(const int nmsg, const int msg_len,
                            __global const uchar *msgs,
                            __global uint *crc)
{
    const int i = get_global_id(0);
    if (i >= nmsg)
        return;

    uint c = 0xFFFFFFFFu;
    for (int k = 0; k < msg_len; k++) {
        c ^= msgs[i * msg_len + k];
        for (int bit = 0; bit < 8; bit++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    crc[i] = ~c;
}

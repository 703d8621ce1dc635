/* CRC check of the LDPC code blocks of many transport blocks after decoding (5G NR: every code block carries a
 * CRC24B, polynomial 0x800063). Code block b is blk_bytes[b] bytes (its CRC included, at the end) packed
 * big-endian into uint32 words from word blk_start[b]. One work-item per code block runs the byte-wise table
 * CRC, the 256-entry table copied once per work-group into __local memory; the remainder over data and parity
 * is zero for a good block. blk_rem receives the remainder, and every failed block increments its transport
 * block's failure count (so a transport block needs a retransmission when its count is nonzero). */
__kernel void crc24b_cb_table_local_atomic(const int nblk,
                                           __global const uint *crc_table,
                                           __global const int *blk_start,
                                           __global const int *blk_bytes,
                                           __global const int *blk_tb,
                                           __global const uint *data,
                                           __global uint *blk_rem,
                                           __global uint *tb_fail,
                                           __local uint *tab)
{
    const int lid = get_local_id(0);
    for (int i = lid; i < 256; i += get_local_size(0))
        tab[i] = crc_table[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    const int b = get_global_id(0);
    if (b >= nblk)
        return;

    __global const uint *w = data + blk_start[b];
    const int nbytes = blk_bytes[b];
    uint crc = 0;
    int i = 0;
    for (; i + 4 <= nbytes; i += 4) {
        const uint word = w[i >> 2];
        crc = ((crc << 8) & 0xFFFFFFu) ^ tab[((crc >> 16) ^ (word >> 24)) & 0xFFu];
        crc = ((crc << 8) & 0xFFFFFFu) ^ tab[((crc >> 16) ^ (word >> 16)) & 0xFFu];
        crc = ((crc << 8) & 0xFFFFFFu) ^ tab[((crc >> 16) ^ (word >> 8)) & 0xFFu];
        crc = ((crc << 8) & 0xFFFFFFu) ^ tab[((crc >> 16) ^ word) & 0xFFu];
    }
    if (i < nbytes) {
        const uint word = w[i >> 2];
        for (int s = 24; i < nbytes; i++, s -= 8)
            crc = ((crc << 8) & 0xFFFFFFu) ^ tab[((crc >> 16) ^ (word >> s)) & 0xFFu];
    }

    blk_rem[b] = crc;
    if (crc != 0)
        atomic_inc(&tb_fail[blk_tb[b]]);
}

/* Tone curve on an 8-bit image: every byte goes through a 256-entry lookup table. Each work-group
 * first copies the table into local memory; each work-item then maps PER_ITEM consecutive bytes. */
#define PER_ITEM 16

__kernel void lut_apply_local(const int nbytes,
                              __global const uchar *lut,
                              __global const uchar *src,
                              __global uchar *dst)
{
    __local uchar table[256];
    for (int t = get_local_id(0); t < 256; t += get_local_size(0))
        table[t] = lut[t];
    barrier(CLK_LOCAL_MEM_FENCE);

    const int base = get_global_id(0) * PER_ITEM;
    for (int k = 0; k < PER_ITEM; k++) {
        const int idx = base + k;
        if (idx < nbytes)
            dst[idx] = table[src[idx]];
    }
}

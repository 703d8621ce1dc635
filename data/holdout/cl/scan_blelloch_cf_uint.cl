/* Work-efficient (Blelloch) exclusive scan of 256-element blocks of uints, two
 * elements per work-item, with the GPU Gems 3 padding that moves every 32nd
 * element of the local array by one slot to avoid bank conflicts.
 * Each block's total goes to sums[group]. */
#define WG 128
#define NB (2 * WG)
#define LOG_BANKS 5
#define CF(i) ((i) >> LOG_BANKS)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_blelloch_cf_uint(__global const uint *in, __global uint *out, __global uint *sums)
{
    __local uint temp[NB + NB / 32];
    const int tid = get_local_id(0);
    const int base = get_group_id(0) * NB;

    int ai = tid;
    int bi = tid + WG;
    temp[ai + CF(ai)] = in[base + ai];
    temp[bi + CF(bi)] = in[base + bi];

    int offset = 1;
    for (int d = NB >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1;
            int b = offset * (2 * tid + 2) - 1;
            temp[b + CF(b)] += temp[a + CF(a)];
        }
        offset *= 2;
    }

    if (tid == 0) {
        sums[get_group_id(0)] = temp[NB - 1 + CF(NB - 1)];
        temp[NB - 1 + CF(NB - 1)] = 0;
    }

    for (int d = 1; d < NB; d *= 2) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1;
            int b = offset * (2 * tid + 2) - 1;
            uint t = temp[a + CF(a)];
            temp[a + CF(a)] = temp[b + CF(b)];
            temp[b + CF(b)] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    out[base + ai] = temp[ai + CF(ai)];
    out[base + bi] = temp[bi + CF(bi)];
}

/* Inclusive prefix sum of a whole array by ONE work-group of 256 items: the
 * group walks the array in 256-element chunks, scans each chunk in local memory
 * (Hillis-Steele, double-buffered) and carries the running total to the next. */
#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_single_workgroup(const int n, __global const uint *in, __global uint *out)
{
    __local uint buf[2][WG];
    const int lid = get_local_id(0);
    uint carry = 0;

    for (int base = 0; base < n; base += WG) {
        int src = 0;
        buf[src][lid] = (base + lid < n) ? in[base + lid] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int off = 1; off < WG; off <<= 1) {
            uint v = buf[src][lid];
            if (lid >= off)
                v += buf[src][lid - off];
            buf[1 - src][lid] = v;
            src = 1 - src;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const uint inclusive = buf[src][lid] + carry;
        if (base + lid < n)
            out[base + lid] = inclusive;
        carry += buf[src][WG - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

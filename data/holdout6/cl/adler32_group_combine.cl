/* Adler-32 (RFC 1950) of every record of a byte column, one work-group per record: the work-groups walk the
 * records with a stride of the number of groups. Each work-item sums a contiguous chunk of the record into
 * chunk-relative sums a = sum of bytes and b = sum of the running a's, deferring the modulo to every NMAX bytes
 * as zlib does. The chunks are then merged in __local memory, neighbours with neighbours in a doubling tree,
 * by the rule of zlib's adler32_combine: (a, b, n) of X followed by Y is
 * (aX + aY, bX + bY + nY * aX, nX + nY), all mod 65521. The checksum adds the initial 1: A = 1 + a,
 * B = b + n, and is (B << 16) | A. */
#define ADLER_BASE 65521u
#define NMAX 5552 /* the most bytes before a uint sum can overflow */

__kernel void adler32_group_combine(const int nrec,
                                    __global const int *offsets,
                                    __global const uchar *data,
                                    __global uint *checksum,
                                    __local uint *part_a,
                                    __local uint *part_b,
                                    __local int *part_n)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int r = get_group_id(0); r < nrec; r += get_num_groups(0)) {
        const int begin = offsets[r];
        const int len = offsets[r + 1] - begin;
        const int chunk = (len + lsz - 1) / lsz;
        const int lo = min(lid * chunk, len);
        const int hi = min(lo + chunk, len);

        uint a = 0, b = 0;
        int p = lo;
        while (p < hi) {
            const int stop = min(p + NMAX, hi);
            for (; p < stop; p++) {
                a += data[begin + p];
                b += a;
            }
            a %= ADLER_BASE;
            b %= ADLER_BASE;
        }
        part_a[lid] = a;
        part_b[lid] = b;
        part_n[lid] = hi - lo;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int s = 1; s < lsz; s *= 2) {
            if (lid % (2 * s) == 0 && lid + s < lsz) {
                const uint left_a = part_a[lid];
                const uint right_n = (uint)part_n[lid + s] % ADLER_BASE;
                part_a[lid] = (left_a + part_a[lid + s]) % ADLER_BASE;
                part_b[lid] = ((right_n * left_a) % ADLER_BASE + part_b[lid] + part_b[lid + s]) % ADLER_BASE;
                part_n[lid] += part_n[lid + s];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        if (lid == 0) {
            const uint A = (1u + part_a[0]) % ADLER_BASE;
            const uint B = (part_b[0] + (uint)len % ADLER_BASE) % ADLER_BASE;
            checksum[r] = (B << 16) | A;
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the partials are rewritten for the next record */
    }
}

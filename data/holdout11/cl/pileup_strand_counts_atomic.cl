/* Pileup of a reference region from ungapped aligned reads (no CIGAR operations other than matches), one
 * work-item per read: the per-position base counts split by strand, as a variant caller's first pass makes
 * them. Read r has read_len base slots of which read_trim_len[r] were kept after trimming; its first kept base
 * lies at region position read_pos[r] (negative or past the end when it overhangs the region). A read is
 * skipped when its flag has a secondary, QC-fail or duplicate bit set (0x100, 0x200, 0x400) or its mapping
 * quality is below min_mq; a base when it is N (code 4) or its quality is below min_bq, or when it falls
 * outside the region. counts[8 * p + 4 * reverse + base] and the quality sum at p are integer atomics. */
#define FLAG_REVERSE 0x10
#define FLAG_SKIP 0x700

__kernel void pileup_strand_counts_atomic(const int nread, const int read_len, const int region_len,
                                          const int min_mq, const int min_bq,
                                          __global const int *read_pos,
                                          __global const int *read_trim_len,
                                          __global const int *read_flag,
                                          __global const uchar *read_mq,
                                          __global const uchar *bases,
                                          __global const uchar *quals,
                                          __global int *counts,
                                          __global uint *qual_sum)
{
    const int r = get_global_id(0);
    if (r >= nread)
        return;

    const int flag = read_flag[r];
    if ((flag & FLAG_SKIP) || read_mq[r] < min_mq)
        return;

    const int strand = (flag & FLAG_REVERSE) ? 4 : 0;
    const int pos = read_pos[r];
    const int first = max(0, -pos);
    const int last = min(read_trim_len[r], region_len - pos);
    __global const uchar *b = bases + (size_t)r * read_len;
    __global const uchar *q = quals + (size_t)r * read_len;

    for (int k = first; k < last; k++) {
        const int base = b[k];
        const int bq = q[k];
        if (base > 3 || bq < min_bq)
            continue;
        const int p = pos + k;
        atomic_inc(&counts[8 * p + strand + base]);
        atomic_add(&qual_sum[p], (uint)bq);
    }
}

/* Cross-correlograms of pairs of spike trains. Train t holds the sorted spike times (integer ticks)
 * times[train_start[t]] .. times[train_start[t + 1] - 1]. For pair p (reference train pair_a[p], target train
 * pair_b[p]) bin k of ccg counts the spike pairs whose lag t_b - t_a lies in [(k - nbin / 2) * binw,
 * (k - nbin / 2 + 1) * binw). A work-group takes one pair at a time, looping by the number of groups; it stages
 * the target train through __local memory a tile of local-size spikes at a time. Each work-item owns the bins
 * k = lid, lid + lsz, ...: for every tile it finds the first reference spike whose window can reach the tile by
 * binary search, walks the reference spikes until their window passes the tile, and counts the tile's spikes
 * inside each window by two binary searches. */
static int lower_bound_tile(__local const uint *tb, const int m, const long x)
{
    int lo = 0, hi = m;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if ((long)tb[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

__kernel void spike_ccg_pair_tiles_local(const int npair, const int nbin, const int binw,
                                         __global const uint *times,
                                         __global const int *train_start,
                                         __global const int *pair_a,
                                         __global const int *pair_b,
                                         __global uint *ccg,
                                         __local uint *tb)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int zero_bin = nbin / 2;

    for (int p = get_group_id(0); p < npair; p += get_num_groups(0)) {
        const int a0 = train_start[pair_a[p]], a1 = train_start[pair_a[p] + 1];
        const int b0 = train_start[pair_b[p]], b1 = train_start[pair_b[p] + 1];
        __global uint *out = ccg + (size_t)p * nbin;
        for (int k = lid; k < nbin; k += lsz)
            out[k] = 0u;

        for (int t = b0; t < b1; t += lsz) {
            const int m = min(lsz, b1 - t);
            if (lid < m)
                tb[lid] = times[t + lid];
            barrier(CLK_LOCAL_MEM_FENCE);
            const long tfirst = tb[0];
            const long tlast = tb[m - 1];

            for (int k = lid; k < nbin; k += lsz) {
                const long lo_off = (long)(k - zero_bin) * binw;
                /* first reference spike with t_a + lo_off + binw > tfirst */
                int lo = a0, hi = a1;
                while (lo < hi) {
                    const int mid = (lo + hi) >> 1;
                    if ((long)times[mid] + lo_off + binw <= tfirst)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                uint c = 0u;
                for (int ia = lo; ia < a1; ia++) {
                    const long wlo = (long)times[ia] + lo_off;
                    if (wlo > tlast)
                        break;
                    c += (uint)(lower_bound_tile(tb, m, wlo + binw) - lower_bound_tile(tb, m, wlo));
                }
                out[k] += c;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}

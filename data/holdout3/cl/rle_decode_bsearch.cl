/* Run-length decoding: run r fills output positions run_start[r] .. run_start[r+1]-1 (run_start is
 * the exclusive scan of the run lengths, run_start[0] == 0). Each work-item binary-searches the last
 * run that starts at or before its position and copies that run's value. */
__kernel void rle_decode_bsearch(const int nruns,
                                 const int nout,
                                 __global const int *run_start,
                                 __global const uint *run_vals,
                                 __global uint *out)
{
    const int i = get_global_id(0);
    if (i >= nout)
        return;

    int lo = 0;
    int hi = nruns;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (run_start[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    out[i] = run_vals[lo];
}

/* Transient simulation of many small independent RC networks (the Monte Carlo samples of one interconnect, say):
 * one backward-Euler step of each. Circuit c has n nodes and nbr branches; branch e joins nodes br_a and br_b
 * (-1: ground) with conductance br_g, and every node has a capacitor to ground (cap) and a current source (isrc).
 * Backward Euler replaces each capacitor by its companion model, a conductance cap / h in parallel with a source
 * cap / h * v(t), so the step solves the nodal system G v(t + h) = rhs. A work-group takes one circuit at a time,
 * looping by the number of groups: its work-items assemble the rows of the dense matrix in __local memory (each
 * scans the branch list for the ones that touch its nodes), then run nsweep Jacobi sweeps from v(t), separated
 * by barriers. vnext receives the last iterate and resid the largest change of the last sweep. */
__kernel void mna_be_jacobi_local(const int ncirc, const int n, const int nbr, const int nsweep, const float inv_h,
                                  __global const int *br_a,
                                  __global const int *br_b,
                                  __global const float *br_g,
                                  __global const float *cap,
                                  __global const float *isrc,
                                  __global const float *vprev,
                                  __global float *vnext,
                                  __global float *resid,
                                  __local float *gmat,
                                  __local float *rhs,
                                  __local float *x,
                                  __local float *xnew,
                                  __local float *red)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int c = get_group_id(0); c < ncirc; c += get_num_groups(0)) {
        __global const int *ea = br_a + (size_t)c * nbr;
        __global const int *eb = br_b + (size_t)c * nbr;
        __global const float *eg = br_g + (size_t)c * nbr;
        const size_t node0 = (size_t)c * n;

        /* assembly: row i of G and rhs[i] */
        for (int i = lid; i < n; i += lsz) {
            __local float *row = gmat + i * n;
            for (int j = 0; j < n; j++)
                row[j] = 0.0f;
            const float gc = cap[node0 + i] * inv_h;
            float diag = gc;
            for (int e = 0; e < nbr; e++) {
                const int a = ea[e];
                const int b = eb[e];
                if (a == i) {
                    diag += eg[e];
                    if (b >= 0)
                        row[b] -= eg[e];
                } else if (b == i) {
                    diag += eg[e];
                    if (a >= 0)
                        row[a] -= eg[e];
                }
            }
            row[i] = diag;
            rhs[i] = isrc[node0 + i] + gc * vprev[node0 + i];
            x[i] = vprev[node0 + i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        float change = 0.0f;
        for (int s = 0; s < nsweep; s++) {
            for (int i = lid; i < n; i += lsz) {
                __local const float *row = gmat + i * n;
                float acc = rhs[i];
                for (int j = 0; j < n; j++) {
                    if (j != i)
                        acc -= row[j] * x[j];
                }
                xnew[i] = acc / row[i];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            change = 0.0f;
            for (int i = lid; i < n; i += lsz) {
                change = fmax(change, fabs(xnew[i] - x[i]));
                x[i] = xnew[i];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        for (int i = lid; i < n; i += lsz)
            vnext[node0 + i] = x[i];
        red[lid] = change;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = lsz / 2; s > 0; s >>= 1) {
            if (lid < s)
                red[lid] = fmax(red[lid], red[lid + s]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            resid[c] = red[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

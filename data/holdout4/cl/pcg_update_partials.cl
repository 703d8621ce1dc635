/* The update step of preconditioned conjugate gradients for several right-hand sides at once
 * (system s is column s of n-vectors, stored one after another):
 *     x += alpha_s p,  r -= alpha_s q,  z = M^-1 r  (Jacobi: inv_diag, shared by every system)
 * fused with the first stage of the next r.z: each work-group sums its items' r_i z_i in local
 * memory and writes one partial per (system, group); the host adds the partials. */
#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pcg_update_partials(const int n, __global const float *alpha, __global const float *p,
                         __global const float *q, __global const float *inv_diag,
                         __global float *x, __global float *r, __global float *z,
                         __global float *partial)
{
    __local float rz[WG];
    const int i = get_global_id(0);
    const int s = get_global_id(1);
    const int lid = get_local_id(0);
    const size_t k = (size_t)s * n + i;

    float mine = 0.0f;
    if (i < n) {
        const float a = alpha[s];
        x[k] += a * p[k];
        const float ri = r[k] - a * q[k];
        const float zi = inv_diag[i] * ri;
        r[k] = ri;
        z[k] = zi;
        mine = ri * zi;
    }
    rz[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int width = WG / 2; width > 0; width >>= 1) {
        if (lid < width)
            rz[lid] += rz[lid + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[s * get_num_groups(0) + get_group_id(0)] = rz[0];
}

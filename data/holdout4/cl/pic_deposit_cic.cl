/* Charge deposition of a 2-D particle-in-cell code, cloud-in-cell scheme: particle positions are in
 * cell units on a periodic nx x ny grid of nodes; each particle splits its charge over the four nodes
 * around it with bilinear weights. Charges are summed as 16.16 fixed-point ints with atomic_add, which
 * keeps the density bit-for-bit reproducible (no float atomics in OpenCL 1.2 anyway). */
#define QSCALE 65536.0f

inline void deposit(__global int *rho, int node, float charge)
{
    atomic_add(&rho[node], (int)(charge * QSCALE));
}

__kernel void pic_deposit_cic(const int npart,
                              const int nx,
                              const int ny,
                              __global const float *px,
                              __global const float *py,
                              __global const float *q,
                              __global int *rho)
{
    const int p = get_global_id(0);
    if (p >= npart)
        return;

    const float x = px[p];
    const float y = py[p];
    const int ix = (int)floor(x);
    const int iy = (int)floor(y);
    const float fx = x - (float)ix;
    const float fy = y - (float)iy;

    /* right and upper neighbours wrap around */
    const int ix1 = (ix + 1 == nx) ? 0 : ix + 1;
    const int iy1 = (iy + 1 == ny) ? 0 : iy + 1;

    const float qp = q[p];
    deposit(rho, iy * nx + ix, qp * (1.0f - fx) * (1.0f - fy));
    deposit(rho, iy * nx + ix1, qp * fx * (1.0f - fy));
    deposit(rho, iy1 * nx + ix, qp * (1.0f - fx) * fy);
    deposit(rho, iy1 * nx + ix1, qp * fx * fy);
}

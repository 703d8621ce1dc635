#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* One correspondence step of point-to-plane ICP against a map in projected (UTM) coordinates, in fp64 because
 * the map's northings are millions of metres. Each work-item takes a scan point (sensor frame), moves it by the
 * current pose estimate (3x3 rotation row-major, then the translation), and looks for the nearest map point
 * within max_dist in a spatial hash grid: the map points are sorted by the bucket of their cell (cells cell_size
 * metres, the usual xor-of-primes hash masked to the table size) and bucket_start / bucket_end give each
 * bucket's run (start == end when empty). The 27 cells around the point's cell are probed; points of other cells
 * sharing a bucket are filtered by the distance test itself. With a match the point gets the signed
 * point-to-plane residual against the map point's normal and its Gauss-Newton Jacobian row (the rotated point
 * cross the normal, then the normal), scaled by the Huber weight; without one match is -1 and both are zero. */
#define P1 73856093u
#define P2 19349663u
#define P3 83492791u

uint cell_hash(const long cx, const long cy, const long cz)
{
    return ((uint)cx * P1) ^ ((uint)cy * P2) ^ ((uint)cz * P3);
}

__kernel void icp_hashgrid_p2plane_fp64(const int nsrc, const uint table_mask, const double cell_size,
                                        const double max_dist, const double huber_k,
                                        __global const double *src,
                                        __global const double *pose,
                                        __global const double *tgt,
                                        __global const float *tgt_nrm,
                                        __global const int *bucket_start,
                                        __global const int *bucket_end,
                                        __global int *match,
                                        __global double *resid,
                                        __global double *jrow)
{
    const int i = get_global_id(0);
    if (i >= nsrc)
        return;

    const double sx = src[3 * i], sy = src[3 * i + 1], sz = src[3 * i + 2];
    const double ax = pose[0] * sx + pose[1] * sy + pose[2] * sz;
    const double ay = pose[3] * sx + pose[4] * sy + pose[5] * sz;
    const double az = pose[6] * sx + pose[7] * sy + pose[8] * sz;
    const double x = ax + pose[9];
    const double y = ay + pose[10];
    const double z = az + pose[11];

    const long cx = (long)floor(x / cell_size);
    const long cy = (long)floor(y / cell_size);
    const long cz = (long)floor(z / cell_size);

    double best_d2 = max_dist * max_dist;
    int best = -1;
    for (int dz = -1; dz <= 1; dz++) {
        for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
                const uint b = cell_hash(cx + dx, cy + dy, cz + dz) & table_mask;
                const int end = bucket_end[b];
                for (int k = bucket_start[b]; k < end; k++) {
                    const double ex = tgt[3 * k] - x;
                    const double ey = tgt[3 * k + 1] - y;
                    const double ez = tgt[3 * k + 2] - z;
                    const double d2 = ex * ex + ey * ey + ez * ez;
                    if (d2 < best_d2 || (d2 == best_d2 && k < best)) {
                        best_d2 = d2;
                        best = k;
                    }
                }
            }
        }
    }

    double r = 0.0, w = 0.0, nx = 0.0, ny = 0.0, nz = 0.0;
    if (best >= 0) {
        nx = (double)tgt_nrm[3 * best];
        ny = (double)tgt_nrm[3 * best + 1];
        nz = (double)tgt_nrm[3 * best + 2];
        r = (x - tgt[3 * best]) * nx + (y - tgt[3 * best + 1]) * ny + (z - tgt[3 * best + 2]) * nz;
        w = (fabs(r) <= huber_k) ? 1.0 : huber_k / fabs(r);
    }
    match[i] = best;
    resid[i] = r;
    __global double *J = jrow + 6 * (size_t)i;
    J[0] = w * (ay * nz - az * ny);
    J[1] = w * (az * nx - ax * nz);
    J[2] = w * (ax * ny - ay * nx);
    J[3] = w * nx;
    J[4] = w * ny;
    J[5] = w * nz;
}

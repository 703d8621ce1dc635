/* Ground segmentation of a lidar scan in a polar grid, a work-group per azimuth sector (moving on by the number
 * of groups). The points come counting-sorted by (sector, range bin): cell_off[s * nbin + b] .. cell_off[s * nbin
 * + b + 1] are the points of bin b of sector s, bins bin_len metres deep outward from the sensor. First every
 * work-item finds the lowest point of some bins (its height and horizontal range) into __local memory. Then the
 * first work-item walks the bins outward from the sensor's foot (sensor_h below it): a bin's lowest point
 * continues the ground when the height change from the last ground point stays within max_slope times the range
 * change (plus ground_tol); empty bins and bins that rise or drop too steeply (an obstacle standing on occluded
 * ground, a hole) keep the last ground height. Last, every point of the sector gets its height above the ground
 * of its bin and a label: 1 ground (within ground_tol), 0 obstacle, 2 overhang (higher than max_height:
 * canopies, signs, bridges; no obstacle for a car). */
#define LABEL_OBSTACLE 0
#define LABEL_GROUND 1
#define LABEL_OVERHANG 2

__kernel void ground_polar_slope_local(const int nsect, const int nbin, const float sensor_h,
                                       const float max_slope, const float ground_tol, const float max_height,
                                       __global const float *px,
                                       __global const float *py,
                                       __global const float *pz,
                                       __global const int *cell_off,
                                       __global int *label,
                                       __global float *hag,
                                       __local float *low_z,
                                       __local float *low_r,
                                       __local float *ground_z)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int s = get_group_id(0); s < nsect; s += get_num_groups(0)) {
        __global const int *off = cell_off + (size_t)s * nbin;

        for (int b = lid; b < nbin; b += lsz) {
            float zmin = INFINITY, rmin = 0.0f;
            for (int k = off[b]; k < off[b + 1]; k++) {
                const float z = pz[k];
                if (z < zmin) {
                    zmin = z;
                    rmin = hypot(px[k], py[k]);
                }
            }
            low_z[b] = zmin;
            low_r[b] = rmin;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        if (lid == 0) {
            float gz = -sensor_h, gr = 0.0f;
            for (int b = 0; b < nbin; b++) {
                const float z = low_z[b];
                if (z < INFINITY) {
                    const float dz = fabs(z - gz);
                    const float dr = low_r[b] - gr;
                    if (dz <= max_slope * dr + ground_tol) {
                        gz = z;
                        gr = low_r[b];
                    }
                }
                ground_z[b] = gz;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        const int first = off[0];
        const int end = off[nbin];
        for (int k = first + lid; k < end; k += lsz) {
            int lo = 0, hi = nbin; /* the bin b with off[b] <= k < off[b + 1] */
            while (hi - lo > 1) {
                const int mid = (lo + hi) >> 1;
                if (off[mid] <= k)
                    lo = mid;
                else
                    hi = mid;
            }
            const float h = pz[k] - ground_z[lo];
            label[k] = (h <= ground_tol) ? LABEL_GROUND : ((h > max_height) ? LABEL_OVERHANG : LABEL_OBSTACLE);
            hag[k] = h;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

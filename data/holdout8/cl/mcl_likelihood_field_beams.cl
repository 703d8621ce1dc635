/* Monte Carlo localisation: measurement update of a particle filter with the likelihood-field model.
 * One particle per work-item. The particle's pose (x, y, theta) places the laser (mounted laser_off
 * metres ahead of the base); every beam of the scan is projected to its end point in the map, and the
 * distance from that point to the nearest obstacle is read from a precomputed distance field (bilinear
 * between cell centres; outside the map it counts as max_dist). The beam's likelihood is a mixture of a
 * Gaussian hit model and a uniform random-measurement term; the particle's log weight is the sum of the
 * logs. Max-range and too-short readings carry no information and are skipped. The scan (ranges and beam
 * angles) is shared by all particles and read through __constant memory. */
__kernel void mcl_likelihood_field_beams(const int nparticles, const int nbeams,
                                         const int map_w, const int map_h,
                                         const float resolution, const float origin_x, const float origin_y,
                                         const float laser_off, const float range_min, const float range_max,
                                         const float sigma_hit, const float z_hit, const float z_rand,
                                         const float max_dist,
                                         __global const float *pose,
                                         __constant float *ranges,
                                         __constant float *angles,
                                         __global const float *dist_field,
                                         __global float *log_w)
{
    const int i = get_global_id(0);
    if (i >= nparticles)
        return;

    const float px = pose[3 * i];
    const float py = pose[3 * i + 1];
    const float th = pose[3 * i + 2];
    const float lx = px + laser_off * cos(th);
    const float ly = py + laser_off * sin(th);

    const float inv_res = 1.0f / resolution;
    const float inv_2s2 = 1.0f / (2.0f * sigma_hit * sigma_hit);
    const float p_rand = z_rand / range_max;

    float sum = 0.0f;
    for (int b = 0; b < nbeams; b++) {
        const float r = ranges[b];
        if (r >= range_max || r < range_min)
            continue;
        const float a = th + angles[b];
        const float ex = lx + r * cos(a);
        const float ey = ly + r * sin(a);

        /* continuous cell coordinates, cell centres at integers */
        const float gx = (ex - origin_x) * inv_res - 0.5f;
        const float gy = (ey - origin_y) * inv_res - 0.5f;
        float d = max_dist;
        if (gx >= 0.0f && gy >= 0.0f && gx < (float)(map_w - 1) && gy < (float)(map_h - 1)) {
            const int cx = (int)gx;
            const int cy = (int)gy;
            const float fx = gx - (float)cx;
            const float fy = gy - (float)cy;
            __global const float *row = dist_field + cy * map_w + cx;
            const float d0 = row[0] + fx * (row[1] - row[0]);
            const float d1 = row[map_w] + fx * (row[map_w + 1] - row[map_w]);
            d = d0 + fy * (d1 - d0);
        }
        const float pz = z_hit * exp(-d * d * inv_2s2) + p_rand;
        sum += log(pz);
    }
    log_w[i] = sum;
}

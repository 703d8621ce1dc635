/* Lennard-Jones forces (epsilon = sigma = 1) on every particle from all others in a periodic cubic
 * box, minimum-image convention. Pairs beyond the cutoff are skipped, so how much arithmetic a
 * work-item does depends on where the particles are. Positions are packed xyz triples. */
__kernel void lj_forces_cutoff(const int n, const float box, const float rc2,
                               __global const float *pos,
                               __global float *force)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    const float inv_box = 1.0f / box;
    const float xi = pos[3 * i];
    const float yi = pos[3 * i + 1];
    const float zi = pos[3 * i + 2];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < n; j++) {
        if (j == i)
            continue;
        float dx = xi - pos[3 * j];
        float dy = yi - pos[3 * j + 1];
        float dz = zi - pos[3 * j + 2];
        dx -= box * rint(dx * inv_box);
        dy -= box * rint(dy * inv_box);
        dz -= box * rint(dz * inv_box);
        const float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < rc2) {
            const float ir2 = 1.0f / r2;
            const float ir6 = ir2 * ir2 * ir2;
            const float f = 24.0f * ir2 * ir6 * (2.0f * ir6 - 1.0f);
            fx += f * dx;
            fy += f * dy;
            fz += f * dz;
        }
    }
    force[3 * i] = fx;
    force[3 * i + 1] = fy;
    force[3 * i + 2] = fz;
}

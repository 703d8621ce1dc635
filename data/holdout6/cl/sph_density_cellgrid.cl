/* SPH density and pressure, one particle per work-item. The particles are sorted by the cell of a
 * uniform grid whose cells are one smoothing length wide, so every neighbour within h lies in the
 * 3x3x3 block of cells around the particle's own; cell_start/cell_count give each cell's run of
 * particles in the sorted array. The density sums the poly6 kernel over those neighbours (the particle
 * itself included); the pressure follows from Tait's equation of state, clamped at zero so that the
 * thin parts of the flow do not pull particles together. pos.w holds the particle's mass. */
#define PI_F 3.14159265f

__kernel void sph_density_cellgrid(const int nparticles, const int grid_n, const float inv_cell,
                                   const float h, const float rest_density, const float stiffness,
                                   __global const float4 *pos,
                                   __global const uint *cell_start,
                                   __global const uint *cell_count,
                                   __global float *density,
                                   __global float *pressure)
{
    const int i = get_global_id(0);
    if (i >= nparticles)
        return;

    const float4 p = pos[i];
    const float h2 = h * h;
    const int cx = clamp((int)(p.x * inv_cell), 0, grid_n - 1);
    const int cy = clamp((int)(p.y * inv_cell), 0, grid_n - 1);
    const int cz = clamp((int)(p.z * inv_cell), 0, grid_n - 1);

    float sum = 0.0f;
    for (int z = max(cz - 1, 0); z <= min(cz + 1, grid_n - 1); z++) {
        for (int y = max(cy - 1, 0); y <= min(cy + 1, grid_n - 1); y++) {
            for (int x = max(cx - 1, 0); x <= min(cx + 1, grid_n - 1); x++) {
                const uint cell = ((uint)z * grid_n + y) * grid_n + x;
                const uint first = cell_start[cell];
                const uint last = first + cell_count[cell];
                for (uint j = first; j < last; j++) {
                    const float4 q = pos[j];
                    const float dx = q.x - p.x;
                    const float dy = q.y - p.y;
                    const float dz = q.z - p.z;
                    const float r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 < h2) {
                        const float w = h2 - r2;
                        sum += q.w * w * w * w;
                    }
                }
            }
        }
    }

    const float h3 = h2 * h;
    const float rho = sum * 315.0f / (64.0f * PI_F * h3 * h3 * h3);
    density[i] = rho;
    const float ratio = rho / rest_density;
    const float r7 = ratio * ratio * ratio * ratio * ratio * ratio * ratio;
    pressure[i] = fmax(stiffness * (r7 - 1.0f), 0.0f);
}

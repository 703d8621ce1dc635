/* Resample a volume turned about its vertical (z) axis and stretched along z, with trilinear
 * interpolation; a sample whose source point falls outside the volume is zero. One work-item per
 * output voxel on a 3-D NDRange. */
__kernel void trilinear_rotate_3d(const int nx, const int ny, const int nz,
                                  const float cos_a, const float sin_a, const float zscale,
                                  __global const float *vol,
                                  __global float *out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int z = get_global_id(2);
    const float cx = 0.5f * (float)(nx - 1);
    const float cy = 0.5f * (float)(ny - 1);
    const float rx = (float)x - cx;
    const float ry = (float)y - cy;
    const float px = cx + cos_a * rx + sin_a * ry;
    const float py = cy - sin_a * rx + cos_a * ry;
    const float pz = (float)z * zscale;

    float value = 0.0f;
    if (px >= 0.0f && py >= 0.0f && pz >= 0.0f &&
        px <= (float)(nx - 1) && py <= (float)(ny - 1) && pz <= (float)(nz - 1)) {
        const int x0 = (int)px, y0 = (int)py, z0 = (int)pz;
        const int x1 = min(x0 + 1, nx - 1), y1 = min(y0 + 1, ny - 1), z1 = min(z0 + 1, nz - 1);
        const float ax = px - (float)x0, ay = py - (float)y0, az = pz - (float)z0;
        const int s0 = z0 * ny * nx, s1 = z1 * ny * nx;
        const float c00 = mix(vol[s0 + y0 * nx + x0], vol[s0 + y0 * nx + x1], ax);
        const float c01 = mix(vol[s0 + y1 * nx + x0], vol[s0 + y1 * nx + x1], ax);
        const float c10 = mix(vol[s1 + y0 * nx + x0], vol[s1 + y0 * nx + x1], ax);
        const float c11 = mix(vol[s1 + y1 * nx + x0], vol[s1 + y1 * nx + x1], ax);
        value = mix(mix(c00, c01, ay), mix(c10, c11, ay), az);
    }
    out[(z * ny + y) * nx + x] = value;
}

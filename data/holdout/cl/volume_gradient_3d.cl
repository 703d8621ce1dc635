/* Gradient magnitude of a scalar volume (nx x ny x nz, x fastest) by central
 * differences; one-sided differences on the faces (indices clamped). */
__kernel void volume_gradient_3d(const int nx, const int ny, const int nz,
                                 const float inv_h,
                                 __global const float *vol,
                                 __global float *grad)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int z = get_global_id(2);
    const int sy = nx;
    const int sz = nx * ny;

    const int xm = max(x - 1, 0), xp = min(x + 1, nx - 1);
    const int ym = max(y - 1, 0), yp = min(y + 1, ny - 1);
    const int zm = max(z - 1, 0), zp = min(z + 1, nz - 1);

    const float gx = (vol[z * sz + y * sy + xp] - vol[z * sz + y * sy + xm]) / (float)(xp - xm);
    const float gy = (vol[z * sz + yp * sy + x] - vol[z * sz + ym * sy + x]) / (float)(yp - ym);
    const float gz = (vol[zp * sz + y * sy + x] - vol[zm * sz + y * sy + x]) / (float)(zp - zm);
    grad[z * sz + y * sy + x] = inv_h * sqrt(gx * gx + gy * gy + gz * gz);
}

/* One explicit Euler step of the Gray-Scott reaction-diffusion model on a periodic grid:
 *   u' = Du lap(u) - u v^2 + F (1 - u)
 *   v' = Dv lap(v) + u v^2 - (F + k) v
 * Two fields in, two fields out; the 5-point Laplacian wraps around at the edges. */
__kernel void gray_scott_step(const int width, const int height,
                              const float du, const float dv,
                              const float feed, const float kill, const float dt,
                              __global const float *u, __global const float *v,
                              __global float *u_next, __global float *v_next)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const int xl = (x == 0) ? width - 1 : x - 1;
    const int xr = (x == width - 1) ? 0 : x + 1;
    const int yd = (y == 0) ? height - 1 : y - 1;
    const int yu = (y == height - 1) ? 0 : y + 1;

    const int c = y * width + x;
    const float uc = u[c];
    const float vc = v[c];

    const float lap_u = u[y * width + xl] + u[y * width + xr] + u[yd * width + x] + u[yu * width + x] - 4.0f * uc;
    const float lap_v = v[y * width + xl] + v[y * width + xr] + v[yd * width + x] + v[yu * width + x] - 4.0f * vc;

    const float uvv = uc * vc * vc;
    u_next[c] = uc + dt * (du * lap_u - uvv + feed * (1.0f - uc));
    v_next[c] = vc + dt * (dv * lap_v + uvv - (feed + kill) * vc);
}

/* Angular-spectrum propagation of a stack of monochromatic fields over a distance z (the step between two FFTs in
 * a scalar diffraction simulation). spec holds nplane spectra of nx x ny samples each (complex as float2, row
 * major, FFT order: index i < nx / 2 is frequency i, the upper half negative frequencies), taken on a grid of
 * pitch dx (um); plane p was computed at wavelength lambda_um[p]. Every work-item of the 2-D NDRange takes one
 * frequency (fx, fy) and, for each plane, multiplies the spectrum in place by the transfer function
 *   H = exp(i 2 pi z (sqrt(1 / lambda^2 - f^2) - 1 / lambda))          (carrier phase removed)
 * with the square root written in the cancellation-free form -f^2 / (1 / lambda + sqrt(...)). Frequencies past
 * Matsushima's band limit 1 / (lambda sqrt((2 df z)^2 + 1)) on either axis are zeroed (their sampled chirp aliases),
 * and evanescent components (f > 1 / lambda) are damped by exp(-2 pi z sqrt(f^2 - 1 / lambda^2)). */

__kernel void asm_bandlimit_prop_planes_2d(const int nx, const int ny, const int nplane, const float dx,
                                           const float z,
                                           __global const float *lambda_um,
                                           __global float2 *spec)
{
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i >= nx || j >= ny)
        return;

    const float dfx = 1.0f / (nx * dx);
    const float dfy = 1.0f / (ny * dx);
    const float fx = (float)(i < nx / 2 ? i : i - nx) * dfx;
    const float fy = (float)(j < ny / 2 ? j : j - ny) * dfy;
    const float f2 = fx * fx + fy * fy;
    const float two_pi_z = 2.0f * M_PI_F * z;
    const size_t plane = (size_t)nx * ny;
    const size_t idx = (size_t)j * nx + i;

    for (int p = 0; p < nplane; p++) {
        const float inv_lam = 1.0f / lambda_um[p];
        const float lim_x = inv_lam / sqrt(4.0f * dfx * dfx * z * z + 1.0f);
        const float lim_y = inv_lam / sqrt(4.0f * dfy * dfy * z * z + 1.0f);
        __global float2 *u = spec + p * plane + idx;
        if (fabs(fx) > lim_x || fabs(fy) > lim_y) {
            *u = (float2)(0.0f, 0.0f);
            continue;
        }
        const float g = inv_lam * inv_lam - f2;
        float2 h;
        if (g >= 0.0f) {
            const float phase = two_pi_z * (-f2 / (inv_lam + sqrt(g)));
            float c;
            const float s = sincos(phase, &c);
            h = (float2)(c, s);
        } else {
            const float att = exp(-two_pi_z * sqrt(-g));
            h = (float2)(att, 0.0f);
        }
        const float2 v = *u;
        *u = (float2)(v.x * h.x - v.y * h.y, v.x * h.y + v.y * h.x);
    }
}

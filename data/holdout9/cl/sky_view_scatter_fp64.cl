#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Bakes a sky-view lookup table (Hillaire 2020 layout) by single scattering in double precision, one texel per
 * work-item on a 2-D NDRange: u is the azimuth relative to the sun, v the view zenith angle, squeezed towards the
 * horizon (above it for v < 0.5, below it for v > 0.5). Lengths in km. The view ray from the observer is marched
 * in nview segments to the top of the atmosphere or to the ground, whichever comes first; at each segment's
 * midpoint the ray to the sun is tested against the planet (in its shadow the sample adds nothing) and else
 * marched in nlight segments for its optical depth. Rayleigh and Mie densities fall off exponentially with
 * heights hr and hm; atmos = { Rayleigh beta r, g, b, Mie scattering, Mie extinction, sun x, y, z }; Rayleigh
 * phase and the Cornette-Shanks Mie phase with asymmetry mie_g. Output: RGB radiance for a unit sun. */
__kernel void sky_view_scatter_fp64(const int nu, const int nv, const int nview, const int nlight,
                                    const double r_ground, const double r_top, const double alt,
                                    const double hr, const double hm, const double mie_g,
                                    __global const double *atmos,
                                    __global double *lut)
{
    const int iu = get_global_id(0);
    const int iv = get_global_id(1);
    if (iu >= nu || iv >= nv)
        return;

    const double3 beta_r = (double3)(atmos[0], atmos[1], atmos[2]);
    const double beta_ms = atmos[3];
    const double beta_me = atmos[4];
    const double3 sun = (double3)(atmos[5], atmos[6], atmos[7]);

    const double r = r_ground + alt;
    const double horizon = acos(sqrt(r * r - r_ground * r_ground) / r);   /* horizon's depression angle */
    const double zenith_horizon = M_PI - horizon;
    const double fv = ((double)iv + 0.5) / (double)nv;
    double zen;
    if (fv < 0.5) {
        const double c = 1.0 - 2.0 * fv;
        zen = zenith_horizon * (1.0 - c * c);
    } else {
        const double c = 2.0 * fv - 1.0;
        zen = zenith_horizon + horizon * c * c;
    }
    const double phi = 2.0 * M_PI * ((double)iu + 0.5) / (double)nu;
    const double3 dir = (double3)(sin(zen) * cos(phi), cos(zen), sin(zen) * sin(phi));
    const double3 org = (double3)(0.0, r, 0.0);

    /* ray length: exit through the top, or the ground when the ray goes down far enough to meet it */
    const double b = dot(org, dir);
    const double c_top = dot(org, org) - r_top * r_top;
    double t_end = -b + sqrt(b * b - c_top);
    const double c_gnd = dot(org, org) - r_ground * r_ground;
    const double disc_g = b * b - c_gnd;
    if (disc_g >= 0.0) {
        const double tg = -b - sqrt(disc_g);
        if (tg > 0.0)
            t_end = tg;
    }

    const double ds = t_end / (double)nview;
    double od_r = 0.0, od_m = 0.0;
    double3 sum_r = (double3)(0.0), sum_m = (double3)(0.0);
    for (int i = 0; i < nview; i++) {
        const double3 p = org + ((double)i + 0.5) * ds * dir;
        const double h = length(p) - r_ground;
        const double dr = exp(-h / hr) * ds;
        const double dm = exp(-h / hm) * ds;
        od_r += dr;
        od_m += dm;

        const double bl = dot(p, sun);
        const double pp = dot(p, p);
        const double dl_g = bl * bl - (pp - r_ground * r_ground);
        if (dl_g >= 0.0 && -bl - sqrt(dl_g) > 0.0)
            continue;   /* the planet shadows this sample */
        const double tl = -bl + sqrt(bl * bl - (pp - r_top * r_top));
        const double dl = tl / (double)nlight;
        double odl_r = 0.0, odl_m = 0.0;
        for (int j = 0; j < nlight; j++) {
            const double3 q = p + ((double)j + 0.5) * dl * sun;
            const double hl = length(q) - r_ground;
            odl_r += exp(-hl / hr);
            odl_m += exp(-hl / hm);
        }
        const double3 tau = beta_r * (od_r + odl_r * dl) + beta_me * (od_m + odl_m * dl);
        const double3 att = exp(-tau);
        sum_r += att * dr;
        sum_m += att * dm;
    }

    const double mu = dot(dir, sun);
    const double g2 = mie_g * mie_g;
    const double phase_r = 3.0 / (16.0 * M_PI) * (1.0 + mu * mu);
    const double phase_m = 3.0 / (8.0 * M_PI) * ((1.0 - g2) * (1.0 + mu * mu))
                           / ((2.0 + g2) * pow(1.0 + g2 - 2.0 * mie_g * mu, 1.5));
    const double3 rad = sum_r * beta_r * phase_r + sum_m * (beta_ms * phase_m);
    const int o = 3 * (iv * nu + iu);
    lut[o] = rad.x;
    lut[o + 1] = rad.y;
    lut[o + 2] = rad.z;
}

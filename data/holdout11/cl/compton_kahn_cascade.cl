/* Photon cascades in an infinite medium for a detector-response study: every photon (energy e_in[p] in MeV,
 * direction cosine w_in[p] to the detector axis) Compton-scatters until it is photo-absorbed, falls below the
 * cut-off energy or has scattered max_scat times. The scattering angle comes from Kahn's rejection method
 * for the Klein-Nishina law (as in MCNP and ETRAN), the azimuth uniformly; after each scatter the photon is
 * absorbed with the probability pe_a / (pe_a + E^3), a crude photoelectric-to-total ratio. The generator is
 * Marsaglia's xorshift128, four uint words of state per photon, read and written back so that the next batch
 * continues the streams. Each work-item takes photons p, p + nitems, ... (nitems: the global size). Out: the
 * final energy and direction cosine, the number of scatters and the fate (0 cut-off, 1 absorbed, 2 max_scat). */
#define MEC2 0.51099895f
#define INV_2_24 5.9604645e-08f
#define TWO_PI 6.2831853f

float next_u01(uint4 *s)
{
    const uint t = s->x ^ (s->x << 11);
    s->x = s->y;
    s->y = s->z;
    s->z = s->w;
    s->w = s->w ^ (s->w >> 19) ^ (t ^ (t >> 8));
    return (float)(s->w >> 8) * INV_2_24;
}

/* Kahn's method: eta = E / E' in 1 .. 1 + 2 alpha; returns it and the scattering cosine */
float kahn_sample(float alpha, uint4 *s, float *mu)
{
    const float two_a = 2.0f * alpha;
    const float split = (1.0f + two_a) / (9.0f + two_a);
    while (1) {
        const float r1 = next_u01(s);
        const float r2 = next_u01(s);
        const float r3 = next_u01(s);
        if (r1 <= split) {
            const float eta = 1.0f + two_a * r2;
            if (r3 <= 4.0f * (1.0f / eta - 1.0f / (eta * eta))) {
                *mu = 1.0f - 2.0f * r2;
                return eta;
            }
        } else {
            const float eta = (1.0f + two_a) / (1.0f + two_a * r2);
            const float m = 1.0f - (eta - 1.0f) / alpha;
            if (r3 <= 0.5f * (m * m + 1.0f / eta)) {
                *mu = m;
                return eta;
            }
        }
    }
}

__kernel void compton_kahn_cascade(const int nphot, const int max_scat, const float e_cut, const float pe_a,
                                   __global const float *e_in,
                                   __global const float *w_in,
                                   __global uint *rng,
                                   __global float *e_out,
                                   __global float *w_out,
                                   __global int *n_scat,
                                   __global int *fate)
{
    const int nitems = get_global_size(0);
    for (int p = get_global_id(0); p < nphot; p += nitems) {
        uint4 s = vload4(p, rng);
        float e = e_in[p];
        float w = w_in[p];
        int n = 0;
        int f = 2;
        while (n < max_scat) {
            if (e < e_cut) {
                f = 0;
                break;
            }
            float mu;
            const float eta = kahn_sample(e / MEC2, &s, &mu);
            const float phi = TWO_PI * next_u01(&s);
            const float st = sqrt(fmax(0.0f, 1.0f - mu * mu));
            const float sw = sqrt(fmax(0.0f, 1.0f - w * w));
            w = w * mu + sw * st * cos(phi);
            e = e / eta;
            n++;
            const float e3 = e * e * e;
            if (next_u01(&s) * (pe_a + e3) < pe_a) {
                f = 1;
                break;
            }
        }
        vstore4(s, p, rng);
        e_out[p] = e;
        w_out[p] = w;
        n_scat[p] = n;
        fate[p] = f;
    }
}

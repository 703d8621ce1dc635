/* European call prices (Black-Scholes) with the cumulative normal from the
 * Abramowitz-Stegun 26.2.17 polynomial, one option per work-item. */
#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267794f

float cnd(float d)
{
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float poly = k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5))));
    float c = RSQRT2PI * exp(-0.5f * d * d) * poly;
    if (d > 0.0f)
        c = 1.0f - c;
    return c;
}

__kernel void bs_call_poly_cnd(const int n, const float rate, const float vol,
                               __global const float *spot,
                               __global const float *strike,
                               __global const float *years,
                               __global float *call)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float s = spot[i];
    float x = strike[i];
    float t = years[i];
    float sqrt_t = sqrt(t);
    float d1 = (log(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * sqrt_t);
    float d2 = d1 - vol * sqrt_t;
    call[i] = s * cnd(d1) - x * exp(-rate * t) * cnd(d2);
}

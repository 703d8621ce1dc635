// Black-Scholes call/put prices: transcendental-heavy, one option per work-item.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

inline float cnd(float d)
{
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f;
    const float A4 = -1.821255978f, A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float c = RSQRT2PI * exp(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0.0f ? 1.0f - c : c;
}

__kernel void black_scholes(__global float *call, __global float *put,
                            __global const float *price, __global const float *strike,
                            __global const float *years, const float riskfree,
                            const float volatility, const int n)
{
    const int i = get_global_id(0);
    if (i >= n) {
        return;
    }
    float s = price[i], x = strike[i], t = years[i];
    float sqrt_t = sqrt(t);
    float d1 = (log(s / x) + (riskfree + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
    float d2 = d1 - volatility * sqrt_t;
    float exp_rt = exp(-riskfree * t);
    call[i] = s * cnd(d1) - x * exp_rt * cnd(d2);
    put[i] = x * exp_rt * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
}

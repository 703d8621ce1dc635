#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* American put prices on a Cox-Ross-Rubinstein binomial tree, one option per work-item. The option
 * values at the leaves live in a private array that is rolled back `steps` times; at every node the
 * discounted continuation value is compared with the value of exercising early. */
#define MAX_STEPS 512

__kernel void binomial_american_fp64(const int nopt, const int steps, const double rate, const double vol,
                                     __global const double *spot, __global const double *strike,
                                     __global const double *expiry, __global double *price)
{
    const int i = get_global_id(0);
    if (i >= nopt)
        return;

    const double s0 = spot[i];
    const double k = strike[i];
    const double dt = expiry[i] / steps;
    const double u = exp(vol * sqrt(dt));
    const double d = 1.0 / u;
    const double p = (exp(rate * dt) - d) / (u - d);
    const double disc = exp(-rate * dt);
    const double pu = disc * p;
    const double pd = disc * (1.0 - p);
    const double u2 = u * u;

    double val[MAX_STEPS + 1];
    double s = s0 * pow(d, (double)steps);
    for (int j = 0; j <= steps; j++) {
        val[j] = fmax(k - s, 0.0);
        s *= u2;
    }
    for (int t = steps - 1; t >= 0; t--) {
        s = s0 * pow(d, (double)t);
        for (int j = 0; j <= t; j++) {
            const double hold = pu * val[j + 1] + pd * val[j];
            val[j] = fmax(hold, k - s);
            s *= u2;
        }
    }
    price[i] = val[0];
}

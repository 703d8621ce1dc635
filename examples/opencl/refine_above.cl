/* Refine only the samples above a threshold: a few Newton steps of y = x^(1/3) where x[i] > t, the rest skipped.
 * How many samples pass is data: kgraph weighs the early return 1/2 unless --arg taken_8=P gives its share. */
__kernel void refine_above(__global const float *x, __global float *y, const float t, const int steps, const int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    float v = x[i];
    if (v <= t) return;
    float r = v;
    for (int k = 0; k < steps; k++)
        r = r - (r * r * r - v) / (3.0f * r * r);
    y[i] = r;
}

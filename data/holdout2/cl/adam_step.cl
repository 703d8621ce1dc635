/* One Adam optimiser step over a flat parameter vector: update both moment estimates in place,
 * then the parameter with the bias-corrected moments (bc1 = 1 - beta1^t, bc2 = 1 - beta2^t). */
__kernel void adam_step(const int n, const float lr, const float beta1, const float beta2,
                        const float eps, const float bc1, const float bc2,
                        __global float *param,
                        __global const float *grad,
                        __global float *m,
                        __global float *v)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    const float g = grad[i];
    const float mi = beta1 * m[i] + (1.0f - beta1) * g;
    const float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    param[i] -= lr * (mi / bc1) / (sqrt(vi / bc2) + eps);
}

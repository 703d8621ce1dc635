// SAXPY: y[i] = a * x[i] + y[i], one work-item per element.
__kernel void saxpy(const int n, const float a,
                    __global const float *x,
                    __global float *y)
{
    int i = get_global_id(0);
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

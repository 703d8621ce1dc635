/* y = a * x + y with a grid-stride loop: the NDRange is capped, so each work-item
 * handles every (global size)-th element. */
__kernel void saxpy_gridstride(int n, float a, __global const float *x, __global float *y)
{
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        y[i] = a * x[i] + y[i];
}

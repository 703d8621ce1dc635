// Stray token in an expression (line 5).
__kernel void bad_token(__global float *a, const int n)
{
    int i = get_global_id(0);
    a[i] = a[i] * @ 2.0f;
}

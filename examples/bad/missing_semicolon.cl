// Missing semicolon after the declaration of i (line 4).
__kernel void bad_semicolon(__global float *a)
{
    int i = get_global_id(0)
    a[i] = 2.0f * a[i];
}

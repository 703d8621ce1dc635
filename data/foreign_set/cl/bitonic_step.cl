__kernel void bitonic_step(__global uint *a, int b, int c)
{
    uint i = get_global_id(0);
    uint j = i ^ (uint)b;
    if (j > i) {
        uint x = a[i], y = a[j];
        int up = (i & (uint)c) == 0;
        if ((x > y) == up) { a[i] = y; a[j] = x; }
    }
}

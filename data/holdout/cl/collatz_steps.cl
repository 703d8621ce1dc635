/* Number of Collatz steps (n -> n/2 or 3n+1) until each start value reaches 1,
 * in 64-bit arithmetic; a step limit guards against bad input (0 never arrives). */
#define MAX_STEPS 10000

__kernel void collatz_steps(__global const uint *start, __global uint *steps)
{
    const int i = get_global_id(0);
    ulong v = start[i];
    uint count = 0;
    while (v > 1 && count < MAX_STEPS) {
        if (v & 1)
            v = 3 * v + 1;
        else
            v >>= 1;
        count++;
    }
    steps[i] = count;
}

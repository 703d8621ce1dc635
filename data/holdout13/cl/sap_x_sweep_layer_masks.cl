/* Sweep-and-prune broadphase, the sweep: the n object AABBs are sorted by their lower x bound (the sort is an
 * earlier pass). One work-item per object i walks the later objects j in x order until one starts beyond i's
 * upper x bound (no later one can overlap then) and keeps j when the y and z intervals overlap too and the
 * collision layers agree both ways (i's group bit in j's mask and j's group bit in i's mask). Boxes are float4
 * (xyz, w unused). Each object reports its pair count and the first max_pairs partners in its own slot row
 * (the narrow phase re-runs an object whose count exceeds the slot). */
__kernel void sap_x_sweep_layer_masks(const int n, const int max_pairs,
                                      __global const float4 *lo,
                                      __global const float4 *hi,
                                      __global const uint *group,
                                      __global const uint *mask,
                                      __global int *npairs,
                                      __global int *pairs)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    const float4 a_lo = lo[i];
    const float4 a_hi = hi[i];
    const uint g = group[i];
    const uint m = mask[i];
    __global int *slot = pairs + (size_t)i * max_pairs;
    int cnt = 0;

    for (int j = i + 1; j < n; j++) {
        const float4 b_lo = lo[j];
        if (b_lo.x > a_hi.x)
            break;
        if ((g & mask[j]) == 0u || (group[j] & m) == 0u)
            continue;
        const float4 b_hi = hi[j];
        if (b_lo.y > a_hi.y || b_hi.y < a_lo.y || b_lo.z > a_hi.z || b_hi.z < a_lo.z)
            continue;
        if (cnt < max_pairs)
            slot[cnt] = j;
        cnt++;
    }
    npairs[i] = cnt;
}

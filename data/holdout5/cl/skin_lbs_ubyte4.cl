/* Linear blend skinning: every vertex is moved by up to four bones. The bone indices come packed as
 * four bytes in one uint per vertex (the UBYTE4 vertex attribute of a mesh file), the weights as a
 * float4 that sums to one. Each bone is a 3x4 affine matrix stored as three float4 rows. The blended
 * matrix moves the position (w = 1) and turns the normal (w = 0), which is then renormalised. */
__kernel void skin_lbs_ubyte4(const int nverts, const int nbones,
                              __global const float4 *pos, __global const float4 *nrm,
                              __global const uint *joints, __global const float4 *weights,
                              __global const float4 *bones,
                              __global float4 *out_pos, __global float4 *out_nrm)
{
    const int v = get_global_id(0);
    if (v >= nverts)
        return;

    const uint packed = joints[v];
    const float4 wt = weights[v];
    const float w[4] = {wt.x, wt.y, wt.z, wt.w};

    float4 r0 = (float4)(0.0f), r1 = (float4)(0.0f), r2 = (float4)(0.0f);
    for (int k = 0; k < 4; k++) {
        int b = (packed >> (8 * k)) & 0xffu;
        if (b >= nbones)
            b = 0;  /* bad index in the asset: fall back to the root bone */
        r0 += w[k] * bones[3 * b];
        r1 += w[k] * bones[3 * b + 1];
        r2 += w[k] * bones[3 * b + 2];
    }

    const float4 p = (float4)(pos[v].xyz, 1.0f);
    out_pos[v] = (float4)(dot(r0, p), dot(r1, p), dot(r2, p), 1.0f);

    const float4 n = (float4)(nrm[v].xyz, 0.0f);
    const float3 m = (float3)(dot(r0, n), dot(r1, n), dot(r2, n));
    out_nrm[v] = (float4)(normalize(m), 0.0f);
}

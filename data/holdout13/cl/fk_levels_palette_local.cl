/* Skeletal animation, the step after pose blending: forward kinematics and the skinning palette of many
 * characters that share one skeleton. A work-group takes one character at a time (looping by the number of
 * groups). Bones are stored parents first with their depth in the hierarchy; the group walks the nlevels
 * levels in turn, a barrier between them, and every bone of the current level composes its parent's
 * model-space transform (already in __local memory) with its own local transform: the blended rotation
 * quaternion (renormalised: a blend of unit quaternions is not unit), a translation and a uniform scale in
 * ltrans.w. Transforms are 3 x 4 row-major (rotation-scale | translation). The palette entry of a bone is its
 * model transform times the bone's inverse bind matrix, as the skinning shader reads it. */
__kernel void fk_levels_palette_local(const int nchar, const int nbones, const int nlevels,
                                      __global const int *parent,
                                      __global const int *depth,
                                      __global const float4 *lrot,
                                      __global const float4 *ltrans,
                                      __global const float *inv_bind,
                                      __global float *palette,
                                      __local float *model)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int ch = get_group_id(0); ch < nchar; ch += get_num_groups(0)) {
        const size_t base = (size_t)ch * nbones;

        for (int level = 0; level < nlevels; level++) {
            for (int b = lid; b < nbones; b += lsz) {
                if (depth[b] != level)
                    continue;
                float4 q = lrot[base + b];
                q *= rsqrt(dot(q, q));
                const float4 t = ltrans[base + b];
                const float s = t.w;
                const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
                const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
                const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
                float L[12];
                L[0] = s * (1.0f - 2.0f * (yy + zz)); L[1] = s * 2.0f * (xy - wz); L[2] = s * 2.0f * (xz + wy);
                L[3] = t.x;
                L[4] = s * 2.0f * (xy + wz); L[5] = s * (1.0f - 2.0f * (xx + zz)); L[6] = s * 2.0f * (yz - wx);
                L[7] = t.y;
                L[8] = s * 2.0f * (xz - wy); L[9] = s * 2.0f * (yz + wx); L[10] = s * (1.0f - 2.0f * (xx + yy));
                L[11] = t.z;

                __local float *M = model + 12 * b;
                const int p = parent[b];
                if (p < 0) {
                    for (int e = 0; e < 12; e++)
                        M[e] = L[e];
                } else {
                    __local const float *P = model + 12 * p;
                    for (int row = 0; row < 3; row++) {
                        const float p0 = P[4 * row], p1 = P[4 * row + 1], p2 = P[4 * row + 2];
                        for (int col = 0; col < 4; col++)
                            M[4 * row + col] = p0 * L[col] + p1 * L[4 + col] + p2 * L[8 + col];
                        M[4 * row + 3] += P[4 * row + 3];
                    }
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        for (int b = lid; b < nbones; b += lsz) {
            __local const float *M = model + 12 * b;
            __global const float *B = inv_bind + 12 * b;
            __global float *out = palette + (base + b) * 12;
            for (int row = 0; row < 3; row++) {
                const float m0 = M[4 * row], m1 = M[4 * row + 1], m2 = M[4 * row + 2];
                for (int col = 0; col < 4; col++)
                    out[4 * row + col] = m0 * B[col] + m1 * B[4 + col] + m2 * B[8 + col];
                out[4 * row + 3] += M[4 * row + 3];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

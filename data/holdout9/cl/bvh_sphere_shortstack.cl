/* Closest-hit ray casting against spheres through a flattened BVH, one ray per work-item. The tree is stored
 * depth-first (PBRT's linear BVH): an interior node's first child follows it, node_meta.x holds the second
 * child's index; a leaf's node_meta.x is its first sphere and the low byte of node_meta.y its sphere count;
 * the split axis sits in bits 8..9 of node_meta.y. Each visited node is clipped by the slab test with the
 * ray's precomputed reciprocal direction against [tmin, closest hit so far]; the near child (by the sign of
 * the direction on the split axis) is visited first and the far one pushed on a short private stack. Spheres
 * are intersected in the cancellation-free form (closest approach vector, Hearn & Baker). A miss writes -1. */
#define STACK_SIZE 32

__kernel void bvh_sphere_shortstack(const int nrays,
                                    __global const float4 *ray_org,
                                    __global const float4 *ray_dir,
                                    __global const float4 *node_lo,
                                    __global const float4 *node_hi,
                                    __global const int2 *node_meta,
                                    __global const float4 *spheres,
                                    __global float *hit_t,
                                    __global int *hit_id)
{
    const int i = get_global_id(0);
    if (i >= nrays)
        return;

    const float4 o4 = ray_org[i];
    const float4 d4 = ray_dir[i];
    const float3 o = o4.xyz;
    const float3 d = d4.xyz;   /* unit length */
    const float tmin = o4.w;
    float closest = d4.w;      /* tmax */
    const float3 inv = (float3)(1.0f / d.x, 1.0f / d.y, 1.0f / d.z);
    const int neg[3] = { d.x < 0.0f, d.y < 0.0f, d.z < 0.0f };
    int best = -1;

    int stack[STACK_SIZE];
    int sp = 0;
    int node = 0;
    while (1) {
        const float3 lo = node_lo[node].xyz;
        const float3 hi = node_hi[node].xyz;
        const float3 t0 = (lo - o) * inv;
        const float3 t1 = (hi - o) * inv;
        const float3 tn = fmin(t0, t1);
        const float3 tf = fmax(t0, t1);
        const float enter = fmax(fmax(tn.x, tn.y), fmax(tn.z, tmin));
        const float leave = fmin(fmin(tf.x, tf.y), fmin(tf.z, closest));
        if (enter <= leave) {
            const int2 meta = node_meta[node];
            const int count = meta.y & 0xff;
            if (count > 0) {
                for (int k = meta.x; k < meta.x + count; k++) {
                    const float4 s = spheres[k];
                    const float3 oc = s.xyz - o;
                    const float tca = dot(oc, d);
                    const float3 q = oc - tca * d;
                    const float h2 = s.w * s.w - dot(q, q);
                    if (h2 < 0.0f)
                        continue;
                    const float t = tca - sqrt(h2);
                    if (t > tmin && t < closest) {
                        closest = t;
                        best = k;
                    }
                }
                if (sp == 0)
                    break;
                node = stack[--sp];
            } else {
                const int axis = (meta.y >> 8) & 3;
                if (neg[axis]) {
                    stack[sp++] = node + 1;
                    node = meta.x;
                } else {
                    stack[sp++] = meta.x;
                    node = node + 1;
                }
            }
        } else {
            if (sp == 0)
                break;
            node = stack[--sp];
        }
    }
    hit_t[i] = (best >= 0) ? closest : -1.0f;
    hit_id[i] = best;
}

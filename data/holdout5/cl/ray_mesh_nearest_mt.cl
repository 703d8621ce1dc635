/* Nearest hit of every ray against a triangle soup by the Moller-Trumbore test. The triangles are
 * streamed through local memory a work-group-sized tile at a time: each work-item copies one
 * triangle (nine floats: v0, v1, v2) into the tile, then every work-item tests its ray against the
 * whole tile. A ray's result is the smallest t > eps and the triangle's index, or t = -1 and
 * index -1 when it hits nothing. Work-items past the last ray still help to load the tiles. */
#define EPS 1e-7f

__kernel void ray_mesh_nearest_mt(const int nrays, const int ntris,
                                  __global const float *orig, __global const float *dir,
                                  __global const float *tris,
                                  __global float *t_hit, __global int *tri_hit,
                                  __local float *tile)
{
    const int i = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const bool active = i < nrays;

    float3 o = (float3)(0.0f), d = (float3)(0.0f, 0.0f, 1.0f);
    if (active) {
        o = (float3)(orig[3 * i], orig[3 * i + 1], orig[3 * i + 2]);
        d = (float3)(dir[3 * i], dir[3 * i + 1], dir[3 * i + 2]);
    }
    float best_t = INFINITY;
    int best = -1;

    for (int base = 0; base < ntris; base += lsz) {
        const int j = base + lid;
        if (j < ntris) {
            for (int k = 0; k < 9; k++)
                tile[9 * lid + k] = tris[9 * j + k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        const int count = min(lsz, ntris - base);
        for (int m = 0; m < count; m++) {
            __local const float *v = tile + 9 * m;
            const float3 v0 = (float3)(v[0], v[1], v[2]);
            const float3 e1 = (float3)(v[3], v[4], v[5]) - v0;
            const float3 e2 = (float3)(v[6], v[7], v[8]) - v0;
            const float3 p = cross(d, e2);
            const float det = dot(e1, p);
            if (fabs(det) < EPS)
                continue;  /* ray parallel to the triangle's plane */
            const float inv_det = 1.0f / det;
            const float3 s = o - v0;
            const float u = dot(s, p) * inv_det;
            if (u < 0.0f || u > 1.0f)
                continue;
            const float3 q = cross(s, e1);
            const float w = dot(d, q) * inv_det;
            if (w < 0.0f || u + w > 1.0f)
                continue;
            const float t = dot(e2, q) * inv_det;
            if (t > EPS && t < best_t) {
                best_t = t;
                best = base + m;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (active) {
        t_hit[i] = best < 0 ? -1.0f : best_t;
        tri_hit[i] = best;
    }
}

/* One step of Loop subdivision of a triangle mesh, positions only (the refined connectivity is static and built
 * once on the host). Work-items 0 .. nvert-1 make the even (moved old) vertices, the next nedge items the odd
 * (new edge) vertices, into new_pos in that order. An interior vertex of valence n moves to
 * (1 - n beta) v + beta * sum of its one-ring, beta = (5/8 - (3/8 + cos(2 pi / n) / 4)^2) / n (Loop's weights);
 * the one-ring is CSR (ring_start, ring). A vertex on the border uses 3/4 v + 1/8 of its two border neighbours,
 * which its ring lists first. An edge (a, b) with opposite vertices c and d makes 3/8 (a + b) + 1/8 (c + d);
 * a border edge (d < 0) its midpoint. Positions are packed xyz floats. */
__kernel void loop_subdiv_even_odd(const int nvert, const int nedge,
                                   __global const float *pos,
                                   __global const int *ring_start,
                                   __global const int *ring,
                                   __global const uchar *on_border,
                                   __global const int4 *edges,
                                   __global float *new_pos)
{
    const int i = get_global_id(0);
    if (i >= nvert + nedge)
        return;

    float3 p;
    if (i < nvert) {
        const float3 v = vload3(i, pos);
        const int s = ring_start[i];
        const int e = ring_start[i + 1];
        if (on_border[i]) {
            p = 0.75f * v + 0.125f * (vload3(ring[s], pos) + vload3(ring[s + 1], pos));
        } else {
            const int n = e - s;
            float3 sum = (float3)(0.0f);
            for (int k = s; k < e; k++)
                sum += vload3(ring[k], pos);
            const float c = 0.375f + 0.25f * cos(2.0f * M_PI_F / (float)n);
            const float beta = (0.625f - c * c) / (float)n;
            p = (1.0f - (float)n * beta) * v + beta * sum;
        }
    } else {
        const int4 ed = edges[i - nvert];
        const float3 a = vload3(ed.x, pos);
        const float3 b = vload3(ed.y, pos);
        if (ed.w < 0)
            p = 0.5f * (a + b);
        else
            p = 0.375f * (a + b) + 0.125f * (vload3(ed.z, pos) + vload3(ed.w, pos));
    }
    vstore3(p, i, new_pos);
}

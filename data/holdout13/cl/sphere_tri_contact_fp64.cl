#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Narrow phase of sphere-vs-triangle-mesh collision in double precision (a large-world physics build): one
 * work-item per sphere tests the candidate triangles the broadphase left for it (a CSR list into the mesh's
 * triangles). The closest point of each triangle to the sphere centre comes from the barycentric region tests
 * of Ericson's Real-Time Collision Detection (vertex, edge or face region; the edge and face cases clamp the
 * barycentric weights). The deepest penetration wins (the first candidate on a tie): depth r - |p - q|, the
 * contact normal from the triangle towards the centre (the face normal when the centre lies on the triangle)
 * and the triangle id; a sphere that touches nothing reports depth 0, a zero normal and -1. */
static double3 closest_on_triangle(const double3 p, const double3 a, const double3 b, const double3 c)
{
    const double3 ab = b - a;
    const double3 ac = c - a;
    const double3 ap = p - a;
    const double d1 = dot(ab, ap);
    const double d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0)
        return a;
    const double3 bp = p - b;
    const double d3 = dot(ab, bp);
    const double d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
        return b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
        return a + (d1 / (d1 - d3)) * ab;
    const double3 cp = p - c;
    const double d5 = dot(ab, cp);
    const double d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
        return c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
        return a + (d2 / (d2 - d6)) * ac;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
        return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
    const double denom = 1.0 / (va + vb + vc);
    return a + (vb * denom) * ab + (vc * denom) * ac;
}

__kernel void sphere_tri_contact_fp64(const int nspheres,
                                      __global const double *centre,
                                      __global const double *radius,
                                      __global const int *cand_start,
                                      __global const int *cand_tri,
                                      __global const int *tri,
                                      __global const double *vert,
                                      __global double *depth,
                                      __global double *normal,
                                      __global int *hit_tri)
{
    const int i = get_global_id(0);
    if (i >= nspheres)
        return;

    const double3 p = vload3(i, centre);
    const double r = radius[i];
    double best = 0.0;
    double3 best_n = (double3)(0.0, 0.0, 0.0);
    int best_t = -1;

    for (int k = cand_start[i]; k < cand_start[i + 1]; k++) {
        const int t = cand_tri[k];
        const double3 a = vload3(tri[3 * t], vert);
        const double3 b = vload3(tri[3 * t + 1], vert);
        const double3 c = vload3(tri[3 * t + 2], vert);
        const double3 q = closest_on_triangle(p, a, b, c);
        const double3 d = p - q;
        const double dist2 = dot(d, d);
        if (dist2 >= r * r)
            continue;
        const double dist = sqrt(dist2);
        const double pen = r - dist;
        if (pen > best) {
            best = pen;
            best_t = t;
            best_n = (dist > 1.0e-12) ? d / dist : normalize(cross(b - a, c - a));
        }
    }
    depth[i] = best;
    vstore3(best_n, i, normal);
    hit_tri[i] = best_t;
}

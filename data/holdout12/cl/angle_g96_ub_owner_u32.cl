/* Bonded angle forces, one work-item per atom over the angles it takes part in (owner computes: no atomics,
 * each angle is evaluated by each of its three atoms). inc_ptr / inc list an atom's angles as uint32 words
 * (angle << 2 | role), role 0 and 2 the outer atoms i and k, 1 the vertex j. An angle is four uint32
 * (i, j, k, type); its type selects (cos theta0, k_theta, r_ub, k_ub) from a small __constant table.
 * Potential: the GROMOS-96 cosine-harmonic angle plus a Urey-Bradley 1-3 spring where k_ub is non-zero,
 *     E = k_theta / 2 (cos theta - cos theta0)^2 + k_ub / 2 (|r_ik| - r_ub)^2
 * Positions are packed xyz (unwrapped molecules, no periodic images); each atom gets its force and a third of
 * the energy of every angle it is in. */
__kernel void angle_g96_ub_owner_u32(const uint natom,
                                     __global const float *pos,
                                     __global const uint *inc_ptr,
                                     __global const uint *inc,
                                     __global const uint *angle,
                                     __constant float4 *apar,
                                     __global float *force,
                                     __global float *epot)
{
    const uint a = get_global_id(0);
    if (a >= natom)
        return;

    float3 f = (float3)(0.0f);
    float e = 0.0f;
    const uint end = inc_ptr[a + 1];
    for (uint n = inc_ptr[a]; n < end; n++) {
        const uint word = inc[n];
        const uint an = word >> 2;
        const uint role = word & 3u;
        const uint ai = angle[4 * an], aj = angle[4 * an + 1], ak = angle[4 * an + 2];
        const float4 par = apar[angle[4 * an + 3]];

        const float3 xi = vload3(ai, pos), xj = vload3(aj, pos), xk = vload3(ak, pos);
        const float3 rij = xi - xj, rkj = xk - xj;
        const float inv_ij = rsqrt(dot(rij, rij)), inv_kj = rsqrt(dot(rkj, rkj));
        const float3 uij = rij * inv_ij, ukj = rkj * inv_kj;
        const float c = dot(uij, ukj);
        const float dc = c - par.x;
        e += 0.5f * par.y * dc * dc;

        const float dedc = par.y * dc;
        const float3 fi = -dedc * inv_ij * (ukj - c * uij);
        const float3 fk = -dedc * inv_kj * (uij - c * ukj);
        float3 fub = (float3)(0.0f);
        if (par.w != 0.0f) {
            const float3 rik = xi - xk;
            const float r = length(rik);
            const float dr = r - par.z;
            e += 0.5f * par.w * dr * dr;
            fub = (-par.w * dr / r) * rik;
        }

        if (role == 0u)
            f += fi + fub;
        else if (role == 2u)
            f += fk - fub;
        else
            f -= fi + fk;
    }
    vstore3(f, a, force);
    epot[a] = e * (1.0f / 3.0f);
}

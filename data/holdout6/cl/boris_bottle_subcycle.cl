/* Charged test particles in a magnetic bottle (mirror field along z, to first order in r) with an
 * electric field that is the gradient of the flux function psi = b0 r^2 (1 + z^2 / L^2) / 2, so that
 * it is perpendicular to B everywhere (the potential is constant along field lines). Each particle
 * advances nsteps steps of dt by the Boris scheme: half electric kick, rotation about B, half electric
 * kick, drift. Light species gyrate fast and are sub-cycled: a particle of species s takes subcycle[s]
 * substeps of dt / subcycle[s] per step. Positions and velocities are float4 (w unused), updated in
 * place. */
float4 bottle_field_b(float4 x, float b0, float inv_len2)
{
    return (float4)(-b0 * x.x * x.z * inv_len2,
                    -b0 * x.y * x.z * inv_len2,
                    b0 * (1.0f + x.z * x.z * inv_len2),
                    0.0f);
}

float4 flux_field_e(float4 x, float e0, float inv_len2)
{
    const float f = 1.0f + x.z * x.z * inv_len2;
    return (float4)(e0 * x.x * f, e0 * x.y * f, e0 * (x.x * x.x + x.y * x.y) * x.z * inv_len2, 0.0f);
}

__kernel void boris_bottle_subcycle(const int nparticles, const int nsteps, const float dt,
                                    const float b0, const float inv_len2, const float e0,
                                    __global const int *species,
                                    __global const float *charge_mass,
                                    __global const int *subcycle,
                                    __global float4 *pos,
                                    __global float4 *vel)
{
    const int i = get_global_id(0);
    if (i >= nparticles)
        return;

    const int s = species[i];
    const int nsub = subcycle[s];
    const float h = dt / (float)nsub;
    const float qmh = 0.5f * charge_mass[s] * h;
    float4 x = pos[i];
    float4 v = vel[i];

    for (int step = 0; step < nsteps * nsub; step++) {
        const float4 e = flux_field_e(x, e0, inv_len2);
        const float4 b = bottle_field_b(x, b0, inv_len2);

        const float4 v_minus = v + qmh * e;
        const float4 t = qmh * b;
        const float4 sv = 2.0f * t / (1.0f + dot(t, t));
        const float4 v_prime = v_minus + cross(v_minus, t);
        const float4 v_plus = v_minus + cross(v_prime, sv);
        v = v_plus + qmh * e;
        x += h * v;
    }
    pos[i] = x;
    vel[i] = v;
}

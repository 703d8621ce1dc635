/* One-electron overlap S and kinetic-energy T matrices over contracted s-type Gaussian basis functions
 * (atomic units), as a quantum-chemistry code builds them before an SCF. 2-D NDRange: x = column
 * function j, y = row function i. Function f sits on atom center[f] and contracts nprim[f] primitives
 * starting at prim_off[f]: exponents expo[] and coefficients coef[] that already carry the primitive
 * normalisation. For primitives alpha, beta a distance R apart, with p = alpha + beta and
 * mu = alpha beta / p: s = (pi / p)^(3/2) exp(-mu R^2) and t = mu (3 - 2 mu R^2) s. Primitive pairs with
 * mu R^2 above screen are negligible and skipped. */
__kernel void gto_overlap_kinetic_2d(const int nbf, const float screen,
                                     __global const float *atom_xyz,
                                     __global const int *center,
                                     __global const int *prim_off,
                                     __global const int *nprim,
                                     __global const float *expo,
                                     __global const float *coef,
                                     __global float *S,
                                     __global float *T)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i >= nbf || j >= nbf)
        return;

    const int ca = center[i], cb = center[j];
    const float dx = atom_xyz[3 * ca] - atom_xyz[3 * cb];
    const float dy = atom_xyz[3 * ca + 1] - atom_xyz[3 * cb + 1];
    const float dz = atom_xyz[3 * ca + 2] - atom_xyz[3 * cb + 2];
    const float rab2 = dx * dx + dy * dy + dz * dz;

    const int pa = prim_off[i], na = nprim[i];
    const int pb = prim_off[j], nb = nprim[j];
    float s = 0.0f, t = 0.0f;
    for (int a = 0; a < na; a++) {
        const float alpha = expo[pa + a];
        const float cA = coef[pa + a];
        for (int b = 0; b < nb; b++) {
            const float beta = expo[pb + b];
            const float p = alpha + beta;
            const float mu = alpha * beta / p;
            const float x = mu * rab2;
            if (x > screen)
                continue;
            const float f = M_PI_F / p;
            const float sab = cA * coef[pb + b] * f * sqrt(f) * exp(-x);
            s += sab;
            t += mu * (3.0f - 2.0f * x) * sab;
        }
    }
    S[(size_t)i * nbf + j] = s;
    T[(size_t)i * nbf + j] = t;
}

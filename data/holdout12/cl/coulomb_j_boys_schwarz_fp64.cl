#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Direct-SCF Coulomb matrix over contracted s-type shells, in fp64 (atomic units):
 *     J(ab) = sum over shell pairs cd of (ab|cd) Dw(cd)
 * one work-item per bra shell pair ab. The host has built the shell-pair list: every pair a <= b, sorted by
 * descending Schwarz bound Q(ab) = sqrt((ab|ab)), with its significant primitive pairs at pp_off[ab] ..
 * pp_off[ab + 1] - 1: exponent p = alpha + beta, product centre P and prefactor K (contraction coefficients,
 * exp(-alpha beta / p |A - B|^2) and sqrt(2) pi^(5/4) folded in). dens holds the density of each pair,
 * off-diagonal pairs already doubled, |dens| <= dmax.
 * Screening: once Q(ab) Q(cd) dmax falls below tau every later ket is negligible too (they are sorted) and the
 * loop ends; a ket whose own density makes it negligible is skipped. A primitive quartet is
 *     K(ab) K(cd) / (p q sqrt(p + q)) F0(T),   T = p q / (p + q) |P - Q|^2
 * with the Boys function F0 from its series below t_asym and its asymptotic form above. */

double boys_f0(const double t, const double t_asym)
{
    if (t >= t_asym)
        return 0.5 * sqrt(M_PI / t);  /* erf(sqrt(t)) is 1 to working precision */

    /* F0(T) = exp(-T) sum_k (2T)^k / (1 * 3 * ... * (2k + 1)) */
    const double twot = 2.0 * t;
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 200; k++) {
        term *= twot / (double)(2 * k + 1);
        sum += term;
        if (term < 1.0e-17 * sum)
            break;
    }
    return exp(-t) * sum;
}

__kernel void coulomb_j_boys_schwarz_fp64(const int npair, const double tau, const double dmax,
                                          const double t_asym,
                                          __global const int *pp_off,
                                          __global const double *pp_exp,
                                          __global const double *pp_ctr,
                                          __global const double *pp_k,
                                          __global const double *schwarz,
                                          __global const double *dens,
                                          __global double *jmat)
{
    const int ab = get_global_id(0);
    if (ab >= npair)
        return;

    const double qab = schwarz[ab];
    const int b0 = pp_off[ab], b1 = pp_off[ab + 1];
    double jab = 0.0;

    for (int cd = 0; cd < npair; cd++) {
        const double bound = qab * schwarz[cd];
        if (bound * dmax < tau)
            break;
        const double dcd = dens[cd];
        if (bound * fabs(dcd) < tau)
            continue;

        const int k0 = pp_off[cd], k1 = pp_off[cd + 1];
        double eri = 0.0;
        for (int i = b0; i < b1; i++) {
            const double p = pp_exp[i];
            const double px = pp_ctr[3 * i], py = pp_ctr[3 * i + 1], pz = pp_ctr[3 * i + 2];
            const double kp = pp_k[i];
            for (int j = k0; j < k1; j++) {
                const double q = pp_exp[j];
                const double dx = px - pp_ctr[3 * j];
                const double dy = py - pp_ctr[3 * j + 1];
                const double dz = pz - pp_ctr[3 * j + 2];
                const double pq = p + q;
                const double t = p * q / pq * (dx * dx + dy * dy + dz * dz);
                eri += kp * pp_k[j] / (p * q * sqrt(pq)) * boys_f0(t, t_asym);
            }
        }
        jab += eri * dcd;
    }
    jmat[ab] = jab;
}

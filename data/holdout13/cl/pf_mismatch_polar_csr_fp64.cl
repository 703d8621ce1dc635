#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Newton-Raphson power flow: the power mismatch of every bus at the current iterate, in polar form. The bus
 * admittance matrix Y = G + jB is stored in CSR (one row per bus, the diagonal included) with each entry as a
 * double2 (G, B); the voltages are magnitudes vm and angles va (radians). The injected powers are
 *     P_i = V_i * sum_k V_k (G_ik cos(t_ik) + B_ik sin(t_ik)),   Q_i = V_i * sum_k V_k (G_ik sin(t_ik) - B_ik cos(t_ik))
 * with t_ik = va_i - va_k. Bus types: 0 = PQ (load bus, both P and Q specified), 1 = PV (generator bus: P and |V|
 * specified, Q free), 2 = slack (nothing specified). The solver's convergence test and right-hand side read
 * dp = Pspec - P and dq = Qspec - Q, zero where the quantity is not specified. */
__kernel void pf_mismatch_polar_csr_fp64(const int nbus,
                                         __global const int *rowptr,
                                         __global const int *colidx,
                                         __global const double2 *yval,
                                         __global const double *vm,
                                         __global const double *va,
                                         __global const double *pspec,
                                         __global const double *qspec,
                                         __global const int *btype,
                                         __global double *dp,
                                         __global double *dq)
{
    const int i = get_global_id(0);
    if (i >= nbus)
        return;

    const int type = btype[i];
    if (type == 2) {
        dp[i] = 0.0;
        dq[i] = 0.0;
        return;
    }

    const double vi = vm[i];
    const double ai = va[i];
    double p = 0.0;
    double q = 0.0;
    const int end = rowptr[i + 1];
    for (int k = rowptr[i]; k < end; k++) {
        const int j = colidx[k];
        const double2 y = yval[k];
        double c;
        const double s = sincos(ai - va[j], &c);
        const double vj = vm[j];
        p += vj * (y.x * c + y.y * s);
        q += vj * (y.x * s - y.y * c);
    }
    dp[i] = pspec[i] - vi * p;
    dq[i] = (type == 0) ? qspec[i] - vi * q : 0.0;
}

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* One integration interval of a population of single-compartment Hodgkin-Huxley neurons (squid axon kinetics,
 * V in mV, t in ms, currents in uA/cm^2). Every work-item advances one neuron by nsub sub-steps of dt: the gating
 * variables m, h, n by the exponential (Rush-Larsen) update toward their steady state, the membrane potential by
 * forward Euler with the sodium, potassium and leak currents and the neuron's injected current. An upward
 * crossing of v_thresh counts a spike and stamps its time. The rate functions alpha_m and alpha_n have a removable
 * singularity, taken by its limit. */
__kernel void hh_soma_rush_larsen_fp64(const int n, const int nsub, const double dt, const double t0,
                                       const double v_thresh,
                                       const double g_na, const double g_k, const double g_l,
                                       const double e_na, const double e_k, const double e_l,
                                       const double c_m,
                                       __global const double *i_ext,
                                       __global double *v,
                                       __global double *m,
                                       __global double *h,
                                       __global double *nk,
                                       __global int *spike_count,
                                       __global double *last_spike)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    double vm = v[i];
    double gm = m[i], gh = h[i], gn = nk[i];
    const double inj = i_ext[i];
    int count = spike_count[i];
    double tlast = last_spike[i];

    for (int s = 0; s < nsub; s++) {
        const double xm = vm + 40.0;
        const double am = fabs(xm) < 1e-7 ? 1.0 : 0.1 * xm / (1.0 - exp(-0.1 * xm));
        const double bm = 4.0 * exp(-(vm + 65.0) / 18.0);
        const double ah = 0.07 * exp(-(vm + 65.0) / 20.0);
        const double bh = 1.0 / (1.0 + exp(-0.1 * (vm + 35.0)));
        const double xn = vm + 55.0;
        const double an = fabs(xn) < 1e-7 ? 0.1 : 0.01 * xn / (1.0 - exp(-0.1 * xn));
        const double bn = 0.125 * exp(-(vm + 65.0) / 80.0);

        const double sm = am + bm, sh = ah + bh, sn = an + bn;
        gm = am / sm + (gm - am / sm) * exp(-dt * sm);
        gh = ah / sh + (gh - ah / sh) * exp(-dt * sh);
        gn = an / sn + (gn - an / sn) * exp(-dt * sn);

        const double n2 = gn * gn;
        const double i_ion = g_na * gm * gm * gm * gh * (vm - e_na) + g_k * n2 * n2 * (vm - e_k)
                             + g_l * (vm - e_l);
        const double vnew = vm + dt * (inj - i_ion) / c_m;
        if (vm < v_thresh && vnew >= v_thresh) {
            count++;
            tlast = t0 + (s + 1) * dt;
        }
        vm = vnew;
    }

    v[i] = vm;
    m[i] = gm;
    h[i] = gh;
    nk[i] = gn;
    spike_count[i] = count;
    last_spike[i] = tlast;
}

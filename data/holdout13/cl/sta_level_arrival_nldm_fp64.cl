#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Static timing analysis, forward propagation of one level of the levelized timing graph in double precision.
 * Gate i of the level is node level_node[i] of the graph, of library cell cell_type[i], driving the load
 * out_load[i] (fF). Its input pins are fanin_start[i] .. fanin_start[i + 1] - 1: pin p is driven by node
 * fanin_drv[p] (of an earlier level, already timed) through a wire of Elmore delay wire_delay[p]. At the pin the
 * arrival is the driver's plus the wire delay, and the slew is degraded by the wire (PERI: sqrt(s^2 +
 * (ln 9 * elmore)^2)). The cell's delay and output slew come from its NLDM tables (8 x 8, input slew by output
 * load, in __constant memory with their axes), bilinearly interpolated and linearly extrapolated beyond the
 * table. The gate's arrival is the latest pin arrival plus delay, its slew the worst output slew; both are
 * written in place into the node arrays. */
#define NPT 8

__kernel void sta_level_arrival_nldm_fp64(const int ngate, const double ln9,
                                          __global const int *level_node,
                                          __global const int *cell_type,
                                          __global const double *out_load,
                                          __global const int *fanin_start,
                                          __global const int *fanin_drv,
                                          __global const double *wire_delay,
                                          __constant double *slew_axis,
                                          __constant double *load_axis,
                                          __constant double *delay_lut,
                                          __constant double *slew_lut,
                                          __global double *arrival,
                                          __global double *slew)
{
    const int i = get_global_id(0);
    if (i >= ngate)
        return;

    const int t = cell_type[i];
    __constant double *sa = slew_axis + t * NPT;
    __constant double *la = load_axis + t * NPT;
    __constant double *dt = delay_lut + t * NPT * NPT;
    __constant double *st = slew_lut + t * NPT * NPT;

    const double load = out_load[i];
    int c = 0;
    while (c < NPT - 2 && load > la[c + 1])
        c++;
    const double fc = (load - la[c]) / (la[c + 1] - la[c]);

    double at = -1.0e30;
    double sl = 0.0;
    const int p1 = fanin_start[i + 1];
    for (int p = fanin_start[i]; p < p1; p++) {
        const int d = fanin_drv[p];
        const double wd = wire_delay[p];
        const double s0 = slew[d];
        const double sw = ln9 * wd;
        const double s_in = sqrt(s0 * s0 + sw * sw);

        int r = 0;
        while (r < NPT - 2 && s_in > sa[r + 1])
            r++;
        const double fr = (s_in - sa[r]) / (sa[r + 1] - sa[r]);

        const int k = r * NPT + c;
        const double d0 = dt[k] + fc * (dt[k + 1] - dt[k]);
        const double d1 = dt[k + NPT] + fc * (dt[k + NPT + 1] - dt[k + NPT]);
        const double delay = d0 + fr * (d1 - d0);
        const double o0 = st[k] + fc * (st[k + 1] - st[k]);
        const double o1 = st[k + NPT] + fc * (st[k + NPT + 1] - st[k + NPT]);
        const double so = o0 + fr * (o1 - o0);

        at = fmax(at, arrival[d] + wd + delay);
        sl = fmax(sl, so);
    }

    const int g = level_node[i];
    arrival[g] = at;
    slew[g] = sl;
}

/* One step of the cell transmission model (Daganzo) of a freeway network. Link l is the run of cells
 * link_cell0[l] .. link_cell0[l + 1] - 1 from its upstream node link_up[l] to its downstream node link_down[l];
 * link_par holds its free-flow speed, backward wave speed, jam density, capacity and 1 / cell length. A node has
 * up to two in-links (node_in) and two out-links (node_out), -1 for none: one in and one out is a plain junction,
 * two in a merge (in-link 0 gets the share node_par of the receiving capacity when both cannot pass), two out a
 * diverge (node_par of the flow turns into out-link 0, FIFO), no out-link a sink taking all it is sent, no in-link
 * an on-ramp source of demand node_par. A work-item per cell (cell_link gives its link) takes the flows across its
 * two boundaries: min(sending, receiving) between cells of one link, the node's flow at a link end, and updates its
 * density by dt / dx (in - out); it also writes its outflow. */

#define NLP 5

inline float sending(__global const float *lp, float k)
{
    return fmin(lp[0] * k, lp[3]);
}

inline float receiving(__global const float *lp, float k)
{
    return fmin(lp[3], lp[1] * (lp[2] - k));
}

/* the flow at node nd leaving in-link `from` (entering out-link `to` when from < 0) */
float node_flow(__global const int *link_cell0, __global const float *link_par, __global const int *node_in,
                __global const int *node_out, __global const float *node_par, __global const float *k,
                int nd, int from, int to)
{
    const int a = node_in[2 * nd], b = node_in[2 * nd + 1];
    const int p = node_out[2 * nd], q = node_out[2 * nd + 1];
    const float par = node_par[nd];

    if (a < 0)   /* source */
        return fmin(par, receiving(link_par + NLP * p, k[link_cell0[p]]));
    const float sa = sending(link_par + NLP * a, k[link_cell0[a + 1] - 1]);
    if (p < 0)   /* sink */
        return sa;
    const float rp = receiving(link_par + NLP * p, k[link_cell0[p]]);

    if (b >= 0) {   /* merge */
        const float sb = sending(link_par + NLP * b, k[link_cell0[b + 1] - 1]);
        float fa = sa, fb = sb;
        if (sa + sb > rp) {
            const float lo = fmin(sa, rp - sb), hi = fmax(sa, rp - sb);
            fa = fmin(fmax(par * rp, lo), hi);   /* median of sa, rp - sb, par * rp */
            fb = rp - fa;
        }
        if (from >= 0)
            return from == a ? fa : fb;
        return fa + fb;
    }
    if (q >= 0) {   /* diverge */
        const float rq = receiving(link_par + NLP * q, k[link_cell0[q]]);
        const float tot = fmin(sa, fmin(rp / par, rq / (1.0f - par)));
        if (from >= 0)
            return tot;
        return to == p ? par * tot : (1.0f - par) * tot;
    }
    return fmin(sa, rp);
}

__kernel void ctm_merge_diverge_links(const int ncell, const float dt,
                                      __global const int *cell_link,
                                      __global const int *link_cell0,
                                      __global const int *link_up,
                                      __global const int *link_down,
                                      __global const float *link_par,
                                      __global const int *node_in,
                                      __global const int *node_out,
                                      __global const float *node_par,
                                      __global const float *k,
                                      __global float *k_out,
                                      __global float *q_out)
{
    const int c = get_global_id(0);
    if (c >= ncell)
        return;

    const int l = cell_link[c];
    __global const float *lp = link_par + NLP * l;
    const float kc = k[c];

    float qin, qout;
    if (c == link_cell0[l])
        qin = node_flow(link_cell0, link_par, node_in, node_out, node_par, k, link_up[l], -1, l);
    else
        qin = fmin(sending(lp, k[c - 1]), receiving(lp, kc));
    if (c == link_cell0[l + 1] - 1)
        qout = node_flow(link_cell0, link_par, node_in, node_out, node_par, k, link_down[l], l, -1);
    else
        qout = fmin(sending(lp, kc), receiving(lp, k[c + 1]));

    k_out[c] = kc + dt * lp[4] * (qin - qout);
    q_out[c] = qout;
}

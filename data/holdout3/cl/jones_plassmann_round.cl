/* One round of Jones-Plassmann graph colouring on a CSR graph (color -1: not coloured yet).
 * An uncoloured vertex whose random priority beats that of every uncoloured neighbour (ties broken
 * by index) takes the smallest colour none of its neighbours holds, found from a 32-bit mask of the
 * colours in use; the others wait for a later round. Colours are read from one buffer and written to
 * another, so the round does not depend on the order of the work-items. */
__kernel void jones_plassmann_round(const int nverts,
                                    __global const int *row_ptr,
                                    __global const int *col_idx,
                                    __global const uint *priority,
                                    __global const int *color_in,
                                    __global int *color_out)
{
    const int v = get_global_id(0);
    if (v >= nverts)
        return;

    int c = color_in[v];
    if (c < 0) {
        const uint pv = priority[v];
        uint used = 0;
        int wins = 1;
        for (int k = row_ptr[v]; k < row_ptr[v + 1]; k++) {
            const int w = col_idx[k];
            const int cw = color_in[w];
            if (cw >= 0) {
                if (cw < 32)
                    used |= 1u << cw;
            } else if (priority[w] > pv || (priority[w] == pv && w > v)) {
                wins = 0;
                break;
            }
        }
        if (wins) {
            c = 0;
            while (c < 32 && (used & (1u << c)))
                c++;
        }
    }
    color_out[v] = c;
}

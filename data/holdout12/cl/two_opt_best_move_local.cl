/* One step of a multi-start 2-opt local search for the symmetric TSP: the best 2-opt move of each of many tours
 * over the same n cities, with integer (TSPLIB-rounded) distances in an n x n matrix. A work-group takes one
 * tour at a time, looping by the number of groups: the tour and the length of each of its edges (position i to
 * i + 1, the last back to the first) go to __local memory. The move (i, j), 0 <= i < j - 1 < n - 1, not both
 * ends of the tour, replaces the edges leaving positions i and j by (t[i], t[j]) and (t[i + 1], t[j + 1]) and
 * reverses the segment between; work-items take positions i in turn and scan every j. A __local tree reduction
 * keeps the smallest change, the lowest i then j on a tie. Only an improving move is reported: best_delta and
 * best_move = i * n + j, or 0 and -1 when the tour is 2-optimal. */
__kernel void two_opt_best_move_local(const int ntour, const int n,
                                      __global const int *dist,
                                      __global const int *tours,
                                      __global int *best_delta,
                                      __global int *best_move,
                                      __local int *city,
                                      __local int *edge,
                                      __local int *red_delta,
                                      __local int *red_move)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int t = get_group_id(0); t < ntour; t += get_num_groups(0)) {
        __global const int *tour = tours + (size_t)t * n;
        for (int i = lid; i < n; i += lsz)
            city[i] = tour[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = lid; i < n; i += lsz) {
            const int nxt = (i + 1 < n) ? i + 1 : 0;
            edge[i] = dist[(size_t)city[i] * n + city[nxt]];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        int my_delta = 0;
        int my_move = -1;
        for (int i = lid; i < n - 2; i += lsz) {
            const int a = city[i];
            const int b = city[i + 1];
            __global const int *da = dist + (size_t)a * n;
            __global const int *db = dist + (size_t)b * n;
            const int jend = (i == 0) ? n - 1 : n;
            for (int j = i + 2; j < jend; j++) {
                const int c = city[j];
                const int d = city[(j + 1 < n) ? j + 1 : 0];
                const int delta = da[c] + db[d] - edge[i] - edge[j];
                if (delta < my_delta) {
                    my_delta = delta;
                    my_move = i * n + j;
                }
            }
        }
        red_delta[lid] = my_delta;
        red_move[lid] = my_move;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = lsz / 2; s > 0; s >>= 1) {
            if (lid < s) {
                const int od = red_delta[lid + s];
                const int om = red_move[lid + s];
                if (od < red_delta[lid] || (od == red_delta[lid] && om < red_move[lid])) {
                    red_delta[lid] = od;
                    red_move[lid] = om;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            best_delta[t] = red_delta[0];
            best_move[t] = red_move[0];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* One push step of PageRank on a CSR graph of out-edges: vertex u hands damping * rank[u] out in equal
 * shares to its out-neighbours. The ranks sum to one, so they are scaled to 2^30 fixed point and summed
 * with integer atomic_add: the result is the same whatever order the work-items run in. next_fx comes
 * in holding the teleport term; vertices without out-edges add their mass to the dangling total instead. */
#define FX_ONE 1073741824.0f

__kernel void pagerank_push_fixed(const int nverts,
                                  const float damping,
                                  __global const int *row_ptr,
                                  __global const int *col_idx,
                                  __global const float *rank,
                                  __global int *next_fx,
                                  __global int *dangling_fx)
{
    const int u = get_global_id(0);
    if (u >= nverts)
        return;

    const int begin = row_ptr[u];
    const int deg = row_ptr[u + 1] - begin;
    const int mass = (int)(damping * rank[u] * FX_ONE);

    if (deg == 0) {
        atomic_add(dangling_fx, mass);
        return;
    }

    const int share = mass / deg;
    for (int k = begin; k < begin + deg; k++)
        atomic_add(&next_fx[col_idx[k]], share);
}

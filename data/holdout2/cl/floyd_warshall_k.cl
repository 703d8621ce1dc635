/* Step k of Floyd-Warshall all-pairs shortest paths on a dense n x n integer distance matrix,
 * in place (row and column k do not change during step k when the diagonal is zero). INF marks a
 * missing edge and is never added to. */
#define INF 0x3fffffff

__kernel void floyd_warshall_k(const int n, const int k, __global int *dist)
{
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i >= n || j >= n)
        return;

    const int dik = dist[i * n + k];
    const int dkj = dist[k * n + j];
    if (dik < INF && dkj < INF) {
        const int through = dik + dkj;
        if (through < dist[i * n + j])
            dist[i * n + j] = through;
    }
}

/* One hooking step of connected components (Shiloach-Vishkin style): every edge walks both of its
 * end points up the parent forest to their roots; when the roots differ, the larger root is hooked
 * under the smaller one with atomic_min, so the result does not depend on the order edges arrive in.
 * num_hooks counts the edges that joined two trees. */
int find_root(__global const int *parent, int v)
{
    int p = parent[v];
    while (p != v) {
        v = p;
        p = parent[v];
    }
    return v;
}

__kernel void cc_hook_atomic_min(const int nedges,
                                 __global const int *edge_u,
                                 __global const int *edge_v,
                                 __global const int *parent,
                                 __global int *new_parent,
                                 __global uint *num_hooks)
{
    const int e = get_global_id(0);
    if (e >= nedges)
        return;

    const int ru = find_root(parent, edge_u[e]);
    const int rv = find_root(parent, edge_v[e]);
    if (ru == rv)
        return;

    atomic_min(&new_parent[max(ru, rv)], min(ru, rv));
    atomic_inc(num_hooks);
}

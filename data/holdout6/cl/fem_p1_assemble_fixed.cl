#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Assembly of the linear-triangle (P1) finite-element system of steady heat conduction,
 * -div(kappa grad u) = f, one triangle per work-item. The element matrix is
 * K_ij = kappa / (4 A) (b_i b_j + c_i c_j) with b, c the edge-normal coordinate differences and A the
 * area (vertices counter-clockwise); the load is f A / 3 per vertex. Entries are added into a CSR
 * matrix whose sparsity pattern was built beforehand (sorted columns per row): the slot of (i, j) is
 * found by a linear search of row i. To make the sums independent of the order in which triangles
 * arrive, values are converted to 16.16 fixed point and added with integer atomics. */
#define FIX_ONE 65536.0

static int csr_slot(__global const int *col_idx, int begin, int end, int col)
{
    for (int k = begin; k < end; k++)
        if (col_idx[k] == col)
            return k;
    return -1;
}

__kernel void fem_p1_assemble_fixed(const int ntris, const double source,
                                    __global const double *xy,
                                    __global const int *tri,
                                    __global const double *kappa,
                                    __global const int *row_ptr,
                                    __global const int *col_idx,
                                    __global int *vals,
                                    __global int *rhs)
{
    const int t = get_global_id(0);
    if (t >= ntris)
        return;

    int node[3];
    double x[3], y[3];
    for (int v = 0; v < 3; v++) {
        node[v] = tri[3 * t + v];
        x[v] = xy[2 * node[v]];
        y[v] = xy[2 * node[v] + 1];
    }
    double b[3], c[3];
    for (int v = 0; v < 3; v++) {
        const int v1 = (v + 1) % 3, v2 = (v + 2) % 3;
        b[v] = y[v1] - y[v2];
        c[v] = x[v2] - x[v1];
    }
    const double area2 = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
    const double scale = kappa[t] / (2.0 * area2);
    const int load = convert_int_rte(source * area2 / 6.0 * FIX_ONE);

    for (int i = 0; i < 3; i++) {
        const int row = node[i];
        const int begin = row_ptr[row], end = row_ptr[row + 1];
        for (int j = 0; j < 3; j++) {
            const int slot = csr_slot(col_idx, begin, end, node[j]);
            if (slot >= 0)
                atomic_add(&vals[slot], convert_int_rte(scale * (b[i] * b[j] + c[i] * c[j]) * FIX_ONE));
        }
        atomic_add(&rhs[row], load);
    }
}

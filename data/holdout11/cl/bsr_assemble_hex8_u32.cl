/* Finite-element assembly of a 3-D linear-elasticity stiffness matrix (8-node hexahedra, 3 dofs a node) into block
 * CSR with 3 x 3 row-major blocks, a work-item per block row (a node), so no two work-items ever add into the same
 * block and no atomics are needed. node_elem_ptr / node_elem list the (element, local node) pairs touching each
 * node, packed as e * 8 + a; elem_blk (64 an element, row-major in (a, b)) is the symbolic phase's map from an
 * element's node pair to its block of bsr_val; ke holds each element's 24 x 24 stiffness, row-major, dof 3 a + i.
 * The work-item zeroes its row's blocks, adds the three stiffness rows of its local node from every element
 * around it, then applies the Dirichlet conditions: bit i of fixed_mask[node] set means dof i is fixed, and a
 * fixed dof's row and column are zeroed with 1 on the diagonal. */
__kernel void bsr_assemble_hex8_u32(const uint nnode,
                                    __global const uint *node_elem_ptr,
                                    __global const uint *node_elem,
                                    __global const uint *elem_blk,
                                    __global const float *ke,
                                    __global const uint *bsr_ptr,
                                    __global const uint *bsr_col,
                                    __global const uint *fixed_mask,
                                    __global float *bsr_val)
{
    const uint r = get_global_id(0);
    if (r >= nnode)
        return;

    const uint b0 = bsr_ptr[r];
    const uint b1 = bsr_ptr[r + 1];
    for (uint q = b0 * 9u; q < b1 * 9u; q++)
        bsr_val[q] = 0.0f;

    for (uint q = node_elem_ptr[r]; q < node_elem_ptr[r + 1]; q++) {
        const uint e = node_elem[q] >> 3;
        const uint a = node_elem[q] & 7u;
        __global const float *krow = ke + (size_t)e * 576 + a * 72;
        __global const uint *blk = elem_blk + (size_t)e * 64 + a * 8;
        for (int b = 0; b < 8; b++) {
            __global float *dst = bsr_val + (size_t)blk[b] * 9;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    dst[i * 3 + j] += krow[i * 24 + b * 3 + j];
        }
    }

    const uint rmask = fixed_mask[r];
    for (uint q = b0; q < b1; q++) {
        const uint c = bsr_col[q];
        const uint cmask = fixed_mask[c];
        if ((rmask | cmask) == 0u)
            continue;
        __global float *dst = bsr_val + (size_t)q * 9;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                if (((rmask >> i) | (cmask >> j)) & 1u)
                    dst[i * 3 + j] = (c == r && i == j) ? 1.0f : 0.0f;
    }
}

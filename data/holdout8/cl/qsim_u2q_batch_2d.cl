/* One layer of a variational circuit sweep: a batch of nbatch independent nq-qubit state vectors, each
 * with its own two-qubit unitary (e.g. a parameterised exchange gate at a different angle) acting on
 * qubits qa < qb. 2-D NDRange: x = quadruple of amplitudes (the index with zero bits inserted at qa and
 * qb), y = batch member. The four amplitudes are ordered by the local basis index (bit_qb << 1) | bit_qa
 * and multiplied by the member's 4x4 matrix (row-major, 16 float2 per member); updated in place. */
__kernel void qsim_u2q_batch_2d(const int nq, const int nbatch, const int qa, const int qb,
                                __global const float2 *gates,
                                __global float2 *states)
{
    const uint k = get_global_id(0);
    const int b = get_global_id(1);
    const uint nquad = 1u << (nq - 2);
    if (k >= nquad || b >= nbatch)
        return;

    const uint ma = 1u << qa, mb = 1u << qb;
    uint i = ((k >> qa) << (qa + 1)) | (k & (ma - 1u));
    i = ((i >> qb) << (qb + 1)) | (i & (mb - 1u));

    __global float2 *psi = states + ((size_t)b << nq);
    __global const float2 *g = gates + (size_t)b * 16;
    uint idx[4];
    idx[0] = i;
    idx[1] = i | ma;
    idx[2] = i | mb;
    idx[3] = i | ma | mb;

    float2 v[4];
    for (int c = 0; c < 4; c++)
        v[c] = psi[idx[c]];

    for (int r = 0; r < 4; r++) {
        float re = 0.0f, im = 0.0f;
        for (int c = 0; c < 4; c++) {
            const float2 m = g[r * 4 + c];
            re += m.x * v[c].x - m.y * v[c].y;
            im += m.x * v[c].y + m.y * v[c].x;
        }
        psi[idx[r]] = (float2)(re, im);
    }
}

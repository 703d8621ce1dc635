/* Reed-Solomon decoder front end over GF(256), one RS(255, 255 - nsym) codeword per work-item.
 * Codewords are stored as 64 uint words (little-endian bytes; symbol 0, the highest-degree coefficient,
 * first; byte 255 is padding). The syndromes S_j = C(alpha^(fcr + j)), j < nsym, are evaluated by Horner's
 * rule, multiplying by the constant alpha^(fcr + j) through log/antilog tables that the work-group first
 * copies to __local memory. A codeword with a nonzero syndrome goes through Berlekamp-Massey to find its
 * error-locator polynomial; nerr gets the locator's degree (0 for a clean codeword) or -1 when it exceeds
 * nsym / 2 (uncorrectable). */
#define MAXSYM 32

uint gf_mul(const uint a, const uint b, __local const uchar *lg, __local const uchar *ex)
{
    if (a == 0u || b == 0u)
        return 0u;
    return ex[lg[a] + lg[b]];
}

__kernel void rs_syndrome_bm_gf256(const int ncw, const int nsym, const int fcr,
                                   __global const uint *cw_words,
                                   __global const uchar *gf_log,
                                   __global const uchar *gf_exp,
                                   __global uchar *synd,
                                   __global int *nerr,
                                   __local uchar *lg,
                                   __local uchar *ex)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    for (int i = lid; i < 256; i += lsz)
        lg[i] = gf_log[i];
    for (int i = lid; i < 512; i += lsz)
        ex[i] = gf_exp[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    const int c = get_global_id(0);
    if (c >= ncw)
        return;

    uchar s[MAXSYM];
    for (int j = 0; j < nsym; j++)
        s[j] = 0;

    __global const uint *w = cw_words + (size_t)c * 64;
    for (int k = 0; k < 64; k++) {
        const uint word = w[k];
        const int nb = (k == 63) ? 3 : 4;
        for (int b = 0; b < nb; b++) {
            const uint sym = (word >> (8 * b)) & 0xffu;
            for (int j = 0; j < nsym; j++) {
                uint v = s[j];
                if (v)
                    v = ex[lg[v] + fcr + j];
                s[j] = (uchar)(v ^ sym);
            }
        }
    }

    uint any = 0u;
    for (int j = 0; j < nsym; j++) {
        synd[(size_t)c * nsym + j] = s[j];
        any |= s[j];
    }

    int L = 0;
    if (any) {
        uchar C[MAXSYM + 1], B[MAXSYM + 1], T[MAXSYM + 1];
        for (int i = 0; i <= nsym; i++) {
            C[i] = 0;
            B[i] = 0;
        }
        C[0] = 1;
        B[0] = 1;
        int m = 1;
        uint bb = 1u;
        for (int n = 0; n < nsym; n++) {
            uint d = s[n];
            for (int i = 1; i <= L; i++)
                d ^= gf_mul(C[i], s[n - i], lg, ex);
            if (d == 0u) {
                m++;
                continue;
            }
            const uint coef = ex[lg[d] + 255 - lg[bb]];
            if (2 * L <= n) {
                for (int i = 0; i <= nsym; i++)
                    T[i] = C[i];
                for (int i = m; i <= nsym; i++)
                    C[i] ^= (uchar)gf_mul(coef, B[i - m], lg, ex);
                L = n + 1 - L;
                for (int i = 0; i <= nsym; i++)
                    B[i] = T[i];
                bb = d;
                m = 1;
            } else {
                for (int i = m; i <= nsym; i++)
                    C[i] ^= (uchar)gf_mul(coef, B[i - m], lg, ex);
                m++;
            }
        }
    }
    nerr[c] = (2 * L > nsym) ? -1 : L;
}

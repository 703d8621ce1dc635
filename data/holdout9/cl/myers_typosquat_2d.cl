/* Typosquatting check of observed domain names against protected brand names, 2-D NDRange
 * (domain, brand): the Levenshtein distance by Myers' bit-vector algorithm (Hyyro's formulation for the
 * global distance), the brand as the pattern (at most 32 characters, one uint of bits) and the domain as
 * the text, one character per step. peq[b * 256 + c] holds the brand's match mask of character c.
 * Domains are stored in fixed slots of dom_stride bytes with their lengths in dom_len. A pair is given up
 * as soon as the distance can no longer come back to max_dist or below (the score can drop by at most one
 * per remaining character); such pairs report max_dist + 1. */
__kernel void myers_typosquat_2d(const int ndom, const int nbrand, const int dom_stride, const int max_dist,
                                 __global const uchar *domains,
                                 __global const int *dom_len,
                                 __global const uint *peq,
                                 __global const int *brand_len,
                                 __global int *dist)
{
    const int d = get_global_id(0);
    const int b = get_global_id(1);
    if (d >= ndom || b >= nbrand)
        return;

    const int m = brand_len[b];
    const int n = dom_len[d];
    __global const uchar *s = domains + (size_t)d * dom_stride;
    __global const uint *eq_tab = peq + b * 256;
    const uint last = 1u << (m - 1);

    uint pv = 0xffffffffu;
    uint mv = 0u;
    int score = m;
    for (int j = 0; j < n; j++) {
        const uint eq = eq_tab[s[j]];
        const uint xv = eq | mv;
        const uint xh = (((eq & pv) + pv) ^ pv) | eq;
        uint ph = mv | ~(xh | pv);
        uint mh = pv & xh;
        if (ph & last)
            score++;
        else if (mh & last)
            score--;
        if (score - (n - 1 - j) > max_dist) {
            score = max_dist + 1;
            break;
        }
        ph = (ph << 1) | 1u;
        mh <<= 1;
        pv = mh | ~(xv | ph);
        mv = ph & xv;
    }
    dist[b * ndom + d] = score;
}

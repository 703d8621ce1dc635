/* Score-at-a-time query evaluation on an impact-ordered inverted index (JASS style), the accumulation pass for a
 * batch of queries. A term's postings are split into segments of equal quantized impact (1 .. 255) stored in
 * decreasing impact order: term t owns segments term_seg[t] .. term_seg[t + 1] - 1, segment g has the impact
 * seg_impact[g] and the postings seg_post[g] .. seg_post[g + 1] - 1 of post_doc (document ids, ascending within
 * a segment). A term's segments are contiguous, so its postings are one run. Query q has qlen[q] <= maxq terms
 * qterm[q * maxq + j] with integer query weights qweight[q * maxq + j]. A work-group takes one (query, term slot)
 * at a time, looping by the number of groups. Segments of impact below min_impact are not processed (the
 * anytime cut of low-impact tails); as impacts decrease along the run, the processed postings are a prefix of
 * it. The work-items stride over that prefix, each walking the segment boundaries forward to know its
 * posting's impact, and add impact * weight to the document's accumulator acc[q * ndoc + doc] with an integer
 * atomic_add (the terms of one query meet in the same documents). */
__kernel void saat_impact_accum_atomic(const int nquery, const int maxq, const int ndoc, const uint min_impact,
                                       __global const int *qlen,
                                       __global const int *qterm,
                                       __global const uint *qweight,
                                       __global const int *term_seg,
                                       __global const uint *seg_impact,
                                       __global const int *seg_post,
                                       __global const uint *post_doc,
                                       __global uint *acc)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int nslot = nquery * maxq;

    for (int k = get_group_id(0); k < nslot; k += get_num_groups(0)) {
        const int q = k / maxq;
        if (k - q * maxq >= qlen[q])
            continue;
        const int t = qterm[k];
        const uint w = qweight[k];
        const int g0 = term_seg[t];
        const int g1 = term_seg[t + 1];

        int gend = g0;
        while (gend < g1 && seg_impact[gend] >= min_impact)
            gend++;

        __global uint *qacc = acc + (size_t)q * ndoc;
        const int p1 = seg_post[gend];
        int g = g0;
        for (int p = seg_post[g0] + lid; p < p1; p += lsz) {
            while (p >= seg_post[g + 1])
                g++;
            atomic_add(&qacc[post_doc[p]], seg_impact[g] * w);
        }
    }
}

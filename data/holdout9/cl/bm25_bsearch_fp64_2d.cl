#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Okapi BM25 scores of a batch of queries against an inverted-file-free forward index, 2-D NDRange
 * (document, query), in double precision. Document d owns the sorted, distinct term ids
 * doc_terms[doc_off[d] .. doc_off[d + 1]) with their frequencies in doc_tf and its length (in tokens)
 * in doc_len. A query is up to qmax term ids, -1 after its last. Each query term is looked for by binary
 * search in the document's terms, after a range check against the first and last of them; a term found
 * with frequency tf adds idf * tf (k1 + 1) / (tf + k1 (1 - b + b len / avgdl)). */
__kernel void bm25_bsearch_fp64_2d(const int ndoc, const int nquery, const int qmax,
                                   const double k1, const double b, const double avgdl,
                                   __global const int *doc_off,
                                   __global const uint *doc_terms,
                                   __global const int *doc_tf,
                                   __global const int *doc_len,
                                   __global const int *query_terms,
                                   __global const double *idf,
                                   __global double *score)
{
    const int d = get_global_id(0);
    const int q = get_global_id(1);
    if (d >= ndoc || q >= nquery)
        return;

    const int first = doc_off[d];
    const int end = doc_off[d + 1];
    double s = 0.0;
    if (end > first) {
        const uint tmin = doc_terms[first];
        const uint tmax = doc_terms[end - 1];
        const double norm = k1 * (1.0 - b + b * (double)doc_len[d] / avgdl);
        for (int j = 0; j < qmax; j++) {
            const int t = query_terms[q * qmax + j];
            if (t < 0)
                break;
            const uint ut = (uint)t;
            if (ut < tmin || ut > tmax)
                continue;
            int lo = first, hi = end;
            while (lo < hi) {
                const int mid = (lo + hi) >> 1;
                if (doc_terms[mid] < ut)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (doc_terms[lo] == ut) {
                const double tf = (double)doc_tf[lo];
                s += idf[t] * tf * (k1 + 1.0) / (tf + norm);
            }
        }
    }
    score[(size_t)q * ndoc + d] = s;
}

/* Multi-pattern signature scan of log records (web-server request lines, say) with an Aho-Corasick
 * automaton, one record per work-item. Records lie back to back in text, record r spanning
 * [rec_off[r], rec_off[r + 1]). The automaton is kept in its classic form: goto_tab[s * 256 + c] is the
 * trie edge (-1 when there is none; the root has an edge for every byte) and fail[s] the failure link,
 * followed until an edge exists. Signatures are lower case and the scan folds ASCII upper case, so
 * "UnIoN SeLeCt" matches too. pat_mask[s] has a bit for every signature that ends in state s (its own
 * and those reached through failure links), pat_count[s] how many they are. Out per record: the number
 * of signature occurrences and the mask of the signatures seen. */
__kernel void ac_signature_scan_records(const int nrec,
                                        __global const uchar *text,
                                        __global const int *rec_off,
                                        __global const int *goto_tab,
                                        __global const int *fail,
                                        __global const uint *pat_mask,
                                        __global const int *pat_count,
                                        __global int *hits,
                                        __global uint *seen)
{
    const int r = get_global_id(0);
    if (r >= nrec)
        return;

    const int begin = rec_off[r];
    const int end = rec_off[r + 1];
    int state = 0;
    int nhit = 0;
    uint mask = 0u;
    for (int p = begin; p < end; p++) {
        int c = text[p];
        if (c >= 'A' && c <= 'Z')
            c += 'a' - 'A';
        int next = goto_tab[state * 256 + c];
        while (next < 0) {
            state = fail[state];
            next = goto_tab[state * 256 + c];
        }
        state = next;
        if (pat_count[state] > 0) {
            nhit += pat_count[state];
            mask |= pat_mask[state];
        }
    }
    hits[r] = nhit;
    seen[r] = mask;
}

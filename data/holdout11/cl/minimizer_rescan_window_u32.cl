/* (w, k)-minimizers of a 2-bit packed DNA sequence (16 bases to a uint word, first base in the high bits), as
 * minimap2 samples them: every k-mer (k <= 16) is made canonical (the smaller of its code and its reverse
 * complement's), hashed with an invertible integer hash restricted to 2k bits, and window t (the w k-mers
 * starting at t .. t + w - 1) keeps its smallest hash, the leftmost among equals. A work-item covers `chunk`
 * consecutive windows: it rolls both codes along the bases, keeps the last w hashes in a private ring and the
 * current minimum; a new hash below the minimum replaces it, and the ring is rescanned only when the minimum
 * slides out of the window. Out, per window: the minimizer's position and its hash. */
#define MAX_W 32

uint hash_2k(uint key, const uint mask)
{
    key = (~key + (key << 15)) & mask;
    key = key ^ (key >> 12);
    key = (key + (key << 2)) & mask;
    key = key ^ (key >> 4);
    key = (key * 2057u) & mask;
    key = key ^ (key >> 16);
    return key;
}

uint base_at(__global const uint *seq, const int p)
{
    return (seq[p >> 4] >> (30 - 2 * (p & 15))) & 3u;
}

__kernel void minimizer_rescan_window_u32(const int nbases, const int k, const int w, const int chunk,
                                          __global const uint *seq,
                                          __global int *min_pos,
                                          __global uint *min_hash)
{
    const int nwin = nbases - k - w + 2;
    const int t0 = get_global_id(0) * chunk;
    if (t0 >= nwin)
        return;
    const int t1 = min(t0 + chunk, nwin);

    const uint mask = (k == 16) ? 0xffffffffu : ((1u << (2 * k)) - 1u);
    const int shift = 2 * (k - 1);
    uint fwd = 0u, rev = 0u;
    for (int p = t0; p < t0 + k - 1; p++) {
        const uint c = base_at(seq, p);
        fwd = ((fwd << 2) | c) & mask;
        rev = (rev >> 2) | ((3u - c) << shift);
    }

    uint ring[MAX_W];
    uint best = 0u;
    int best_pos = -1;
    int slot = 0;
    for (int kp = t0; kp < t1 + w - 1; kp++) {
        const uint c = base_at(seq, kp + k - 1);
        fwd = ((fwd << 2) | c) & mask;
        rev = (rev >> 2) | ((3u - c) << shift);
        const uint h = hash_2k(min(fwd, rev), mask);
        ring[slot] = h;
        slot = (slot + 1 == w) ? 0 : slot + 1;

        const int t = kp - w + 1;
        if (best_pos < 0 || h < best) {
            best = h;
            best_pos = kp;
        } else if (best_pos < t) {
            /* the minimum left the window: scan the ring from its oldest entry (the window's first k-mer) */
            best_pos = t;
            best = ring[slot];
            int s = slot;
            for (int q = t + 1; q <= kp; q++) {
                s = (s + 1 == w) ? 0 : s + 1;
                if (ring[s] < best) {
                    best = ring[s];
                    best_pos = q;
                }
            }
        }
        if (t >= t0) {
            min_pos[t] = best_pos;
            min_hash[t] = best;
        }
    }
}

/* Packs a nucleotide sequence (ASCII, upper or lower case) into 2 bits a base, first base in the high bits
 * of each 32-bit word, as in the .2bit genome format. Anything that is not A, C, G or T (N, IUPAC codes)
 * is stored as A's code 0 and flagged in an N mask, one bit a base. Each work-item packs 32 bases: two
 * words of codes and one word of mask bits. The sequence tail is padded with A and an unset mask bit. */
__kernel void dna_pack_2bit_nmask(const int nbases,
                                  __global const uchar *seq,
                                  __global uint *packed,
                                  __global uint *nmask)
{
    const int w = get_global_id(0);
    const int first = w * 32;
    if (first >= nbases)
        return;

    uint hi = 0, lo = 0, mask = 0;
    for (int k = 0; k < 32; k++) {
        uint code = 0;
        if (first + k < nbases) {
            switch (seq[first + k]) {
            case 'A': case 'a': code = 0; break;
            case 'C': case 'c': code = 1; break;
            case 'G': case 'g': code = 2; break;
            case 'T': case 't': code = 3; break;
            default: mask |= 0x80000000u >> k; break;
            }
        }
        if (k < 16)
            hi |= code << (30 - 2 * k);
        else
            lo |= code << (62 - 2 * k);
    }
    packed[2 * w] = hi;
    packed[2 * w + 1] = lo;
    nmask[w] = mask;
}

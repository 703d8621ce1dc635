/* One step of byte-pair-encoding tokenization on a pre-tokenized corpus: every word is a run of token
 * ids (word_of gives each token's word, word_start each word's first token). One work-item per token
 * looks up the merge rank of the pair (tok[i], tok[i + 1]) when both belong to the same word, in an
 * open-addressing hash table of the merge list (key left << 16 | right, linear probing, EMPTY_KEY in
 * free slots, capacity cap_mask + 1, a power of two). pair_rank gets the rank or -1. The word's best
 * merge, the lowest rank and then the leftmost position, is found with one atomic_min per mergeable
 * pair on rank << 12 | position (word_best starts at 0xffffffff and keeps it for words with no merge). */
#define EMPTY_KEY 0xffffffffu

__kernel void bpe_pair_rank_wordmin(const int ntok, const uint cap_mask,
                                    __global const int *tok,
                                    __global const int *word_of,
                                    __global const int *word_start,
                                    __global const uint *merge_key,
                                    __global const int *merge_rank,
                                    __global int *pair_rank,
                                    __global uint *word_best)
{
    const int i = get_global_id(0);
    if (i >= ntok)
        return;

    const int w = word_of[i];
    int rank = -1;
    if (i + 1 < ntok && word_of[i + 1] == w) {
        const uint key = ((uint)tok[i] << 16) | (uint)tok[i + 1];
        uint h = key * 0x9e3779b1u;
        h ^= h >> 15;
        uint slot = h & cap_mask;
        for (;;) {
            const uint k = merge_key[slot];
            if (k == key) {
                rank = merge_rank[slot];
                break;
            }
            if (k == EMPTY_KEY)
                break;
            slot = (slot + 1u) & cap_mask;
        }
    }
    pair_rank[i] = rank;
    if (rank >= 0)
        atomic_min(&word_best[w], ((uint)rank << 12) | (uint)(i - word_start[w]));
}

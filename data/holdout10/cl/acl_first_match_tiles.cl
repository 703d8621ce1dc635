/* Stateless firewall: first-match classification of IPv4 5-tuples against an ordered access-control list.
 * A packet is four uint words (source, destination, sport << 16 | dport, protocol); a rule is eight (source and
 * its mask, destination and its mask, the source and destination port ranges as lo | hi << 16, the protocol
 * with a mask byte above it, 0 for any protocol, and the action). The work-group walks the list in tiles of as
 * many rules as it has work-items, each tile copied to __local memory; a work-item scans a tile only while its
 * packet is still unmatched and stops at its first matching rule. rule_hit gets the index of that rule (-1 when
 * none matches), action the rule's action or the default one. */
#define RULE_WORDS 8

__kernel void acl_first_match_tiles(const int npkt, const int nrule, const int default_action,
                                    __global const uint *tuples,
                                    __global const uint *rules,
                                    __global int *rule_hit,
                                    __global int *action,
                                    __local uint *tile)
{
    const int i = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int live = i < npkt;

    uint src = 0u, dst = 0u, ports = 0u, proto = 0u;
    if (live) {
        src = tuples[4 * i];
        dst = tuples[4 * i + 1];
        ports = tuples[4 * i + 2];
        proto = tuples[4 * i + 3];
    }
    const uint sport = ports >> 16;
    const uint dport = ports & 0xffffu;
    int hit = -1;

    for (int t0 = 0; t0 < nrule; t0 += lsz) {
        const int cnt = min(lsz, nrule - t0);
        for (int k = lid; k < cnt * RULE_WORDS; k += lsz)
            tile[k] = rules[t0 * RULE_WORDS + k];
        barrier(CLK_LOCAL_MEM_FENCE);

        if (live && hit < 0) {
            for (int r = 0; r < cnt; r++) {
                __local const uint *ru = tile + r * RULE_WORDS;
                if ((src & ru[1]) != ru[0] || (dst & ru[3]) != ru[2])
                    continue;
                if (sport < (ru[4] & 0xffffu) || sport > (ru[4] >> 16))
                    continue;
                if (dport < (ru[5] & 0xffffu) || dport > (ru[5] >> 16))
                    continue;
                if ((proto & (ru[6] >> 8)) != (ru[6] & 0xffu))
                    continue;
                hit = t0 + r;
                break;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (live) {
        rule_hit[i] = hit;
        action[i] = (hit >= 0) ? (int)rules[hit * RULE_WORDS + 7] : default_action;
    }
}

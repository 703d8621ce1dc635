/* IPv4 forwarding step of a software router: longest-prefix match of each packet's destination address in a
 * 16-8-8 multibit trie built by controlled prefix expansion, and the TTL check before it. tbl16 holds an entry
 * per /16. An entry with the EXT bit set names a 256-entry chunk of tbl24, indexed by the address's third byte;
 * a tbl24 entry may in turn name a chunk of tbl32, indexed by the last byte. An entry without EXT is the
 * next-hop id of the longest prefix covering it (0: no route). A packet whose TTL is 0 or 1 is not looked up
 * but punted to the slow path (-2, ICMP time exceeded); a packet without a route gets -1 and keeps its TTL; a
 * routed packet gets its next hop and its TTL decremented in place. */
#define EXT 0x80000000u
#define PUNT_TTL (-2)
#define NO_ROUTE (-1)

__kernel void lpm16_8_8_forward_ttl(const int npkt,
                                    __global const uint *dst_addr,
                                    __global uchar *ttl,
                                    __global const uint *tbl16,
                                    __global const uint *tbl24,
                                    __global const uint *tbl32,
                                    __global int *next_hop)
{
    const int i = get_global_id(0);
    if (i >= npkt)
        return;

    const uchar t = ttl[i];
    if (t <= 1) {
        next_hop[i] = PUNT_TTL;
        return;
    }

    const uint a = dst_addr[i];
    uint e = tbl16[a >> 16];
    if (e & EXT) {
        e = tbl24[((e & ~EXT) << 8) | ((a >> 8) & 0xffu)];
        if (e & EXT)
            e = tbl32[((e & ~EXT) << 8) | (a & 0xffu)];
    }

    if (e == 0u) {
        next_hop[i] = NO_ROUTE;
    } else {
        next_hop[i] = (int)e;
        ttl[i] = t - 1;
    }
}

/* Checksum offload done in software on a receive batch: the IPv4 header checksum and the TCP / UDP / ICMP
 * checksum (RFC 1071 ones'-complement sum of 16-bit big-endian words) of variable-length packets, one packet
 * per work-group at a time (a group moves on by the number of groups). pkt holds the packets back to back from
 * their IPv4 headers, pkt_off[p] .. pkt_off[p + 1] the captured bytes of packet p. A packet that is not IPv4,
 * whose header length is below 20 bytes or whose total length is below the header's or above the captured
 * length is malformed and not summed. Otherwise every work-item adds up a strided share of the header words and
 * of the payload words (an odd last byte padded with zero), the group sums both in __local memory, and the
 * first work-item adds the pseudo-header (TCP, UDP), folds the carries and checks for 0xffff. A UDP checksum
 * field of zero means "none sent"; protocols besides TCP, UDP and ICMP are not checked. status: bit 0
 * malformed, bit 1 bad header checksum, bit 2 bad L4 checksum, bit 3 L4 not checked; l4_sum gets the folded L4
 * sum (0 when not checked). */
#define ST_MALFORMED 1
#define ST_BAD_IP 2
#define ST_BAD_L4 4
#define ST_L4_SKIPPED 8
#define PROTO_ICMP 1
#define PROTO_TCP 6
#define PROTO_UDP 17

uint fold16(uint s)
{
    while (s >> 16)
        s = (s & 0xffffu) + (s >> 16);
    return s;
}

__kernel void inet_csum_verify_group(const int npkt,
                                     __global const uchar *pkt,
                                     __global const int *pkt_off,
                                     __global int *status,
                                     __global uint *l4_sum,
                                     __local uint *hsum,
                                     __local uint *lsum)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int p = get_group_id(0); p < npkt; p += get_num_groups(0)) {
        const int base = pkt_off[p];
        const int caplen = pkt_off[p + 1] - base;
        __global const uchar *ip = pkt + base;
        const int version = ip[0] >> 4;
        const int ihl = (ip[0] & 0x0f) * 4;
        const int totlen = (ip[2] << 8) | ip[3];
        const int proto = ip[9];
        const int bad = version != 4 || ihl < 20 || totlen < ihl || totlen > caplen;

        uint hs = 0u, ls = 0u;
        if (!bad) {
            for (int k = lid; k < ihl / 2; k += lsz)
                hs += ((uint)ip[2 * k] << 8) | ip[2 * k + 1];
            const int nbytes = totlen - ihl;
            __global const uchar *l4 = ip + ihl;
            for (int k = lid; k < nbytes / 2; k += lsz)
                ls += ((uint)l4[2 * k] << 8) | l4[2 * k + 1];
            if (lid == 0 && (nbytes & 1))
                ls += (uint)l4[nbytes - 1] << 8;
        }
        hsum[lid] = hs;
        lsum[lid] = ls;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int s = lsz / 2; s > 0; s >>= 1) {
            if (lid < s) {
                hsum[lid] += hsum[lid + s];
                lsum[lid] += lsum[lid + s];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        if (lid == 0) {
            int st = 0;
            uint l4s = 0u;
            if (bad) {
                st = ST_MALFORMED | ST_L4_SKIPPED;
            } else {
                if (fold16(hsum[0]) != 0xffffu)
                    st |= ST_BAD_IP;
                const int nbytes = totlen - ihl;
                uint s = lsum[0];
                if (proto == PROTO_TCP || proto == PROTO_UDP) {
                    s += ((uint)ip[12] << 8) | ip[13];
                    s += ((uint)ip[14] << 8) | ip[15];
                    s += ((uint)ip[16] << 8) | ip[17];
                    s += ((uint)ip[18] << 8) | ip[19];
                    s += (uint)proto + (uint)nbytes;
                }
                if (proto == PROTO_TCP || proto == PROTO_ICMP ||
                    (proto == PROTO_UDP && nbytes >= 8 && (ip[ihl + 6] | ip[ihl + 7]) != 0)) {
                    l4s = fold16(s);
                    if (l4s != 0xffffu)
                        st |= ST_BAD_L4;
                } else {
                    st |= ST_L4_SKIPPED;
                }
            }
            status[p] = st;
            l4_sum[p] = l4s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

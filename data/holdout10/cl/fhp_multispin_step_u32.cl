/* One time step of the FHP-I lattice gas on a periodic hexagonal lattice, multi-spin coded: each of the six
 * velocity directions (0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE) is a bit plane, one uint32 word holding 32 neighbouring
 * nodes of a row (node x = 32 w + bit); odd rows are shifted half a spacing to the right. A work-item owns one
 * word: it pulls the six incoming populations from the upstream nodes (bit shifts with the carry from the next
 * word, the diagonal sources depending on the row's parity), then collides: head-on pairs rotate by +-60 degrees
 * (the chirality bit from a hash of the word index and the step's seed), symmetric triples turn by 60 degrees, and
 * nodes flagged in the obstacle mask bounce every particle back. Words entirely inside an obstacle only bounce. */
#define NDIR 6

inline uint from_left(uint cur, uint left)   /* the value of node x - 1 at bit x */
{
    return (cur << 1) | (left >> 31);
}

inline uint from_right(uint cur, uint right) /* the value of node x + 1 at bit x */
{
    return (cur >> 1) | (right << 31);
}

inline uint hash_word(uint i, uint seed)
{
    uint h = i * 0x9E3779B1u ^ seed;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

__kernel void fhp_multispin_step_u32(const int nw, const int ny, const uint seed,
                                     __global const uint *state_in,
                                     __global const uint *obstacle,
                                     __global uint *state_out)
{
    const int gid = get_global_id(0);
    if (gid >= nw * ny)
        return;
    const int y = gid / nw;
    const int w = gid - y * nw;
    const int wl = (w == 0) ? nw - 1 : w - 1;
    const int wr = (w == nw - 1) ? 0 : w + 1;
    const int ym = (y == 0) ? ny - 1 : y - 1;
    const int yp = (y == ny - 1) ? 0 : y + 1;
    const size_t plane = (size_t)nw * ny;
    const bool odd = (y & 1) != 0;

    /* streaming: pull each direction from its upstream neighbour */
    uint a[NDIR];
    __global const uint *p = state_in;
    a[0] = from_left(p[y * nw + w], p[y * nw + wl]);
    p += plane;
    a[1] = odd ? p[ym * nw + w] : from_left(p[ym * nw + w], p[ym * nw + wl]);
    p += plane;
    a[2] = odd ? from_right(p[ym * nw + w], p[ym * nw + wr]) : p[ym * nw + w];
    p += plane;
    a[3] = from_right(p[y * nw + w], p[y * nw + wr]);
    p += plane;
    a[4] = odd ? from_right(p[yp * nw + w], p[yp * nw + wr]) : p[yp * nw + w];
    p += plane;
    a[5] = odd ? p[yp * nw + w] : from_left(p[yp * nw + w], p[yp * nw + wl]);

    const uint solid = obstacle[gid];
    uint out[NDIR];
    if (solid == 0xFFFFFFFFu) {
        for (int k = 0; k < NDIR; k++)
            out[k] = a[(k + 3) % NDIR];
    } else {
        const uint r = hash_word((uint)gid, seed);
        /* head-on pairs alone at a node, pair d = directions d and d + 3 */
        uint pair[3];
        for (int d = 0; d < 3; d++) {
            const uint others = a[(d + 1) % NDIR] | a[(d + 2) % NDIR] | a[(d + 4) % NDIR] | a[(d + 5) % NDIR];
            pair[d] = a[d] & a[d + 3] & ~others;
        }
        const uint triple = (a[0] & a[2] & a[4] & ~(a[1] | a[3] | a[5]))
                          | (a[1] & a[3] & a[5] & ~(a[0] | a[2] | a[4]));
        for (int k = 0; k < NDIR; k++) {
            const int d = k % 3;
            const uint chg = triple | pair[d] | (r & pair[(d + 2) % 3]) | (~r & pair[(d + 1) % 3]);
            const uint col = a[k] ^ chg;
            out[k] = (solid & a[(k + 3) % NDIR]) | (~solid & col);
        }
    }
    for (int k = 0; k < NDIR; k++)
        state_out[k * plane + gid] = out[k];
}

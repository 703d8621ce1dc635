/* One parallel step of the Nagel-Schreckenberg traffic cellular automaton on nroad independent single-lane ring
 * roads of ncell cells each (road-major). A cell holds 0 when empty, else 1 + the speed (0 .. vmax cells a step)
 * of the car on it. Each work-item of the 2-D NDRange (x: cell, y: road) decides what its cell holds after the
 * step: cars cannot overtake, so only the nearest car at or behind the cell (at most vmax cells back) can land on
 * it. That car accelerates by one, brakes to the free cells in front of it, and with probability
 * p_slow / 2^32 slows down by one more (a counter-based hash of seed, step, road and its cell, so every cell
 * that looks at the same car draws the same number); the cell takes it when its new speed carries it exactly
 * there. */

inline uint mix_hash(uint seed, uint step, uint key)
{
    uint h = key * 0x9E3779B9u ^ seed;
    h ^= step * 0x85EBCA6Bu;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

__kernel void nasch_ring_roads_u8_2d(const int ncell, const int nroad, const int vmax, const uint p_slow,
                                     const uint seed, const uint step,
                                     __global const uchar *road,
                                     __global uchar *road_next)
{
    const int x = get_global_id(0);
    const int r = get_global_id(1);
    if (x >= ncell || r >= nroad)
        return;

    __global const uchar *rd = road + (size_t)r * ncell;

    /* nearest car at or behind x */
    int back = 0, y = x;
    while (back <= vmax) {
        y = x - back;
        if (y < 0)
            y += ncell;
        if (rd[y] != 0)
            break;
        back++;
    }
    uchar out = 0;
    if (back <= vmax) {
        int v = min((int)rd[y], vmax);   /* speed rd[y] - 1, accelerated by one */
        int gap = 0;
        while (gap < v) {
            int z = y + gap + 1;
            if (z >= ncell)
                z -= ncell;
            if (rd[z] != 0)
                break;
            gap++;
        }
        v = min(v, gap);
        if (v > 0 && mix_hash(seed, step, (uint)(r * ncell + y)) < p_slow)
            v--;
        if (v == back)
            out = (uchar)(v + 1);
    }
    road_next[(size_t)r * ncell + x] = out;
}

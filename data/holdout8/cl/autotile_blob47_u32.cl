/* Blob autotiling of a 2-D tile map (the "47-tile" scheme of top-down games), one cell per work-item.
 * The low byte of each map cell is its terrain type. A cell collects an 8-bit mask of the neighbours
 * with the same terrain (N, NE, E, SE, S, SW, W, NW = bits 0..7; cells beyond the map edge count as the
 * same terrain, so terrain runs on off-screen). A corner bit only matters when both edges beside it are
 * set, so it is cleared otherwise; the reduced mask is looked up in blob_lut (256 entries, 47 in use).
 * Fully surrounded cells get one of nvariants decorative variants from a hash of the cell position and
 * the map seed. Out: terrain << 16 | blob index << 8 | variant. */
uint cell_hash(uint x, uint y, uint seed)
{
    uint h = x * 0x8da6b343u ^ y * 0xd8163841u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return h;
}

__kernel void autotile_blob47_u32(const int width, const int height, const int nvariants, const uint seed,
                                  __global const uint *terrain,
                                  __constant uint *blob_lut,
                                  __global uint *tiles)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const uint t = terrain[y * width + x] & 0xffu;
    const int dx[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    const int dy[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
    uint mask = 0u;
    for (int k = 0; k < 8; k++) {
        const int nx = x + dx[k];
        const int ny = y + dy[k];
        const int inside = nx >= 0 && nx < width && ny >= 0 && ny < height;
        if (!inside || (terrain[ny * width + nx] & 0xffu) == t)
            mask |= 1u << k;
    }
    /* a corner counts only with both of its edges */
    if ((mask & 0x05u) != 0x05u) mask &= ~0x02u;  /* NE needs N, E */
    if ((mask & 0x14u) != 0x14u) mask &= ~0x08u;  /* SE needs E, S */
    if ((mask & 0x50u) != 0x50u) mask &= ~0x20u;  /* SW needs S, W */
    if ((mask & 0x41u) != 0x41u) mask &= ~0x80u;  /* NW needs W, N */

    uint variant = 0u;
    if (mask == 0xffu && nvariants > 1)
        variant = cell_hash((uint)x, (uint)y, seed) % (uint)nvariants;
    tiles[y * width + x] = (t << 16) | (blob_lut[mask] << 8) | variant;
}

/* One half-sweep of Metropolis updates of a 2D Ising model (periodic, J = 1) in checkerboard
 * order: the work-items of a launch visit only the sites of one colour, so their neighbours
 * are not written meanwhile. Random numbers come from an integer hash of the site and a seed;
 * the two acceptance probabilities exp(-4 beta), exp(-8 beta) are precomputed by the host.
 * width and height must be even for the colouring to hold across the periodic edges. */
__kernel void ising_checkerboard(const int width, const int height, const int color, const uint seed,
                                 __constant float *accept, __global int *spin)
{
    const int hx = get_global_id(0);
    const int y = get_global_id(1);
    if (hx >= width / 2 || y >= height)
        return;

    const int x = 2 * hx + ((y + color) & 1);
    const int left = (x == 0) ? width - 1 : x - 1;
    const int right = (x == width - 1) ? 0 : x + 1;
    const int up = (y == 0) ? height - 1 : y - 1;
    const int down = (y == height - 1) ? 0 : y + 1;

    const int site = y * width + x;
    const int s = spin[site];
    const int nb = spin[y * width + left] + spin[y * width + right] + spin[up * width + x] + spin[down * width + x];
    const int de = 2 * s * nb;

    uint h = (uint)site ^ seed;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    const float r = (float)(h >> 8) * (1.0f / 16777216.0f);

    if (de <= 0 || r < accept[de / 4 - 1])
        spin[site] = -s;
}

/* One step of a stochastic wildfire-spread cellular automaton on an nx x ny landscape (8-neighbourhood). Cell
 * states (uint8): 0 no fuel (rock, water, roads), 1 unburnt fuel, 2 burnt out, 3 + k burning for k more steps.
 * A burning cell counts down and burns out. An unburnt cell whose fuel moisture is below the moisture of
 * extinction can catch fire from each burning neighbour independently with probability
 *   p0 (1 - moist / m_ext) exp(c_wind (wind . d)) (times 0.83 across a diagonal),
 * d the unit vector from the neighbour to the cell, so fire runs downwind; one counter-based uniform per cell and
 * step decides. A cell that ignites burns for burn_steps steps and is counted, by atomic_inc, in the fire-
 * management block of block x block cells it lies in (the step's newly burning area per block). */

uint cell_hash(uint seed, uint step, uint idx)
{
    uint h = idx * 0x9E3779B1u + seed;
    h ^= step * 0x85EBCA77u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

__kernel void wildfire_ca_wind_blocks_2d(const int nx, const int ny, const uint seed, const int step,
                                         const int burn_steps, const int block,
                                         const float wind_x, const float wind_y, const float c_wind,
                                         const float p0, const float m_ext,
                                         __global const uchar *state_in,
                                         __global const float *moist,
                                         __global uchar *state_out,
                                         __global uint *block_new)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;

    const size_t g = (size_t)y * nx + x;
    const uchar s = state_in[g];
    if (s != 1) {
        /* no fuel and burnt cells stay, burning cells count down */
        state_out[g] = s >= 3 ? (uchar)(s == 3 ? 2 : s - 1) : s;
        return;
    }

    const float mo = moist[g];
    uchar out = 1;
    if (mo < m_ext) {
        const float base = p0 * (1.0f - mo / m_ext);
        float q = 1.0f; /* probability that no burning neighbour ignites the cell */
        for (int dy = -1; dy <= 1; dy++) {
            const int yy = y + dy;
            if (yy < 0 || yy >= ny)
                continue;
            for (int dx = -1; dx <= 1; dx++) {
                const int xx = x + dx;
                if ((dx == 0 && dy == 0) || xx < 0 || xx >= nx)
                    continue;
                if (state_in[(size_t)yy * nx + xx] < 3)
                    continue;
                const bool diag = dx != 0 && dy != 0;
                const float inv = diag ? 0.70710678f : 1.0f;
                /* the fire travels from the neighbour to this cell: direction (-dx, -dy) */
                const float along = -(dx * wind_x + dy * wind_y) * inv;
                const float p = fmin(base * exp(c_wind * along) * (diag ? 0.83f : 1.0f), 1.0f);
                q *= 1.0f - p;
            }
        }
        if (q < 1.0f) {
            const float u = (float)(cell_hash(seed, (uint)step, (uint)g) >> 8) * (1.0f / 16777216.0f);
            if (u >= q) {
                out = (uchar)(2 + burn_steps);
                const int nbx = (nx + block - 1) / block;
                atomic_inc(&block_new[(y / block) * nbx + x / block]);
            }
        }
    }
    state_out[g] = out;
}

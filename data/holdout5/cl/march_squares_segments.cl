/* Marching squares on a 2-D scalar field sampled at width x height nodes: one work-item per cell
 * (x, y) with corners a = (x, y), b = (x+1, y), c = (x+1, y+1), d = (x, y+1). The case index has a
 * bit per corner above the iso level; the table gives the cell's segments as pairs of crossed edges
 * (0: a-b, 1: b-c, 2: c-d, 3: d-a). The two saddle cases (5, 10) are split by the cell's centre value. Each
 * segment's end points are interpolated linearly along their edges and written in world coordinates
 * (x0, y0, x1, y1); unused segment slots are zero. */
__constant int seg_table[16][4] = {
    {-1, -1, -1, -1}, {3, 0, -1, -1}, {0, 1, -1, -1}, {3, 1, -1, -1},
    {1, 2, -1, -1}, {3, 0, 1, 2}, {0, 2, -1, -1}, {3, 2, -1, -1},
    {2, 3, -1, -1}, {2, 0, -1, -1}, {0, 1, 2, 3}, {2, 1, -1, -1},
    {1, 3, -1, -1}, {1, 0, -1, -1}, {0, 3, -1, -1}, {-1, -1, -1, -1}};

static float2 edge_point(int e, float x, float y, float fa, float fb, float fc, float fd, float iso)
{
    switch (e) {
    case 0: return (float2)(x + (iso - fa) / (fb - fa), y);
    case 1: return (float2)(x + 1.0f, y + (iso - fb) / (fc - fb));
    case 2: return (float2)(x + (iso - fd) / (fc - fd), y + 1.0f);
    default: return (float2)(x, y + (iso - fa) / (fd - fa));
    }
}

__kernel void march_squares_segments(const int width, const int height, const float iso,
                                     const float origin_x, const float origin_y, const float spacing,
                                     __global const float *field,
                                     __global uchar *cases, __global float *segs)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width - 1 || y >= height - 1)
        return;

    const float fa = field[y * width + x];
    const float fb = field[y * width + x + 1];
    const float fc = field[(y + 1) * width + x + 1];
    const float fd = field[(y + 1) * width + x];

    int code = (fa > iso) | (fb > iso) << 1 | (fc > iso) << 2 | (fd > iso) << 3;
    const int cell = y * (width - 1) + x;
    cases[cell] = (uchar)code;

    int e[4] = {seg_table[code][0], seg_table[code][1], seg_table[code][2], seg_table[code][3]};
    if (code == 5 || code == 10) {
        const float centre = 0.25f * (fa + fb + fc + fd);
        if (centre > iso) {
            /* the centre joins the two high corners: cut off the two low ones instead */
            e[0] = seg_table[15 - code][0]; e[1] = seg_table[15 - code][1];
            e[2] = seg_table[15 - code][2]; e[3] = seg_table[15 - code][3];
        }
    }

    __global float *out = segs + 8 * (size_t)cell;
    for (int s = 0; s < 2; s++) {
        if (e[2 * s] < 0) {
            out[4 * s] = out[4 * s + 1] = out[4 * s + 2] = out[4 * s + 3] = 0.0f;
            continue;
        }
        const float2 p = edge_point(e[2 * s], (float)x, (float)y, fa, fb, fc, fd, iso);
        const float2 q = edge_point(e[2 * s + 1], (float)x, (float)y, fa, fb, fc, fd, iso);
        out[4 * s] = origin_x + spacing * p.x;
        out[4 * s + 1] = origin_y + spacing * p.y;
        out[4 * s + 2] = origin_x + spacing * q.x;
        out[4 * s + 3] = origin_y + spacing * q.y;
    }
}

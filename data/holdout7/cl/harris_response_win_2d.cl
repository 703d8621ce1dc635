/* Harris corner response on a greyscale image. 2-D NDRange: x = column, y = row.
 * Each work-item forms the structure tensor of its pixel by summing Ix*Ix, Iy*Iy and Ix*Iy over a
 * (2 * radius + 1)^2 window, the gradients taken by central differences on the fly, and writes
 * det(M) - k * trace(M)^2. Pixels closer than radius + 1 to the border have no full window: 0. */
__kernel void harris_response_win_2d(const int width, const int height, const int radius, const float k,
                                     __global const float *img,
                                     __global float *resp)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const int b = radius + 1;
    if (x < b || y < b || x >= width - b || y >= height - b) {
        resp[y * width + x] = 0.0f;
        return;
    }

    float sxx = 0.0f, syy = 0.0f, sxy = 0.0f;
    for (int dy = -radius; dy <= radius; dy++) {
        const int row = (y + dy) * width;
        for (int dx = -radius; dx <= radius; dx++) {
            const int p = row + x + dx;
            const float ix = 0.5f * (img[p + 1] - img[p - 1]);
            const float iy = 0.5f * (img[p + width] - img[p - width]);
            sxx += ix * ix;
            syy += iy * iy;
            sxy += ix * iy;
        }
    }
    const float det = sxx * syy - sxy * sxy;
    const float tr = sxx + syy;
    resp[y * width + x] = det - k * tr * tr;
}

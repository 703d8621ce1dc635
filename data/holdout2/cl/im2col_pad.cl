/* im2col for a ksize x ksize convolution, stride 1, zero padding pad: row (c, ky, kx) of the
 * column matrix, column (oy, ox) holds img[c][oy + ky - pad][ox + kx - pad], or 0 outside the
 * image. 3-D NDRange (x, y, channel); each work-item writes its ksize * ksize entries. */
__kernel void im2col_pad(const int width, const int height, const int ksize, const int pad,
                         __global const float *img,
                         __global float *cols)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    const int c = get_global_id(2);
    const int npix = width * height;

    for (int ky = 0; ky < ksize; ky++) {
        const int iy = oy + ky - pad;
        for (int kx = 0; kx < ksize; kx++) {
            const int ix = ox + kx - pad;
            float v = 0.0f;
            if (iy >= 0 && iy < height && ix >= 0 && ix < width)
                v = img[(c * height + iy) * width + ix];
            cols[((c * ksize + ky) * ksize + kx) * npix + oy * width + ox] = v;
        }
    }
}

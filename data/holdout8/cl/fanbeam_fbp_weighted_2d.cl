/* Fan-beam filtered back-projection onto an npix x npix image, one pixel per work-item (2-D NDRange).
 * The sinogram q[view * ndet + k] is already cosine-weighted and ramp-filtered; its detector is the flat
 * virtual one through the isocentre, bin pitch du, centred on the central ray. In view v the source sits at
 * angle beta_v (cos_b / sin_b tables) on a circle of radius dsrc. The pixel is projected through the source
 * onto the detector, the filtered projection is interpolated linearly between the two nearest bins and added
 * with the fan-beam distance weight (dsrc / (dsrc - s))^2, s the pixel's distance along the central ray.
 * Pixels outside the reconstruction circle are set to zero. */
__kernel void fanbeam_fbp_weighted_2d(const int npix, const int nview, const int ndet,
                                      const float pix, const float du, const float dsrc, const float dbeta,
                                      __global const float *q,
                                      __global const float *cos_b,
                                      __global const float *sin_b,
                                      __global float *img)
{
    const int ix = get_global_id(0);
    const int iy = get_global_id(1);
    if (ix >= npix || iy >= npix)
        return;

    const float c = 0.5f * (float)(npix - 1);
    const float x = ((float)ix - c) * pix;
    const float y = ((float)iy - c) * pix;
    const float rmax = 0.5f * (float)npix * pix;
    if (x * x + y * y > rmax * rmax) {
        img[iy * npix + ix] = 0.0f;
        return;
    }

    const float ucen = 0.5f * (float)(ndet - 1);
    float acc = 0.0f;
    for (int v = 0; v < nview; v++) {
        const float cb = cos_b[v];
        const float sb = sin_b[v];
        const float s = x * cb + y * sb;   /* towards the source */
        const float t = y * cb - x * sb;   /* across the central ray */
        const float mag = dsrc / (dsrc - s);
        const float u = t * mag / du + ucen;
        const int k = (int)floor(u);
        if (k < 0 || k >= ndet - 1)
            continue;
        const float f = u - (float)k;
        __global const float *row = q + (size_t)v * ndet;
        acc += mag * mag * ((1.0f - f) * row[k] + f * row[k + 1]);
    }
    img[iy * npix + ix] = 0.5f * dbeta * acc;
}

// Mandelbrot escape-time iterations: data-dependent while loop, 2D NDRange.
#define MAX_ITER 256

kernel void mandelbrot(global int *iterations, const int width, const int height,
                       const float x0, const float y0, const float scale)
{
    const int px = get_global_id(0);
    const int py = get_global_id(1);
    if (px >= width || py >= height) {
        return;
    }
    const float cr = x0 + px * scale;
    const float ci = y0 + py * scale;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (zr * zr + zi * zi < 4.0f && it < MAX_ITER) {
        const float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    iterations[py * width + px] = it;
}

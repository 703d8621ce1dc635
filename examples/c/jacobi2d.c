/* Jacobi 2D relaxation sweeps in plain C, with a static helper for the 5-point average. */
#include <math.h>

static inline double average5(const double *u, int n, int i, int j)
{
    return 0.2 * (u[i * n + j] + u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}

double jacobi2d(int n, int steps, double *u, double *tmp)
{
    double diff = 0.0;
    for (int t = 0; t < steps; t++) {
        diff = 0.0;
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                tmp[i * n + j] = average5(u, n, i, j);
                diff = fmax(diff, fabs(tmp[i * n + j] - u[i * n + j]));
            }
        }
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                u[i * n + j] = tmp[i * n + j];
            }
        }
    }
    return sqrt(diff);
}

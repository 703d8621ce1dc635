/* Shared by every C corpus file: REAL is the element type, FN(name) the exported symbol.
 * Each .c file is compiled twice: -DKG_FP32 gives float functions named <name>_s,
 * otherwise double functions named <name>_d. Matrices are column-major: element (i, j) of A
 * is A[i + j * lda]. */
#ifndef KG_C_H
#define KG_C_H
#ifdef KG_FP32
#define REAL float
#define SFX _s
#define KG_SQRT sqrtf
#else
#define REAL double
#define SFX _d
#define KG_SQRT sqrt
#endif
#define KG_CAT_(a, b) a##b
#define KG_CAT(a, b) KG_CAT_(a, b)
#define FN(name) KG_CAT(name, SFX)
#define KG_MIN(a, b) ((a) < (b) ? (a) : (b))
#define KG_NB 64 /* block size of the blocked variants */
#include <math.h>
#endif

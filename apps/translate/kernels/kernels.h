/* SPDX-License-Identifier: BSD-3-Clause */
/* The suite's kernels (apps/tsar/kernels) written as OpenMP-offload loops, each with one
 * `#pragma tsar hetero(...)` directive added: what tsar_translate() builds in
 * tests/translate and what tsar-bench-translate compares with the hand-written versions.
 * Matrices are row-major, n x n unless said otherwise. */
#ifndef TSAR_TRANSLATE_TEST_KERNELS_H
#define TSAR_TRANSLATE_TEST_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* C = alpha A B + beta C */
void tk_gemm(int64_t n, double alpha, double beta, const double* a, const double* b, double* c);
/* C = A B, then E = C D */
void tk_2mm(int64_t n, const double* a, const double* b, double* c, const double* d, double* e);
/* tmp = A x, then y = A^T tmp */
void tk_atax(int64_t n, const double* a, const double* x, double* tmp, double* y);
/* s = A^T r, then q = A p */
void tk_bicg(int64_t n, const double* a, const double* r, const double* p, double* s, double* q);
/* x1 += A y1, then x2 += A^T y2 */
void tk_mvt(int64_t n, const double* a, const double* y1, const double* y2, double* x1,
            double* x2);
/* y = alpha A x + beta B x (C++: a function template) */
void tk_gesummv(int64_t n, double alpha, double beta, const double* a, const double* b,
                const double* x, double* y);
/* One Jacobi sweep of the Helmholtz equation on an n x m grid: u's interior rows from uold's
 * 5-point neighbourhood; returns the sum of the squared residuals. The caller swaps u and
 * uold between sweeps (both stay on the devices: persist). */
double tk_jacobi(int64_t n, int64_t m, double ax, double ay, double b, double omega,
                 const double* uold, const double* f, double* u);
/* `steps` time steps of two loops in one data environment: v = u smoothed (k, 5 points) on
 * the interior, then u = v + f there (n x m grids) */
void tk_heat(int64_t n, int64_t m, int steps, double k, double* u, double* v, const double* f);
/* STREAM: c = a; b = s c; c = a + b; a = b + s c */
void tk_stream(int64_t n, double s, double* a, double* b, double* c);
/* k-means assignment of blocks of `block` points (d features) to the nearest of k centres:
 * member[p], and per block the sums of its points and counts per centre (partial, blocks x
 * k x (d + 1)) */
void tk_kmeans(int64_t blocks, int64_t block, int64_t d, int64_t k, const double* points,
               const double* centres, int* member, double* partial);
/* CORR: data (n samples x m variables) normalised in place, symmat (m x m) its upper
 * triangle of correlations (the lower triangle is left alone) */
void tk_corr(int64_t n, int64_t m, double* data, double* mean, double* stddev, double* symmat);

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* Hand-written TSAR ports of kernels/ (hand_kernels.c): fill a struct with the kernel's
 * arrays and sizes, open it (creates its regions and registers its arrays; 0 on failure,
 * the reason on stderr), run it once per pass (a tsar_status), free its regions. */
#ifndef TSAR_HAND_KERNELS_H
#define TSAR_HAND_KERNELS_H

#include <stdint.h>

#include "tsar/tsar.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hand_gemm {
  int64_t n;
  double alpha, beta;
  const double *a, *b;
  double* c;
  tsar_region* region;
};
int hand_gemm_open(struct hand_gemm* k);
int hand_gemm_pass(struct hand_gemm* k);

struct hand_atax {
  int64_t n;
  const double *a, *x;
  double *tmp, *y;
  tsar_region *ax, *aty;
};
int hand_atax_open(struct hand_atax* k);
int hand_atax_pass(struct hand_atax* k);

struct hand_mvt {
  int64_t n;
  const double *a, *y1, *y2;
  double *x1, *x2;
  tsar_region *x1r, *x2r;
};
int hand_mvt_open(struct hand_mvt* k);
int hand_mvt_pass(struct hand_mvt* k);

/* One sweep per call; u and uold are exchanged before it (the double buffer), so after a
 * call u holds the sweep's result. error: the sweep's sum of squared residuals. */
struct hand_jacobi {
  int64_t n, m;
  double ax, ay, b, omega;
  const double *uold, *f;
  double* u;
  double error;
  tsar_region* region;
};
int hand_jacobi_open(struct hand_jacobi* k);
int hand_jacobi_pass(struct hand_jacobi* k);

/* `steps` time steps of two loops in one data environment per pass, as kernels/heat.c: the
 * devices' copies dropped when a pass starts, the results brought back when it ends. */
struct hand_heat {
  int64_t n, m;
  int steps;
  double k;
  double *u, *v;
  const double* f;
  tsar_data* env;
  tsar_region *smooth, *update;
};
int hand_heat_open(struct hand_heat* k);
int hand_heat_pass(struct hand_heat* k);
/* Frees the regions and the environment. */
void hand_heat_free(struct hand_heat* k);

struct hand_stream {
  int64_t n;
  double s;
  double *a, *b, *c;
  tsar_region* regions[4];
};
int hand_stream_open(struct hand_stream* k);
int hand_stream_pass(struct hand_stream* k);

struct hand_kmeans {
  int64_t blocks, block, d, k;
  const double *points, *centres;
  int* member;
  double* partial;
  tsar_region* region;
};
int hand_kmeans_open(struct hand_kmeans* k);
int hand_kmeans_pass(struct hand_kmeans* k);

/* tsar_free of each region (NULL ones too). */
void hand_free(tsar_region** regions, int count);

#ifdef __cplusplus
}
#endif

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* A C program on TSAR's C API: a thesis-style region (tsar_next/tsar_loop in an OpenMP team)
 * and a callback region (tsar_run), each checked against the serial loop. Exit 0 = correct. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsar/tsar.h"

enum { N = 100003 };

static void add_double(void* inout, const void* in, void* ctx) {
  (void)ctx;
  *(double*)inout += *(const double*)in;
}

struct saxpy {
  tsar_region* region;
  const double* x;
  double* y;
  double a;
};

static void saxpy_body(const tsar_chunk* c, void* arg) {
  struct saxpy* s = arg;
  const double* x = tsar_mem(s->region, s->x);
  double* y = tsar_mem(s->region, s->y);
  for (int64_t i = c->begin; i < c->end; ++i) y[i] += s->a * x[i];
}

int main(void) {
  double* x = malloc(N * sizeof *x);
  double* y = malloc(N * sizeof *y);
  double* y_ref = malloc(N * sizeof *y_ref);
  for (int64_t i = 0; i < N; ++i) {
    x[i] = (double)(i % 100);
    y[i] = y_ref[i] = 1.0;
  }

  tsar_region* r = NULL;
  if (tsar_init(&r, "c-example", "adaptive", TSAR_DEVICE_ALL, NULL, 0, 0) != TSAR_OK) {
    fprintf(stderr, "tsar_init: %s\n", tsar_last_error());
    return 1;
  }
  if (tsar_reg_mem(r, x, sizeof *x, N, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN) != TSAR_OK ||
      tsar_reg_mem(r, y, sizeof *y, N, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT) != TSAR_OK) {
    fprintf(stderr, "tsar_reg_mem: %s\n", tsar_last_error());
    return 1;
  }
  double dot = 0.0, dot_ref = 0.0;
  const double zero = 0.0;
  tsar_reg_reduction(r, &dot, &zero, sizeof zero, add_double, NULL);

  for (int step = 0; step < 5; ++step) {
    /* Thesis style: the loop body is unchanged, between tsar_next and tsar_loop. */
    dot = 0.0;
#pragma omp parallel num_threads(tsar_num_devices(r))
    {
      const double* xs = tsar_mem(r, x);
      double* acc = tsar_reduction(r, &dot);
      do {
        int64_t b, e;
        tsar_next(r, N, &b, &e);
        for (int64_t i = b; i < e; ++i) *acc += xs[i] * 2.0;
      } while (tsar_loop(r));
    }
    /* Callback style on TSAR's pool. */
    struct saxpy s = {r, x, y, 0.5};
    if (tsar_run(r, N, saxpy_body, &s) != TSAR_OK) {
      fprintf(stderr, "tsar_run: %s\n", tsar_last_error());
      return 1;
    }
    dot_ref = 0.0;
    for (int64_t i = 0; i < N; ++i) {
      dot_ref += x[i] * 2.0;
      y_ref[i] += 0.5 * x[i];
    }
    if (dot != dot_ref) { /* integers in doubles: exact in any order */
      fprintf(stderr, "step %d: dot %.17g != %.17g\n", step, dot, dot_ref);
      return 1;
    }
    for (int64_t i = 0; i < N; ++i)
      if (y[i] != y_ref[i]) {
        fprintf(stderr, "step %d: y[%lld] = %g, expected %g\n", step, (long long)i, y[i], y_ref[i]);
        return 1;
      }
  }
  tsar_pass_stats ps;
  tsar_device_stats ds[64];
  const int nd = tsar_num_devices(r) < 64 ? tsar_num_devices(r) : 64;
  tsar_get_pass_stats(r, -1, &ps, ds, nd);
  printf("c-example: %lld passes, last split:", (long long)tsar_num_passes(r));
  for (int d = 0; d < nd; ++d) printf(" %lld", (long long)ds[d].iterations);
  printf("\n");
  tsar_free(r);
  free(x);
  free(y);
  free(y_ref);
  return 0;
}

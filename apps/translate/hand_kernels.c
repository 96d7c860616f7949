/* SPDX-License-Identifier: BSD-3-Clause */
/* The loops of kernels/ ported to TSAR by hand, as tsar.h and the thesis (Figure 5.9) show:
 * a region per loop, its arrays registered once (the same associations, directions and
 * persistence as the kernels' directives), a body per loop with a CPU branch (the loop) and
 * an OpenMP target branch (the same construct on TSAR's device pointers), one tsar_run per
 * pass. tsar-bench-translate runs them beside the translated kernels.
 * Every target construct says defaultmap(none): a body's arguments are host memory (the chunk,
 * the kernel's struct), so the range's bounds and the scalars are copied into locals and passed
 * firstprivate; the compiler refuses any other host variable in a target region, which a GPU
 * would read through a host pointer (an illegal address) while host offloading reads it fine. */
#include "hand_kernels.h"

#include <stdio.h>

/* The device kinds of hetero(all): CUDA devices cannot run an OpenMP target branch. */
#define KINDS (TSAR_DEVICE_CPU | TSAR_DEVICE_OMP_TARGET | TSAR_DEVICE_EMULATED)
/* An output the loop writes whole (the device's copy need not start from the host's). */
#define OVERWRITE (TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)

static int opened(int status, const char* what) {
  if (status != TSAR_OK) fprintf(stderr, "hand-written %s: %s\n", what, tsar_last_error());
  return status == TSAR_OK;
}

static int rows(tsar_region* r, const void* host, size_t rows, size_t cols, size_t halo,
                unsigned flags) {
  return tsar_reg_mem_2d(r, (void*)host, sizeof(double), rows, cols, 0, halo, TSAR_ASSOC_ROWS,
                         flags);
}

static int whole(tsar_region* r, const void* host, size_t count, unsigned flags) {
  return tsar_reg_mem(r, (void*)host, sizeof(double), count, 0, TSAR_ASSOC_FULL, flags);
}

static void add_double(void* inout, const void* in, void* ctx) {
  (void)ctx;
  *(double*)inout += *(const double*)in;
}

/* ---- GEMM ------------------------------------------------------------------------------ */

static void gemm_body(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_gemm* k = arg;
  const double* a = tsar_mem(k->region, k->a);
  const double* b = tsar_mem(k->region, k->b);
  double* c = tsar_mem(k->region, k->c);
  const int64_t n = k->n;
  const double alpha = k->alpha, beta = k->beta;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * n + j] *= beta;
      for (int64_t q = 0; q < n; ++q) {
        const double aiq = alpha * a[i * n + q];
        for (int64_t j = 0; j < n; ++j) c[i * n + j] += aiq * b[q * n + j];
      }
    }
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) is_device_ptr(a, b, c) \
    defaultmap(none) firstprivate(begin, end, n, alpha, beta)
    for (int64_t i = begin; i < end; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * n + j] *= beta;
      for (int64_t q = 0; q < n; ++q) {
        const double aiq = alpha * a[i * n + q];
        for (int64_t j = 0; j < n; ++j) c[i * n + j] += aiq * b[q * n + j];
      }
    }
  }
}

int hand_gemm_open(struct hand_gemm* k) {
  const size_t n = (size_t)k->n;
  return opened(tsar_init(&k->region, "hand:gemm", "adaptive", KINDS, NULL, 0, 0), "gemm") &&
         opened(rows(k->region, k->a, n, n, 0, TSAR_MEM_IN | TSAR_MEM_PERSIST), "gemm a") &&
         opened(whole(k->region, k->b, n * n, TSAR_MEM_IN | TSAR_MEM_PERSIST), "gemm b") &&
         opened(rows(k->region, k->c, n, n, 0, TSAR_MEM_INOUT), "gemm c");
}

int hand_gemm_pass(struct hand_gemm* k) { return tsar_run(k->region, k->n, gemm_body, k); }

/* ---- ATAX -------------------------------------------------------------------------------- */

static void atax_ax_body(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_atax* k = arg;
  const double* a = tsar_mem(k->ax, k->a);
  const double* x = tsar_mem(k->ax, k->x);
  double* tmp = tsar_mem(k->ax, k->tmp);
  const int64_t n = k->n;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i) {
      double s = 0.0;
      for (int64_t j = 0; j < n; ++j) s += a[i * n + j] * x[j];
      tmp[i] = s;
    }
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) is_device_ptr(a, x, tmp) \
    defaultmap(none) firstprivate(begin, end, n)
    for (int64_t i = begin; i < end; ++i) {
      double s = 0.0;
      for (int64_t j = 0; j < n; ++j) s += a[i * n + j] * x[j];
      tmp[i] = s;
    }
  }
}

static void atax_aty_body(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_atax* k = arg;
  const double* a = tsar_mem(k->aty, k->a);
  const double* tmp = tsar_mem(k->aty, k->tmp);
  double* y = tsar_mem(k->aty, k->y);
  const int64_t n = k->n;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t j = begin; j < end; ++j) {
      double s = 0.0;
      for (int64_t i = 0; i < n; ++i) s += a[i * n + j] * tmp[i];
      y[j] = s;
    }
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) is_device_ptr(a, tmp, y) \
    defaultmap(none) firstprivate(begin, end, n)
    for (int64_t j = begin; j < end; ++j) {
      double s = 0.0;
      for (int64_t i = 0; i < n; ++i) s += a[i * n + j] * tmp[i];
      y[j] = s;
    }
  }
}

int hand_atax_open(struct hand_atax* k) {
  const size_t n = (size_t)k->n;
  return opened(tsar_init(&k->ax, "hand:atax.ax", NULL, KINDS, NULL, 0, 0), "atax") &&
         opened(rows(k->ax, k->a, n, n, 0, TSAR_MEM_IN), "atax a") &&
         opened(rows(k->ax, k->tmp, n, 1, 0, OVERWRITE), "atax tmp") &&
         opened(whole(k->ax, k->x, n, TSAR_MEM_IN), "atax x") &&
         opened(tsar_init(&k->aty, "hand:atax.aty", NULL, KINDS, NULL, 0, 0), "atax") &&
         opened(whole(k->aty, k->a, n * n, TSAR_MEM_IN), "atax a") &&
         opened(whole(k->aty, k->tmp, n, TSAR_MEM_IN), "atax tmp") &&
         opened(rows(k->aty, k->y, n, 1, 0, OVERWRITE), "atax y");
}

int hand_atax_pass(struct hand_atax* k) {
  const int s = tsar_run(k->ax, k->n, atax_ax_body, k);
  return s != TSAR_OK ? s : tsar_run(k->aty, k->n, atax_aty_body, k);
}

/* ---- MVT --------------------------------------------------------------------------------- */

static void mvt_x1_body(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_mvt* k = arg;
  const double* a = tsar_mem(k->x1r, k->a);
  const double* y1 = tsar_mem(k->x1r, k->y1);
  double* x1 = tsar_mem(k->x1r, k->x1);
  const int64_t n = k->n;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i) {
      double s = x1[i];
      for (int64_t j = 0; j < n; ++j) s += a[i * n + j] * y1[j];
      x1[i] = s;
    }
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) is_device_ptr(a, y1, x1) \
    defaultmap(none) firstprivate(begin, end, n)
    for (int64_t i = begin; i < end; ++i) {
      double s = x1[i];
      for (int64_t j = 0; j < n; ++j) s += a[i * n + j] * y1[j];
      x1[i] = s;
    }
  }
}

static void mvt_x2_body(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_mvt* k = arg;
  const double* a = tsar_mem(k->x2r, k->a);
  const double* y2 = tsar_mem(k->x2r, k->y2);
  double* x2 = tsar_mem(k->x2r, k->x2);
  const int64_t n = k->n;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i) {
      double s = x2[i];
      for (int64_t j = 0; j < n; ++j) s += a[j * n + i] * y2[j];
      x2[i] = s;
    }
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) is_device_ptr(a, y2, x2) \
    defaultmap(none) firstprivate(begin, end, n)
    for (int64_t i = begin; i < end; ++i) {
      double s = x2[i];
      for (int64_t j = 0; j < n; ++j) s += a[j * n + i] * y2[j];
      x2[i] = s;
    }
  }
}

int hand_mvt_open(struct hand_mvt* k) {
  const size_t n = (size_t)k->n;
  return opened(tsar_init(&k->x1r, "hand:mvt.x1", NULL, KINDS, NULL, 0, 0), "mvt") &&
         opened(rows(k->x1r, k->a, n, n, 0, TSAR_MEM_IN), "mvt a") &&
         opened(whole(k->x1r, k->y1, n, TSAR_MEM_IN), "mvt y1") &&
         opened(rows(k->x1r, k->x1, n, 1, 0, TSAR_MEM_INOUT), "mvt x1") &&
         opened(tsar_init(&k->x2r, "hand:mvt.x2", NULL, KINDS, NULL, 0, 0), "mvt") &&
         opened(whole(k->x2r, k->a, n * n, TSAR_MEM_IN), "mvt a") &&
         opened(whole(k->x2r, k->y2, n, TSAR_MEM_IN), "mvt y2") &&
         opened(rows(k->x2r, k->x2, n, 1, 0, TSAR_MEM_INOUT), "mvt x2");
}

int hand_mvt_pass(struct hand_mvt* k) {
  const int s = tsar_run(k->x1r, k->n, mvt_x1_body, k);
  return s != TSAR_OK ? s : tsar_run(k->x2r, k->n, mvt_x2_body, k);
}

/* ---- Jacobi ------------------------------------------------------------------------------ */

static void jacobi_body(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_jacobi* k = arg;
  const double* uold = tsar_mem(k->region, k->uold);
  const double* f = tsar_mem(k->region, k->f);
  double* u = tsar_mem(k->region, k->u);
  double* acc = tsar_reduction(k->region, &k->error);
  const int64_t m = k->m;
  const double ax = k->ax, ay = k->ay, b = k->b, omega = k->omega;
  double error = 0.0;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 1; j < m - 1; ++j) {
        const double resid = (ax * (uold[(i - 1) * m + j] + uold[(i + 1) * m + j]) +
                              ay * (uold[i * m + j - 1] + uold[i * m + j + 1]) +
                              b * uold[i * m + j] - f[i * m + j]) / b;
        u[i * m + j] = uold[i * m + j] - omega * resid;
        error += resid * resid;
      }
    *acc += error;
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) \
    is_device_ptr(uold, f, u) reduction(+: error) map(tofrom: error) \
    defaultmap(none) firstprivate(begin, end, m, ax, ay, b, omega)
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 1; j < m - 1; ++j) {
        const double resid = (ax * (uold[(i - 1) * m + j] + uold[(i + 1) * m + j]) +
                              ay * (uold[i * m + j - 1] + uold[i * m + j + 1]) +
                              b * uold[i * m + j] - f[i * m + j]) / b;
        u[i * m + j] = uold[i * m + j] - omega * resid;
        error += resid * resid;
      }
#pragma omp target device(ch->omp_device) is_device_ptr(acc) \
    defaultmap(none) firstprivate(error)
    *acc += error;
  }
}

int hand_jacobi_open(struct hand_jacobi* k) {
  const size_t n = (size_t)k->n, m = (size_t)k->m;
  const double zero = 0.0;
  const unsigned keep = TSAR_MEM_PERSIST;
  return opened(tsar_init(&k->region, "hand:jacobi", NULL, KINDS, NULL, 0, 0), "jacobi") &&
         opened(rows(k->region, k->uold, n, m, 1, TSAR_MEM_IN | keep), "jacobi uold") &&
         opened(rows(k->region, k->f, n, m, 0, TSAR_MEM_IN | keep), "jacobi f") &&
         opened(rows(k->region, k->u, n, m, 0, TSAR_MEM_INOUT | keep), "jacobi u") &&
         opened(tsar_reg_reduction(k->region, &k->error, &zero, sizeof zero, add_double, NULL),
                "jacobi error");
}

int hand_jacobi_pass(struct hand_jacobi* k) {
  /* the double buffer: the registrations follow the arrays (device copies too) */
  int s = tsar_swap_mem(k->region, k->u, k->uold);
  double* t = k->u;
  k->u = (double*)k->uold;
  k->uold = t;
  k->error = 0.0;
  if (s == TSAR_OK) s = tsar_run_range(k->region, 1, k->n - 1, jacobi_body, k); /* interior */
  return s;
}

/* ---- a time step of two loops in a data environment (heat) ------------------------------ */

static void heat_smooth(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_heat* k = arg;
  const double* u = tsar_mem(ch->region, k->u);
  double* v = tsar_mem(ch->region, k->v);
  const int64_t m = k->m;
  const double kk = k->k;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 1; j < m - 1; ++j)
        v[i * m + j] = u[i * m + j] + kk * (u[(i - 1) * m + j] + u[(i + 1) * m + j] +
                                            u[i * m + j - 1] + u[i * m + j + 1] -
                                            4.0 * u[i * m + j]);
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) is_device_ptr(u, v) \
    defaultmap(none) firstprivate(begin, end, m, kk)
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 1; j < m - 1; ++j)
        v[i * m + j] = u[i * m + j] + kk * (u[(i - 1) * m + j] + u[(i + 1) * m + j] +
                                            u[i * m + j - 1] + u[i * m + j + 1] -
                                            4.0 * u[i * m + j]);
  }
}

static void heat_update(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_heat* k = arg;
  const double* v = tsar_mem(ch->region, k->v);
  const double* f = tsar_mem(ch->region, k->f);
  double* u = tsar_mem(ch->region, k->u);
  const int64_t m = k->m;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 1; j < m - 1; ++j) u[i * m + j] = v[i * m + j] + f[i * m + j];
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) is_device_ptr(u, v, f) \
    defaultmap(none) firstprivate(begin, end, m)
    for (int64_t i = begin; i < end; ++i)
      for (int64_t j = 1; j < m - 1; ++j) u[i * m + j] = v[i * m + j] + f[i * m + j];
  }
}

int hand_heat_open(struct hand_heat* k) {
  const size_t n = (size_t)k->n, m = (size_t)k->m;
  const tsar_mem_desc grid = {sizeof(double), n, m, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT};
  return opened(tsar_data_create(&k->env), "heat") &&
         opened(tsar_data_map(k->env, k->u, &grid), "heat u") &&
         opened(tsar_data_map(k->env, k->v, &grid), "heat v") &&
         opened(tsar_data_map(k->env, (void*)k->f, &grid), "heat f") &&
         opened(tsar_init(&k->smooth, "hand:heat.smooth", NULL, KINDS, NULL, 0, 0), "heat") &&
         opened(tsar_data_attach(k->smooth, k->env), "heat") &&
         opened(rows(k->smooth, k->u, n, m, 1, TSAR_MEM_IN), "heat u") &&
         opened(rows(k->smooth, k->v, n, m, 0, TSAR_MEM_INOUT), "heat v") &&
         opened(tsar_init(&k->update, "hand:heat.update", NULL, KINDS, NULL, 0, 0), "heat") &&
         opened(tsar_data_attach(k->update, k->env), "heat") &&
         opened(rows(k->update, k->v, n, m, 0, TSAR_MEM_IN), "heat v") &&
         opened(rows(k->update, k->u, n, m, 0, TSAR_MEM_INOUT), "heat u") &&
         opened(tsar_reg_mem_2d(k->update, (void*)k->f, sizeof(double), n, m, 0, 0,
                                TSAR_ASSOC_FULL, TSAR_MEM_IN),
                "heat f");
}

int hand_heat_pass(struct hand_heat* k) {
  int s = tsar_data_update_device(k->env, NULL); /* the host's values count at the start */
  for (int step = 0; s == TSAR_OK && step < k->steps; ++step) {
    s = tsar_run_range(k->smooth, 1, k->n - 1, heat_smooth, k);
    if (s == TSAR_OK) s = tsar_run_range(k->update, 1, k->n - 1, heat_update, k);
  }
  if (s == TSAR_OK) s = tsar_data_update_host(k->env, k->u);
  if (s == TSAR_OK) s = tsar_data_update_host(k->env, k->v);
  return s;
}

void hand_heat_free(struct hand_heat* k) {
  tsar_region* regions[2] = {k->smooth, k->update};
  hand_free(regions, 2);
  tsar_data_free(k->env);
  k->env = NULL;
}

/* ---- STREAM ------------------------------------------------------------------------------ */

static void stream_copy(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_stream* k = arg;
  const double* a = tsar_mem(k->regions[0], k->a);
  double* c = tsar_mem(k->regions[0], k->c);
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i) c[i] = a[i];
  } else {
#pragma omp target teams distribute parallel for simd device(ch->omp_device) is_device_ptr(a, c) \
    defaultmap(none) firstprivate(begin, end)
    for (int64_t i = begin; i < end; ++i) c[i] = a[i];
  }
}

static void stream_scale(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_stream* k = arg;
  const double* c = tsar_mem(k->regions[1], k->c);
  double* b = tsar_mem(k->regions[1], k->b);
  const double s = k->s;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i) b[i] = s * c[i];
  } else {
#pragma omp target teams distribute parallel for simd device(ch->omp_device) is_device_ptr(b, c) \
    defaultmap(none) firstprivate(begin, end, s)
    for (int64_t i = begin; i < end; ++i) b[i] = s * c[i];
  }
}

static void stream_add(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_stream* k = arg;
  const double* a = tsar_mem(k->regions[2], k->a);
  const double* b = tsar_mem(k->regions[2], k->b);
  double* c = tsar_mem(k->regions[2], k->c);
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
  } else {
#pragma omp target teams distribute parallel for simd device(ch->omp_device) \
    is_device_ptr(a, b, c) \
    defaultmap(none) firstprivate(begin, end)
    for (int64_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
  }
}

static void stream_triad(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_stream* k = arg;
  const double* b = tsar_mem(k->regions[3], k->b);
  const double* c = tsar_mem(k->regions[3], k->c);
  double* a = tsar_mem(k->regions[3], k->a);
  const double s = k->s;
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
  } else {
#pragma omp target teams distribute parallel for simd device(ch->omp_device) \
    is_device_ptr(a, b, c) \
    defaultmap(none) firstprivate(begin, end, s)
    for (int64_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
  }
}

int hand_stream_open(struct hand_stream* k) {
  static const char* names[4] = {"hand:stream.copy", "hand:stream.scale", "hand:stream.add",
                                 "hand:stream.triad"};
  const double* in1[4] = {k->a, k->c, k->a, k->b};
  const double* in2[4] = {NULL, NULL, k->b, k->c};
  double* out[4] = {k->c, k->b, k->c, k->a};
  const size_t n = (size_t)k->n;
  for (int l = 0; l < 4; ++l) {
    if (!opened(tsar_init(&k->regions[l], names[l], "static", KINDS, NULL, 0, 0), "stream") ||
        !opened(rows(k->regions[l], in1[l], n, 1, 0, TSAR_MEM_IN), "stream in") ||
        (in2[l] && !opened(rows(k->regions[l], in2[l], n, 1, 0, TSAR_MEM_IN), "stream in")) ||
        !opened(rows(k->regions[l], out[l], n, 1, 0, OVERWRITE), "stream out"))
      return 0;
  }
  return 1;
}

int hand_stream_pass(struct hand_stream* k) {
  static const tsar_body_fn bodies[4] = {stream_copy, stream_scale, stream_add, stream_triad};
  for (int l = 0; l < 4; ++l) {
    const int s = tsar_run(k->regions[l], k->n, bodies[l], k);
    if (s != TSAR_OK) return s;
  }
  return TSAR_OK;
}

/* ---- k-means ----------------------------------------------------------------------------- */

static void kmeans_body(const tsar_chunk* ch, void* arg) {
  const int64_t begin = ch->begin, end = ch->end;
  const struct hand_kmeans* k = arg;
  const double* points = tsar_mem(k->region, k->points);
  const double* centres = tsar_mem(k->region, k->centres);
  int* member = tsar_mem(k->region, k->member);
  double* partial = tsar_mem(k->region, k->partial);
  const int64_t block = k->block, d = k->d, kk = k->k;
#define KMEANS_BLOCK                                                        \
  {                                                                         \
    double* sums = partial + bl * (kk * (d + 1));                           \
    for (int64_t x = 0; x < kk * (d + 1); ++x) sums[x] = 0.0;               \
    for (int64_t q = 0; q < block; ++q) {                                   \
      const double* pt = points + bl * (block * d) + q * d;                 \
      int64_t best = 0;                                                     \
      double best_dist = 0.0;                                               \
      for (int64_t c = 0; c < kk; ++c) {                                    \
        double dist = 0.0;                                                  \
        for (int64_t f = 0; f < d; ++f) {                                   \
          const double diff = pt[f] - centres[c * d + f];                   \
          dist += diff * diff;                                              \
        }                                                                   \
        if (c == 0 || dist < best_dist) {                                   \
          best = c;                                                         \
          best_dist = dist;                                                 \
        }                                                                   \
      }                                                                     \
      member[bl * block + q] = (int)best;                                   \
      for (int64_t f = 0; f < d; ++f) sums[best * (d + 1) + f] += pt[f];    \
      sums[best * (d + 1) + d] += 1.0;                                      \
    }                                                                       \
  }
  if (ch->kind != TSAR_DEVICE_OMP_TARGET) {
    for (int64_t bl = begin; bl < end; ++bl) KMEANS_BLOCK
  } else {
#pragma omp target teams distribute parallel for device(ch->omp_device) \
    is_device_ptr(points, centres, member, partial) \
    defaultmap(none) firstprivate(begin, end, block, d, kk)
    for (int64_t bl = begin; bl < end; ++bl) KMEANS_BLOCK
  }
#undef KMEANS_BLOCK
}

int hand_kmeans_open(struct hand_kmeans* k) {
  const size_t blocks = (size_t)k->blocks, block = (size_t)k->block, d = (size_t)k->d,
               kk = (size_t)k->k;
  return opened(tsar_init(&k->region, "hand:kmeans", NULL, KINDS, NULL, 0, 0), "kmeans") &&
         opened(rows(k->region, k->points, blocks, block * d, 0, TSAR_MEM_IN), "points") &&
         opened(whole(k->region, k->centres, kk * d, TSAR_MEM_IN), "centres") &&
         opened(tsar_reg_mem_2d(k->region, k->member, sizeof(int), blocks, block, 0, 0,
                                TSAR_ASSOC_ROWS, OVERWRITE),
                "member") &&
         opened(rows(k->region, k->partial, blocks, kk * (d + 1), 0, OVERWRITE), "partial");
}

int hand_kmeans_pass(struct hand_kmeans* k) { return tsar_run(k->region, k->blocks, kmeans_body, k); }

void hand_free(tsar_region** regions, int count) {
  for (int r = 0; r < count; ++r) {
    tsar_free(regions[r]);
    regions[r] = NULL;
  }
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs the annotated kernels (kernels/) for several passes each and compares every result
 * with a serial loop nest written here, independently of the kernels' code. Built twice:
 * from the translations (tsar_translate(): TSAR co-schedules the loops over TSAR_DEVICES) and
 * from the sources as written (the directives are unknown pragmas: the program must run as
 * before). Usage: tsar-translate-kernels [--gpu] [KERNEL...] (default: all kernels); exit 0
 * when every result matches; --gpu: exit 77 (skipped) where OpenMP sees no GPU. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

enum { PASSES = 4 };

static double* vec(int64_t n, unsigned seed) {
  double* v = malloc((size_t)n * sizeof *v);
  unsigned s = seed * 2654435761u + 1u;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    v[i] = (double)((s >> 8) % 1000) / 1000.0 - 0.5;
  }
  return v;
}

static double* zeros(int64_t n) { return calloc((size_t)n, sizeof(double)); }

/* 0 when got[0..n) matches want within a relative tolerance (rounding only). */
static int compare(const char* kernel, const char* what, const double* got, const double* want,
                   int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double scale = fabs(want[i]) > 1.0 ? fabs(want[i]) : 1.0;
    if (!(fabs(got[i] - want[i]) <= 1e-10 * scale)) {
      fprintf(stderr, "%s: %s[%lld] = %.17g, expected %.17g\n", kernel, what, (long long)i,
              got[i], want[i]);
      return 1;
    }
  }
  return 0;
}

static void ref_matmul(int64_t n, const double* a, const double* b, double* c) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}

static int test_gemm(void) {
  const int64_t n = 67;
  double *a = vec(n * n, 1), *b = vec(n * n, 2), *c = vec(n * n, 3), *r = zeros(n * n);
  double* ab = zeros(n * n);
  memcpy(r, c, (size_t)(n * n) * sizeof *r);
  ref_matmul(n, a, b, ab);
  for (int p = 0; p < PASSES; ++p) {
    tk_gemm(n, 1.5, 0.5, a, b, c);
    for (int64_t i = 0; i < n * n; ++i) r[i] = 0.5 * r[i] + 1.5 * ab[i];
  }
  int bad = compare("gemm", "C", c, r, n * n);
  free(a), free(b), free(c), free(r), free(ab);
  return bad;
}

static int test_2mm(void) {
  const int64_t n = 53;
  double *a = vec(n * n, 4), *b = vec(n * n, 5), *d = vec(n * n, 6);
  double *c = zeros(n * n), *e = zeros(n * n), *rc = zeros(n * n), *re = zeros(n * n);
  ref_matmul(n, a, b, rc);
  ref_matmul(n, rc, d, re);
  int bad = 0;
  for (int p = 0; p < PASSES && !bad; ++p) {
    tk_2mm(n, a, b, c, d, e);
    bad = compare("2mm", "C", c, rc, n * n) || compare("2mm", "E", e, re, n * n);
  }
  free(a), free(b), free(c), free(d), free(e), free(rc), free(re);
  return bad;
}

static int test_atax(void) {
  const int64_t n = 91;
  double *a = vec(n * n, 7), *x = vec(n, 8), *tmp = zeros(n), *y = zeros(n);
  double *rt = zeros(n), *ry = zeros(n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) rt[i] += a[i * n + j] * x[j];
    for (int64_t j = 0; j < n; ++j) ry[j] += a[i * n + j] * rt[i];
  }
  int bad = 0;
  for (int p = 0; p < PASSES && !bad; ++p) {
    tk_atax(n, a, x, tmp, y);
    bad = compare("atax", "y", y, ry, n);
  }
  free(a), free(x), free(tmp), free(y), free(rt), free(ry);
  return bad;
}

static int test_bicg(void) {
  const int64_t n = 83;
  double *a = vec(n * n, 9), *r = vec(n, 10), *pv = vec(n, 11), *s = zeros(n), *q = zeros(n);
  double *rs = zeros(n), *rq = zeros(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      rs[j] += r[i] * a[i * n + j];
      rq[i] += a[i * n + j] * pv[j];
    }
  int bad = 0;
  for (int p = 0; p < PASSES && !bad; ++p) {
    tk_bicg(n, a, r, pv, s, q);
    bad = compare("bicg", "s", s, rs, n) || compare("bicg", "q", q, rq, n);
  }
  free(a), free(r), free(pv), free(s), free(q), free(rs), free(rq);
  return bad;
}

static int test_mvt(void) {
  const int64_t n = 77;
  double *a = vec(n * n, 12), *y1 = vec(n, 13), *y2 = vec(n, 14), *x1 = vec(n, 15),
         *x2 = vec(n, 16);
  double *r1 = zeros(n), *r2 = zeros(n);
  memcpy(r1, x1, (size_t)n * sizeof *r1);
  memcpy(r2, x2, (size_t)n * sizeof *r2);
  for (int p = 0; p < PASSES; ++p) {
    tk_mvt(n, a, y1, y2, x1, x2);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        r1[i] += a[i * n + j] * y1[j];
        r2[i] += a[j * n + i] * y2[j];
      }
  }
  int bad = compare("mvt", "x1", x1, r1, n) || compare("mvt", "x2", x2, r2, n);
  free(a), free(y1), free(y2), free(x1), free(x2), free(r1), free(r2);
  return bad;
}

static int test_gesummv(void) {
  const int64_t n = 71;
  double *a = vec(n * n, 17), *b = vec(n * n, 18), *x = vec(n, 19), *y = zeros(n), *ry = zeros(n);
  for (int64_t i = 0; i < n; ++i) {
    double ta = 0.0, tb = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      ta += a[i * n + j] * x[j];
      tb += b[i * n + j] * x[j];
    }
    ry[i] = 1.5 * ta + 1.2 * tb;
  }
  int bad = 0;
  for (int p = 0; p < PASSES && !bad; ++p) {
    tk_gesummv(n, 1.5, 1.2, a, b, x, y);
    bad = compare("gesummv", "y", y, ry, n);
  }
  free(a), free(b), free(x), free(y), free(ry);
  return bad;
}

static int test_jacobi(void) {
  const int64_t n = 61, m = 45;
  const double ax = 1.1, ay = 0.9, bb = -4.3, omega = 0.8;
  double *f = vec(n * m, 20), *u = vec(n * m, 21), *uold = zeros(n * m);
  double *ru = zeros(n * m), *rold = zeros(n * m);
  memcpy(uold, u, (size_t)(n * m) * sizeof *u);  /* the boundary rows and columns stay */
  memcpy(ru, u, (size_t)(n * m) * sizeof *u);
  memcpy(rold, u, (size_t)(n * m) * sizeof *u);
  int bad = 0;
  for (int sweep = 0; sweep < 3 * PASSES && !bad; ++sweep) {
    /* u and uold are exchanged after every sweep, as a double-buffered stencil does */
    double* t = u;
    u = uold;
    uold = t;
    t = ru;
    ru = rold;
    rold = t;
    const double err = tk_jacobi(n, m, ax, ay, bb, omega, uold, f, u);
    double rerr = 0.0;
    for (int64_t i = 1; i < n - 1; ++i)
      for (int64_t j = 1; j < m - 1; ++j) {
        const double r = (ax * (rold[(i - 1) * m + j] + rold[(i + 1) * m + j]) +
                          ay * (rold[i * m + j - 1] + rold[i * m + j + 1]) + bb * rold[i * m + j] -
                          f[i * m + j]) /
                         bb;
        ru[i * m + j] = rold[i * m + j] - omega * r;
        rerr += r * r;
      }
    bad = compare("jacobi", "u", u, ru, n * m) || compare("jacobi", "error", &err, &rerr, 1);
  }
  free(f), free(u), free(uold), free(ru), free(rold);
  return bad;
}

static int test_heat(void) {
  const int64_t n = 57, m = 43;
  const double k = 0.2;
  double *u = vec(n * m, 28), *v = zeros(n * m), *f = vec(n * m, 29);
  double *ru = zeros(n * m), *rv = zeros(n * m);
  memcpy(ru, u, (size_t)(n * m) * sizeof *u);
  int bad = 0;
  for (int call = 0; call < 2 && !bad; ++call) {  /* the data block entered twice */
    tk_heat(n, m, 3 * PASSES, k, u, v, f);
    for (int s = 0; s < 3 * PASSES; ++s) {
      for (int64_t i = 1; i < n - 1; ++i)
        for (int64_t j = 1; j < m - 1; ++j)
          rv[i * m + j] = ru[i * m + j] + k * (ru[(i - 1) * m + j] + ru[(i + 1) * m + j] +
                                               ru[i * m + j - 1] + ru[i * m + j + 1] -
                                               4.0 * ru[i * m + j]);
      for (int64_t i = 1; i < n - 1; ++i)
        for (int64_t j = 1; j < m - 1; ++j) ru[i * m + j] = rv[i * m + j] + f[i * m + j];
    }
    bad = compare("heat", "u", u, ru, n * m) || compare("heat", "v", v, rv, n * m);
    /* the host changes u between two entries: the next entry must see it */
    for (int64_t i = 0; i < n * m; ++i) u[i] = ru[i] = 0.5 * ru[i];
  }
  free(u), free(v), free(f), free(ru), free(rv);
  return bad;
}

static int test_stream(void) {
  const int64_t n = 1003;
  const double s = 3.0;
  double *a = vec(n, 22), *b = vec(n, 23), *c = vec(n, 24);
  double *ra = zeros(n), *rb = zeros(n), *rc = zeros(n);
  memcpy(ra, a, (size_t)n * sizeof *a);
  memcpy(rb, b, (size_t)n * sizeof *b);
  memcpy(rc, c, (size_t)n * sizeof *c);
  for (int p = 0; p < PASSES; ++p) {
    tk_stream(n, s, a, b, c);
    for (int64_t i = 0; i < n; ++i) {
      rc[i] = ra[i];
      rb[i] = s * rc[i];
      rc[i] = ra[i] + rb[i];
      ra[i] = rb[i] + s * rc[i];
    }
  }
  int bad = compare("stream", "a", a, ra, n) || compare("stream", "b", b, rb, n) ||
            compare("stream", "c", c, rc, n);
  free(a), free(b), free(c), free(ra), free(rb), free(rc);
  return bad;
}

static int test_kmeans(void) {
  const int64_t blocks = 37, block = 16, d = 3, k = 5, np = blocks * block;
  double *points = vec(np * d, 25), *centres = vec(k * d, 26);
  double *partial = zeros(blocks * k * (d + 1)), *rpartial = zeros(blocks * k * (d + 1));
  int* member = malloc((size_t)np * sizeof *member);
  int bad = 0;
  for (int p = 0; p < PASSES && !bad; ++p) {
    tk_kmeans(blocks, block, d, k, points, centres, member, partial);
    memset(rpartial, 0, (size_t)(blocks * k * (d + 1)) * sizeof *rpartial);
    for (int64_t q = 0; q < np; ++q) {
      int64_t best = 0;
      double best_dist = INFINITY;
      for (int64_t c = 0; c < k; ++c) {
        double dist = 0.0;
        for (int64_t f = 0; f < d; ++f)
          dist += (points[q * d + f] - centres[c * d + f]) * (points[q * d + f] - centres[c * d + f]);
        if (dist < best_dist) best = c, best_dist = dist;
      }
      if (member[q] != best) {
        fprintf(stderr, "kmeans: member[%lld] = %d, expected %lld\n", (long long)q, member[q],
                (long long)best);
        bad = 1;
        break;
      }
      double* row = rpartial + (q / block) * k * (d + 1) + best * (d + 1);
      for (int64_t f = 0; f < d; ++f) row[f] += points[q * d + f];
      row[d] += 1.0;
    }
    bad = bad || compare("kmeans", "partial", partial, rpartial, blocks * k * (d + 1));
    /* move the centres (serially, as the suite does) so the next pass assigns anew */
    for (int64_t c = 0; c < k; ++c) {
      double count = 0.0;
      for (int64_t bl = 0; bl < blocks; ++bl) count += partial[(bl * k + c) * (d + 1) + d];
      for (int64_t f = 0; f < d && count > 0.0; ++f) {
        double s = 0.0;
        for (int64_t bl = 0; bl < blocks; ++bl) s += partial[(bl * k + c) * (d + 1) + f];
        centres[c * d + f] = s / count;
      }
    }
  }
  free(points), free(centres), free(partial), free(rpartial), free(member);
  return bad;
}

static int test_corr(void) {
  const int64_t n = 59, m = 41;
  double *data0 = vec(n * m, 27), *data = zeros(n * m), *mean = zeros(m), *stddev = zeros(m);
  double *symmat = zeros(m * m), *ref = zeros(m * m), *rdata = zeros(n * m);
  /* reference: PolyBench's loop nest */
  memcpy(rdata, data0, (size_t)(n * m) * sizeof *rdata);
  double *rmean = zeros(m), *rstd = zeros(m);
  for (int64_t j = 0; j < m; ++j) {
    for (int64_t i = 0; i < n; ++i) rmean[j] += rdata[i * m + j];
    rmean[j] /= (double)n;
    for (int64_t i = 0; i < n; ++i) rstd[j] += (rdata[i * m + j] - rmean[j]) * (rdata[i * m + j] - rmean[j]);
    rstd[j] = sqrt(rstd[j] / (double)n);
    if (rstd[j] <= 0.1) rstd[j] = 1.0;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      rdata[i * m + j] = (rdata[i * m + j] - rmean[j]) / (sqrt((double)n) * rstd[j]);
  for (int64_t j1 = 0; j1 < m; ++j1) {
    ref[j1 * m + j1] = 1.0;
    for (int64_t j2 = j1 + 1; j2 < m; ++j2)
      for (int64_t i = 0; i < n; ++i) ref[j1 * m + j2] += rdata[i * m + j1] * rdata[i * m + j2];
  }
  int bad = 0;
  for (int p = 0; p < PASSES && !bad; ++p) {
    memcpy(data, data0, (size_t)(n * m) * sizeof *data);
    tk_corr(n, m, data, mean, stddev, symmat);
    bad = compare("corr", "data", data, rdata, n * m) ||
          compare("corr", "symmat", symmat, ref, m * m);
  }
  free(data0), free(data), free(mean), free(stddev), free(symmat), free(ref), free(rdata);
  free(rmean), free(rstd);
  return bad;
}

static const struct {
  const char* name;
  int (*run)(void);
} tests[] = {
    {"gemm", test_gemm},       {"2mm", test_2mm},       {"atax", test_atax},
    {"bicg", test_bicg},       {"mvt", test_mvt},       {"gesummv", test_gesummv},
    {"jacobi", test_jacobi},   {"heat", test_heat},     {"stream", test_stream},
    {"kmeans", test_kmeans},   {"corr", test_corr},
};

int main(int argc, char** argv) {
  int failed = 0, ran = 0, first = 1;
  if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
    if (omp_get_num_devices() == 0) {
      printf("skipped: OpenMP sees no GPU\n");
      return 77;
    }
    first = 2;
  }
  for (size_t t = 0; t < sizeof tests / sizeof tests[0]; ++t) {
    int wanted = argc <= first;
    for (int a = first; a < argc; ++a) wanted |= strcmp(argv[a], tests[t].name) == 0;
    if (!wanted) continue;
    ++ran;
    const int bad = tests[t].run();
    printf("%-8s %s\n", tests[t].name, bad ? "FAILED" : "ok");
    failed += bad;
  }
  if (ran == 0) {
    fprintf(stderr, "no kernel named so\n");
    return 2;
  }
  return failed ? 1 : 0;
}

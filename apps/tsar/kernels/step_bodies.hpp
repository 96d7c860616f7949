// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The loops of the time-step kernels -- bicgstab, residual and wave -- as Ops for
// row_body.hpp, written once for the host, OpenMP offloading and CUDA. Grids are n x m
// doubles in rows; a loop's iteration is a row, its partial one double per row. Included by
// the kernels' sources between `#pragma omp declare target` and its end, and by
// step_kernels_cuda.cu, which instantiates cuda_rows for every Ops listed at the end.

#include <cstdint>

#include "row_body.hpp"

namespace tsar::kernels::steps {

// ---------------------------------------------------------------------------------------
// BiCGStab on the 5-point operator A u = (4 + shift) u - (neighbours), zero outside the grid.

struct BicgView {
  double *x, *r, *r0, *p, *v, *s, *t;  // n x m each
  double* partial;                     // n: the row partials of the loop that ran last
  std::int64_t n, m;
  double shift, alpha, omega, beta;
  template <class T>
  BicgView translated(const T& tr) const {
    BicgView w = *this;
    for (double** q : {&w.x, &w.r, &w.r0, &w.p, &w.v, &w.s, &w.t, &w.partial})
      *q = static_cast<double*>(tr(*q));
    return w;
  }
};

/// (A u)(i, j).
TSAR_ROW_FN double apply_a(const double* u, std::int64_t n, std::int64_t m, double shift,
                           std::int64_t i, std::int64_t j) {
  const std::int64_t k = i * m + j;
  double out = (4.0 + shift) * u[k];
  if (i > 0) out -= u[k - m];
  if (i < n - 1) out -= u[k + m];
  if (j > 0) out -= u[k - 1];
  if (j < m - 1) out -= u[k + 1];
  return out;
}

/// Loops whose rows' partials are kept (dot products).
struct BicgPartial {
  using View = BicgView;
  TSAR_ROW_FN static void done(const View& b, std::int64_t i, double partial) {
    b.partial[i] = partial;
  }
};
/// Loops without a partial.
struct BicgNoPartial {
  using View = BicgView;
  TSAR_ROW_FN static void done(const View&, std::int64_t, double) {}
};

/// partial r0.r
struct BicgRho : BicgPartial {
  TSAR_ROW_FN static double elem(const View& b, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * b.m + j;
    return b.r0[k] * b.r[k];
  }
};
/// v = A p; partial r0.v
struct BicgSpmvP : BicgPartial {
  TSAR_ROW_FN static double elem(const View& b, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * b.m + j;
    b.v[k] = apply_a(b.p, b.n, b.m, b.shift, i, j);
    return b.r0[k] * b.v[k];
  }
};
/// s = r - alpha v
struct BicgS : BicgNoPartial {
  TSAR_ROW_FN static double elem(const View& b, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * b.m + j;
    b.s[k] = b.r[k] - b.alpha * b.v[k];
    return 0.0;
  }
};
/// t = A s; partial t.s
struct BicgSpmvS : BicgPartial {
  TSAR_ROW_FN static double elem(const View& b, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * b.m + j;
    b.t[k] = apply_a(b.s, b.n, b.m, b.shift, i, j);
    return b.t[k] * b.s[k];
  }
};
/// partial t.t
struct BicgTt : BicgPartial {
  TSAR_ROW_FN static double elem(const View& b, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * b.m + j;
    return b.t[k] * b.t[k];
  }
};
/// x += alpha p + omega s; r = s - omega t; partial r0.r
struct BicgUpdate : BicgPartial {
  TSAR_ROW_FN static double elem(const View& b, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * b.m + j;
    b.x[k] += b.alpha * b.p[k] + b.omega * b.s[k];
    b.r[k] = b.s[k] - b.omega * b.t[k];
    return b.r0[k] * b.r[k];
  }
};
/// p = r + beta (p - omega v)
struct BicgDirection : BicgNoPartial {
  TSAR_ROW_FN static double elem(const View& b, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * b.m + j;
    b.p[k] = b.r[k] + b.beta * (b.p[k] - b.omega * b.v[k]);
    return 0.0;
  }
};

// ---------------------------------------------------------------------------------------
// Residual: a damped Jacobi sweep of -lap u = f (grid spacing 1), then a loop that takes the
// new iterate's residual (reading it at its neighbours) and copies it back for the next sweep.

struct ResidualView {
  double* u;        // n x m: the iterate
  double* next;     // n x m: the sweep's result
  const double* f;  // n x m
  double* partial;  // n: each row's squared residual
  std::int64_t n, m;
  double weight;
  template <class T>
  ResidualView translated(const T& tr) const {
    ResidualView w = *this;
    w.u = static_cast<double*>(tr(u));
    w.next = static_cast<double*>(tr(next));
    w.f = static_cast<const double*>(tr(f));
    w.partial = static_cast<double*>(tr(partial));
    return w;
  }
  TSAR_ROW_FN bool interior(std::int64_t i, std::int64_t j) const {
    return i > 0 && i < n - 1 && j > 0 && j < m - 1;
  }
};

/// next = u + weight (Jacobi's update - u) inside; the border keeps u
struct ResidualSweep {
  using View = ResidualView;
  TSAR_ROW_FN static double elem(const View& r, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * r.m + j;
    if (!r.interior(i, j)) {
      r.next[k] = r.u[k];
      return 0.0;
    }
    const double jacobi = 0.25 * (r.f[k] + r.u[k - r.m] + r.u[k + r.m] + r.u[k - 1] + r.u[k + 1]);
    r.next[k] = r.u[k] + r.weight * (jacobi - r.u[k]);
    return 0.0;
  }
  TSAR_ROW_FN static void done(const View&, std::int64_t, double) {}
};
/// partial (f + lap next)^2 inside; u = next
struct ResidualNorm {
  using View = ResidualView;
  TSAR_ROW_FN static double elem(const View& r, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * r.m + j;
    r.u[k] = r.next[k];
    if (!r.interior(i, j)) return 0.0;
    const double res = r.f[k] - 4.0 * r.next[k] + r.next[k - r.m] + r.next[k + r.m] +
                       r.next[k - 1] + r.next[k + 1];
    return res * res;
  }
  TSAR_ROW_FN static void done(const View& r, std::int64_t i, double partial) {
    r.partial[i] = partial;
  }
};

// ---------------------------------------------------------------------------------------
// Wave: a 2-D acoustic wave on a staggered grid. The velocities step from the pressure's
// gradient (reading the next row's pressure), then the pressure from the velocities'
// divergence (reading the previous row's vertical velocity), with each row's energy p^2.

struct WaveView {
  double *p, *vx, *vy;  // n x m each
  double* partial;      // n: each row's sum of p^2
  std::int64_t n, m;
  double c;  // time step x wave speed^2 over the spacing (stable below 1/2)
  template <class T>
  WaveView translated(const T& tr) const {
    WaveView w = *this;
    for (double** q : {&w.p, &w.vx, &w.vy, &w.partial}) *q = static_cast<double*>(tr(*q));
    return w;
  }
};

struct WaveVelocity {
  using View = WaveView;
  TSAR_ROW_FN static double elem(const View& w, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * w.m + j;
    if (j < w.m - 1) w.vx[k] -= w.c * (w.p[k + 1] - w.p[k]);
    if (i < w.n - 1) w.vy[k] -= w.c * (w.p[k + w.m] - w.p[k]);
    return 0.0;
  }
  TSAR_ROW_FN static void done(const View&, std::int64_t, double) {}
};
struct WavePressure {
  using View = WaveView;
  TSAR_ROW_FN static double elem(const View& w, std::int64_t i, std::int64_t j) {
    const std::int64_t k = i * w.m + j;
    const double west = j > 0 ? w.vx[k - 1] : 0.0;
    const double north = i > 0 ? w.vy[k - w.m] : 0.0;
    w.p[k] -= w.c * (w.vx[k] - west + w.vy[k] - north);
    return w.p[k] * w.p[k];
  }
  TSAR_ROW_FN static void done(const View& w, std::int64_t i, double partial) {
    w.partial[i] = partial;
  }
};

/// Every loop, for step_kernels_cuda.cu's instantiations.
#define TSAR_STEP_LOOPS(X)                                                                  \
  X(BicgRho)                                                                                \
  X(BicgSpmvP)                                                                              \
  X(BicgS)                                                                                  \
  X(BicgSpmvS)                                                                              \
  X(BicgTt) X(BicgUpdate) X(BicgDirection) X(ResidualSweep) X(ResidualNorm) X(WaveVelocity) \
      X(WavePressure)

}  // namespace tsar::kernels::steps

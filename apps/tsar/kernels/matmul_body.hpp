// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The body 2MM and 3MM share: row i of C = A * B.

#include <cstdint>

#include "loop_body.hpp"

namespace tsar::kernels {

struct MatmulView {
  const double* a;  // ni x nk
  const double* b;  // nk x nj
  double* c;        // ni x nj
  std::int64_t nk, nj;
  MatmulView translated(const Translate& t) const {
    MatmulView v = *this;
    v.a = translate(t, a);
    v.b = translate(t, b);
    v.c = translate(t, c);
    return v;
  }
};

#pragma omp declare target
inline void matmul_row(const MatmulView& v, std::int64_t i) {
  double* __restrict c = v.c + i * v.nj;
  const double* __restrict a = v.a + i * v.nk;
  for (std::int64_t j = 0; j < v.nj; ++j) c[j] = 0.0;
  for (std::int64_t k = 0; k < v.nk; ++k) {
    const double aik = a[k];
    const double* __restrict b = v.b + k * v.nj;
    for (std::int64_t j = 0; j < v.nj; ++j) c[j] += aik * b[j];
  }
}
#pragma omp end declare target

/// The loop computing C = A * B (ni x nk times nk x nj) row by row.
inline Loop matmul_loop(const char* name, const MatmulView* view, std::size_t ni) {
  const auto nk = static_cast<std::size_t>(view->nk), nj = static_cast<std::size_t>(view->nj);
  return make_loop<MatmulView, matmul_row>(
      name, view, 8.0 * static_cast<double>(nk + nj),
      {rows_buffer("A", view->a, ni, nk, TSAR_MEM_IN), full_buffer("B", view->b, nk, nj),
       rows_buffer("C", view->c, ni, nj, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)});
}

/// Plain serial C = A * B (the reference loop nest).
inline void matmul_reference(const double* a, const double* b, double* c, std::int64_t ni,
                             std::int64_t nk, std::int64_t nj) {
  for (std::int64_t i = 0; i < ni; ++i)
    for (std::int64_t j = 0; j < nj; ++j) {
      double s = 0.0;
      for (std::int64_t k = 0; k < nk; ++k) s += a[i * nk + k] * b[k * nj + j];
      c[i * nj + j] = s;
    }
}

}  // namespace tsar::kernels

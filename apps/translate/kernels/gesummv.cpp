// SPDX-License-Identifier: BSD-3-Clause
// GESUMMV (PolyBench/GPU) in C++: a function template in a namespace, so the translation
// runs in a template instance (the body is a lambda there, its types from decltype).
#include <cstdint>

#include "kernels.h"

namespace tk {

template <class T>
void gesummv(std::int64_t n, T alpha, T beta, const T* a, const T* b, const T* x, T* y) {
#pragma tsar hetero(all) part_map(to: a[i:1][0:n], b[i:1][0:n]) map(to: x[0:n]) \
    part_map(from: y[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], b[0:n*n], x[0:n]) \
    map(from: y[0:n])
  for (std::int64_t i = 0; i < n; ++i) {
    T ta = 0, tb = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      ta += a[i * n + j] * x[j];
      tb += b[i * n + j] * x[j];
    }
    y[i] = alpha * ta + beta * tb;
  }
}

}  // namespace tk

extern "C" void tk_gesummv(int64_t n, double alpha, double beta, const double* a, const double* b,
                           const double* x, double* y) {
  tk::gesummv<double>(n, alpha, beta, a, b, x, y);
}

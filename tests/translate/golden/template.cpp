// SPDX-License-Identifier: BSD-3-Clause
// C++: a function template in a namespace, a reduction, a lambda in the body, types that
// exist only at the loop (T, a local struct).
#include <cstdint>

namespace lin {

template <class T>
T axpy_dot(std::int64_t n, T a, const T* x, T* y) {
  struct Scale { T by; } scale{a};
  T dot = 0;
#pragma tsar hetero(all) part_map(to: x[i:1]) part_map(tofrom: y[i:1])
#pragma omp target teams distribute parallel for reduction(+: dot) map(to: x[0:n]) \
    map(tofrom: y[0:n])
  for (std::int64_t i = 0; i < n; ++i) {
    auto twice = [](T v) { return v + v; };
    y[i] += scale.by * x[i];
    dot += twice(x[i] * y[i]) / 2;
  }
  return dot;
}

template double axpy_dot<double>(std::int64_t, double, const double*, double*);

}  // namespace lin

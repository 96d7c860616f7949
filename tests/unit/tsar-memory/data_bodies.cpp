// SPDX-License-Identifier: BSD-3-Clause
#include "data_bodies.hpp"

namespace data_test {
namespace {

bool on_target(const tsar::Chunk& c) { return c.kind() == tsar::DeviceKind::omp_target; }

}  // namespace

void relax(const tsar::Chunk& c, double* a, std::int64_t cols, int step) {
  const std::int64_t b = c.begin(), e = c.end();
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for collapse(2) device(dev) is_device_ptr(a)
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        a[i * cols + j] = a[i * cols + j] / 2 + static_cast<double>(i + j + step);
    return;
  }
  for (std::int64_t i = b; i < e; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      a[i * cols + j] = a[i * cols + j] / 2 + static_cast<double>(i + j + step);
}

void row_sums(const tsar::Chunk& c, const double* a, std::int64_t cols, double* s) {
  const std::int64_t b = c.begin(), e = c.end();
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, s)
    for (std::int64_t i = b; i < e; ++i) {
      double sum = 0;
      for (std::int64_t j = 0; j < cols; ++j) sum += a[i * cols + j];
      s[i] = sum;
    }
    return;
  }
  for (std::int64_t i = b; i < e; ++i) {
    double sum = 0;
    for (std::int64_t j = 0; j < cols; ++j) sum += a[i * cols + j];
    s[i] = sum;
  }
}

void add_sums(const tsar::Chunk& c, double* a, std::int64_t cols, const double* s) {
  const std::int64_t b = c.begin(), e = c.end();
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for collapse(2) device(dev) is_device_ptr(a, s)
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = 0; j < cols; ++j) a[i * cols + j] += s[i] / 1000;
    return;
  }
  for (std::int64_t i = b; i < e; ++i)
    for (std::int64_t j = 0; j < cols; ++j) a[i * cols + j] += s[i] / 1000;
}

}  // namespace data_test

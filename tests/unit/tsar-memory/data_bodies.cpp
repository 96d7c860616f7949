// SPDX-License-Identifier: BSD-3-Clause
#include "data_bodies.hpp"

#include <algorithm>

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

void interior_average(const tsar::Chunk& c, const double* cur, double* next, std::int64_t rows,
                      std::int64_t cols) {
  const std::int64_t b = std::max<std::int64_t>(c.begin(), 1);
  const std::int64_t e = std::min(c.end(), rows - 1);
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for collapse(2) device(dev) is_device_ptr(cur, next)
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = 1; j < cols - 1; ++j) {
        const std::int64_t k = i * cols + j;
        next[k] = (cur[k - cols] + cur[k] + cur[k + cols] + cur[k - 1] + cur[k + 1]) / 5;
      }
    return;
  }
  for (std::int64_t i = b; i < e; ++i)
    for (std::int64_t j = 1; j < cols - 1; ++j) {
      const std::int64_t k = i * cols + j;
      next[k] = (cur[k - cols] + cur[k] + cur[k + cols] + cur[k - 1] + cur[k + 1]) / 5;
    }
}

}  // namespace data_test

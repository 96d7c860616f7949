// SPDX-License-Identifier: BSD-3-Clause
#include "accel_bodies.hpp"

#include <omp.h>

#include <cstdio>
#include <cstdlib>

#if TSAR_TEST_CUDA
#include "accel_kernels.hpp"
#endif

namespace accel_test {
namespace {

[[noreturn]] void skip(const std::string& why) {
  std::fprintf(stderr, "SKIPPED: %s\n", why.c_str());
  std::exit(77);
}

bool on_target(const tsar::Chunk& c) { return c.kind() == tsar::DeviceKind::omp_target; }
#if TSAR_TEST_CUDA
bool on_cuda(const tsar::Chunk& c) { return c.kind() == tsar::DeviceKind::cuda; }
#endif

double* at(const tsar_mem_layout& l) { return static_cast<double*>(l.base); }

}  // namespace

const Setup& setup() {
  static const Setup s = [] {
    const char* env = std::getenv("TSAR_TEST_ACCEL");
    Setup r;
    r.kind = env != nullptr && env[0] != '\0' ? env : "omphost";
    if (r.kind == "omphost") {
      r.devices = "cpu:0,omphost:1,omphost:0";  // two accelerators with their own memory
      r.accelerators = 2;
    } else if (r.kind == "omp") {
      r.accelerators = omp_get_num_devices();
      if (r.accelerators == 0)
        skip(
            "no OpenMP target device (omp_get_num_devices() == 0): no GPU, or libgomp found "
            "no libgomp-plugin-nvptx / libcuda");
      r.devices = "cpu:0,cpu:1,omp:all";
    } else if (r.kind == "cuda") {
#if TSAR_TEST_CUDA
      r.accelerators = accel_kernels::device_count();
      if (r.accelerators == 0) skip("no CUDA device");
      r.devices = "cpu:0,cpu:1,cuda:all";
#else
      skip("this test binary has no CUDA kernels");
#endif
    } else {
      std::fprintf(stderr, "TSAR_TEST_ACCEL is '%s': expected omphost, omp or cuda\n",
                   r.kind.c_str());
      std::exit(2);
    }
    std::printf("accelerator tests on %s (%d accelerators)\n", r.devices.c_str(), r.accelerators);
    return r;
  }();
  return s;
}

void axpy(const tsar::Chunk& c, const double* x, double* y, double a) {
  const std::int64_t b = c.begin(), e = c.end();
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(x, y)
    for (std::int64_t i = b; i < e; ++i) y[i] += a * x[i];
#if TSAR_TEST_CUDA
  } else if (on_cuda(c)) {
    accel_kernels::axpy(c.stream(), x, y, a, b, e);
#endif
  } else {
    for (std::int64_t i = b; i < e; ++i) y[i] += a * x[i];
  }
}

void jacobi(const tsar::Chunk& c, const double* cur, double* next, std::int64_t rows,
            std::int64_t cols) {
  const std::int64_t b = c.begin(), e = c.end();
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(cur, next)
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        const std::int64_t k = i * cols + j;
        next[k] = (i == 0 || i == rows - 1 || j == 0 || j == cols - 1)
                      ? cur[k]
                      : (cur[k - cols] + cur[k] + cur[k + cols] + cur[k - 1] + cur[k + 1]) / 5;
      }
#if TSAR_TEST_CUDA
  } else if (on_cuda(c)) {
    accel_kernels::jacobi(c.stream(), cur, next, rows, cols, b, e);
#endif
  } else {
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        const std::int64_t k = i * cols + j;
        next[k] = (i == 0 || i == rows - 1 || j == 0 || j == cols - 1)
                      ? cur[k]
                      : (cur[k - cols] + cur[k] + cur[k + cols] + cur[k - 1] + cur[k + 1]) / 5;
      }
  }
}

void scale_cols(const tsar::Chunk& c, const tsar_mem_layout& in, const tsar_mem_layout& out,
                std::int64_t rows) {
  const std::int64_t b = c.begin(), e = c.end();
  const double* ip = at(in);
  double* op = at(out);
  const auto is = static_cast<std::int64_t>(in.row_stride);
  const auto os = static_cast<std::int64_t>(out.row_stride);
  const std::int64_t io = in.col_offset, oo = out.col_offset;
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for collapse(2) device(dev) is_device_ptr(ip, op)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = b; j < e; ++j)
        op[r * os + j - oo] = 2 * ip[r * is + j - io] + (j > 0 ? ip[r * is + j - 1 - io] : 0.0);
#if TSAR_TEST_CUDA
  } else if (on_cuda(c)) {
    accel_kernels::scale_cols(c.stream(), ip, in.row_stride, io, op, out.row_stride, oo, rows, b,
                              e);
#endif
  } else {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = b; j < e; ++j)
        op[r * os + j - oo] = 2 * ip[r * is + j - io] + (j > 0 ? ip[r * is + j - 1 - io] : 0.0);
  }
}

void plus_update(const tsar::Chunk& c, const tsar_mem_layout& a, std::int64_t n) {
  const std::int64_t b = c.begin(), e = c.end();
  double* p = at(a);
  const auto s = static_cast<std::int64_t>(a.row_stride);
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(p)
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = i + 1; j < n; ++j) {
        p[i * s + j] += static_cast<double>(i + 2 * j);
        p[j * s + i] -= static_cast<double>(j + 3 * i);
      }
#if TSAR_TEST_CUDA
  } else if (on_cuda(c)) {
    accel_kernels::plus_update(c.stream(), p, a.row_stride, n, b, e);
#endif
  } else {
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = i + 1; j < n; ++j) {
        p[i * s + j] += static_cast<double>(i + 2 * j);
        p[j * s + i] -= static_cast<double>(j + 3 * i);
      }
  }
}

void gather(const tsar::Chunk& c, const double* t, std::int64_t len, double* y) {
  const std::int64_t b = c.begin(), e = c.end();
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(t, y)
    for (std::int64_t i = b; i < e; ++i) y[i] = t[(7 * i) % len] + t[(13 * i) % len];
#if TSAR_TEST_CUDA
  } else if (on_cuda(c)) {
    accel_kernels::gather(c.stream(), t, len, y, b, e);
#endif
  } else {
    for (std::int64_t i = b; i < e; ++i) y[i] = t[(7 * i) % len] + t[(13 * i) % len];
  }
}

void scale_rows(const tsar::Chunk& c, const tsar_mem_layout& m, std::int64_t cols) {
  const std::int64_t b = c.begin(), e = c.end();
  double* p = at(m);
  const auto s = static_cast<std::int64_t>(m.row_stride);
  const std::int64_t ro = m.row_offset;
  if (on_target(c)) {
    const int dev = c.omp_device();
#pragma omp target teams distribute parallel for collapse(2) device(dev) is_device_ptr(p)
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        p[(i - ro) * s + j] = 3 * p[(i - ro) * s + j] + static_cast<double>(j);
#if TSAR_TEST_CUDA
  } else if (on_cuda(c)) {
    accel_kernels::scale_rows(c.stream(), p, m.row_stride, ro, cols, b, e);
#endif
  } else {
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        p[(i - ro) * s + j] = 3 * p[(i - ro) * s + j] + static_cast<double>(j);
  }
}

void sum(const tsar::Chunk& c, const double* x, double* acc) {
  const std::int64_t b = c.begin(), e = c.end();
  if (on_target(c)) {
    const int dev = c.omp_device();
    double s = 0;
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(x) \
    reduction(+ : s) map(tofrom : s)
    for (std::int64_t i = b; i < e; ++i) s += x[i];
      // Into the device accumulator, on the device: TSAR copies it back at the end.
#pragma omp target device(dev) is_device_ptr(acc)
    *acc += s;
#if TSAR_TEST_CUDA
  } else if (on_cuda(c)) {
    accel_kernels::sum(c.stream(), x, acc, b, e);
#endif
  } else {
    double s = 0;
    for (std::int64_t i = b; i < e; ++i) s += x[i];
    *acc += s;
  }
}

}  // namespace accel_test

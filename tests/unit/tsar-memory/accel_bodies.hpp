// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Loop bodies of the accelerator tests, each written once per device kind: a plain loop on CPU
// workers, an OpenMP target region on OpenMP target devices (a GPU under nvptx offloading, the
// host's initial device in CI), and -- in the GPU test build (TSAR_TEST_CUDA) -- a CUDA kernel
// from accel_kernels.cu. Their serial references are in the tests.

#include <cstdint>
#include <string>

#include "tsar/tsar.hpp"

namespace accel_test {

/// Which accelerators the region tests run on, from TSAR_TEST_ACCEL: "omphost" (default; two
/// host-as-device accelerators on a 2-core machine), "omp" (every OpenMP target device) or
/// "cuda" (every CUDA device). Exits with 77 (skipped) when the kind has no device here.
struct Setup {
  std::string kind;
  std::string devices;   ///< the tsar_set_devices list: CPU devices first, then accelerators
  int accelerators = 0;  ///< how many of the region's devices are accelerators
};
const Setup& setup();

void axpy(const tsar::Chunk& c, const double* x, double* y, double a);
/// next = 5-point average of cur on interior points, copy on the border; rows of `cols`.
void jacobi(const tsar::Chunk& c, const double* cur, double* next, std::int64_t rows,
            std::int64_t cols);
/// out(r, j) = 2 in(r, j) + in(r, j - 1) for the chunk's columns j, in every row.
void scale_cols(const tsar::Chunk& c, const tsar_mem_layout& in, const tsar_mem_layout& out,
                std::int64_t rows);
/// Iteration i: a(i, j) += i + 2j and a(j, i) -= j + 3i for every j > i (an n x n matrix).
void plus_update(const tsar::Chunk& c, const tsar_mem_layout& a, std::int64_t n);
/// y[i] = t[(7 i) % len] + t[(13 i) % len].
void gather(const tsar::Chunk& c, const double* t, std::int64_t len, double* y);
/// m(i, j) = 3 m(i, j) + j for the chunk's rows of a matrix of `cols` columns.
void scale_rows(const tsar::Chunk& c, const tsar_mem_layout& m, std::int64_t cols);
/// *acc += sum of x over the chunk (acc: the device's accumulator).
void sum(const tsar::Chunk& c, const double* x, double* acc);

}  // namespace accel_test

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// CUDA versions of accel_bodies (accel_kernels.cu), launched on the chunk's stream.
#include <cstdint>

namespace accel_kernels {

int device_count();
void axpy(void* stream, const double* x, double* y, double a, std::int64_t b, std::int64_t e);
void jacobi(void* stream, const double* cur, double* next, std::int64_t rows, std::int64_t cols,
            std::int64_t b, std::int64_t e);
void scale_cols(void* stream, const double* in, std::size_t in_stride, std::int64_t in_off,
                double* out, std::size_t out_stride, std::int64_t out_off, std::int64_t rows,
                std::int64_t b, std::int64_t e);
void plus_update(void* stream, double* a, std::size_t stride, std::int64_t n, std::int64_t b,
                 std::int64_t e);
void gather(void* stream, const double* t, std::int64_t len, double* y, std::int64_t b,
            std::int64_t e);
void scale_rows(void* stream, double* m, std::size_t stride, std::int64_t row_off,
                std::int64_t cols, std::int64_t b, std::int64_t e);
void sum(void* stream, const double* x, double* acc, std::int64_t b, std::int64_t e);

}  // namespace accel_kernels

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The loops of the data-environment and trap tests -- one time step of three dependent loops
// over a rows x cols matrix a and a vector s of its row sums, and a stencil that leaves its
// boundary alone --, each written once per device kind (a plain loop on CPU workers, an
// OpenMP target region on OpenMP target devices). Pointers are indexed like the host buffers
// (ROWS, unpadded).

#include <cstdint>

#include "tsar/tsar.hpp"

namespace data_test {

/// a(i, j) = a(i, j) / 2 + i + j + step for the chunk's rows.
void relax(const tsar::Chunk& c, double* a, std::int64_t cols, int step);
/// s[i] = sum over j of a(i, j).
void row_sums(const tsar::Chunk& c, const double* a, std::int64_t cols, double* s);
/// a(i, j) += s[i] / 1000.
void add_sums(const tsar::Chunk& c, double* a, std::int64_t cols, const double* s);
/// next = 5-point average of cur on the interior points of the chunk's rows; the boundary
/// rows and columns of next are not written (the fixed boundary of a stencil).
void interior_average(const tsar::Chunk& c, const double* cur, double* next, std::int64_t rows,
                      std::int64_t cols);

}  // namespace data_test

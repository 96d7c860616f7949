// SPDX-License-Identifier: BSD-3-Clause
// CORR (PolyBench/GPU correlation): the correlation matrix of m variables over n samples,
// ten executions per run. Loops: column means, column deviations, normalising the rows, then
// the matrix, where iteration j1 computes row j1 of the upper triangle (m - j1 entries):
// imbalanced. The lower triangle is mirrored serially.
#include <cmath>

#include "kernel_list.hpp"
#include "symmetric_matrix_kernel.hpp"

namespace tsar::kernels {
namespace {

constexpr double kEps = 0.1;

#pragma omp declare target
void corr_stddev(const SymmetricView& v, std::int64_t j) {
  double s = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) {
    const double d = v.data[i * v.m + j] - v.mean[j];
    s += d * d;
  }
  s = std::sqrt(s / static_cast<double>(v.n));
  v.stddev[j] = s <= kEps ? 1.0 : s;
}

void corr_center(const SymmetricView& v, std::int64_t i) {
  const double root_n = std::sqrt(static_cast<double>(v.n));
  double* __restrict row = v.data + i * v.m;
  for (std::int64_t j = 0; j < v.m; ++j) row[j] = (row[j] - v.mean[j]) / (root_n * v.stddev[j]);
}

void corr_matrix(const SymmetricView& v, std::int64_t j1) {
  v.symmat[j1 * v.m + j1] = 1.0;
  triangle_row(v, j1, j1 + 1);
}
#pragma omp end declare target

class Corr final : public SymmetricMatrixKernel {
 public:
  const char* name() const override { return "corr"; }
  const char* description() const override {
    return "correlation matrix; row j1 of the triangle per iteration (PolyBench/GPU CORR)";
  }

  void setup(Scale scale) override {
    setup_data(scale, 101, /*with_stddev=*/true);
    const auto n = static_cast<std::size_t>(n_), m = static_cast<std::size_t>(m_);
    const double rows = 8.0 * static_cast<double>(n_);
    set_counted_loops(
        {{make_loop<SymmetricView, column_mean>(
              "corr.mean", &view_, rows,
              {full_buffer("data", data_.data(), n, m),
               rows_buffer("mean", mean_.data(), m, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)}),
          m_},
         {make_loop<SymmetricView, corr_stddev>(
              "corr.stddev", &view_, rows,
              {full_buffer("data", data_.data(), n, m),
               rows_buffer("mean", mean_.data(), m, 1, TSAR_MEM_IN),
               rows_buffer("stddev", stddev_.data(), m, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)}),
          m_},
         {make_loop<SymmetricView, corr_center>(
              "corr.center", &view_, 16.0 * static_cast<double>(m_),
              {rows_buffer("data", data_.data(), n, m, TSAR_MEM_INOUT),
               full_buffer("mean", mean_.data(), m), full_buffer("stddev", stddev_.data(), m)}),
          n_},
         {make_loop<SymmetricView, corr_matrix>(
              "corr.matrix", &view_, 8.0 * static_cast<double>(m_),
              {full_buffer("data", data_.data(), n, m),
               rows_buffer("symmat", symmat_.data(), m, m, TSAR_MEM_INOUT)}),
          m_}});
  }

  void compute_reference() override {
    std::vector<double> data = data0_, mean(static_cast<std::size_t>(m_)),
                        stddev(static_cast<std::size_t>(m_));
    ref_.assign(symmat_.size(), 0.0);
    const double float_n = static_cast<double>(n_);
    for (int e = 0; e < executions_; ++e) {
      reference_means(data, mean);
      for (std::int64_t j = 0; j < m_; ++j) {
        stddev[j] = 0.0;
        for (std::int64_t i = 0; i < n_; ++i)
          stddev[j] += (data[i * m_ + j] - mean[j]) * (data[i * m_ + j] - mean[j]);
        stddev[j] = std::sqrt(stddev[j] / float_n);
        stddev[j] = stddev[j] <= kEps ? 1.0 : stddev[j];
      }
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < m_; ++j)
          data[i * m_ + j] = (data[i * m_ + j] - mean[j]) / (std::sqrt(float_n) * stddev[j]);
      for (std::int64_t j1 = 0; j1 < m_; ++j1) {
        ref_[j1 * m_ + j1] = 1.0;
        for (std::int64_t j2 = j1 + 1; j2 < m_; ++j2) {
          double s = 0.0;
          for (std::int64_t i = 0; i < n_; ++i) s += data[i * m_ + j1] * data[i * m_ + j2];
          ref_[j1 * m_ + j2] = s;
          ref_[j2 * m_ + j1] = s;
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> make_corr() { return std::make_unique<Corr>(); }

}  // namespace tsar::kernels

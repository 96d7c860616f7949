// SPDX-License-Identifier: BSD-3-Clause
// COVAR (PolyBench/GPU covariance): the covariance matrix of m variables over n samples, ten
// executions per run. Loops: column means, centring the rows, then the matrix, where iteration
// j1 computes row j1 of the upper triangle (m - j1 entries): imbalanced. The lower triangle
// is mirrored serially.
#include "kernel_list.hpp"
#include "symmetric_matrix_kernel.hpp"

namespace tsar::kernels {
namespace {

#pragma omp declare target
void covar_center(const SymmetricView& v, std::int64_t i) {
  double* __restrict row = v.data + i * v.m;
  for (std::int64_t j = 0; j < v.m; ++j) row[j] -= v.mean[j];
}

void covar_matrix(const SymmetricView& v, std::int64_t j1) { triangle_row(v, j1, j1); }
#pragma omp end declare target

class Covar final : public SymmetricMatrixKernel {
 public:
  const char* name() const override { return "covar"; }
  const char* description() const override {
    return "covariance matrix; row j1 of the triangle per iteration (PolyBench/GPU COVAR)";
  }

  void setup(Scale scale) override {
    setup_data(scale, 111, /*with_stddev=*/false);
    const auto n = static_cast<std::size_t>(n_), m = static_cast<std::size_t>(m_);
    set_counted_loops(
        {{make_loop<SymmetricView, column_mean>(
              "covar.mean", &view_, 8.0 * static_cast<double>(n_),
              {full_buffer("data", data_.data(), n, m),
               rows_buffer("mean", mean_.data(), m, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)}),
          m_},
         {make_loop<SymmetricView, covar_center>(
              "covar.center", &view_, 16.0 * static_cast<double>(m_),
              {rows_buffer("data", data_.data(), n, m, TSAR_MEM_INOUT),
               full_buffer("mean", mean_.data(), m)}),
          n_},
         {make_loop<SymmetricView, covar_matrix>(
              "covar.matrix", &view_, 8.0 * static_cast<double>(m_),
              {full_buffer("data", data_.data(), n, m),
               rows_buffer("symmat", symmat_.data(), m, m, TSAR_MEM_INOUT)}),
          m_}});
  }

  void compute_reference() override {
    std::vector<double> data = data0_, mean(static_cast<std::size_t>(m_));
    ref_.assign(symmat_.size(), 0.0);
    for (int e = 0; e < executions_; ++e) {
      reference_means(data, mean);
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < m_; ++j) data[i * m_ + j] -= mean[j];
      for (std::int64_t j1 = 0; j1 < m_; ++j1)
        for (std::int64_t j2 = j1; j2 < m_; ++j2) {
          double s = 0.0;
          for (std::int64_t i = 0; i < n_; ++i) s += data[i * m_ + j1] * data[i * m_ + j2];
          ref_[j1 * m_ + j2] = s;
          ref_[j2 * m_ + j1] = s;
        }
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> make_covar() { return std::make_unique<Covar>(); }

}  // namespace tsar::kernels

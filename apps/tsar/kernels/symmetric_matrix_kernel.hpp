// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What CORR and COVAR share: a data matrix of n samples x m variables, its column means, and
// the symmetric m x m matrix of which iteration j1 of the last loop fills row j1 of the upper
// triangle (imbalanced: m - j1 entries); the lower triangle is mirrored serially. Each
// kernel adds its own loops (CORR normalises by the standard deviations) around the shared
// bodies below.

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {

struct SymmetricView {
  double* data;    // n x m
  double* mean;    // m
  double* stddev;  // m (CORR only; nullptr in COVAR)
  double* symmat;  // m x m
  std::int64_t n, m;
  SymmetricView translated(const Translate& t) const {
    SymmetricView v = *this;
    v.data = translate(t, data);
    v.mean = translate(t, mean);
    v.stddev = stddev != nullptr ? translate(t, stddev) : nullptr;
    v.symmat = translate(t, symmat);
    return v;
  }
};

#pragma omp declare target
/// mean[j]: the mean of column j.
inline void column_mean(const SymmetricView& v, std::int64_t j) {
  double s = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) s += v.data[i * v.m + j];
  v.mean[j] = s / static_cast<double>(v.n);
}

/// symmat[j1][j2] = sum over the samples of data[i][j1] * data[i][j2], for j2 in [first, m).
inline void triangle_row(const SymmetricView& v, std::int64_t j1, std::int64_t first) {
  double* __restrict out = v.symmat + j1 * v.m;
  for (std::int64_t j2 = first; j2 < v.m; ++j2) out[j2] = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) {
    const double* __restrict row = v.data + i * v.m;
    const double d1 = row[j1];
    for (std::int64_t j2 = first; j2 < v.m; ++j2) out[j2] += d1 * row[j2];
  }
}
#pragma omp end declare target

class SymmetricMatrixKernel : public Kernel {
 public:
  Kind kind() const override { return Kind::imbalanced; }
  std::string size_text() const override {
    return std::to_string(m_) + " variables x " + std::to_string(n_) + " samples, " +
           std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override {
    return static_cast<std::int64_t>(loops().size()) * executions_;
  }
  void reset() override {
    data_ = data0_;
    std::fill(symmat_.begin(), symmat_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) {
      for (std::size_t l = 0; l < loops().size(); ++l) parallel(loops()[l], counts_[l]);
      mirror(symmat_);
    }
  }
  Check check() const override {
    return compare("symmat", symmat_.data(), ref_.data(), symmat_.size(), 1e-11);
  }

 protected:
  /// The data for `scale` (m = n variables and samples, uniform inputs from `seed`) and the
  /// view over it; `with_stddev` adds the standard deviations.
  void setup_data(Scale scale, std::uint64_t seed, bool with_stddev) {
    m_ = by_scale<std::int64_t>(scale, 24, 128, 512, 1536);
    n_ = m_;
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto n = static_cast<std::size_t>(n_), m = static_cast<std::size_t>(m_);
    data0_ = uniform(n * m, seed);
    data_ = data0_;
    mean_.assign(m, 0.0);
    stddev_.assign(with_stddev ? m : 0, 0.0);
    symmat_.assign(m * m, 0.0);
    view_ = {data_.data(),   mean_.data(), with_stddev ? stddev_.data() : nullptr,
             symmat_.data(), n_,           m_};
  }
  /// The kernel's loops in run order, each with its iteration count.
  void set_counted_loops(std::vector<std::pair<Loop, std::int64_t>> loops) {
    std::vector<Loop> plain;
    counts_.clear();
    for (auto& [loop, count] : loops) {
      plain.push_back(std::move(loop));
      counts_.push_back(count);
    }
    set_loops(std::move(plain));
  }
  /// The column means of `data` (the reference's first step).
  void reference_means(const std::vector<double>& data, std::vector<double>& mean) const {
    for (std::int64_t j = 0; j < m_; ++j) {
      mean[j] = 0.0;
      for (std::int64_t i = 0; i < n_; ++i) mean[j] += data[i * m_ + j];
      mean[j] /= static_cast<double>(n_);
    }
  }
  /// The lower triangle of `s` from its upper one.
  void mirror(std::vector<double>& s) const {
    for (std::int64_t j1 = 0; j1 < m_; ++j1)
      for (std::int64_t j2 = j1 + 1; j2 < m_; ++j2) s[j2 * m_ + j1] = s[j1 * m_ + j2];
  }

  std::int64_t n_ = 0, m_ = 0;
  int executions_ = 0;
  std::vector<double> data0_, data_, mean_, stddev_, symmat_, ref_;
  SymmetricView view_{};

 private:
  std::vector<std::int64_t> counts_;
};

}  // namespace tsar::kernels

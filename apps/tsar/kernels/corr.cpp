// CORR (PolyBench/GPU correlation): the correlation matrix of m variables over n samples,
// ten executions per run. Loops: column means, column deviations, normalising the rows, then
// the matrix, where iteration j1 computes row j1 of the upper triangle (m - j1 entries):
// imbalanced. The lower triangle is mirrored serially.
#include <cmath>

#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

constexpr double kEps = 0.1;

struct CorrView {
  double* data;    // n x m
  double* mean;    // m
  double* stddev;  // m
  double* symmat;  // m x m
  std::int64_t n, m;
  CorrView translated(const Translate& t) const {
    CorrView v = *this;
    v.data = translate(t, data);
    v.mean = translate(t, mean);
    v.stddev = translate(t, stddev);
    v.symmat = translate(t, symmat);
    return v;
  }
};

#pragma omp declare target
void corr_mean(const CorrView& v, std::int64_t j) {
  double s = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) s += v.data[i * v.m + j];
  v.mean[j] = s / static_cast<double>(v.n);
}

void corr_stddev(const CorrView& v, std::int64_t j) {
  double s = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) {
    const double d = v.data[i * v.m + j] - v.mean[j];
    s += d * d;
  }
  s = std::sqrt(s / static_cast<double>(v.n));
  v.stddev[j] = s <= kEps ? 1.0 : s;
}

void corr_center(const CorrView& v, std::int64_t i) {
  const double root_n = std::sqrt(static_cast<double>(v.n));
  double* __restrict row = v.data + i * v.m;
  for (std::int64_t j = 0; j < v.m; ++j) row[j] = (row[j] - v.mean[j]) / (root_n * v.stddev[j]);
}

void corr_matrix(const CorrView& v, std::int64_t j1) {
  double* __restrict out = v.symmat + j1 * v.m;
  out[j1] = 1.0;
  for (std::int64_t j2 = j1 + 1; j2 < v.m; ++j2) out[j2] = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) {
    const double* __restrict row = v.data + i * v.m;
    const double d1 = row[j1];
    for (std::int64_t j2 = j1 + 1; j2 < v.m; ++j2) out[j2] += d1 * row[j2];
  }
}
#pragma omp end declare target

class Corr final : public Kernel {
 public:
  const char* name() const override { return "corr"; }
  Kind kind() const override { return Kind::imbalanced; }
  const char* description() const override {
    return "correlation matrix; row j1 of the triangle per iteration (PolyBench/GPU CORR)";
  }

  void setup(Scale scale) override {
    m_ = by_scale<std::int64_t>(scale, 24, 128, 512, 1536);
    n_ = m_;
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto n = static_cast<std::size_t>(n_), m = static_cast<std::size_t>(m_);
    data0_ = uniform(n * m, 101);
    data_ = data0_;
    mean_.assign(m, 0.0);
    stddev_.assign(m, 0.0);
    symmat_.assign(m * m, 0.0);
    view_ = {data_.data(), mean_.data(), stddev_.data(), symmat_.data(), n_, m_};
    const double rows = 8.0 * static_cast<double>(n_);
    set_loops(
        {make_loop<CorrView, corr_mean>("corr.mean", &view_, rows,
                                        {full_buffer("data", data_.data(), n, m),
                                         rows_buffer("mean", mean_.data(), m, 1, TSAR_MEM_OUT)}),
         make_loop<CorrView, corr_stddev>(
             "corr.stddev", &view_, rows,
             {full_buffer("data", data_.data(), n, m),
              rows_buffer("mean", mean_.data(), m, 1, TSAR_MEM_IN),
              rows_buffer("stddev", stddev_.data(), m, 1, TSAR_MEM_OUT)}),
         make_loop<CorrView, corr_center>(
             "corr.center", &view_, 16.0 * static_cast<double>(m_),
             {rows_buffer("data", data_.data(), n, m, TSAR_MEM_INOUT),
              full_buffer("mean", mean_.data(), m), full_buffer("stddev", stddev_.data(), m)}),
         make_loop<CorrView, corr_matrix>(
             "corr.matrix", &view_, 8.0 * static_cast<double>(m_),
             {full_buffer("data", data_.data(), n, m),
              rows_buffer("symmat", symmat_.data(), m, m, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override {
    return std::to_string(m_) + " variables x " + std::to_string(n_) + " samples, " +
           std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override { return 4 * executions_; }

  void reset() override {
    data_ = data0_;
    std::fill(symmat_.begin(), symmat_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) {
      parallel(loops()[0], m_);
      parallel(loops()[1], m_);
      parallel(loops()[2], n_);
      parallel(loops()[3], m_);
      for (std::int64_t j1 = 0; j1 < m_; ++j1)
        for (std::int64_t j2 = j1 + 1; j2 < m_; ++j2) symmat_[j2 * m_ + j1] = symmat_[j1 * m_ + j2];
    }
  }

  void compute_reference() override {
    std::vector<double> data = data0_, mean(static_cast<std::size_t>(m_)),
                        stddev(static_cast<std::size_t>(m_));
    ref_.assign(symmat_.size(), 0.0);
    const double float_n = static_cast<double>(n_);
    for (int e = 0; e < executions_; ++e) {
      for (std::int64_t j = 0; j < m_; ++j) {
        mean[j] = 0.0;
        for (std::int64_t i = 0; i < n_; ++i) mean[j] += data[i * m_ + j];
        mean[j] /= float_n;
      }
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
  Check check() const override {
    return compare("symmat", symmat_.data(), ref_.data(), symmat_.size(), 1e-11);
  }

 private:
  std::int64_t n_ = 0, m_ = 0;
  int executions_ = 0;
  std::vector<double> data0_, data_, mean_, stddev_, symmat_, ref_;
  CorrView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_corr() { return std::make_unique<Corr>(); }

}  // namespace tsar::kernels

// COVAR (PolyBench/GPU covariance): the covariance matrix of m variables over n samples, ten
// executions per run. Loops: column means, centring the rows, then the matrix, where iteration
// j1 computes row j1 of the upper triangle (m - j1 entries): imbalanced. The lower triangle
// is mirrored serially.
#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct CovarView {
  double* data;    // n x m
  double* mean;    // m
  double* symmat;  // m x m
  std::int64_t n, m;
  CovarView translated(const Translate& t) const {
    CovarView v = *this;
    v.data = translate(t, data);
    v.mean = translate(t, mean);
    v.symmat = translate(t, symmat);
    return v;
  }
};

#pragma omp declare target
void covar_mean(const CovarView& v, std::int64_t j) {
  double s = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) s += v.data[i * v.m + j];
  v.mean[j] = s / static_cast<double>(v.n);
}

void covar_center(const CovarView& v, std::int64_t i) {
  double* __restrict row = v.data + i * v.m;
  for (std::int64_t j = 0; j < v.m; ++j) row[j] -= v.mean[j];
}

void covar_matrix(const CovarView& v, std::int64_t j1) {
  double* __restrict out = v.symmat + j1 * v.m;
  for (std::int64_t j2 = j1; j2 < v.m; ++j2) out[j2] = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) {
    const double* __restrict row = v.data + i * v.m;
    const double d1 = row[j1];
    for (std::int64_t j2 = j1; j2 < v.m; ++j2) out[j2] += d1 * row[j2];
  }
}
#pragma omp end declare target

class Covar final : public Kernel {
 public:
  const char* name() const override { return "covar"; }
  Kind kind() const override { return Kind::imbalanced; }
  const char* description() const override {
    return "covariance matrix; row j1 of the triangle per iteration (PolyBench/GPU COVAR)";
  }

  void setup(Scale scale) override {
    m_ = by_scale<std::int64_t>(scale, 24, 128, 512, 1536);
    n_ = m_;
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto n = static_cast<std::size_t>(n_), m = static_cast<std::size_t>(m_);
    data0_ = uniform(n * m, 111);
    data_ = data0_;
    mean_.assign(m, 0.0);
    symmat_.assign(m * m, 0.0);
    view_ = {data_.data(), mean_.data(), symmat_.data(), n_, m_};
    set_loops(
        {make_loop<CovarView, covar_mean>("covar.mean", &view_, 8.0 * static_cast<double>(n_),
                                          {full_buffer("data", data_.data(), n, m),
                                           rows_buffer("mean", mean_.data(), m, 1, TSAR_MEM_OUT)}),
         make_loop<CovarView, covar_center>(
             "covar.center", &view_, 16.0 * static_cast<double>(m_),
             {rows_buffer("data", data_.data(), n, m, TSAR_MEM_INOUT),
              full_buffer("mean", mean_.data(), m)}),
         make_loop<CovarView, covar_matrix>(
             "covar.matrix", &view_, 8.0 * static_cast<double>(m_),
             {full_buffer("data", data_.data(), n, m),
              rows_buffer("symmat", symmat_.data(), m, m, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override {
    return std::to_string(m_) + " variables x " + std::to_string(n_) + " samples, " +
           std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override { return 3 * executions_; }

  void reset() override {
    data_ = data0_;
    std::fill(symmat_.begin(), symmat_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) {
      parallel(loops()[0], m_);
      parallel(loops()[1], n_);
      parallel(loops()[2], m_);
      for (std::int64_t j1 = 0; j1 < m_; ++j1)
        for (std::int64_t j2 = j1 + 1; j2 < m_; ++j2) symmat_[j2 * m_ + j1] = symmat_[j1 * m_ + j2];
    }
  }

  void compute_reference() override {
    std::vector<double> data = data0_, mean(static_cast<std::size_t>(m_));
    ref_.assign(symmat_.size(), 0.0);
    for (int e = 0; e < executions_; ++e) {
      for (std::int64_t j = 0; j < m_; ++j) {
        mean[j] = 0.0;
        for (std::int64_t i = 0; i < n_; ++i) mean[j] += data[i * m_ + j];
        mean[j] /= static_cast<double>(n_);
      }
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
  Check check() const override {
    return compare("symmat", symmat_.data(), ref_.data(), symmat_.size(), 1e-11);
  }

 private:
  std::int64_t n_ = 0, m_ = 0;
  int executions_ = 0;
  std::vector<double> data0_, data_, mean_, symmat_, ref_;
  CovarView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_covar() { return std::make_unique<Covar>(); }

}  // namespace tsar::kernels

// SPDX-License-Identifier: BSD-3-Clause
// BICG (PolyBench/GPU): the BiCG sub-kernel s = A^T r, q = A p, ten executions per run. Two
// loops: s by columns (iteration j walks column j), q by rows. Regular, memory bound.
#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct BicgView {
  const double* a;  // n x n
  const double* p;
  const double* r;
  double* s;
  double* q;
  std::int64_t n;
  BicgView translated(const Translate& t) const {
    BicgView v = *this;
    v.a = translate(t, a);
    v.p = translate(t, p);
    v.r = translate(t, r);
    v.s = translate(t, s);
    v.q = translate(t, q);
    return v;
  }
};

#pragma omp declare target
void bicg_s(const BicgView& v, std::int64_t j) {
  double sum = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) sum += v.r[i] * v.a[i * v.n + j];
  v.s[j] = sum;
}

void bicg_q(const BicgView& v, std::int64_t i) {
  double sum = 0.0;
  for (std::int64_t j = 0; j < v.n; ++j) sum += v.a[i * v.n + j] * v.p[j];
  v.q[i] = sum;
}
#pragma omp end declare target

class Bicg final : public Kernel {
 public:
  const char* name() const override { return "bicg"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "s = A^T r by columns, q = A p by rows (PolyBench/GPU BICG)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 64, 512, 2048, 8192);
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto n = static_cast<std::size_t>(n_);
    a_ = uniform(n * n, 71);
    p_ = uniform(n, 72);
    r_ = uniform(n, 73);
    s_.assign(n, 0.0);
    q_.assign(n, 0.0);
    view_ = {a_.data(), p_.data(), r_.data(), s_.data(), q_.data(), n_};
    set_loops({make_loop<BicgView, bicg_s>(
                   "bicg.s", &view_, 8.0 * static_cast<double>(n_),
                   {full_buffer("A", a_.data(), n, n), full_buffer("r", r_.data(), n),
                    rows_buffer("s", s_.data(), n, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)}),
               make_loop<BicgView, bicg_q>(
                   "bicg.q", &view_, 8.0 * static_cast<double>(n_),
                   {rows_buffer("A", a_.data(), n, n, TSAR_MEM_IN), full_buffer("p", p_.data(), n),
                    rows_buffer("q", q_.data(), n, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)})});
  }
  std::string size_text() const override {
    return "n=" + std::to_string(n_) + ", " + std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override { return 2 * executions_; }

  void reset() override {
    std::fill(s_.begin(), s_.end(), 0.0);
    std::fill(q_.begin(), q_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) {
      parallel(loops()[0], n_);
      parallel(loops()[1], n_);
    }
  }

  void compute_reference() override {
    ref_s_.assign(s_.size(), 0.0);
    ref_q_.assign(q_.size(), 0.0);
    for (std::int64_t i = 0; i < n_; ++i)
      for (std::int64_t j = 0; j < n_; ++j) {
        ref_s_[j] += r_[i] * a_[i * n_ + j];
        ref_q_[i] += a_[i * n_ + j] * p_[j];
      }
  }
  Check check() const override {
    return worse(compare("s", s_.data(), ref_s_.data(), s_.size(), 1e-12),
                 compare("q", q_.data(), ref_q_.data(), q_.size(), 1e-12));
  }

 private:
  std::int64_t n_ = 0;
  int executions_ = 0;
  std::vector<double> a_, p_, r_, s_, q_, ref_s_, ref_q_;
  BicgView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_bicg() { return std::make_unique<Bicg>(); }

}  // namespace tsar::kernels

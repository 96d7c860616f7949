// SPDX-License-Identifier: BSD-3-Clause
// GESUMMV (PolyBench/GPU): y = alpha A x + beta B x, ten executions per run; an iteration is
// a row of A and B. Regular, memory bound; GPU-averse in the thesis (copies dominate).
#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct GesummvView {
  const double *a, *b;  // n x n
  const double* x;
  double* y;
  std::int64_t n;
  double alpha, beta;
  GesummvView translated(const Translate& t) const {
    GesummvView v = *this;
    v.a = translate(t, a);
    v.b = translate(t, b);
    v.x = translate(t, x);
    v.y = translate(t, y);
    return v;
  }
};

#pragma omp declare target
void gesummv_row(const GesummvView& v, std::int64_t i) {
  double ta = 0.0, tb = 0.0;
  for (std::int64_t j = 0; j < v.n; ++j) {
    ta += v.a[i * v.n + j] * v.x[j];
    tb += v.b[i * v.n + j] * v.x[j];
  }
  v.y[i] = v.alpha * ta + v.beta * tb;
}
#pragma omp end declare target

class Gesummv final : public Kernel {
 public:
  const char* name() const override { return "gesummv"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "y = alpha*A*x + beta*B*x, a row per iteration (PolyBench/GPU GESUMMV)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 64, 512, 2048, 8192);
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto n = static_cast<std::size_t>(n_);
    a_ = uniform(n * n, 91);
    b_ = uniform(n * n, 92);
    x_ = uniform(n, 93);
    y_.assign(n, 0.0);
    view_ = {a_.data(), b_.data(), x_.data(), y_.data(), n_, 1.5, 1.2};
    set_loops({make_loop<GesummvView, gesummv_row>(
        "gesummv", &view_, 16.0 * static_cast<double>(n_),
        {rows_buffer("A", a_.data(), n, n, TSAR_MEM_IN),
         rows_buffer("B", b_.data(), n, n, TSAR_MEM_IN), full_buffer("x", x_.data(), n),
         rows_buffer("y", y_.data(), n, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)})});
  }
  std::string size_text() const override {
    return "n=" + std::to_string(n_) + ", " + std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override { return executions_; }

  void reset() override { std::fill(y_.begin(), y_.end(), 0.0); }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) parallel(loops()[0], n_);
  }

  void compute_reference() override {
    ref_.assign(y_.size(), 0.0);
    for (std::int64_t i = 0; i < n_; ++i) {
      double tmp = 0.0, y = 0.0;
      for (std::int64_t j = 0; j < n_; ++j) {
        tmp += a_[i * n_ + j] * x_[j];
        y += b_[i * n_ + j] * x_[j];
      }
      ref_[i] = view_.alpha * tmp + view_.beta * y;
    }
  }
  Check check() const override { return compare("y", y_.data(), ref_.data(), y_.size(), 1e-12); }

 private:
  std::int64_t n_ = 0;
  int executions_ = 0;
  std::vector<double> a_, b_, x_, y_, ref_;
  GesummvView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_gesummv() { return std::make_unique<Gesummv>(); }

}  // namespace tsar::kernels

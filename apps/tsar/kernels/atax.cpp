// SPDX-License-Identifier: BSD-3-Clause
// ATAX (PolyBench/GPU): y = A^T (A x), ten executions per run. Two loops: tmp = A x by rows,
// then y = A^T tmp by columns (iteration j walks column j). Regular, memory bound.
#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct AtaxView {
  const double* a;  // n x n
  const double* x;
  double* tmp;
  double* y;
  std::int64_t n;
  AtaxView translated(const Translate& t) const {
    AtaxView v = *this;
    v.a = translate(t, a);
    v.x = translate(t, x);
    v.tmp = translate(t, tmp);
    v.y = translate(t, y);
    return v;
  }
};

#pragma omp declare target
void atax_ax(const AtaxView& v, std::int64_t i) {
  double s = 0.0;
  for (std::int64_t j = 0; j < v.n; ++j) s += v.a[i * v.n + j] * v.x[j];
  v.tmp[i] = s;
}

void atax_aty(const AtaxView& v, std::int64_t j) {
  double s = 0.0;
  for (std::int64_t i = 0; i < v.n; ++i) s += v.a[i * v.n + j] * v.tmp[i];
  v.y[j] = s;
}
#pragma omp end declare target

class Atax final : public Kernel {
 public:
  const char* name() const override { return "atax"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "y = A^T (A x): a row, then a column per iteration (PolyBench/GPU ATAX)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 64, 512, 2048, 8192);
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto n = static_cast<std::size_t>(n_);
    a_ = uniform(n * n, 61);
    x_ = uniform(n, 62);
    tmp_.assign(n, 0.0);
    y_.assign(n, 0.0);
    view_ = {a_.data(), x_.data(), tmp_.data(), y_.data(), n_};
    set_loops({make_loop<AtaxView, atax_ax>(
                   "atax.ax", &view_, 8.0 * static_cast<double>(n_),
                   {rows_buffer("A", a_.data(), n, n, TSAR_MEM_IN), full_buffer("x", x_.data(), n),
                    rows_buffer("tmp", tmp_.data(), n, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)}),
               make_loop<AtaxView, atax_aty>(
                   "atax.aty", &view_, 8.0 * static_cast<double>(n_),
                   {full_buffer("A", a_.data(), n, n), full_buffer("tmp", tmp_.data(), n),
                    rows_buffer("y", y_.data(), n, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)})});
  }
  std::string size_text() const override {
    return "n=" + std::to_string(n_) + ", " + std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override { return 2 * executions_; }

  void reset() override {
    std::fill(tmp_.begin(), tmp_.end(), 0.0);
    std::fill(y_.begin(), y_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) {
      parallel(loops()[0], n_);
      parallel(loops()[1], n_);
    }
  }

  void compute_reference() override {
    // PolyBench's CPU loop nest: one sweep over A, y accumulated row by row.
    ref_.assign(y_.size(), 0.0);
    for (std::int64_t i = 0; i < n_; ++i) {
      double tmp = 0.0;
      for (std::int64_t j = 0; j < n_; ++j) tmp += a_[i * n_ + j] * x_[j];
      for (std::int64_t j = 0; j < n_; ++j) ref_[j] += a_[i * n_ + j] * tmp;
    }
  }
  Check check() const override { return compare("y", y_.data(), ref_.data(), y_.size(), 1e-12); }

 private:
  std::int64_t n_ = 0;
  int executions_ = 0;
  std::vector<double> a_, x_, tmp_, y_, ref_;
  AtaxView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_atax() { return std::make_unique<Atax>(); }

}  // namespace tsar::kernels

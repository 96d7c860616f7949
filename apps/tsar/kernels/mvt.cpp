// SPDX-License-Identifier: BSD-3-Clause
// MVT (PolyBench/GPU): x1 += A y1 and x2 += A^T y2, ten executions per run (the x vectors
// keep accumulating). Two loops over i: row i of A, then column i. Regular, memory bound.
#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct MvtView {
  const double* a;  // n x n
  const double *y1, *y2;
  double *x1, *x2;
  std::int64_t n;
  MvtView translated(const Translate& t) const {
    MvtView v = *this;
    v.a = translate(t, a);
    v.y1 = translate(t, y1);
    v.y2 = translate(t, y2);
    v.x1 = translate(t, x1);
    v.x2 = translate(t, x2);
    return v;
  }
};

#pragma omp declare target
void mvt_x1(const MvtView& v, std::int64_t i) {
  double s = v.x1[i];
  for (std::int64_t j = 0; j < v.n; ++j) s += v.a[i * v.n + j] * v.y1[j];
  v.x1[i] = s;
}

void mvt_x2(const MvtView& v, std::int64_t i) {
  double s = v.x2[i];
  for (std::int64_t j = 0; j < v.n; ++j) s += v.a[j * v.n + i] * v.y2[j];
  v.x2[i] = s;
}
#pragma omp end declare target

class Mvt final : public Kernel {
 public:
  const char* name() const override { return "mvt"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "x1 += A y1 by rows, x2 += A^T y2 by columns (PolyBench/GPU MVT)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 64, 512, 2048, 8192);
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto n = static_cast<std::size_t>(n_);
    a_ = uniform(n * n, 81);
    y1_ = uniform(n, 82);
    y2_ = uniform(n, 83);
    x1_0_ = uniform(n, 84);
    x2_0_ = uniform(n, 85);
    x1_ = x1_0_;
    x2_ = x2_0_;
    view_ = {a_.data(), y1_.data(), y2_.data(), x1_.data(), x2_.data(), n_};
    set_loops({make_loop<MvtView, mvt_x1>("mvt.x1", &view_, 8.0 * static_cast<double>(n_),
                                          {rows_buffer("A", a_.data(), n, n, TSAR_MEM_IN),
                                           full_buffer("y1", y1_.data(), n),
                                           rows_buffer("x1", x1_.data(), n, 1, TSAR_MEM_INOUT)}),
               make_loop<MvtView, mvt_x2>(
                   "mvt.x2", &view_, 8.0 * static_cast<double>(n_),
                   {full_buffer("A", a_.data(), n, n), full_buffer("y2", y2_.data(), n),
                    rows_buffer("x2", x2_.data(), n, 1, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override {
    return "n=" + std::to_string(n_) + ", " + std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override { return 2 * executions_; }

  void reset() override {
    x1_ = x1_0_;
    x2_ = x2_0_;
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) {
      parallel(loops()[0], n_);
      parallel(loops()[1], n_);
    }
  }

  void compute_reference() override {
    ref_x1_ = x1_0_;
    ref_x2_ = x2_0_;
    for (int e = 0; e < executions_; ++e) {
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < n_; ++j) ref_x1_[i] += a_[i * n_ + j] * y1_[j];
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < n_; ++j) ref_x2_[i] += a_[j * n_ + i] * y2_[j];
    }
  }
  Check check() const override {
    return worse(compare("x1", x1_.data(), ref_x1_.data(), x1_.size(), 1e-12),
                 compare("x2", x2_.data(), ref_x2_.data(), x2_.size(), 1e-12));
  }

 private:
  std::int64_t n_ = 0;
  int executions_ = 0;
  std::vector<double> a_, y1_, y2_, x1_0_, x2_0_, x1_, x2_, ref_x1_, ref_x2_;
  MvtView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_mvt() { return std::make_unique<Mvt>(); }

}  // namespace tsar::kernels

// SPDX-License-Identifier: BSD-3-Clause
// GEMM (PolyBench/GPU): C = alpha * A * B + beta * C, ten executions per run; iteration i
// computes row i of C. Regular and compute bound: the thesis's most GPU-friendly kernel.
#include <cstdio>

#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "single_loop_kernel.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct GemmView {
  const double* a;  // ni x nk
  const double* b;  // nk x nj
  double* c;        // ni x nj
  std::int64_t nj, nk;
  double alpha, beta;
  GemmView translated(const Translate& t) const {
    GemmView v = *this;
    v.a = translate(t, a);
    v.b = translate(t, b);
    v.c = translate(t, c);
    return v;
  }
};

#pragma omp declare target
void gemm_row(const GemmView& v, std::int64_t i) {
  double* __restrict c = v.c + i * v.nj;
  const double* __restrict a = v.a + i * v.nk;
  for (std::int64_t j = 0; j < v.nj; ++j) c[j] *= v.beta;
  for (std::int64_t k = 0; k < v.nk; ++k) {
    const double aik = v.alpha * a[k];
    const double* __restrict b = v.b + k * v.nj;
    for (std::int64_t j = 0; j < v.nj; ++j) c[j] += aik * b[j];
  }
}
#pragma omp end declare target

class Gemm final : public SingleLoopKernel {
 public:
  const char* name() const override { return "gemm"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "C = alpha*A*B + beta*C, a row of C per iteration (PolyBench/GPU GEMM)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 48, 128, 320, 1024);
    const auto nn = static_cast<std::size_t>(n_ * n_);
    a_ = uniform(nn, 1);
    b_ = uniform(nn, 2);
    set_result("C", n_, by_scale(scale, 2, 10, 10, 10), nn, uniform(nn, 3), 1e-12);
    view_ = {a_.data(), b_.data(), result_.data(), n_, n_, 1.5, 1.2};
    const auto n = static_cast<std::size_t>(n_);
    set_loops({make_loop<GemmView, gemm_row>(
        "gemm", &view_, 3.0 * 8.0 * static_cast<double>(n_),
        {rows_buffer("A", a_.data(), n, n, TSAR_MEM_IN), full_buffer("B", b_.data(), n, n),
         rows_buffer("C", result_.data(), n, n, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override {
    return "n=" + std::to_string(n_) + ", " + executions_text();
  }

  void compute_reference() override {
    reference_ = initial_;
    auto& ref = reference_;
    const double alpha = view_.alpha, beta = view_.beta;
    for (int e = 0; e < executions_; ++e)
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < n_; ++j) {
          double t = beta * ref[i * n_ + j];
          for (std::int64_t k = 0; k < n_; ++k) t += alpha * a_[i * n_ + k] * b_[k * n_ + j];
          ref[i * n_ + j] = t;
        }
  }

 private:
  std::int64_t n_ = 0;
  std::vector<double> a_, b_;
  GemmView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_gemm() { return std::make_unique<Gemm>(); }

}  // namespace tsar::kernels

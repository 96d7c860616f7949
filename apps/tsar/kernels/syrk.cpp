// SPDX-License-Identifier: BSD-3-Clause
// SYRK (PolyBench/GPU): C = alpha A A^T + beta C over the whole square, ten executions per
// run (C keeps accumulating); an iteration is a row of C. Regular, compute bound.
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "single_loop_kernel.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct SyrkView {
  const double* a;  // n x m
  double* c;        // n x n
  std::int64_t n, m;
  double alpha, beta;
  SyrkView translated(const Translate& t) const {
    SyrkView v = *this;
    v.a = translate(t, a);
    v.c = translate(t, c);
    return v;
  }
};

#pragma omp declare target
void syrk_row(const SyrkView& v, std::int64_t i) {
  const double* __restrict ai = v.a + i * v.m;
  for (std::int64_t j = 0; j < v.n; ++j) {
    const double* __restrict aj = v.a + j * v.m;
    double t = v.c[i * v.n + j] * v.beta;
    for (std::int64_t k = 0; k < v.m; ++k) t += v.alpha * ai[k] * aj[k];
    v.c[i * v.n + j] = t;
  }
}
#pragma omp end declare target

class Syrk final : public SingleLoopKernel {
 public:
  const char* name() const override { return "syrk"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "C = alpha*A*A^T + beta*C, a row of C per iteration (PolyBench/GPU SYRK)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 32, 96, 256, 768);
    m_ = n_;
    const auto n = static_cast<std::size_t>(n_), m = static_cast<std::size_t>(m_);
    a_ = uniform(n * m, 121);
    set_result("C", n_, by_scale(scale, 2, 10, 10, 10), n * n, uniform(n * n, 122), 1e-12);
    view_ = {a_.data(), result_.data(), n_, m_, 1.5, 1.2};
    set_loops(
        {make_loop<SyrkView, syrk_row>("syrk", &view_, 8.0 * static_cast<double>(m_ + 2 * n_),
                                       {full_buffer("A", a_.data(), n, m),
                                        rows_buffer("C", result_.data(), n, n, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override {
    return "n=m=" + std::to_string(n_) + ", " + executions_text();
  }

  void compute_reference() override {
    reference_ = initial_;
    auto& ref = reference_;
    for (int e = 0; e < executions_; ++e) {
      for (auto& x : ref) x *= view_.beta;
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < n_; ++j)
          for (std::int64_t k = 0; k < m_; ++k)
            ref[i * n_ + j] += view_.alpha * a_[i * m_ + k] * a_[j * m_ + k];
    }
  }

 private:
  std::int64_t n_ = 0, m_ = 0;
  std::vector<double> a_;
  SyrkView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_syrk() { return std::make_unique<Syrk>(); }

}  // namespace tsar::kernels

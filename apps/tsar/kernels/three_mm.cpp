// SPDX-License-Identifier: BSD-3-Clause
// 3MM (PolyBench/GPU): E = A * B, F = C * D, G = E * F, ten executions per run; an iteration
// is a row of the product. Regular and compute bound.
#include "check.hpp"
#include "kernel_list.hpp"
#include "matmul_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

class ThreeMm final : public Kernel {
 public:
  const char* name() const override { return "3mm"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "three matrix products E = A*B, F = C*D, G = E*F (PolyBench/GPU 3MM)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 32, 96, 224, 640);
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto nn = static_cast<std::size_t>(n_ * n_);
    a_ = uniform(nn, 51);
    b_ = uniform(nn, 52);
    c_ = uniform(nn, 53);
    d_ = uniform(nn, 54);
    e_.assign(nn, 0.0);
    f_.assign(nn, 0.0);
    g_.assign(nn, 0.0);
    ab_ = {a_.data(), b_.data(), e_.data(), n_, n_};
    cd_ = {c_.data(), d_.data(), f_.data(), n_, n_};
    ef_ = {e_.data(), f_.data(), g_.data(), n_, n_};
    const auto n = static_cast<std::size_t>(n_);
    set_loops({matmul_loop("3mm.ab", &ab_, n), matmul_loop("3mm.cd", &cd_, n),
               matmul_loop("3mm.ef", &ef_, n)});
  }
  std::string size_text() const override {
    return "n=" + std::to_string(n_) + ", " + std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override { return 3 * executions_; }

  void reset() override {
    std::fill(e_.begin(), e_.end(), 0.0);
    std::fill(f_.begin(), f_.end(), 0.0);
    std::fill(g_.begin(), g_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e)
      for (const auto& loop : loops()) parallel(loop, n_);
  }

  void compute_reference() override {
    std::vector<double> e(g_.size()), f(g_.size());
    ref_g_.assign(g_.size(), 0.0);
    matmul_reference(a_.data(), b_.data(), e.data(), n_, n_, n_);
    matmul_reference(c_.data(), d_.data(), f.data(), n_, n_, n_);
    matmul_reference(e.data(), f.data(), ref_g_.data(), n_, n_, n_);
  }
  Check check() const override { return compare("G", g_.data(), ref_g_.data(), g_.size(), 1e-12); }

 private:
  std::int64_t n_ = 0;
  int executions_ = 0;
  std::vector<double> a_, b_, c_, d_, e_, f_, g_, ref_g_;
  MatmulView ab_{}, cd_{}, ef_{};
};

}  // namespace

std::unique_ptr<Kernel> make_3mm() { return std::make_unique<ThreeMm>(); }

}  // namespace tsar::kernels

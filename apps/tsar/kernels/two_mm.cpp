// SPDX-License-Identifier: BSD-3-Clause
// 2MM (PolyBench/GPU): C = A * B, then E = C * D, ten executions per run; an iteration is a
// row of the product. Regular and compute bound.
#include "check.hpp"
#include "kernel_list.hpp"
#include "matmul_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

class TwoMm final : public Kernel {
 public:
  const char* name() const override { return "2mm"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "two matrix products C = A*B, E = C*D, a row per iteration (PolyBench/GPU 2MM)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 32, 96, 256, 768);
    executions_ = by_scale(scale, 2, 10, 10, 10);
    const auto nn = static_cast<std::size_t>(n_ * n_);
    a_ = uniform(nn, 41);
    b_ = uniform(nn, 42);
    d_ = uniform(nn, 43);
    c_.assign(nn, 0.0);
    e_.assign(nn, 0.0);
    first_ = {a_.data(), b_.data(), c_.data(), n_, n_};
    second_ = {c_.data(), d_.data(), e_.data(), n_, n_};
    const auto n = static_cast<std::size_t>(n_);
    set_loops({matmul_loop("2mm.ab", &first_, n), matmul_loop("2mm.cd", &second_, n)});
  }
  std::string size_text() const override {
    return "n=" + std::to_string(n_) + ", " + std::to_string(executions_) + " executions";
  }
  std::int64_t passes_per_run() const override { return 2 * executions_; }

  void reset() override {
    std::fill(c_.begin(), c_.end(), 0.0);
    std::fill(e_.begin(), e_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) {
      parallel(loops()[0], n_);
      parallel(loops()[1], n_);
    }
  }

  void compute_reference() override {
    ref_c_.assign(c_.size(), 0.0);
    ref_e_.assign(e_.size(), 0.0);
    matmul_reference(a_.data(), b_.data(), ref_c_.data(), n_, n_, n_);
    matmul_reference(ref_c_.data(), d_.data(), ref_e_.data(), n_, n_, n_);
  }
  Check check() const override {
    return worse(compare("C", c_.data(), ref_c_.data(), c_.size(), 1e-12),
                 compare("E", e_.data(), ref_e_.data(), e_.size(), 1e-12));
  }

 private:
  std::int64_t n_ = 0;
  int executions_ = 0;
  std::vector<double> a_, b_, c_, d_, e_, ref_c_, ref_e_;
  MatmulView first_{}, second_{};
};

}  // namespace

std::unique_ptr<Kernel> make_2mm() { return std::make_unique<TwoMm>(); }

}  // namespace tsar::kernels

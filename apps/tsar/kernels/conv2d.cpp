// SPDX-License-Identifier: BSD-3-Clause
// 2DCONV (PolyBench/GPU): a 3x3 convolution of an ni x nj image, ten executions per run; an
// iteration is an output row (reading the rows either side). Regular, memory bound.
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "single_loop_kernel.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct Conv2dView {
  const double* a;  // ni x nj
  double* b;        // ni x nj
  std::int64_t ni, nj;
  Conv2dView translated(const Translate& t) const {
    Conv2dView v = *this;
    v.a = translate(t, a);
    v.b = translate(t, b);
    return v;
  }
};

constexpr double c11 = +0.2, c21 = +0.5, c31 = -0.8;
constexpr double c12 = -0.3, c22 = +0.6, c32 = -0.9;
constexpr double c13 = +0.4, c23 = +0.7, c33 = +0.10;

#pragma omp declare target
void conv2d_row(const Conv2dView& v, std::int64_t i) {
  if (i == 0 || i == v.ni - 1) return;
  const double* __restrict up = v.a + (i - 1) * v.nj;
  const double* __restrict mid = v.a + i * v.nj;
  const double* __restrict down = v.a + (i + 1) * v.nj;
  double* __restrict out = v.b + i * v.nj;
  for (std::int64_t j = 1; j < v.nj - 1; ++j)
    out[j] = c11 * up[j - 1] + c12 * mid[j - 1] + c13 * down[j - 1] + c21 * up[j] + c22 * mid[j] +
             c23 * down[j] + c31 * up[j + 1] + c32 * mid[j + 1] + c33 * down[j + 1];
}
#pragma omp end declare target

class Conv2d final : public SingleLoopKernel {
 public:
  const char* name() const override { return "2dconv"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "3x3 convolution, an output row per iteration (PolyBench/GPU 2DCONV)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 64, 512, 2048, 8192);
    const auto n = static_cast<std::size_t>(n_);
    a_ = uniform(n * n, 141);
    set_result("B", n_, by_scale(scale, 2, 10, 10, 10), n * n, {}, 1e-13);
    view_ = {a_.data(), result_.data(), n_, n_};
    set_loops({make_loop<Conv2dView, conv2d_row>(
        "2dconv", &view_, 16.0 * static_cast<double>(n_),
        {rows_buffer("A", a_.data(), n, n, TSAR_MEM_IN, 1),
         rows_buffer("B", result_.data(), n, n, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override {
    return std::to_string(n_) + "x" + std::to_string(n_) + ", " + executions_text();
  }

  void compute_reference() override {
    reference_.assign(result_.size(), 0.0);
    const auto A = [&](std::int64_t i, std::int64_t j) { return a_[i * n_ + j]; };
    for (std::int64_t i = 1; i < n_ - 1; ++i)
      for (std::int64_t j = 1; j < n_ - 1; ++j)
        reference_[i * n_ + j] =
            c11 * A(i - 1, j - 1) + c12 * A(i + 0, j - 1) + c13 * A(i + 1, j - 1) +
            c21 * A(i - 1, j + 0) + c22 * A(i + 0, j + 0) + c23 * A(i + 1, j + 0) +
            c31 * A(i - 1, j + 1) + c32 * A(i + 0, j + 1) + c33 * A(i + 1, j + 1);
  }

 private:
  std::int64_t n_ = 0;
  std::vector<double> a_;
  Conv2dView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_2dconv() { return std::make_unique<Conv2d>(); }

}  // namespace tsar::kernels

// SPDX-License-Identifier: BSD-3-Clause
// 3DCONV (PolyBench/GPU): the 3-D convolution of PolyBench/GPU over an n^3 volume, ten
// executions per run; an iteration is an output plane (reading the planes either side).
// Regular, memory bound.
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "single_loop_kernel.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct Conv3dView {
  const double* a;  // n x n x n
  double* b;
  std::int64_t n;
  Conv3dView translated(const Translate& t) const {
    Conv3dView v = *this;
    v.a = translate(t, a);
    v.b = translate(t, b);
    return v;
  }
};

constexpr double c11 = +2, c21 = +5, c31 = -8;
constexpr double c12 = -3, c22 = +6, c32 = -9;
constexpr double c13 = +4, c23 = +7, c33 = +10;

#pragma omp declare target
/// PolyBench/GPU's stencil at (i, j, k) of the n^3 volume at a.
inline double conv3d_point(const double* a, std::int64_t n, std::int64_t i, std::int64_t j,
                           std::int64_t k) {
  const double* m = a + ((i - 1) * n + j) * n + k;  // plane i-1, (j, k)
  const double* z = a + (i * n + j) * n + k;        // plane i
  const double* p = a + ((i + 1) * n + j) * n + k;  // plane i+1
  return c11 * m[-n - 1] + c13 * p[-n - 1] + c21 * m[-n - 1] + c23 * p[-n - 1] + c31 * m[-n - 1] +
         c33 * p[-n - 1] + c12 * z[-n] + c22 * z[0] + c32 * z[n] + c11 * m[-n + 1] +
         c13 * p[-n + 1] + c21 * m[1] + c23 * p[1] + c31 * m[n + 1] + c33 * p[n + 1];
}

void conv3d_plane(const Conv3dView& v, std::int64_t i) {
  if (i == 0 || i == v.n - 1) return;
  for (std::int64_t j = 1; j < v.n - 1; ++j)
    for (std::int64_t k = 1; k < v.n - 1; ++k)
      v.b[(i * v.n + j) * v.n + k] = conv3d_point(v.a, v.n, i, j, k);
}
#pragma omp end declare target

class Conv3d final : public SingleLoopKernel {
 public:
  const char* name() const override { return "3dconv"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "3-D convolution, an output plane per iteration (PolyBench/GPU 3DCONV)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 16, 64, 160, 384);
    const auto n = static_cast<std::size_t>(n_);
    a_ = uniform(n * n * n, 151);
    set_result("B", n_, by_scale(scale, 2, 10, 10, 10), n * n * n, {}, 1e-13);
    view_ = {a_.data(), result_.data(), n_};
    set_loops({make_loop<Conv3dView, conv3d_plane>(
        "3dconv", &view_, 16.0 * static_cast<double>(n_ * n_),
        {rows_buffer("A", a_.data(), n, n * n, TSAR_MEM_IN, 1),
         rows_buffer("B", result_.data(), n, n * n, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override { return std::to_string(n_) + "^3, " + executions_text(); }

  void compute_reference() override {
    reference_.assign(result_.size(), 0.0);
    const std::int64_t n = n_;
    const auto A = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
      return a_[(i * n + j) * n + k];
    };
    for (std::int64_t i = 1; i < n - 1; ++i)
      for (std::int64_t j = 1; j < n - 1; ++j)
        for (std::int64_t k = 1; k < n - 1; ++k)
          reference_[(i * n + j) * n + k] =
              c11 * A(i - 1, j - 1, k - 1) + c13 * A(i + 1, j - 1, k - 1) +
              c21 * A(i - 1, j - 1, k - 1) + c23 * A(i + 1, j - 1, k - 1) +
              c31 * A(i - 1, j - 1, k - 1) + c33 * A(i + 1, j - 1, k - 1) +
              c12 * A(i + 0, j - 1, k + 0) + c22 * A(i + 0, j + 0, k + 0) +
              c32 * A(i + 0, j + 1, k + 0) + c11 * A(i - 1, j - 1, k + 1) +
              c13 * A(i + 1, j - 1, k + 1) + c21 * A(i - 1, j + 0, k + 1) +
              c23 * A(i + 1, j + 0, k + 1) + c31 * A(i - 1, j + 1, k + 1) +
              c33 * A(i + 1, j + 1, k + 1);
  }

 private:
  std::int64_t n_ = 0;
  std::vector<double> a_;
  Conv3dView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_3dconv() { return std::make_unique<Conv3d>(); }

}  // namespace tsar::kernels

// SPDX-License-Identifier: BSD-3-Clause
// FDTD-2D (PolyBench/GPU): a 2-D finite-difference time-domain step, many steps per run. Each
// step is three loops over rows (ey, ex, hz updates); the passes are short and there are many
// of them: overhead-sensitive (5000 passes in the thesis), and GPU-averse there.
#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct FdtdView {
  double *ex, *ey, *hz;  // nx x ny each
  std::int64_t nx, ny;
  double fict;  // the source value of the current step
  FdtdView translated(const Translate& t) const {
    FdtdView v = *this;
    v.ex = translate(t, ex);
    v.ey = translate(t, ey);
    v.hz = translate(t, hz);
    return v;
  }
};

#pragma omp declare target
void fdtd_ey(const FdtdView& v, std::int64_t i) {
  double* __restrict ey = v.ey + i * v.ny;
  if (i == 0) {
    for (std::int64_t j = 0; j < v.ny; ++j) ey[j] = v.fict;
    return;
  }
  const double* __restrict hz = v.hz + i * v.ny;
  const double* __restrict hz_up = hz - v.ny;
  for (std::int64_t j = 0; j < v.ny; ++j) ey[j] = ey[j] - 0.5 * (hz[j] - hz_up[j]);
}

void fdtd_ex(const FdtdView& v, std::int64_t i) {
  double* __restrict ex = v.ex + i * v.ny;
  const double* __restrict hz = v.hz + i * v.ny;
  for (std::int64_t j = 1; j < v.ny; ++j) ex[j] = ex[j] - 0.5 * (hz[j] - hz[j - 1]);
}

void fdtd_hz(const FdtdView& v, std::int64_t i) {
  if (i == v.nx - 1) return;
  double* __restrict hz = v.hz + i * v.ny;
  const double* __restrict ex = v.ex + i * v.ny;
  const double* __restrict ey = v.ey + i * v.ny;
  const double* __restrict ey_down = ey + v.ny;
  for (std::int64_t j = 0; j < v.ny - 1; ++j)
    hz[j] = hz[j] - 0.7 * (ex[j + 1] - ex[j] + ey_down[j] - ey[j]);
}
#pragma omp end declare target

class Fdtd2d final : public Kernel {
 public:
  const char* name() const override { return "fdtd-2d"; }
  Kind kind() const override { return Kind::overhead_sensitive; }
  const char* description() const override {
    return "2-D FDTD: ey, ex, hz row loops per time step (PolyBench/GPU FDTD-2D)";
  }

  void setup(Scale scale) override {
    nx_ = by_scale<std::int64_t>(scale, 24, 192, 640, 2048);
    ny_ = nx_;
    steps_ = by_scale(scale, 5, 100, 100, 500);
    const auto nx = static_cast<std::size_t>(nx_), ny = static_cast<std::size_t>(ny_);
    ex0_.resize(nx * ny);
    ey0_.resize(nx * ny);
    hz0_.resize(nx * ny);
    for (std::int64_t i = 0; i < nx_; ++i)
      for (std::int64_t j = 0; j < ny_; ++j) {
        const auto fi = static_cast<double>(i), fj = static_cast<double>(j);
        ex0_[i * ny_ + j] = fi * (fj + 1) / static_cast<double>(nx_);
        ey0_[i * ny_ + j] = fi * (fj + 2) / static_cast<double>(ny_);
        hz0_[i * ny_ + j] = fi * (fj + 3) / static_cast<double>(nx_);
      }
    ex_ = ex0_;
    ey_ = ey0_;
    hz_ = hz0_;
    view_ = {ex_.data(), ey_.data(), hz_.data(), nx_, ny_, 0.0};
    const double row = 8.0 * static_cast<double>(ny_);
    set_loops(
        {make_loop<FdtdView, fdtd_ey>("fdtd-2d.ey", &view_, 3.0 * row,
                                      {rows_buffer("ey", ey_.data(), nx, ny, TSAR_MEM_INOUT),
                                       rows_buffer("hz", hz_.data(), nx, ny, TSAR_MEM_IN, 1)}),
         make_loop<FdtdView, fdtd_ex>("fdtd-2d.ex", &view_, 3.0 * row,
                                      {rows_buffer("ex", ex_.data(), nx, ny, TSAR_MEM_INOUT),
                                       rows_buffer("hz", hz_.data(), nx, ny, TSAR_MEM_IN)}),
         make_loop<FdtdView, fdtd_hz>("fdtd-2d.hz", &view_, 4.0 * row,
                                      {rows_buffer("hz", hz_.data(), nx, ny, TSAR_MEM_INOUT),
                                       rows_buffer("ex", ex_.data(), nx, ny, TSAR_MEM_IN),
                                       rows_buffer("ey", ey_.data(), nx, ny, TSAR_MEM_IN, 1)})});
  }
  std::string size_text() const override {
    return std::to_string(nx_) + "x" + std::to_string(ny_) + ", " + std::to_string(steps_) +
           " steps";
  }
  std::int64_t passes_per_run() const override { return 3 * steps_; }

  void reset() override {
    ex_ = ex0_;
    ey_ = ey0_;
    hz_ = hz0_;
  }
  void run(const Parallel& parallel) override {
    for (int t = 0; t < steps_; ++t) {
      view_.fict = static_cast<double>(t);
      for (const auto& loop : loops()) parallel(loop, nx_);
    }
  }

  void compute_reference() override {
    std::vector<double> ex = ex0_, ey = ey0_;
    ref_hz_ = hz0_;
    auto& hz = ref_hz_;
    const std::int64_t nx = nx_, ny = ny_;
    for (int t = 0; t < steps_; ++t) {
      for (std::int64_t j = 0; j < ny; ++j) ey[j] = static_cast<double>(t);
      for (std::int64_t i = 1; i < nx; ++i)
        for (std::int64_t j = 0; j < ny; ++j)
          ey[i * ny + j] = ey[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
      for (std::int64_t i = 0; i < nx; ++i)
        for (std::int64_t j = 1; j < ny; ++j)
          ex[i * ny + j] = ex[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[i * ny + j - 1]);
      for (std::int64_t i = 0; i < nx - 1; ++i)
        for (std::int64_t j = 0; j < ny - 1; ++j)
          hz[i * ny + j] = hz[i * ny + j] - 0.7 * (ex[i * ny + j + 1] - ex[i * ny + j] +
                                                   ey[(i + 1) * ny + j] - ey[i * ny + j]);
    }
  }
  Check check() const override {
    return compare("hz", hz_.data(), ref_hz_.data(), hz_.size(), 1e-12);
  }

 private:
  std::int64_t nx_ = 0, ny_ = 0;
  int steps_ = 0;
  std::vector<double> ex0_, ey0_, hz0_, ex_, ey_, hz_, ref_hz_;
  FdtdView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_fdtd2d() { return std::make_unique<Fdtd2d>(); }

}  // namespace tsar::kernels

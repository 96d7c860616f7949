// SPDX-License-Identifier: BSD-3-Clause
// Wave: an explicit 2-D acoustic wave on a staggered grid, from a pressure pulse. Each time
// step is two loops over rows whose fields read each other: the velocities (vx, vy) step from
// the pressure's gradient, reading p at the next row; then the pressure from the velocities'
// divergence, reading vy at the previous row, with each row's energy (summed serially in row
// order).
#include <cmath>

#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "row_body.hpp"
#include "sizes.hpp"
#pragma omp declare target
#include "step_bodies.hpp"
#pragma omp end declare target

namespace tsar::kernels {
namespace {

using namespace steps;

class Wave final : public Kernel {
 public:
  const char* name() const override { return "wave"; }
  Kind kind() const override { return Kind::overhead_sensitive; }
  const char* description() const override {
    return "explicit 2-D acoustic wave, staggered grid: velocities from pressure, pressure from "
           "velocities (fields that read each other)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 32, 256, 1024, 2048);
    steps_ = by_scale(scale, 4, 20, 20, 20);
    const auto size = static_cast<std::size_t>(n_ * n_), n = static_cast<std::size_t>(n_);
    p0_.assign(size, 0.0);
    const double mid = 0.5 * static_cast<double>(n_ - 1), width = 0.05 * static_cast<double>(n_);
    for (std::int64_t i = 0; i < n_; ++i)
      for (std::int64_t j = 0; j < n_; ++j) {
        const double di = (static_cast<double>(i) - mid) / width;
        const double dj = (static_cast<double>(j) - 0.7 * mid) / width;
        p0_[static_cast<std::size_t>(i * n_ + j)] = std::exp(-di * di - dj * dj);
      }
    p_ = p0_;
    vx_.assign(size, 0.0);
    vy_.assign(size, 0.0);
    partial_.assign(n, 0.0);
    view_ = {p_.data(), vx_.data(), vy_.data(), partial_.data(), n_, n_, kC};
    const double row = 8.0 * static_cast<double>(n_);
    set_loops({make_row_loop<WaveVelocity>("wave.velocity", &view_, 5 * row,
                                           {rows_buffer("p", p_.data(), n, n, TSAR_MEM_IN, 1),
                                            rows_buffer("vx", vx_.data(), n, n, TSAR_MEM_INOUT),
                                            rows_buffer("vy", vy_.data(), n, n, TSAR_MEM_INOUT)}),
               make_row_loop<WavePressure>("wave.pressure", &view_, 5 * row,
                                           {rows_buffer("vx", vx_.data(), n, n, TSAR_MEM_IN),
                                            rows_buffer("vy", vy_.data(), n, n, TSAR_MEM_IN, 1),
                                            rows_buffer("p", p_.data(), n, n, TSAR_MEM_INOUT),
                                            rows_buffer("partial", partial_.data(), n, 1,
                                                        TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)})});
  }
  std::string size_text() const override {
    return std::to_string(n_) + "x" + std::to_string(n_) + " grid, 3 fields, " +
           std::to_string(steps_) + " steps";
  }
  std::int64_t passes_per_run() const override { return 2 * steps_; }

  void reset() override {
    p_ = p0_;
    std::fill(vx_.begin(), vx_.end(), 0.0);
    std::fill(vy_.begin(), vy_.end(), 0.0);
    energy_ = 0.0;
  }
  void run(const Parallel& parallel) override {
    for (int s = 0; s < steps_; ++s) {
      parallel(loops()[0], n_);
      parallel(loops()[1], n_);
      energy_ = 0.0;
      for (double e : partial_) energy_ += e;
    }
  }

  void compute_reference() override {
    const std::int64_t n = n_;
    const auto k = [n](std::int64_t i, std::int64_t j) {
      return static_cast<std::size_t>(i * n + j);
    };
    ref_p_ = p0_;
    std::vector<double> vx(p0_.size(), 0.0), vy(p0_.size(), 0.0);
    for (int s = 0; s < steps_; ++s) {
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          if (j < n - 1) vx[k(i, j)] -= kC * (ref_p_[k(i, j + 1)] - ref_p_[k(i, j)]);
          if (i < n - 1) vy[k(i, j)] -= kC * (ref_p_[k(i + 1, j)] - ref_p_[k(i, j)]);
        }
      ref_energy_ = 0.0;
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          const double div = vx[k(i, j)] - (j > 0 ? vx[k(i, j - 1)] : 0.0) + vy[k(i, j)] -
                             (i > 0 ? vy[k(i - 1, j)] : 0.0);
          ref_p_[k(i, j)] -= kC * div;
          ref_energy_ += ref_p_[k(i, j)] * ref_p_[k(i, j)];
        }
    }
  }
  Check check() const override {
    return worse(compare("p", p_.data(), ref_p_.data(), p_.size(), 1e-12),
                 compare("energy", &energy_, &ref_energy_, 1, 1e-10));
  }

 private:
  static constexpr double kC = 0.25;
  std::int64_t n_ = 0;
  int steps_ = 0;
  std::vector<double> p0_, p_, vx_, vy_, partial_, ref_p_;
  double energy_ = 0.0, ref_energy_ = 0.0;
  WaveView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_wave() { return std::make_unique<Wave>(); }

}  // namespace tsar::kernels

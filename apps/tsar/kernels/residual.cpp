// SPDX-License-Identifier: BSD-3-Clause
// Residual: damped Jacobi sweeps of the Poisson problem -lap u = f on a grid (u = 0 on the
// border), each followed by a loop that measures the new iterate's residual: the sweep reads
// u at the neighbouring rows and writes next; the residual loop reads next at its
// neighbouring rows, keeps each row's squared residual (summed serially in row order, the
// convergence check a solver makes) and copies next back into u. Two dependent stencil loops
// per step, the second a reduction.
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

class Residual final : public Kernel {
 public:
  const char* name() const override { return "residual"; }
  Kind kind() const override { return Kind::overhead_sensitive; }
  const char* description() const override {
    return "damped Jacobi sweeps of -lap u = f, each followed by a residual loop (two dependent "
           "stencils, one a reduction)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 32, 256, 1024, 2048);
    steps_ = by_scale(scale, 4, 20, 20, 20);
    const auto size = static_cast<std::size_t>(n_ * n_), n = static_cast<std::size_t>(n_);
    f_ = uniform(size, 43, 0.0, 1.0);
    u_.assign(size, 0.0);
    next_.assign(size, 0.0);
    partial_.assign(n, 0.0);
    view_ = {u_.data(), next_.data(), f_.data(), partial_.data(), n_, n_, kWeight};
    const double row = 8.0 * static_cast<double>(n_);
    set_loops(
        {make_row_loop<ResidualSweep>(
             "residual.sweep", &view_, 3 * row,
             {rows_buffer("u", u_.data(), n, n, TSAR_MEM_IN, 1),
              rows_buffer("f", f_.data(), n, n, TSAR_MEM_IN),
              rows_buffer("next", next_.data(), n, n, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)}),
         make_row_loop<ResidualNorm>(
             "residual.norm", &view_, 3 * row,
             {rows_buffer("next", next_.data(), n, n, TSAR_MEM_IN, 1),
              rows_buffer("f", f_.data(), n, n, TSAR_MEM_IN),
              rows_buffer("u", u_.data(), n, n, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE),
              rows_buffer("partial", partial_.data(), n, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)})});
  }
  std::string size_text() const override {
    return std::to_string(n_) + "x" + std::to_string(n_) + " grid, " + std::to_string(steps_) +
           " sweeps";
  }
  std::int64_t passes_per_run() const override { return 2 * steps_; }

  void reset() override {
    std::fill(u_.begin(), u_.end(), 0.0);
    norm_ = 0.0;
  }
  void run(const Parallel& parallel) override {
    for (int s = 0; s < steps_; ++s) {
      parallel(loops()[0], n_);
      parallel(loops()[1], n_);
      double sum = 0.0;
      for (double p : partial_) sum += p;
      norm_ = std::sqrt(sum);
    }
  }

  void compute_reference() override {
    const std::int64_t n = n_;
    ref_u_.assign(u_.size(), 0.0);
    std::vector<double> next(u_.size());
    const auto k = [n](std::int64_t i, std::int64_t j) {
      return static_cast<std::size_t>(i * n + j);
    };
    for (int s = 0; s < steps_; ++s) {
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          const double u = ref_u_[k(i, j)];
          if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
            next[k(i, j)] = u;
            continue;
          }
          const double sum = f_[k(i, j)] + ref_u_[k(i - 1, j)] + ref_u_[k(i + 1, j)] +
                             ref_u_[k(i, j - 1)] + ref_u_[k(i, j + 1)];
          next[k(i, j)] = u + kWeight * (0.25 * sum - u);
        }
      double sum = 0.0;
      for (std::int64_t i = 1; i < n - 1; ++i)
        for (std::int64_t j = 1; j < n - 1; ++j) {
          const double r = f_[k(i, j)] - 4.0 * next[k(i, j)] + next[k(i - 1, j)] +
                           next[k(i + 1, j)] + next[k(i, j - 1)] + next[k(i, j + 1)];
          sum += r * r;
        }
      ref_u_ = next;
      ref_norm_ = std::sqrt(sum);
    }
  }
  Check check() const override {
    return worse(compare("u", u_.data(), ref_u_.data(), u_.size(), 1e-12),
                 compare("residual", &norm_, &ref_norm_, 1, 1e-10));
  }

 private:
  static constexpr double kWeight = 0.8;
  std::int64_t n_ = 0;
  int steps_ = 0;
  std::vector<double> f_, u_, next_, partial_, ref_u_;
  double norm_ = 0.0, ref_norm_ = 0.0;
  ResidualView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_residual() { return std::make_unique<Residual>(); }

}  // namespace tsar::kernels

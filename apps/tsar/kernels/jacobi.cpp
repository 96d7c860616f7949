// SPDX-License-Identifier: BSD-3-Clause
// Helmholtz (thesis 4.5.4): the Jacobi solver of the Helmholtz equation from the OpenMP
// example jacobi.c, a fixed number of sweeps per run. Each sweep is two loops over grid rows:
// copy u into uold, then update u from uold's 5-point neighbourhood and keep each row's squared
// residual (summed serially in row order). Short passes: overhead-sensitive, and GPU-averse
// (copies dominate) in the thesis.
#include <cmath>

#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct JacobiView {
  double* u;          // n x m
  double* uold;       // n x m
  const double* f;    // n x m
  double* row_error;  // n: squared residuals of each row
  std::int64_t n, m;
  double ax, ay, b, omega;
  JacobiView translated(const Translate& t) const {
    JacobiView v = *this;
    v.u = translate(t, u);
    v.uold = translate(t, uold);
    v.f = translate(t, f);
    v.row_error = translate(t, row_error);
    return v;
  }
};

#pragma omp declare target
void jacobi_copy_row(const JacobiView& v, std::int64_t i) {
  const double* __restrict src = v.u + i * v.m;
  double* __restrict dst = v.uold + i * v.m;
  for (std::int64_t j = 0; j < v.m; ++j) dst[j] = src[j];
}

void jacobi_update_row(const JacobiView& v, std::int64_t i) {
  double error = 0.0;
  if (i > 0 && i < v.n - 1) {
    const double* __restrict up = v.uold + (i - 1) * v.m;
    const double* __restrict mid = v.uold + i * v.m;
    const double* __restrict down = v.uold + (i + 1) * v.m;
    const double* __restrict f = v.f + i * v.m;
    double* __restrict u = v.u + i * v.m;
    for (std::int64_t j = 1; j < v.m - 1; ++j) {
      const double resid =
          (v.ax * (up[j] + down[j]) + v.ay * (mid[j - 1] + mid[j + 1]) + v.b * mid[j] - f[j]) / v.b;
      u[j] = mid[j] - v.omega * resid;
      error += resid * resid;
    }
  }
  v.row_error[i] = error;
}
#pragma omp end declare target

class Jacobi final : public Kernel {
 public:
  const char* name() const override { return "jacobi"; }
  Kind kind() const override { return Kind::overhead_sensitive; }
  const char* description() const override {
    return "Helmholtz equation by Jacobi sweeps (jacobi.c): copy and 5-point update per row";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 32, 256, 768, 2048);
    m_ = n_;
    sweeps_ = by_scale(scale, 5, 50, 50, 50);
    const double alpha = 0.0543;
    const double dx = 2.0 / static_cast<double>(n_ - 1), dy = 2.0 / static_cast<double>(m_ - 1);
    const auto size = static_cast<std::size_t>(n_ * m_);
    f_.resize(size);
    for (std::int64_t i = 0; i < n_; ++i)
      for (std::int64_t j = 0; j < m_; ++j) {
        const double xx = -1.0 + dx * static_cast<double>(i);
        const double yy = -1.0 + dy * static_cast<double>(j);
        f_[i * m_ + j] = -alpha * (1.0 - xx * xx) * (1.0 - yy * yy) - 2.0 * (1.0 - xx * xx) -
                         2.0 * (1.0 - yy * yy);
      }
    u_.assign(size, 0.0);
    uold_.assign(size, 0.0);
    row_error_.assign(static_cast<std::size_t>(n_), 0.0);
    const double ax = 1.0 / (dx * dx), ay = 1.0 / (dy * dy);
    view_ = {u_.data(),
             uold_.data(),
             f_.data(),
             row_error_.data(),
             n_,
             m_,
             ax,
             ay,
             -2.0 * ax - 2.0 * ay - alpha,
             1.0};
    const auto n = static_cast<std::size_t>(n_), m = static_cast<std::size_t>(m_);
    set_loops({make_loop<JacobiView, jacobi_copy_row>(
                   "jacobi.copy", &view_, 16.0 * static_cast<double>(m_),
                   {rows_buffer("u", u_.data(), n, m, TSAR_MEM_IN),
                    rows_buffer("uold", uold_.data(), n, m, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)}),
               make_loop<JacobiView, jacobi_update_row>(
                   "jacobi.update", &view_, 32.0 * static_cast<double>(m_),
                   {rows_buffer("uold", uold_.data(), n, m, TSAR_MEM_IN, 1),
                    rows_buffer("f", f_.data(), n, m, TSAR_MEM_IN),
                    rows_buffer("u", u_.data(), n, m, TSAR_MEM_INOUT),
                    rows_buffer("row_error", row_error_.data(), n, 1,
                                TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)})});
  }
  std::string size_text() const override {
    return std::to_string(n_) + "x" + std::to_string(m_) + " grid, " + std::to_string(sweeps_) +
           " sweeps";
  }
  std::int64_t passes_per_run() const override { return 2 * sweeps_; }

  void reset() override {
    std::fill(u_.begin(), u_.end(), 0.0);
    error_ = 0.0;
  }
  void run(const Parallel& parallel) override {
    for (int s = 0; s < sweeps_; ++s) {
      parallel(loops()[0], n_);
      parallel(loops()[1], n_);
      double sum = 0.0;
      for (double e : row_error_) sum += e;
      error_ = std::sqrt(sum) / static_cast<double>(n_ * m_);
    }
  }

  void compute_reference() override {
    const auto& v = view_;
    ref_u_.assign(u_.size(), 0.0);
    std::vector<double> old(u_.size());
    for (int s = 0; s < sweeps_; ++s) {
      old = ref_u_;
      double sum = 0.0;
      for (std::int64_t i = 1; i < n_ - 1; ++i) {
        double row = 0.0;
        for (std::int64_t j = 1; j < m_ - 1; ++j) {
          const double resid = (v.ax * (old[(i - 1) * m_ + j] + old[(i + 1) * m_ + j]) +
                                v.ay * (old[i * m_ + j - 1] + old[i * m_ + j + 1]) +
                                v.b * old[i * m_ + j] - f_[i * m_ + j]) /
                               v.b;
          ref_u_[i * m_ + j] = old[i * m_ + j] - v.omega * resid;
          row += resid * resid;
        }
        sum += row;
      }
      ref_error_ = std::sqrt(sum) / static_cast<double>(n_ * m_);
    }
  }
  Check check() const override {
    return worse(compare("u", u_.data(), ref_u_.data(), u_.size(), 1e-12),
                 compare("error", &error_, &ref_error_, 1, 1e-12));
  }

 private:
  std::int64_t n_ = 0, m_ = 0;
  int sweeps_ = 0;
  std::vector<double> u_, uold_, f_, row_error_, ref_u_;
  double error_ = 0.0, ref_error_ = 0.0;
  JacobiView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_jacobi() { return std::make_unique<Jacobi>(); }

}  // namespace tsar::kernels

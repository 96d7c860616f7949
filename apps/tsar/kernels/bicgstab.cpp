// SPDX-License-Identifier: BSD-3-Clause
// BiCGStab: a fixed number of iterations of the stabilised bi-conjugate gradient method on a
// 2-D grid's shifted 5-point operator (matrix-free), from x = 0. A loop takes r0.r first; then
// each iteration is six dependent loops over grid rows, four with a dot product (a partial per
// row, summed serially in row order): v = A p with r0.v; s = r - alpha v; t = A s with t.s;
// t.t; x and r updated with r0.r; p = r + beta (p - omega v). The two operator loops read their
// input at the neighbouring rows. A solver's time step as a program runs it: short dependent
// loops, scalars between them.
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

class BiCgStab final : public Kernel {
 public:
  const char* name() const override { return "bicgstab"; }
  Kind kind() const override { return Kind::overhead_sensitive; }
  const char* description() const override {
    return "BiCGStab on a 2-D 5-point operator: six dependent loops and four dot products per "
           "iteration";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 32, 256, 1024, 2048);
    iterations_ = by_scale(scale, 3, 10, 10, 10);
    const auto size = static_cast<std::size_t>(n_ * n_), n = static_cast<std::size_t>(n_);
    b_ = uniform(size, 41, -1.0, 1.0);
    for (auto* v : {&x_, &r_, &r0_, &p_, &v_, &s_, &t_}) v->assign(size, 0.0);
    partial_.assign(n, 0.0);
    view_ = {x_.data(),       r_.data(), r0_.data(), p_.data(), v_.data(), s_.data(), t_.data(),
             partial_.data(), n_,        n_,         kShift,    0.0,       0.0,       0.0};
    const double row = 8.0 * static_cast<double>(n_);
    const auto grid = [&](const char* what, std::vector<double>& v, unsigned flags,
                          std::size_t halo = 0) {
      return rows_buffer(what, v.data(), n, n, flags, halo);
    };
    // Every loop writes each element of its outputs' rows: their device copies need not start
    // from the host's values.
    constexpr unsigned kWritten = TSAR_MEM_OUT | TSAR_MEM_OVERWRITE;
    const auto partials = rows_buffer("partial", partial_.data(), n, 1, kWritten);
    set_loops(
        {make_row_loop<BicgRho>(
             "bicgstab.rho", &view_, 2 * row,
             {grid("r0", r0_, TSAR_MEM_IN), grid("r", r_, TSAR_MEM_IN), partials}),
         make_row_loop<BicgSpmvP>("bicgstab.spmv_p", &view_, 3 * row,
                                  {grid("p", p_, TSAR_MEM_IN, 1), grid("r0", r0_, TSAR_MEM_IN),
                                   grid("v", v_, kWritten), partials}),
         make_row_loop<BicgS>(
             "bicgstab.s", &view_, 3 * row,
             {grid("r", r_, TSAR_MEM_IN), grid("v", v_, TSAR_MEM_IN), grid("s", s_, kWritten)}),
         make_row_loop<BicgSpmvS>(
             "bicgstab.spmv_s", &view_, 2 * row,
             {grid("s", s_, TSAR_MEM_IN, 1), grid("t", t_, kWritten), partials}),
         make_row_loop<BicgTt>("bicgstab.tt", &view_, row, {grid("t", t_, TSAR_MEM_IN), partials}),
         make_row_loop<BicgUpdate>(
             "bicgstab.update", &view_, 8 * row,
             {grid("x", x_, TSAR_MEM_INOUT), grid("p", p_, TSAR_MEM_IN), grid("s", s_, TSAR_MEM_IN),
              grid("t", t_, TSAR_MEM_IN), grid("r0", r0_, TSAR_MEM_IN), grid("r", r_, kWritten),
              partials}),
         make_row_loop<BicgDirection>("bicgstab.direction", &view_, 4 * row,
                                      {grid("r", r_, TSAR_MEM_IN), grid("v", v_, TSAR_MEM_IN),
                                       grid("p", p_, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override {
    return std::to_string(n_) + "x" + std::to_string(n_) + " grid, " + std::to_string(iterations_) +
           " iterations";
  }
  std::int64_t passes_per_run() const override { return 6 * iterations_ + 1; }

  void reset() override {
    std::fill(x_.begin(), x_.end(), 0.0);
    r_ = b_;  // r = b - A 0
    r0_ = b_;
    p_ = b_;
  }
  void run(const Parallel& parallel) override {
    parallel(loops()[0], n_);
    double rho = sum_partials();
    for (int it = 0; it < iterations_; ++it) {
      parallel(loops()[1], n_);
      view_.alpha = rho / sum_partials();
      parallel(loops()[2], n_);
      parallel(loops()[3], n_);
      const double ts = sum_partials();
      parallel(loops()[4], n_);
      view_.omega = ts / sum_partials();
      parallel(loops()[5], n_);
      const double rho_next = sum_partials();
      view_.beta = (rho_next / rho) * (view_.alpha / view_.omega);
      rho = rho_next;
      parallel(loops()[6], n_);
    }
  }

  void compute_reference() override {
    const std::size_t size = b_.size();
    ref_x_.assign(size, 0.0);
    std::vector<double> r = b_, r0 = b_, p = b_, v(size), s(size), t(size);
    const std::int64_t n = n_;
    const auto at = [&](const std::vector<double>& u, std::int64_t i, std::int64_t j) {
      return i < 0 || i >= n || j < 0 || j >= n ? 0.0 : u[static_cast<std::size_t>(i * n + j)];
    };
    const auto apply = [&](const std::vector<double>& u, std::vector<double>& out) {
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          out[static_cast<std::size_t>(i * n + j)] = (4.0 + kShift) * at(u, i, j) -
                                                     at(u, i - 1, j) - at(u, i + 1, j) -
                                                     at(u, i, j - 1) - at(u, i, j + 1);
    };
    double rho = dot(r0, r);
    for (int it = 0; it < iterations_; ++it) {
      apply(p, v);
      const double alpha = rho / dot(r0, v);
      for (std::size_t k = 0; k < size; ++k) s[k] = r[k] - alpha * v[k];
      apply(s, t);
      const double omega = dot(t, s) / dot(t, t);
      for (std::size_t k = 0; k < size; ++k) {
        ref_x_[k] += alpha * p[k] + omega * s[k];
        r[k] = s[k] - omega * t[k];
      }
      const double rho_next = dot(r0, r);
      const double beta = (rho_next / rho) * (alpha / omega);
      rho = rho_next;
      for (std::size_t k = 0; k < size; ++k) p[k] = r[k] + beta * (p[k] - omega * v[k]);
    }
  }
  Check check() const override { return compare("x", x_.data(), ref_x_.data(), x_.size(), 1e-9); }

 private:
  static constexpr double kShift = 0.1;  // well conditioned: a few iterations converge well
  static double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
    return s;
  }
  double sum_partials() const {
    double s = 0.0;
    for (double v : partial_) s += v;
    return s;
  }

  std::int64_t n_ = 0;
  int iterations_ = 0;
  std::vector<double> b_, x_, r_, r0_, p_, v_, s_, t_, partial_, ref_x_;
  BicgView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_bicgstab() { return std::make_unique<BiCgStab>(); }

}  // namespace tsar::kernels

// SPDX-License-Identifier: BSD-3-Clause
// GRAMSCHMIDT (PolyBench/GPU): QR factorisation by modified Gram-Schmidt, A (m x n) into
// Q (m x n) and R (n x n). For each column k: its norm (serial), then two loops: normalise
// column k into Q (an iteration per row), and project it out of the columns right of k (an
// iteration per column, walking it top to bottom). 2n short passes whose length shrinks:
// overhead-sensitive (10240 passes in the thesis). The projection loop's column accesses
// have no TSAR association, so it is host-only on devices with their own memory.
#include <cmath>

#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

struct GramView {
  double* a;  // m x n
  double* q;  // m x n
  double* r;  // n x n
  std::int64_t m, n, k;
  double rkk;
  GramView translated(const Translate& t) const {
    GramView v = *this;
    v.a = translate(t, a);
    v.q = translate(t, q);
    v.r = translate(t, r);
    return v;
  }
};

#pragma omp declare target
void gram_normalize(const GramView& v, std::int64_t i) {
  v.q[i * v.n + v.k] = v.a[i * v.n + v.k] / v.rkk;
}

void gram_project(const GramView& v, std::int64_t jj) {
  const std::int64_t j = v.k + 1 + jj;
  double s = 0.0;
  for (std::int64_t i = 0; i < v.m; ++i) s += v.q[i * v.n + v.k] * v.a[i * v.n + j];
  v.r[v.k * v.n + j] = s;
  for (std::int64_t i = 0; i < v.m; ++i) v.a[i * v.n + j] -= v.q[i * v.n + v.k] * s;
}
#pragma omp end declare target

class Gramschmidt final : public Kernel {
 public:
  const char* name() const override { return "gramschmidt"; }
  Kind kind() const override { return Kind::overhead_sensitive; }
  const char* description() const override {
    return "Gram-Schmidt QR: normalise column k, project it out of the rest (PolyBench/GPU)";
  }

  void setup(Scale scale) override {
    n_ = by_scale<std::int64_t>(scale, 16, 96, 320, 1024);
    m_ = n_;
    const auto m = static_cast<std::size_t>(m_), n = static_cast<std::size_t>(n_);
    a0_ = uniform(m * n, 161, -1.0, 1.0);
    a_ = a0_;
    q_.assign(m * n, 0.0);
    r_.assign(n * n, 0.0);
    view_ = {a_.data(), q_.data(), r_.data(), m_, n_, 0, 1.0};
    set_loops(
        {make_loop<GramView, gram_normalize>("gramschmidt.normalize", &view_, 16.0,
                                             {rows_buffer("A", a_.data(), m, n, TSAR_MEM_IN),
                                              rows_buffer("Q", q_.data(), m, n, TSAR_MEM_INOUT)}),
         make_loop<GramView, gram_project>("gramschmidt.project", &view_,
                                           32.0 * static_cast<double>(m_), {})});
  }
  std::string size_text() const override {
    return std::to_string(m_) + "x" + std::to_string(n_) + ", " + std::to_string(2 * n_) +
           " passes";
  }
  std::int64_t passes_per_run() const override { return 2 * n_; }

  void reset() override {
    a_ = a0_;
    std::fill(q_.begin(), q_.end(), 0.0);
    std::fill(r_.begin(), r_.end(), 0.0);
  }
  void run(const Parallel& parallel) override {
    for (std::int64_t k = 0; k < n_; ++k) {
      double nrm = 0.0;
      for (std::int64_t i = 0; i < m_; ++i) nrm += a_[i * n_ + k] * a_[i * n_ + k];
      r_[k * n_ + k] = std::sqrt(nrm);
      view_.k = k;
      view_.rkk = r_[k * n_ + k];
      parallel(loops()[0], m_);
      parallel(loops()[1], n_ - k - 1);
    }
  }

  void compute_reference() override {
    std::vector<double> a = a0_;
    ref_q_.assign(q_.size(), 0.0);
    ref_r_.assign(r_.size(), 0.0);
    auto &q = ref_q_, &r = ref_r_;
    const std::int64_t m = m_, n = n_;
    for (std::int64_t k = 0; k < n; ++k) {
      double nrm = 0.0;
      for (std::int64_t i = 0; i < m; ++i) nrm += a[i * n + k] * a[i * n + k];
      r[k * n + k] = std::sqrt(nrm);
      for (std::int64_t i = 0; i < m; ++i) q[i * n + k] = a[i * n + k] / r[k * n + k];
      for (std::int64_t j = k + 1; j < n; ++j) {
        r[k * n + j] = 0.0;
        for (std::int64_t i = 0; i < m; ++i) r[k * n + j] += q[i * n + k] * a[i * n + j];
        for (std::int64_t i = 0; i < m; ++i) a[i * n + j] -= q[i * n + k] * r[k * n + j];
      }
    }
  }
  Check check() const override {
    return worse(compare("Q", q_.data(), ref_q_.data(), q_.size(), 1e-10),
                 compare("R", r_.data(), ref_r_.data(), r_.size(), 1e-10));
  }

 private:
  std::int64_t m_ = 0, n_ = 0;
  std::vector<double> a0_, a_, q_, r_, ref_q_, ref_r_;
  GramView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_gramschmidt() { return std::make_unique<Gramschmidt>(); }

}  // namespace tsar::kernels

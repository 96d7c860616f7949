// SPDX-License-Identifier: BSD-3-Clause
// CG (thesis 4.5.2): conjugate gradients on a CSR matrix (a 2-D Poisson operator with a
// diagonal shift, SPD), a fixed number of iterations per run. Each iteration is three loops
// over blocks of 256 rows: q = A p with the block's part of p.q; x += alpha p, r -= alpha q
// with the block's part of r.r; p = r + beta p. Many short passes: overhead-sensitive.
#include <cmath>

#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

constexpr std::int64_t kBlock = 256;  // rows per iteration

struct CgView {
  const std::int64_t* row_start;  // n + 1
  const int* col;                 // nnz
  const double* val;              // nnz
  double *x, *r, *p, *q;          // n each
  double *pq, *rr;                // per block: parts of p.q and r.r
  double alpha, beta;
  CgView translated(const Translate& t) const {
    CgView v = *this;
    v.row_start = translate(t, row_start);
    v.col = translate(t, col);
    v.val = translate(t, val);
    v.x = translate(t, x);
    v.r = translate(t, r);
    v.p = translate(t, p);
    v.q = translate(t, q);
    v.pq = translate(t, pq);
    v.rr = translate(t, rr);
    return v;
  }
};

#pragma omp declare target
void cg_spmv(const CgView& v, std::int64_t block) {
  double pq = 0.0;
  for (std::int64_t i = block * kBlock; i < (block + 1) * kBlock; ++i) {
    double s = 0.0;
    for (std::int64_t e = v.row_start[i]; e < v.row_start[i + 1]; ++e)
      s += v.val[e] * v.p[v.col[e]];
    v.q[i] = s;
    pq += v.p[i] * s;
  }
  v.pq[block] = pq;
}

void cg_update(const CgView& v, std::int64_t block) {
  double rr = 0.0;
  for (std::int64_t i = block * kBlock; i < (block + 1) * kBlock; ++i) {
    v.x[i] += v.alpha * v.p[i];
    v.r[i] -= v.alpha * v.q[i];
    rr += v.r[i] * v.r[i];
  }
  v.rr[block] = rr;
}

void cg_direction(const CgView& v, std::int64_t block) {
  for (std::int64_t i = block * kBlock; i < (block + 1) * kBlock; ++i)
    v.p[i] = v.r[i] + v.beta * v.p[i];
}
#pragma omp end declare target

class Cg final : public Kernel {
 public:
  const char* name() const override { return "cg"; }
  Kind kind() const override { return Kind::overhead_sensitive; }
  const char* description() const override {
    return "conjugate gradients, CSR SpMV + two vector loops per iteration (NAS CG-like)";
  }

  void setup(Scale scale) override {
    grid_ = by_scale<std::int64_t>(scale, 32, 192, 640, 2048);
    iterations_ = by_scale(scale, 5, 25, 25, 25);
    n_ = grid_ * grid_;  // grid is a multiple of 16: whole blocks
    blocks_ = n_ / kBlock;
    // 5-point Poisson operator plus 0.1 on the diagonal (well conditioned, SPD).
    row_start_.assign(static_cast<std::size_t>(n_ + 1), 0);
    col_.clear();
    val_.clear();
    for (std::int64_t gi = 0; gi < grid_; ++gi)
      for (std::int64_t gj = 0; gj < grid_; ++gj) {
        const std::int64_t i = gi * grid_ + gj;
        const auto add = [&](std::int64_t c, double value) {
          col_.push_back(static_cast<int>(c));
          val_.push_back(value);
        };
        if (gi > 0) add(i - grid_, -1.0);
        if (gj > 0) add(i - 1, -1.0);
        add(i, 4.1);
        if (gj < grid_ - 1) add(i + 1, -1.0);
        if (gi < grid_ - 1) add(i + grid_, -1.0);
        row_start_[i + 1] = static_cast<std::int64_t>(col_.size());
      }
    rhs_ = uniform(static_cast<std::size_t>(n_), 21, -1.0, 1.0);
    const auto n = static_cast<std::size_t>(n_);
    x_.assign(n, 0.0);
    r_.assign(n, 0.0);
    p_.assign(n, 0.0);
    q_.assign(n, 0.0);
    pq_.assign(static_cast<std::size_t>(blocks_), 0.0);
    rr_.assign(static_cast<std::size_t>(blocks_), 0.0);
    view_ = {row_start_.data(), col_.data(), val_.data(), x_.data(), r_.data(), p_.data(),
             q_.data(),         pq_.data(),  rr_.data(),  0.0,       0.0};
    const auto nb = static_cast<std::size_t>(blocks_), k = static_cast<std::size_t>(kBlock);
    const double nnz_per_block = static_cast<double>(col_.size()) / static_cast<double>(blocks_);
    // The matrix and p (read at neighbours' rows) go whole to every device; vectors are
    // blocks x 256 matrices of which iteration b uses row b.
    const auto matrix = [&] {
      return std::vector<Buffer>{full_buffer("row_start", row_start_.data(), n + 1),
                                 full_buffer("col", col_.data(), col_.size()),
                                 full_buffer("val", val_.data(), val_.size())};
    };
    auto spmv = matrix();
    spmv.push_back(full_buffer("p", p_.data(), n));
    spmv.push_back(rows_buffer("q", q_.data(), nb, k, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE));
    spmv.push_back(rows_buffer("pq", pq_.data(), nb, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE));
    set_loops(
        {make_loop<CgView, cg_spmv>("cg.spmv", &view_, nnz_per_block * 12.0 + 16.0 * kBlock,
                                    std::move(spmv)),
         make_loop<CgView, cg_update>(
             "cg.update", &view_, 48.0 * kBlock,
             {rows_buffer("x", x_.data(), nb, k, TSAR_MEM_INOUT),
              rows_buffer("r", r_.data(), nb, k, TSAR_MEM_INOUT),
              rows_buffer("p", p_.data(), nb, k, TSAR_MEM_IN),
              rows_buffer("q", q_.data(), nb, k, TSAR_MEM_IN),
              rows_buffer("rr", rr_.data(), nb, 1, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)}),
         make_loop<CgView, cg_direction>("cg.direction", &view_, 24.0 * kBlock,
                                         {rows_buffer("r", r_.data(), nb, k, TSAR_MEM_IN),
                                          rows_buffer("p", p_.data(), nb, k, TSAR_MEM_INOUT)})});
  }
  std::string size_text() const override {
    return std::to_string(n_) + " rows, " + std::to_string(col_.size()) + " nonzeros, " +
           std::to_string(iterations_) + " iterations";
  }
  std::int64_t passes_per_run() const override { return 3 * iterations_; }

  void reset() override {
    std::fill(x_.begin(), x_.end(), 0.0);
    r_ = rhs_;
    p_ = rhs_;
  }
  void run(const Parallel& parallel) override {
    double rho = 0.0;
    for (double v : r_) rho += v * v;
    for (int it = 0; it < iterations_; ++it) {
      parallel(loops()[0], blocks_);
      double pq = 0.0;
      for (double v : pq_) pq += v;
      view_.alpha = rho / pq;
      parallel(loops()[1], blocks_);
      double rho_new = 0.0;
      for (double v : rr_) rho_new += v;
      view_.beta = rho_new / rho;
      rho = rho_new;
      parallel(loops()[2], blocks_);
    }
  }

  void compute_reference() override {
    const auto n = static_cast<std::size_t>(n_);
    ref_x_.assign(n, 0.0);
    std::vector<double> r = rhs_, p = rhs_, q(n);
    double rho = 0.0;
    for (double v : r) rho += v * v;
    for (int it = 0; it < iterations_; ++it) {
      double pq = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (auto e = row_start_[i]; e < row_start_[i + 1]; ++e) s += val_[e] * p[col_[e]];
        q[i] = s;
        pq += p[i] * s;
      }
      const double alpha = rho / pq;
      double rho_new = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        ref_x_[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        rho_new += r[i] * r[i];
      }
      const double beta = rho_new / rho;
      rho = rho_new;
      for (std::size_t i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
    }
  }
  Check check() const override { return compare("x", x_.data(), ref_x_.data(), x_.size(), 1e-9); }

 private:
  std::int64_t grid_ = 0, n_ = 0, blocks_ = 0;
  int iterations_ = 0;
  std::vector<std::int64_t> row_start_;
  std::vector<int> col_;
  std::vector<double> val_, rhs_, x_, r_, p_, q_, pq_, rr_, ref_x_;
  CgView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_cg() { return std::make_unique<Cg>(); }

}  // namespace tsar::kernels

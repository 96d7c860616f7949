// SPDX-License-Identifier: BSD-3-Clause
// k-means (thesis 4.5.1): a fixed number of Lloyd iterations per run. The parallel loop goes
// over blocks of points: each iteration assigns its points to the nearest centre and sums them
// per centre into the block's own partial; the serial step combines the partials in block
// order and moves the centres. Regular; each pass is short relative to its data.
#include <cmath>

#include "check.hpp"
#include "kernel_list.hpp"
#include "loop_body.hpp"
#include "sizes.hpp"

namespace tsar::kernels {
namespace {

constexpr std::int64_t kBlock = 256;  // points per iteration

struct KmeansView {
  const double* points;   // npoints x d
  const double* centres;  // k x d
  int* member;            // npoints
  double* partial;        // nblocks x k x (d + 1): coordinate sums, then the count
  std::int64_t d, k;
  KmeansView translated(const Translate& t) const {
    KmeansView v = *this;
    v.points = translate(t, points);
    v.centres = translate(t, centres);
    v.member = translate(t, member);
    v.partial = translate(t, partial);
    return v;
  }
};

#pragma omp declare target
void kmeans_block(const KmeansView& v, std::int64_t block) {
  double* __restrict part = v.partial + block * v.k * (v.d + 1);
  for (std::int64_t x = 0; x < v.k * (v.d + 1); ++x) part[x] = 0.0;
  for (std::int64_t p = block * kBlock; p < (block + 1) * kBlock; ++p) {
    const double* __restrict pt = v.points + p * v.d;
    std::int64_t best = 0;
    double best_dist = 0.0;
    for (std::int64_t c = 0; c < v.k; ++c) {
      double dist = 0.0;
      for (std::int64_t f = 0; f < v.d; ++f) {
        const double diff = pt[f] - v.centres[c * v.d + f];
        dist += diff * diff;
      }
      if (c == 0 || dist < best_dist) {
        best = c;
        best_dist = dist;
      }
    }
    v.member[p] = static_cast<int>(best);
    double* __restrict sum = part + best * (v.d + 1);
    for (std::int64_t f = 0; f < v.d; ++f) sum[f] += pt[f];
    sum[v.d] += 1.0;
  }
}
#pragma omp end declare target

class Kmeans final : public Kernel {
 public:
  const char* name() const override { return "kmeans"; }
  Kind kind() const override { return Kind::regular; }
  const char* description() const override {
    return "k-means (Lloyd), a block of 256 points per iteration, partial sums per block";
  }

  void setup(Scale scale) override {
    blocks_ = by_scale<std::int64_t>(scale, 8, 256, 1024, 4096);
    d_ = 8;
    k_ = by_scale<std::int64_t>(scale, 4, 32, 64, 128);
    iterations_ = by_scale(scale, 3, 5, 5, 10);
    const std::int64_t npoints = blocks_ * kBlock;
    // Point p belongs to cluster p % k around a seed; clusters are far apart compared with
    // their spread, so no point sits near a boundary and rounding never flips a membership.
    const auto seeds = uniform(static_cast<std::size_t>(k_ * d_), 11, 0.0, 100.0);
    const auto noise = uniform(static_cast<std::size_t>(npoints * d_), 12, -1.0, 1.0);
    points_.resize(static_cast<std::size_t>(npoints * d_));
    for (std::int64_t p = 0; p < npoints; ++p)
      for (std::int64_t f = 0; f < d_; ++f)
        points_[p * d_ + f] = seeds[(p % k_) * d_ + f] + noise[p * d_ + f];
    // The first centres are the first k points (one from each cluster), shifted a little.
    centres0_.assign(points_.begin(), points_.begin() + k_ * d_);
    for (auto& x : centres0_) x += 0.5;
    centres_ = centres0_;
    member_.assign(static_cast<std::size_t>(npoints), -1);
    partial_.assign(static_cast<std::size_t>(blocks_ * k_ * (d_ + 1)), 0.0);
    view_ = {points_.data(), centres_.data(), member_.data(), partial_.data(), d_, k_};
    const auto nb = static_cast<std::size_t>(blocks_);
    set_loops({make_loop<KmeansView, kmeans_block>(
        "kmeans.assign", &view_, 8.0 * static_cast<double>(kBlock * (d_ + 1)),
        {rows_buffer("points", points_.data(), nb, static_cast<std::size_t>(kBlock * d_),
                     TSAR_MEM_IN),
         full_buffer("centres", centres_.data(), static_cast<std::size_t>(k_ * d_)),
         rows_buffer("member", member_.data(), nb, static_cast<std::size_t>(kBlock),
                     TSAR_MEM_OUT | TSAR_MEM_OVERWRITE),
         rows_buffer("partial", partial_.data(), nb, static_cast<std::size_t>(k_ * (d_ + 1)),
                     TSAR_MEM_OUT | TSAR_MEM_OVERWRITE)})});
  }
  std::string size_text() const override {
    return std::to_string(blocks_ * kBlock) + " points, d=" + std::to_string(d_) +
           ", k=" + std::to_string(k_) + ", " + std::to_string(iterations_) + " iterations";
  }
  std::int64_t passes_per_run() const override { return iterations_; }

  void reset() override {
    centres_ = centres0_;
    std::fill(member_.begin(), member_.end(), -1);
  }
  void run(const Parallel& parallel) override {
    for (int it = 0; it < iterations_; ++it) {
      parallel(loops()[0], blocks_);
      move_centres();
    }
  }

  void compute_reference() override {
    const std::int64_t npoints = blocks_ * kBlock;
    ref_centres_ = centres0_;
    ref_member_.assign(static_cast<std::size_t>(npoints), -1);
    std::vector<double> sum(static_cast<std::size_t>(k_ * d_));
    std::vector<std::int64_t> count(static_cast<std::size_t>(k_));
    for (int it = 0; it < iterations_; ++it) {
      std::fill(sum.begin(), sum.end(), 0.0);
      std::fill(count.begin(), count.end(), 0);
      for (std::int64_t p = 0; p < npoints; ++p) {
        std::int64_t best = -1;
        double best_dist = INFINITY;
        for (std::int64_t c = 0; c < k_; ++c) {
          double dist = 0.0;
          for (std::int64_t f = 0; f < d_; ++f) {
            const double diff = points_[p * d_ + f] - ref_centres_[c * d_ + f];
            dist += diff * diff;
          }
          if (dist < best_dist) {
            best = c;
            best_dist = dist;
          }
        }
        ref_member_[p] = static_cast<int>(best);
        for (std::int64_t f = 0; f < d_; ++f) sum[best * d_ + f] += points_[p * d_ + f];
        ++count[best];
      }
      for (std::int64_t c = 0; c < k_; ++c)
        if (count[c] > 0)
          for (std::int64_t f = 0; f < d_; ++f)
            ref_centres_[c * d_ + f] = sum[c * d_ + f] / static_cast<double>(count[c]);
    }
  }
  Check check() const override {
    return worse(compare_exact("member", member_.data(), ref_member_.data(), member_.size()),
                 compare("centres", centres_.data(), ref_centres_.data(), centres_.size(), 1e-10));
  }

 private:
  /// Combines the block partials in block order and moves every centre that has points.
  void move_centres() {
    const std::int64_t stride = d_ + 1;
    for (std::int64_t c = 0; c < k_; ++c) {
      double count = 0.0;
      for (std::int64_t b = 0; b < blocks_; ++b) count += partial_[(b * k_ + c) * stride + d_];
      if (count == 0.0) continue;
      for (std::int64_t f = 0; f < d_; ++f) {
        double s = 0.0;
        for (std::int64_t b = 0; b < blocks_; ++b) s += partial_[(b * k_ + c) * stride + f];
        centres_[c * d_ + f] = s / count;
      }
    }
  }

  std::int64_t blocks_ = 0, d_ = 0, k_ = 0;
  int iterations_ = 0;
  std::vector<double> points_, centres0_, centres_, partial_, ref_centres_;
  std::vector<int> member_, ref_member_;
  KmeansView view_{};
};

}  // namespace

std::unique_ptr<Kernel> make_kmeans() { return std::make_unique<Kmeans>(); }

}  // namespace tsar::kernels

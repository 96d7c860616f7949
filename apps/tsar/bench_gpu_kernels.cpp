// SPDX-License-Identifier: BSD-3-Clause
#include "bench_gpu_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "kept_loops.hpp"
#include "kernel.hpp"
#include "kernel_list.hpp"
#if TSAR_BENCH_CUDA
#include "bench_gpu_cuda.hpp"
#endif

namespace tsar_bench_gpu {
namespace {

using tsar::Chunk;
using tsar::DeviceKind;

// ---------------------------------------------------------------------------------------
// Iteration bodies, compiled for the host and (TSAR_OFFLOAD) for the GPU.

#pragma omp declare target
/// C(i, j) = alpha * sum_k A(i, k) B(k, j) + beta * C(i, j)
inline void gemm_element(const double* a, const double* b, double* c, std::int64_t n, double alpha,
                         double beta, std::int64_t i, std::int64_t j) {
  double s = 0.0;
  for (std::int64_t k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
  c[i * n + j] = alpha * s + beta * c[i * n + j];
}

/// The nearest centroid of a point (squared distance, lowest index on ties).
inline int nearest(const double* p, const double* centroids, int dims, int clusters) {
  int best = 0;
  double best_d = 0.0;
  for (int k = 0; k < clusters; ++k) {
    double d = 0.0;
    for (int x = 0; x < dims; ++x) {
      const double t = p[x] - centroids[k * dims + x];
      d += t * t;
    }
    if (k == 0 || d < best_d) {
      best_d = d;
      best = k;
    }
  }
  return best;
}

/// One point of a Jacobi sweep for the Helmholtz equation; returns the squared residual.
inline double helmholtz(const double* uold, const double* f, double* u, std::int64_t rows,
                        std::int64_t cols, double ax, double ay, double b, double omega,
                        std::int64_t i, std::int64_t j) {
  const std::int64_t k = i * cols + j;
  if (i == 0 || i == rows - 1 || j == 0 || j == cols - 1) {
    u[k] = uold[k];
    return 0.0;
  }
  const double r = (ax * (uold[k - cols] + uold[k + cols]) + ay * (uold[k - 1] + uold[k + 1]) +
                    b * uold[k] - f[k]) /
                   b;
  u[k] = uold[k] - omega * r;
  return r * r;
}

/// Sixteen entries of a table picked by hashing i.
inline double gather16(const double* table, std::int64_t len, std::int64_t i) {
  double s = 0.0;
  std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL;
  for (int k = 0; k < 16; ++k) {
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    s += table[h % static_cast<std::uint64_t>(len)];
  }
  return s;
}
#pragma omp end declare target

// ---------------------------------------------------------------------------------------
// OpenMP target range functions: the application's offloaded loop over TSAR's range.

void gemm_offload(int dev, const double* a, const double* b, double* c, std::int64_t n,
                  double alpha, double beta, std::int64_t lo, std::int64_t hi) {
  // A team per row, its threads and SIMD lanes over the columns (GCC's nvptx mapping).
#pragma omp target teams distribute device(dev) is_device_ptr(a, b, c)
  for (std::int64_t i = lo; i < hi; ++i) {
#pragma omp parallel for simd
    for (std::int64_t j = 0; j < n; ++j) gemm_element(a, b, c, n, alpha, beta, i, j);
  }
}

void kmeans_offload(int dev, const double* points, const double* centroids, int* member, int dims,
                    int clusters, std::int64_t lo, std::int64_t hi) {
#pragma omp target teams distribute parallel for simd device(dev) \
    is_device_ptr(points, centroids, member)
  for (std::int64_t i = lo; i < hi; ++i)
    member[i] = nearest(points + i * dims, centroids, dims, clusters);
}

void jacobi_offload(int dev, const double* uold, const double* f, double* u, std::int64_t rows,
                    std::int64_t cols, double ax, double ay, double b, double omega,
                    std::int64_t lo, std::int64_t hi, double* acc) {
  double err = 0.0;
#pragma omp target teams distribute parallel for simd collapse(2) device(dev) \
    is_device_ptr(uold, f, u) reduction(+ : err) map(tofrom : err)
  for (std::int64_t i = lo; i < hi; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      err += helmholtz(uold, f, u, rows, cols, ax, ay, b, omega, i, j);
#pragma omp target device(dev) is_device_ptr(acc)
  *acc += err;
}

void gather_offload(int dev, const double* table, std::int64_t len, double* y, std::int64_t lo,
                    std::int64_t hi) {
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(table, y)
  for (std::int64_t i = lo; i < hi; ++i) y[i] = gather16(table, len, i);
}

#if !TSAR_BENCH_CUDA
[[noreturn]] void no_cuda() {
  throw tsar::Error(TSAR_ERR_UNSUPPORTED, "tsar-bench-gpu was built without CUDA kernels");
}
#endif

double uniform(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) * 0x1.0p-53;
}

constexpr std::int64_t kD = sizeof(double);

/// Runs body(lo, hi) over the chunk's range on its host device and returns the sum of what
/// the calls return: inline on a core; on a team (team:N-M), in blocks of at most `grain`
/// (fewer for short ranges, so every core gets some) handed out dynamically to the team's
/// cores, so they balance among themselves.
template <class Body>
double on_host(const tsar::Region& region, const Chunk& c, std::int64_t grain, Body&& body) {
  const int team = region.device(c.worker()).num_cores;
  if (team <= 1) return body(c.begin(), c.end());
  const std::int64_t begin = c.begin(), end = c.end();
  grain = std::clamp<std::int64_t>((end - begin) / (4 * team), 1, grain);
  const std::int64_t blocks = (end - begin + grain - 1) / grain;
  double sum = 0.0;
#pragma omp parallel for schedule(dynamic) num_threads(team) reduction(+ : sum)
  for (std::int64_t b = 0; b < blocks; ++b)
    sum += body(begin + b * grain, std::min(end, begin + (b + 1) * grain));
  return sum;
}

// ---------------------------------------------------------------------------------------

class Gemm final : public OneLoopKernel {
 public:
  explicit Gemm(std::int64_t n) : n_(n), a_(sz(n * n)), b_(sz(n * n)), c_(sz(n * n)) {
    std::uint64_t s = 1;
    for (auto& v : a_) v = uniform(s) - 0.5;
    for (auto& v : b_) v = uniform(s) - 0.5;
  }
  const char* name() const override { return "gemm"; }
  std::string size_text() const override {
    return "C = A B + C/2, " + std::to_string(n_) + "^2 doubles; A rows and B persistent";
  }
  void reset() override {
    std::uint64_t s = 7;
    for (auto& v : c_) v = uniform(s);
    c0_ = c_;
    passes_ = 0;
  }
  void attach(tsar::Region& r) override {
    am_ = r.map_2d(a_.data(), sz(n_), sz(n_), 0, tsar::Assoc::rows, TSAR_MEM_IN | TSAR_MEM_PERSIST);
    bm_ = r.map_2d(b_.data(), sz(n_), sz(n_), 0, tsar::Assoc::full, TSAR_MEM_IN | TSAR_MEM_PERSIST);
    cm_ = r.map_2d(c_.data(), sz(n_), sz(n_), 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  }
  void detach() override { am_ = {}, bm_ = {}, cm_ = {}; }
  void pass(tsar::Region& r, Backend backend) override {
    r.parallel_for(n_, [&](const Chunk& c) {
      const double* a = c.ptr(am_);
      const double* b = c.ptr(bm_);
      double* cc = c.ptr(cm_);
      if (c.kind() == DeviceKind::omp_target) {
        gemm_offload(c.omp_device(), a, b, cc, n_, 1.0, 0.5, c.begin(), c.end());
      } else if (c.kind() == DeviceKind::cuda) {
#if TSAR_BENCH_CUDA
        cuda::gemm(c.stream(), a, b, cc, n_, 1.0, 0.5, c.begin(), c.end());
#else
        no_cuda();
#endif
      } else {
        on_host(r, c, 8, [&](std::int64_t lo, std::int64_t hi) {
          host_rows(a, b, cc, lo, hi);
          return 0.0;
        });
      }
    });
    (void)backend;
    ++passes_;
  }
  /// Entries of A B, recovered from C after p passes -- C = 2^-p C0 + (2 - 2^(1-p)) A B -- so
  /// runs of different lengths compare.
  std::vector<double> sample() const override {
    std::vector<double> s;
    const double decay = std::ldexp(1.0, -passes_);
    for (std::int64_t k = 0; k < n_ * n_; k += n_ * n_ / 997 + 1)
      s.push_back((c_[sz(k)] - decay * c0_[sz(k)]) / (2.0 - 2.0 * decay));
    return s;
  }
  std::int64_t bound_bytes(std::int64_t b, std::int64_t e) const override {
    return (e - b) * n_ * kD * 3 + n_ * n_ * kD;  // A rows, all of B, C rows in and out
  }

 private:
  static std::size_t sz(std::int64_t v) { return static_cast<std::size_t>(v); }
  // The same element formula, in blocks of rows and k so B is read from cache.
  void host_rows(const double* a, const double* b, double* c, std::int64_t lo,
                 std::int64_t hi) const {
    constexpr std::int64_t kRows = 8, kDepth = 64;
    std::vector<double> acc(sz(kRows * n_));
    for (std::int64_t i0 = lo; i0 < hi; i0 += kRows) {
      const std::int64_t i1 = std::min(hi, i0 + kRows);
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::int64_t k0 = 0; k0 < n_; k0 += kDepth) {
        const std::int64_t k1 = std::min(n_, k0 + kDepth);
        for (std::int64_t i = i0; i < i1; ++i) {
          double* row = acc.data() + (i - i0) * n_;
          for (std::int64_t k = k0; k < k1; ++k) {
            const double aik = a[i * n_ + k];
            const double* brow = b + k * n_;
            for (std::int64_t j = 0; j < n_; ++j) row[j] += aik * brow[j];
          }
        }
      }
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = 0; j < n_; ++j)
          c[i * n_ + j] = 1.0 * acc[sz((i - i0) * n_ + j)] + 0.5 * c[i * n_ + j];
    }
  }
  std::int64_t n_;
  std::vector<double> a_, b_, c_, c0_;
  int passes_ = 0;
  tsar::Mapped<double> am_, bm_, cm_;
};

class Kmeans final : public OneLoopKernel {
 public:
  Kmeans(std::int64_t points, int dims, int clusters)
      : n_(points),
        d_(dims),
        k_(clusters),
        points_(static_cast<std::size_t>(points * dims)),
        member_(static_cast<std::size_t>(points)),
        centroids_(static_cast<std::size_t>(clusters * dims)) {
    // Points around `clusters` random centres.
    std::uint64_t s = 3;
    std::vector<double> centres(centroids_.size());
    for (auto& v : centres) v = 10 * uniform(s);
    for (std::int64_t i = 0; i < n_; ++i) {
      const auto c = static_cast<std::int64_t>(uniform(s) * k_);
      for (int x = 0; x < d_; ++x)
        points_[static_cast<std::size_t>(i * d_ + x)] =
            centres[static_cast<std::size_t>(c * d_ + x)] + uniform(s) - 0.5;
    }
  }
  const char* name() const override { return "kmeans"; }
  std::string size_text() const override {
    return std::to_string(n_) + " points x " + std::to_string(d_) + " dims, " + std::to_string(k_) +
           " clusters; points persistent, centroids every pass";
  }
  void reset() override {
    for (int c = 0; c < k_; ++c)  // the first points as initial centroids
      for (int x = 0; x < d_; ++x)
        centroids_[static_cast<std::size_t>(c * d_ + x)] =
            points_[static_cast<std::size_t>(c * d_ + x)];
    std::fill(member_.begin(), member_.end(), -1);
  }
  void attach(tsar::Region& r) override {
    pm_ = r.map_2d(points_.data(), static_cast<std::size_t>(n_), static_cast<std::size_t>(d_), 0,
                   tsar::Assoc::rows, TSAR_MEM_IN | TSAR_MEM_PERSIST);
    cm_ = r.map(centroids_.data(), centroids_.size(), tsar::Assoc::full, TSAR_MEM_IN);
    mm_ =
        r.map(member_.data(), member_.size(), tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  }
  void detach() override { pm_ = {}, cm_ = {}, mm_ = {}; }
  void pass(tsar::Region& r, Backend) override {
    r.parallel_for(n_, [&](const Chunk& c) {
      const double* p = c.ptr(pm_);
      const double* cen = c.ptr(cm_);
      int* m = c.ptr(mm_);
      if (c.kind() == DeviceKind::omp_target) {
        kmeans_offload(c.omp_device(), p, cen, m, d_, k_, c.begin(), c.end());
      } else if (c.kind() == DeviceKind::cuda) {
#if TSAR_BENCH_CUDA
        cuda::kmeans_assign(c.stream(), p, cen, m, d_, k_, c.begin(), c.end());
#else
        no_cuda();
#endif
      } else {
        on_host(r, c, 2048, [&](std::int64_t lo, std::int64_t hi) {
          for (std::int64_t i = lo; i < hi; ++i) m[i] = nearest(p + i * d_, cen, d_, k_);
          return 0.0;
        });
      }
    });
  }
  void after_pass() override {
    std::vector<double> sum(centroids_.size(), 0.0);
    std::vector<std::int64_t> count(static_cast<std::size_t>(k_), 0);
    for (std::int64_t i = 0; i < n_; ++i) {
      const int c = member_[static_cast<std::size_t>(i)];
      ++count[static_cast<std::size_t>(c)];
      for (int x = 0; x < d_; ++x)
        sum[static_cast<std::size_t>(c * d_ + x)] += points_[static_cast<std::size_t>(i * d_ + x)];
    }
    for (int c = 0; c < k_; ++c)
      if (count[static_cast<std::size_t>(c)] > 0)
        for (int x = 0; x < d_; ++x)
          centroids_[static_cast<std::size_t>(c * d_ + x)] =
              sum[static_cast<std::size_t>(c * d_ + x)] /
              static_cast<double>(count[static_cast<std::size_t>(c)]);
  }
  std::vector<double> sample() const override { return centroids_; }
  std::int64_t bound_bytes(std::int64_t b, std::int64_t e) const override {
    return (e - b) * d_ * kD + k_ * d_ * kD + (e - b) * static_cast<std::int64_t>(sizeof(int));
  }

 private:
  std::int64_t n_;
  int d_, k_;
  std::vector<double> points_;
  std::vector<int> member_;
  std::vector<double> centroids_;
  tsar::Mapped<double> pm_, cm_;
  tsar::Mapped<int> mm_;
};

class Jacobi final : public OneLoopKernel {
 public:
  Jacobi(std::int64_t rows, std::int64_t cols)
      : rows_(rows), cols_(cols), u_(sz(rows * cols)), uold_(sz(rows * cols)), f_(sz(rows * cols)) {
    const double dx = 2.0 / static_cast<double>(cols - 1), dy = 2.0 / static_cast<double>(rows - 1);
    ax_ = 1.0 / (dx * dx);
    ay_ = 1.0 / (dy * dy);
    b_ = -2.0 / (dx * dx) - 2.0 / (dy * dy) - kAlpha;
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        const double x = -1.0 + dx * static_cast<double>(j), y = -1.0 + dy * static_cast<double>(i);
        f_[sz(i * cols + j)] =
            -kAlpha * (1.0 - x * x) * (1.0 - y * y) - 2.0 * (1.0 - x * x) - 2.0 * (1.0 - y * y);
      }
  }
  const char* name() const override { return "jacobi"; }
  std::string size_text() const override {
    return "Helmholtz, Jacobi sweeps on " + std::to_string(rows_) + " x " + std::to_string(cols_) +
           " doubles; double-buffered, persistent, output resident, 1 halo row";
  }
  void reset() override {
    std::fill(u_.begin(), u_.end(), 0.0);
    std::fill(uold_.begin(), uold_.end(), 0.0);
    residual_ = 0.0;
  }
  void attach(tsar::Region& r) override {
    const unsigned p = TSAR_MEM_PERSIST;
    old_ = r.map_2d(uold_.data(), sz(rows_), sz(cols_), 0, tsar::Assoc::rows, TSAR_MEM_IN | p, 1);
    // The sweep stays on the device that computed it; only boundary rows move between passes.
    new_ = r.map_2d(u_.data(), sz(rows_), sz(cols_), 0, tsar::Assoc::rows,
                    TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | p | TSAR_MEM_RESIDENT, 1);
    fm_ = r.map_2d(f_.data(), sz(rows_), sz(cols_), 0, tsar::Assoc::rows, TSAR_MEM_IN | p);
    red_ = r.reduction(residual_, 0.0, [](double x, double y) { return x + y; });
  }
  void detach() override { old_ = {}, new_ = {}, fm_ = {}, red_ = {}; }
  void pass(tsar::Region& r, Backend) override {
    residual_ = 0.0;
    r.parallel_for(rows_, [&](const Chunk& c) {
      const double* uold = c.ptr(old_);
      double* u = c.ptr(new_);
      const double* f = c.ptr(fm_);
      double* acc = &c.local(red_);
      if (c.kind() == DeviceKind::omp_target) {
        jacobi_offload(c.omp_device(), uold, f, u, rows_, cols_, ax_, ay_, b_, kOmega, c.begin(),
                       c.end(), acc);
      } else if (c.kind() == DeviceKind::cuda) {
#if TSAR_BENCH_CUDA
        cuda::jacobi(c.stream(), uold, f, u, rows_, cols_, ax_, ay_, b_, kOmega, c.begin(), c.end(),
                     acc);
#else
        no_cuda();
#endif
      } else {
        *acc += on_host(r, c, 8, [&](std::int64_t lo, std::int64_t hi) {
          double err = 0.0;
          for (std::int64_t i = lo; i < hi; ++i)
            for (std::int64_t j = 0; j < cols_; ++j)
              err += helmholtz(uold, f, u, rows_, cols_, ax_, ay_, b_, kOmega, i, j);
          return err;
        });
      }
    });
  }
  void after_pass() override { old_.swap_buffers(new_); }
  void finish() override { old_.sync(); }  // the latest sweep, after the swap
  std::vector<double> sample() const override {
    // The latest sweep is in `old_`'s buffer after the swap.
    const double* latest = old_.host();
    std::vector<double> s{std::sqrt(residual_)};
    for (std::int64_t k = 0; k < rows_ * cols_; k += rows_ * cols_ / 997 + 1)
      s.push_back(latest[k]);
    return s;
  }
  std::int64_t bound_bytes(std::int64_t b, std::int64_t e) const override {
    const std::int64_t halo = (b > 0 ? 1 : 0) + (e < rows_ ? 1 : 0);
    return ((e - b + halo) + (e - b) + (e - b)) * cols_ * kD + 2 * kD;  // uold, f, u, residual
  }

 private:
  static constexpr double kAlpha = 0.0543, kOmega = 0.8;
  static std::size_t sz(std::int64_t v) { return static_cast<std::size_t>(v); }
  std::int64_t rows_, cols_;
  std::vector<double> u_, uold_, f_;
  double ax_ = 0, ay_ = 0, b_ = 0;
  double residual_ = 0.0;
  tsar::Mapped<double> old_, new_, fm_;
  tsar::Reduction<double> red_;
};

class Averse final : public OneLoopKernel {
 public:
  Averse(std::int64_t n, std::int64_t table)
      : n_(n), table_(static_cast<std::size_t>(table)), y_(static_cast<std::size_t>(n)) {
    std::uint64_t s = 11;
    for (auto& v : table_) v = uniform(s);
  }
  const char* name() const override { return "averse"; }
  std::string size_text() const override {
    return std::to_string(n_) + " gathers of 16 from a " +
           std::to_string(static_cast<std::int64_t>(table_.size()) * kD >> 20) +
           " MiB table every device needs anew each pass";
  }
  void reset() override { std::fill(y_.begin(), y_.end(), 0.0); }
  void attach(tsar::Region& r) override {
    tm_ = r.map(table_.data(), table_.size(), tsar::Assoc::full, TSAR_MEM_IN);
    ym_ = r.map(y_.data(), y_.size(), tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  }
  void detach() override { tm_ = {}, ym_ = {}; }
  void pass(tsar::Region& r, Backend) override {
    const auto len = static_cast<std::int64_t>(table_.size());
    r.parallel_for(n_, [&](const Chunk& c) {
      const double* t = c.ptr(tm_);
      double* y = c.ptr(ym_);
      if (c.kind() == DeviceKind::omp_target) {
        gather_offload(c.omp_device(), t, len, y, c.begin(), c.end());
      } else if (c.kind() == DeviceKind::cuda) {
#if TSAR_BENCH_CUDA
        cuda::gather(c.stream(), t, len, y, c.begin(), c.end());
#else
        no_cuda();
#endif
      } else {
        on_host(r, c, 2048, [&](std::int64_t lo, std::int64_t hi) {
          for (std::int64_t i = lo; i < hi; ++i) y[i] = gather16(t, len, i);
          return 0.0;
        });
      }
    });
  }
  std::vector<double> sample() const override {
    std::vector<double> s;
    for (std::int64_t k = 0; k < n_; k += n_ / 997 + 1)
      s.push_back(y_[static_cast<std::size_t>(k)]);
    return s;
  }
  std::int64_t bound_bytes(std::int64_t b, std::int64_t e) const override {
    return static_cast<std::int64_t>(table_.size()) * kD + (e - b) * kD;
  }

 private:
  std::int64_t n_;
  std::vector<double> table_, y_;
  tsar::Mapped<double> tm_, ym_;
};

/// A suite kernel (apps/tsar/kernels) as a bench kernel: a pass is one run -- its loops, each
/// in its region, with the kernel's serial steps between them -- checked against the serial
/// reference after it; the inputs are restored between passes, untimed. The data the loops
/// share stays on the devices from loop to loop (kept_loops.hpp).
class SuiteKernel final : public GpuKernel {
 public:
  SuiteKernel(std::unique_ptr<tsar::kernels::Kernel> kernel, bool quick) : k_(std::move(kernel)) {
    k_->setup(quick ? tsar::kernels::Scale::quick : tsar::kernels::Scale::full);
    k_->compute_reference();
  }
  const char* name() const override { return k_->name(); }
  std::string size_text() const override { return k_->size_text() + " a pass"; }
  std::vector<std::string> loops() const override {
    std::vector<std::string> names;
    for (const auto& l : k_->loops()) names.push_back(l.name);
    return names;
  }
  void reset() override {
    k_->reset();
    checked_.clear();
  }
  void attach(std::span<tsar::Region* const> regions) override {
    kept_ = std::make_unique<KeptLoops>(*k_, regions);
  }
  void detach() override { kept_.reset(); }
  void pass(std::span<tsar::Region* const> regions, Backend) override {
    kept_->restart();
    loop_seconds_.assign(k_->loops().size(), 0.0);
    k_->run([&](const tsar::kernels::Loop& loop, std::int64_t n) {
      const auto t0 = std::chrono::steady_clock::now();
      tsar::Region& r = *regions[static_cast<std::size_t>(loop.index)];
      tsar_region* handle = r.handle();
      const tsar::kernels::Translate translate = [handle](const void* host) {
        return tsar_mem(handle, host);
      };
      r.parallel_for(n, [&](const Chunk& c) {
        if (c.kind() == DeviceKind::omp_target) {
          loop.offload(c.begin(), c.end(), c.omp_device(), translate);
        } else if (c.kind() == DeviceKind::cuda) {
          if (!loop.cuda) throw tsar::Error(TSAR_ERR_UNSUPPORTED, loop.name + " has no CUDA body");
          loop.cuda(c.begin(), c.end(), c.stream(), translate);
        } else {
          on_host(r, c, 4, [&](std::int64_t lo, std::int64_t hi) {
            loop.host(lo, hi);
            return 0.0;
          });
        }
      });
      loop_seconds_[static_cast<std::size_t>(loop.index)] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      kept_->count(loop, r);
    });
  }
  std::vector<double> loop_seconds() const override { return loop_seconds_; }
  void after_pass() override {
    kept_->data().update_host();  // the devices' rows, for the check
    const auto c = k_->check();
    checked_ = c.ok ? "" : c.detail + " (error " + std::to_string(c.error) + ")";
    k_->reset();
    kept_->host_restored();
  }
  void finish() override { kept_->data().update_host(); }
  std::vector<double> sample() const override { return {}; }
  std::string check() const override { return checked_; }
  std::int64_t bound_bytes(std::int64_t, std::int64_t) const override { return 0; }
  std::int64_t minimum_bytes() const override { return kept_ ? kept_->required() : -1; }

 private:
  std::unique_ptr<tsar::kernels::Kernel> k_;
  std::unique_ptr<KeptLoops> kept_;
  std::string checked_;               ///< the last pass's check
  std::vector<double> loop_seconds_;  ///< the last pass's, per loop
};

}  // namespace

std::unique_ptr<GpuKernel> make_gemm(std::int64_t n) { return std::make_unique<Gemm>(n); }
std::unique_ptr<GpuKernel> make_kmeans(std::int64_t points, int dims, int clusters) {
  return std::make_unique<Kmeans>(points, dims, clusters);
}
std::unique_ptr<GpuKernel> make_jacobi(std::int64_t rows, std::int64_t cols) {
  return std::make_unique<Jacobi>(rows, cols);
}
std::unique_ptr<GpuKernel> make_averse(std::int64_t n, std::int64_t table) {
  return std::make_unique<Averse>(n, table);
}

std::unique_ptr<GpuKernel> make_suite_kernel(const std::string& name, bool quick) {
  auto kernel = tsar::kernels::make_kernel(name);
  if (!kernel) return nullptr;
  return std::make_unique<SuiteKernel>(std::move(kernel), quick);
}

}  // namespace tsar_bench_gpu

// SPDX-License-Identifier: BSD-3-Clause
// tsar-demo: one loop split across every device TSAR finds (TSAR_DEVICES to choose), run for
// a few passes with the adaptive schedule; prints each pass's split and what was learned.
// Usage: tsar-demo [schedule] [passes]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tsar/tsar.hpp"

namespace {

#pragma omp declare target
inline double work(std::int64_t i) {
  double x = static_cast<double>(i);
  for (int k = 0; k < 50; ++k) x = std::sqrt(x + k);
  return x;
}
#pragma omp end declare target

// A range on an OpenMP target device (a GPU; or the host's device as accelerator): y and the
// accumulator are device pointers there.
void offload_range(int dev, double* yp, double* acc, std::int64_t b, std::int64_t e) {
  double s = 0.0;
#pragma omp target teams distribute parallel for simd device(dev) is_device_ptr(yp) \
    reduction(+ : s) map(tofrom : s)
  for (std::int64_t i = b; i < e; ++i) {
    yp[i] = work(i);
    s += yp[i];
  }
#pragma omp target device(dev) is_device_ptr(acc)
  *acc += s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string schedule = argc > 1 ? argv[1] : "adaptive";
  const int passes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 8;
  try {
    // CUDA devices would need a CUDA kernel: the demo takes the GPUs as OpenMP devices.
    tsar::Region region("tsar-demo", schedule,
                        TSAR_DEVICE_CPU | TSAR_DEVICE_OMP_TARGET | TSAR_DEVICE_EMULATED);
    const std::int64_t n = 200'000;
    std::vector<double> y(static_cast<std::size_t>(n));
    auto out = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
    double sum = 0.0;
    auto total = region.reduction(sum, 0.0, [](double a, double b) { return a + b; });

    std::printf("region 'tsar-demo', schedule %s, %d devices:", region.schedule().c_str(),
                region.num_devices());
    for (int d = 0; d < region.num_devices(); ++d) std::printf(" %s", region.device(d).key);
    std::printf("\n");
    for (int pass = 0; pass < passes; ++pass) {
      sum = 0.0;
      region.parallel_for(n, [&](const tsar::Chunk& c) {
        double* yp = c.ptr(out);
        double& s = c.local(total);
        if (c.kind() == tsar::DeviceKind::omp_target) {
          offload_range(c.omp_device(), yp, &s, c.begin(), c.end());
          return;
        }
        for (auto i = c.begin(); i < c.end(); ++i) {
          yp[i] = work(i);
          s += yp[i];
        }
      });
      const auto stats = region.pass_stats();
      std::printf("pass %d: %.2f ms, split", pass, stats.pass.seconds * 1e3);
      for (const auto& d : stats.devices)
        std::printf(" %lld", static_cast<long long>(d.iterations));
      std::printf("  (idle at the barrier:");
      for (const auto& d : stats.devices) std::printf(" %.2f", d.idle_seconds * 1e3);
      std::printf(" ms)\n");
    }
    const auto last = region.pass_stats();
    std::printf("learned time per iteration:");
    for (int d = 0; d < region.num_devices(); ++d)
      std::printf(" %s %.1f ns%s", region.device(d).key,
                  last.devices[static_cast<std::size_t>(d)].time_per_iteration * 1e9,
                  d + 1 < region.num_devices() ? "," : "\n");
    std::printf("sum of the loop's results: %.6e\n", sum);
  } catch (const tsar::Error& e) {
    std::fprintf(stderr, "tsar-demo: %s\n", e.what());
    return 1;
  }
  return 0;
}

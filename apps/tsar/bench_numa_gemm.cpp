// SPDX-License-Identifier: BSD-3-Clause
// tsar-bench-numa-gemm: CPU-only GEMM partitioned over places by columns, replicate vs
// coherent (thesis 6.5.3, fig. 6.10). The kernel is the thesis's (fig. 6.5):
//   C[i][j] = sum_k A[k][j] * B[i][k]
// with A and C partitioned by columns j over the places, B shared, and each place's inner
// loop over the rows i split between its devices. Under replicate each place computes on a
// dense copy of its column panel of A and C -- the panel's rows are a few cache lines instead
// of a whole matrix row apart, a tiling the loop body does not know about (it indexes through
// the view's strides either way) -- and on its own copy of B.
// Two partitionings run: places per NUMA node (nested: cores inside) and one place per core
// (one-way partitioning, where the thesis saw replicate up to 4x coherent).
//   replicate_over_coherent   T(coherent) / T(replicate), one place per core, placement
//                             included (the kernel-only ratio is beside it)
// Usage: tsar-bench-numa-gemm [--n N] [--passes P]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "numa_bench.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer_version.hpp"

namespace {

struct Result {
  double pass_seconds;    // median pass, placement included
  double kernel_seconds;  // median pass less placement
  nlohmann::json placement;
  double max_error;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

Result run(const std::string& places, int policy, std::size_t n, int passes,
           const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(n * n, 0.0f);
  tsar::Partition part("gemm", places, "adaptive", "adaptive", TSAR_DEVICE_CPU);
  part.map_array(const_cast<float*>(a.data()),
                 tsar::Partition::matrix<float>(n, n, 0, 1, TSAR_MEM_IN, "A"));
  part.map_array(const_cast<float*>(b.data()),
                 tsar::Partition::matrix<float>(n, n, 0, -1, TSAR_MEM_IN, "B"));
  part.map_array(c.data(), tsar::Partition::matrix<float>(n, n, 0, 1, TSAR_MEM_OUT, "C"));
  part.set_policy(static_cast<tsar::MemPolicy>(policy));
  part.bind(0);
  std::vector<double> total, kernel;
  for (int p = 0; p < passes; ++p) {
    part.run(static_cast<std::int64_t>(n), [&](tsar::Place& place) {
      const tsar_array_view av = place.view(a.data());
      const tsar_array_view bv = place.view(b.data());
      const tsar_array_view cv = place.view(c.data());
      const auto* A = static_cast<const float*>(av.base);
      const auto* B = static_cast<const float*>(bv.base);
      auto* C = static_cast<float*>(cv.base);
      const auto lda = static_cast<std::int64_t>(av.stride[0]),
                 ldb = static_cast<std::int64_t>(bv.stride[0]),
                 ldc = static_cast<std::int64_t>(cv.stride[0]);
      const std::int64_t aj = av.offset[1], cj = cv.offset[1];
      const std::int64_t jb = place.begin(), je = place.end();
      const auto k_size = static_cast<std::int64_t>(n);
      place.for_each(0, 0, static_cast<std::int64_t>(n), [&](const tsar_chunk& ch) {
        for (auto i = ch.begin; i < ch.end; ++i)
          for (auto j = jb; j < je; ++j) {
            float sum = 0.0f;
            for (std::int64_t k = 0; k < k_size; ++k) sum += A[k * lda + (j - aj)] * B[i * ldb + k];
            C[i * ldc + (j - cj)] = sum;
          }
      });
    });
    tsar_pass_stats ps{};
    tsar_partition_get_pass_stats(part.handle(), -1, &ps, nullptr, 0);
    const double placing = tsar::bench::placement_of(part)["placement_seconds"].get<double>();
    total.push_back(ps.seconds);
    kernel.push_back(ps.seconds - placing);
  }
  Result r{median(total), median(kernel), tsar::bench::placement_of(part), 0.0};
  // Against a serial reference on a sample of entries.
  for (std::size_t s = 0; s < 512; ++s) {
    const std::size_t i = (s * 7919) % n, j = (s * 104729 + 13) % n;
    double ref = 0.0;
    for (std::size_t k = 0; k < n; ++k) ref += static_cast<double>(a[k * n + j]) * b[i * n + k];
    r.max_error = std::max(r.max_error, std::fabs(ref - c[i * n + j]) / (std::fabs(ref) + 1.0));
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tsar-bench-numa-gemm: GEMM over places, replicate vs coherent"};
  std::size_t n = 768;
  int passes = 3;
  app.add_option("--n", n, "matrix order")
      ->check(CLI::Range(std::size_t{16}, std::size_t{1} << 15));
  app.add_option("--passes", passes, "passes per variant (the median counts)")
      ->check(CLI::Range(1, 100));
  symmer::add_version_flag(app, "tsar-bench-numa-gemm");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto node =
        symmer::topology::NodeModel::from_this_node(symmer::topology::GpuQuery::kNone);
    std::string per_core;
    for (std::size_t c = 0; c < node.cores().size(); ++c)
      per_core += (c == 0 ? "cpu:" : "|cpu:") + std::to_string(c);
    std::vector<float> a(n * n), b(n * n);
    for (std::size_t i = 0; i < n * n; ++i) {
      a[i] = static_cast<float>((i * 37) % 101) / 101.0f;
      b[i] = static_cast<float>((i * 53) % 97) / 97.0f - 0.5f;
    }
    const double flops =
        2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    nlohmann::json out{{"bench", "tsar-bench-numa-gemm"},
                       {"n", n},
                       {"passes", passes},
                       {"numa_nodes", tsar_num_numa_nodes()},
                       {"cores", node.cores().size()}};
    std::printf(
        "tsar-bench-numa-gemm: n = %zu, %d passes per variant, %zu cores, %d NUMA node(s)\n", n,
        passes, node.cores().size(), tsar_num_numa_nodes());
    std::printf("%-10s %-10s %9s %9s %9s %9s\n", "places", "policy", "pass ms", "kernel ms",
                "GFLOP/s", "placing");
    bool valid = true;
    for (const auto& [label, places] :
         std::vector<std::pair<std::string, std::string>>{{"numa", ""}, {"per_core", per_core}}) {
      for (const auto& [pname, policy] : std::vector<std::pair<std::string, int>>{
               {"coherent", TSAR_POLICY_COHERENT}, {"replicate", TSAR_POLICY_REPLICATE}}) {
        const Result r = run(places, policy, n, passes, a, b);
        valid = valid && r.max_error < 1e-3;
        std::printf("%-10s %-10s %9.1f %9.1f %9.2f %8.1fms%s\n", label.c_str(), pname.c_str(),
                    r.pass_seconds * 1e3, r.kernel_seconds * 1e3, flops / r.pass_seconds / 1e9,
                    r.placement["placement_seconds"].get<double>() * 1e3,
                    r.max_error < 1e-3 ? "" : "  RESULT WRONG");
        out[label][pname] = {{"pass_seconds", r.pass_seconds},
                             {"kernel_seconds", r.kernel_seconds},
                             {"gflops", flops / r.pass_seconds / 1e9},
                             {"placement", r.placement},
                             {"max_relative_error", r.max_error}};
      }
      out[label]["replicate_over_coherent"] = out[label]["coherent"]["pass_seconds"].get<double>() /
                                              out[label]["replicate"]["pass_seconds"].get<double>();
      out[label]["replicate_over_coherent_kernel"] =
          out[label]["coherent"]["kernel_seconds"].get<double>() /
          out[label]["replicate"]["kernel_seconds"].get<double>();
    }
    out["replicate_over_coherent"] = out["per_core"]["replicate_over_coherent"];
    out["replicate_over_coherent_kernel"] = out["per_core"]["replicate_over_coherent_kernel"];
    out["valid"] = valid;
    if (const std::string note = tsar::bench::one_node_note(); !note.empty())
      out["note"] =
          "1 NUMA node: the replicate gain here is the tiling effect of dense panels, "
          "not placement";
    std::printf("%s\n", out.dump().c_str());
    return valid ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar-bench-numa-gemm: %s\n", e.what());
    return 1;
  }
}

// SPDX-License-Identifier: BSD-3-Clause
// tsar-bench-translate: the kernels of kernels/ as tsar-translate makes them, beside the same
// loops ported to TSAR by hand (hand_kernels.c), in one process on the same devices
// (TSAR_DEVICES, else TSAR's default) with the same schedules, registrations and sizes. Each
// side has its own arrays and regions. After warm-up passes (both sides learn their split),
// timed blocks of passes alternate between the two sides, the order flipping every
// repetition, so drift and noise hit both alike; a kernel's ratio is the median over
// repetitions of (translated block time / hand-written block time), 1.0 meaning no cost.
// The two sides' results must agree. The schedules are the directives' (most leave it to
// TSAR_SCHEDULE, which applies to both sides). Progress on stderr, one JSON line on stdout:
//   {"benchmark": "tsar-bench-translate", "scale", "devices", "schedule", "reps", "passes",
//    "kernels": [{"kernel", "hand_s_per_pass", "translated_s_per_pass", "ratio",
//                 "ratio_min", "ratio_max", "agree"}, ...], "geomean_ratio", "max_ratio",
//    "all_agree"}
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hand_kernels.h"
#include "kernels.h"
#include "symmer_version.hpp"
#include "tsar/tsar.hpp"

namespace {

// Both sides' arrays are page-locked (tsar_host_alloc), so the two copy at the same speed and
// the ratio measures the code: translated loops lock nothing themselves (TSAR_MEM_NO_PIN), a
// hand-written region locks what it registers.
using Array = std::vector<double, tsar::HostAllocator<double>>;

Array data(std::size_t n, unsigned seed) {
  Array v(n);
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(s >> 11) * 0x1.0p-53 - 0.5;
  }
  return v;
}

/// Largest relative difference of two results (0 when equal).
double difference(const Array& a, const Array& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::fabs(a[i] - b[i]) / std::max(1.0, std::fabs(b[i])));
  return worst;
}

[[noreturn]] void fail(const std::string& what) {
  std::cerr << "tsar-bench-translate: " << what << ": " << tsar_last_error() << "\n";
  std::exit(1);
}

void check(int status, const char* what) {
  if (status != TSAR_OK) fail(what);
}

/// One kernel on one side: a pass, and its result to compare.
struct Side {
  std::function<void()> pass;
  std::function<Array()> result;
  std::function<void()> close = [] {};
};

/// A kernel: makes its two sides (hand-written first) from fresh data.
struct Case {
  std::string name;
  std::function<Side()> hand;
  std::function<Side()> translated;
};

struct Sizes {
  std::int64_t gemm, vec, grid, stream, blocks;
};

Sizes sizes_of(const std::string& scale) {
  if (scale == "tiny") return {48, 96, 64, 10000, 64};
  if (scale == "quick") return {192, 1024, 512, 1 << 20, 512};
  if (scale == "full") return {768, 4096, 2048, 8 << 20, 4096};
  if (scale == "large") return {2048, 8192, 4096, 32 << 20, 16384};
  std::cerr << "tsar-bench-translate: unknown scale '" << scale << "'\n";
  std::exit(2);
}

std::vector<Case> cases(const Sizes& z) {
  std::vector<Case> out;
  {
    const std::int64_t n = z.gemm;
    const auto nn = static_cast<std::size_t>(n * n);
    struct Data {
      Array a, b, c;
    };
    auto make = [n, nn] {
      auto d = std::make_shared<Data>();
      d->a = data(nn, 1), d->b = data(nn, 2), d->c = data(nn, 3);
      return d;
    };
    out.push_back({"gemm",
                   [=] {
                     auto d = make();
                     auto k = std::make_shared<hand_gemm>(
                         hand_gemm{n, 1.0, 0.5, d->a.data(), d->b.data(), d->c.data(), nullptr});
                     if (!hand_gemm_open(k.get())) fail("gemm");
                     return Side{[k] { check(hand_gemm_pass(k.get()), "gemm"); },
                                 [d] { return d->c; },
                                 [k] { hand_free(&k->region, 1); }};
                   },
                   [=] {
                     auto d = make();
                     return Side{[d, n] { tk_gemm(n, 1.0, 0.5, d->a.data(), d->b.data(),
                                                  d->c.data()); },
                                 [d] { return d->c; }};
                   }});
  }
  {
    const std::int64_t n = z.vec;
    const auto nn = static_cast<std::size_t>(n * n), n1 = static_cast<std::size_t>(n);
    struct Data {
      Array a, x, tmp, y;
    };
    auto make = [nn, n1] {
      auto d = std::make_shared<Data>();
      d->a = data(nn, 4), d->x = data(n1, 5), d->tmp.assign(n1, 0.0), d->y.assign(n1, 0.0);
      return d;
    };
    out.push_back({"atax",
                   [=] {
                     auto d = make();
                     auto k = std::make_shared<hand_atax>(hand_atax{
                         n, d->a.data(), d->x.data(), d->tmp.data(), d->y.data(), nullptr,
                         nullptr});
                     if (!hand_atax_open(k.get())) fail("atax");
                     return Side{[k] { check(hand_atax_pass(k.get()), "atax"); },
                                 [d] { return d->y; },
                                 [k] {
                                   tsar_region* r[] = {k->ax, k->aty};
                                   hand_free(r, 2);
                                 }};
                   },
                   [=] {
                     auto d = make();
                     return Side{[d, n] { tk_atax(n, d->a.data(), d->x.data(), d->tmp.data(),
                                                  d->y.data()); },
                                 [d] { return d->y; }};
                   }});
  }
  {
    const std::int64_t n = z.vec;
    const auto nn = static_cast<std::size_t>(n * n), n1 = static_cast<std::size_t>(n);
    struct Data {
      Array a, y1, y2, x1, x2;
    };
    auto make = [nn, n1] {
      auto d = std::make_shared<Data>();
      d->a = data(nn, 6), d->y1 = data(n1, 7), d->y2 = data(n1, 8);
      d->x1 = data(n1, 9), d->x2 = data(n1, 10);
      return d;
    };
    auto both = [](const Data& d) {
      auto r = d.x1;
      r.insert(r.end(), d.x2.begin(), d.x2.end());
      return r;
    };
    out.push_back({"mvt",
                   [=] {
                     auto d = make();
                     auto k = std::make_shared<hand_mvt>(
                         hand_mvt{n, d->a.data(), d->y1.data(), d->y2.data(), d->x1.data(),
                                  d->x2.data(), nullptr, nullptr});
                     if (!hand_mvt_open(k.get())) fail("mvt");
                     return Side{[k] { check(hand_mvt_pass(k.get()), "mvt"); },
                                 [d, both] { return both(*d); },
                                 [k] {
                                   tsar_region* r[] = {k->x1r, k->x2r};
                                   hand_free(r, 2);
                                 }};
                   },
                   [=] {
                     auto d = make();
                     return Side{[d, n] { tk_mvt(n, d->a.data(), d->y1.data(), d->y2.data(),
                                                 d->x1.data(), d->x2.data()); },
                                 [d, both] { return both(*d); }};
                   }});
  }
  {
    const std::int64_t n = z.grid, m = z.grid;
    const auto size = static_cast<std::size_t>(n * m);
    const double ax = 1.1, ay = 0.9, b = -4.3, omega = 0.8;
    struct Data {
      Array f, u, uold;
      double error = 0.0;
    };
    auto make = [size] {
      auto d = std::make_shared<Data>();
      d->f = data(size, 11), d->u = data(size, 12), d->uold = d->u;
      return d;
    };
    out.push_back({"jacobi",
                   [=] {
                     auto d = make();
                     auto k = std::make_shared<hand_jacobi>(
                         hand_jacobi{n, m, ax, ay, b, omega, d->uold.data(), d->f.data(),
                                     d->u.data(), 0.0, nullptr});
                     if (!hand_jacobi_open(k.get())) fail("jacobi");
                     return Side{[k, d] {
                                   check(hand_jacobi_pass(k.get()), "jacobi");
                                   d->error = k->error;
                                 },
                                 [k, d, size] {
                                   Array r(k->u, k->u + size);
                                   r.push_back(d->error);
                                   return r;
                                 },
                                 [k] { hand_free(&k->region, 1); }};
                   },
                   [=] {
                     auto d = make();
                     auto bufs = std::make_shared<std::pair<double*, double*>>(d->u.data(),
                                                                               d->uold.data());
                     return Side{[d, bufs, n, m, ax, ay, b, omega] {
                                   std::swap(bufs->first, bufs->second);  // u <-> uold
                                   d->error = tk_jacobi(n, m, ax, ay, b, omega, bufs->second,
                                                        d->f.data(), bufs->first);
                                 },
                                 [d, bufs, size] {
                                   Array r(bufs->first, bufs->first + size);
                                   r.push_back(d->error);
                                   return r;
                                 }};
                   }});
  }
  {
    // Ten time steps per pass in the data environment (entered and left once a pass).
    const std::int64_t n = z.grid, m = z.grid;
    const auto size = static_cast<std::size_t>(n * m);
    const int steps = 10;
    const double k = 0.2;
    struct Data {
      Array u, v, f;
    };
    auto make = [size] {
      auto d = std::make_shared<Data>();
      d->u = data(size, 18), d->v.assign(size, 0.0), d->f = data(size, 19);
      for (auto& x : d->f) x *= 1e-3;  // a small source: u stays of the same size
      return d;
    };
    out.push_back({"heat",
                   [=] {
                     auto d = make();
                     auto h = std::make_shared<hand_heat>(hand_heat{
                         n, m, steps, k, d->u.data(), d->v.data(), d->f.data(), nullptr,
                         nullptr, nullptr});
                     if (!hand_heat_open(h.get())) fail("heat");
                     return Side{[h] { check(hand_heat_pass(h.get()), "heat"); },
                                 [d] { return d->u; },
                                 [h] { hand_heat_free(h.get()); }};
                   },
                   [=] {
                     auto d = make();
                     return Side{[d, n, m, steps, k] {
                                   tk_heat(n, m, steps, k, d->u.data(), d->v.data(),
                                           d->f.data());
                                 },
                                 [d] { return d->u; }};
                   }});
  }
  {
    const std::int64_t n = z.stream;
    const auto n1 = static_cast<std::size_t>(n);
    const double s = std::sqrt(2.0) - 1.0;  // a keeps its size pass after pass
    struct Data {
      Array a, b, c;
    };
    auto make = [n1] {
      auto d = std::make_shared<Data>();
      d->a = data(n1, 13), d->b = data(n1, 14), d->c = data(n1, 15);
      return d;
    };
    out.push_back({"stream",
                   [=] {
                     auto d = make();
                     auto k = std::make_shared<hand_stream>(
                         hand_stream{n, s, d->a.data(), d->b.data(), d->c.data(), {}});
                     if (!hand_stream_open(k.get())) fail("stream");
                     return Side{[k] { check(hand_stream_pass(k.get()), "stream"); },
                                 [d] { return d->a; },
                                 [k] { hand_free(k->regions, 4); }};
                   },
                   [=] {
                     auto d = make();
                     return Side{[d, n, s] { tk_stream(n, s, d->a.data(), d->b.data(),
                                                       d->c.data()); },
                                 [d] { return d->a; }};
                   }});
  }
  {
    const std::int64_t blocks = z.blocks, block = 64, d = 8, k = 16;
    struct Data {
      Array points, centres, partial;
      std::vector<int, tsar::HostAllocator<int>> member;
    };
    auto make = [=] {
      auto x = std::make_shared<Data>();
      x->points = data(static_cast<std::size_t>(blocks * block * d), 16);
      x->centres = data(static_cast<std::size_t>(k * d), 17);
      x->partial.assign(static_cast<std::size_t>(blocks * k * (d + 1)), 0.0);
      x->member.assign(static_cast<std::size_t>(blocks * block), -1);
      return x;
    };
    auto result = [](const Data& x) {
      auto r = x.partial;
      r.insert(r.end(), x.member.begin(), x.member.end());
      return r;
    };
    out.push_back({"kmeans",
                   [=] {
                     auto x = make();
                     auto h = std::make_shared<hand_kmeans>(
                         hand_kmeans{blocks, block, d, k, x->points.data(), x->centres.data(),
                                     x->member.data(), x->partial.data(), nullptr});
                     if (!hand_kmeans_open(h.get())) fail("kmeans");
                     return Side{[h] { check(hand_kmeans_pass(h.get()), "kmeans"); },
                                 [x, result] { return result(*x); },
                                 [h] { hand_free(&h->region, 1); }};
                   },
                   [=] {
                     auto x = make();
                     return Side{[x, blocks, block, d, k] {
                                   tk_kmeans(blocks, block, d, k, x->points.data(),
                                             x->centres.data(), x->member.data(),
                                             x->partial.data());
                                 },
                                 [x, result] { return result(*x); }};
                   }});
  }
  return out;
}

double seconds(const std::function<void()>& pass, int passes) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int p = 0; p < passes; ++p) pass();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Translated kernels (tsar-translate) beside the same loops ported to TSAR by "
               "hand: time per pass of each, interleaved, and their ratio"};
  std::string scale = "quick";
  std::string kernels = "gemm,atax,mvt,jacobi,heat,stream,kmeans";
  int reps = 9, passes = 5, warmup = 10;
  app.add_option("--scale", scale, "tiny, quick, full (a workstation) or large (a GPU node)")
      ->capture_default_str();
  app.add_option("--kernels", kernels, "comma-separated kernels")->capture_default_str();
  app.add_option("--reps", reps, "timed repetitions per side, interleaved")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--passes", passes, "passes per timed repetition")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed passes per side first (the split is learned)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  symmer::add_version_flag(app, "tsar-bench-translate");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> wanted;
  std::stringstream list(kernels);
  for (std::string k; std::getline(list, k, ',');) wanted.push_back(k);
  const Sizes z = sizes_of(scale);
  const char* devices = std::getenv("TSAR_DEVICES");
  const char* schedule = std::getenv("TSAR_SCHEDULE");

  nlohmann::json out = {{"benchmark", "tsar-bench-translate"},
                        {"scale", scale},
                        {"devices", devices ? devices : "default"},
                        {"schedule", schedule ? schedule : "default"},
                        {"reps", reps},
                        {"passes", passes},
                        {"kernels", nlohmann::json::array()}};
  double log_sum = 0.0, worst = 0.0;
  bool all_agree = true;
  int measured = 0;
  for (const auto& c : cases(z)) {
    if (std::find(wanted.begin(), wanted.end(), c.name) == wanted.end()) continue;
    Side hand = c.hand(), translated = c.translated();
    for (int w = 0; w < warmup; ++w) hand.pass(), translated.pass();
    std::vector<double> th, tt, ratio;
    for (int r = 0; r < reps; ++r) {
      double h, t;
      if (r % 2 == 0) {
        h = seconds(hand.pass, passes);
        t = seconds(translated.pass, passes);
      } else {
        t = seconds(translated.pass, passes);
        h = seconds(hand.pass, passes);
      }
      th.push_back(h / passes);
      tt.push_back(t / passes);
      ratio.push_back(t / h);
    }
    const double diff = difference(translated.result(), hand.result());
    const bool agree = diff <= 1e-9;
    hand.close();
    const double rm = median(ratio);
    std::fprintf(stderr,
                 "%-7s hand %.4g ms/pass, translated %.4g ms/pass: ratio %.4f [%.4f, %.4f]%s\n",
                 c.name.c_str(), 1e3 * median(th), 1e3 * median(tt), rm,
                 *std::min_element(ratio.begin(), ratio.end()),
                 *std::max_element(ratio.begin(), ratio.end()),
                 agree ? "" : "  RESULTS DIFFER");
    out["kernels"].push_back({{"kernel", c.name},
                              {"hand_s_per_pass", median(th)},
                              {"translated_s_per_pass", median(tt)},
                              {"ratio", rm},
                              {"ratio_min", *std::min_element(ratio.begin(), ratio.end())},
                              {"ratio_max", *std::max_element(ratio.begin(), ratio.end())},
                              {"agree", agree},
                              {"difference", diff}});
    log_sum += std::log(rm);
    worst = std::max(worst, rm);
    all_agree = all_agree && agree;
    ++measured;
  }
  if (measured == 0) {
    std::cerr << "tsar-bench-translate: no kernel named in --kernels " << kernels << "\n";
    return 2;
  }
  out["geomean_ratio"] = std::exp(log_sum / measured);
  out["max_ratio"] = worst;
  out["all_agree"] = all_agree;
  std::cout << out.dump() << std::endl;
  return all_agree ? 0 : 1;
}

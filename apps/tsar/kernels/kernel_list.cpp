// SPDX-License-Identifier: BSD-3-Clause
#include "kernel_list.hpp"

#include <utility>

namespace tsar::kernels {
namespace {

using Factory = std::unique_ptr<Kernel> (*)();

// The suite's order: the thesis's applications, STREAM, PolyBench/GPU alphabetically, then
// time steps of several dependent loops.
const std::pair<const char*, Factory> kKernels[] = {
    {"gemm", make_gemm},         {"kmeans", make_kmeans},
    {"jacobi", make_jacobi},     {"cg", make_cg},
    {"nbody", make_nbody},       {"stream", make_stream},
    {"atax", make_atax},         {"bicg", make_bicg},
    {"corr", make_corr},         {"covar", make_covar},
    {"gesummv", make_gesummv},   {"mvt", make_mvt},
    {"syrk", make_syrk},         {"syr2k", make_syr2k},
    {"2mm", make_2mm},           {"3mm", make_3mm},
    {"2dconv", make_2dconv},     {"3dconv", make_3dconv},
    {"fdtd-2d", make_fdtd2d},    {"gramschmidt", make_gramschmidt},
    {"bicgstab", make_bicgstab}, {"residual", make_residual},
    {"wave", make_wave},
};

}  // namespace

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::regular:
      return "regular";
    case Kind::imbalanced:
      return "imbalanced";
    case Kind::overhead_sensitive:
      return "overhead-sensitive";
  }
  return "?";
}

const char* scale_name(Scale scale) {
  switch (scale) {
    case Scale::tiny:
      return "tiny";
    case Scale::quick:
      return "quick";
    case Scale::full:
      return "full";
    case Scale::large:
      return "large";
  }
  return "?";
}

bool parse_scale(const std::string& text, Scale& scale) {
  for (Scale s : {Scale::tiny, Scale::quick, Scale::full, Scale::large}) {
    if (text == scale_name(s)) {
      scale = s;
      return true;
    }
  }
  return false;
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : kKernels) names.emplace_back(name);
  return names;
}

std::unique_ptr<Kernel> make_kernel(const std::string& name) {
  for (const auto& [known, factory] : kKernels)
    if (name == known) return factory();
  return nullptr;
}

void run_serially(Kernel& kernel) {
  kernel.run([](const Loop& loop, std::int64_t n) { loop.host(0, n); });
}

}  // namespace tsar::kernels

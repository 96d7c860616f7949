// SPDX-License-Identifier: BSD-3-Clause
// CUDA ordinals from the CUDA driver API, loaded with dlopen (see cuda_driver.hpp).
#include "cuda_driver.hpp"

#include <dlfcn.h>

#include <cstdio>

namespace symmer::topology::detail {
namespace {

// The few driver API entry points used, with their documented C signatures (cuda.h).
using CuInit = int (*)(unsigned int flags);
using CuDeviceGetCount = int (*)(int* count);
using CuDeviceGet = int (*)(int* device, int ordinal);
using CuDeviceGetPciBusId = int (*)(char* bus_id, int len, int device);

template <typename F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

std::map<std::string, int> cuda_ordinals_by_pci_address() {
  std::map<std::string, int> out;
  // Kept loaded: unloading the driver after cuInit is not supported by CUDA.
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) return out;
  auto init = symbol<CuInit>(lib, "cuInit");
  auto count_devices = symbol<CuDeviceGetCount>(lib, "cuDeviceGetCount");
  auto get_device = symbol<CuDeviceGet>(lib, "cuDeviceGet");
  auto bus_id_of = symbol<CuDeviceGetPciBusId>(lib, "cuDeviceGetPCIBusId");
  int count = 0;
  if (!init || !count_devices || !get_device || !bus_id_of || init(0) != 0 ||
      count_devices(&count) != 0)
    return out;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    int device = 0;
    char bus_id[64] = {};
    if (get_device(&device, ordinal) != 0 || bus_id_of(bus_id, sizeof bus_id, device) != 0)
      continue;
    // The driver writes "0000:3B:00.0" or "00000000:3B:00.0"; the model uses hwloc's form.
    unsigned domain = 0, bus = 0, dev = 0, func = 0;
    if (std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &func) != 4) continue;
    char address[32];
    std::snprintf(address, sizeof address, "%04x:%02x:%02x.%01x", domain, bus, dev, func);
    out[address] = ordinal;
  }
  return out;
}

bool gomp_nvptx_plugin_installed() {
  void* plugin = dlopen("libgomp-plugin-nvptx.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!plugin) return false;
  dlclose(plugin);
  return true;
}

}  // namespace symmer::topology::detail

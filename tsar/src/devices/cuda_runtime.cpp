// SPDX-License-Identifier: BSD-3-Clause
#include "devices/cuda_runtime.hpp"

#include <dlfcn.h>

#include <mutex>

namespace tsar::core {
namespace {

// The exported name of a function the header may rename (cudaFoo -> cudaFoo_v2).
#define TSAR_CUDA_SYMBOL(f) TSAR_CUDA_SYMBOL_TEXT(f)
#define TSAR_CUDA_SYMBOL_TEXT(f) #f

std::once_flag once;
CudaRuntime table;
const CudaRuntime* loaded = nullptr;
std::string error;

void load() {
  void* lib = nullptr;
  std::string tried;
  for (const char* name : {TSAR_CUDART_SONAME, TSAR_CUDART_TOOLKIT_PATH}) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    const char* why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (why != nullptr ? why : name);
  }
  if (lib == nullptr) {
    error = "the CUDA runtime could not be loaded (" + tried + ")";
    return;
  }
#define TSAR_CUDA_RUNTIME_RESOLVE(f)                                                             \
  table.f = reinterpret_cast<decltype(table.f)>(dlsym(lib, TSAR_CUDA_SYMBOL(f)));                \
  if (table.f == nullptr) {                                                                      \
    error = std::string("the CUDA runtime " TSAR_CUDART_SONAME " lacks ") + TSAR_CUDA_SYMBOL(f); \
    return;                                                                                      \
  }
  TSAR_CUDA_RUNTIME_FUNCTIONS(TSAR_CUDA_RUNTIME_RESOLVE)
#undef TSAR_CUDA_RUNTIME_RESOLVE
  loaded = &table;
}

}  // namespace

const CudaRuntime* cuda_runtime() {
  std::call_once(once, load);
  return loaded;
}

const std::string& cuda_runtime_error() { return error; }

}  // namespace tsar::core

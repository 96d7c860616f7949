// SPDX-License-Identifier: BSD-3-Clause
#include "devices/cuda_runtime.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

#include "devices/device_list.hpp"

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

namespace {

// Where an NVIDIA driver is installed the runtime is loaded with libtsar, before the program
// runs, as a linked runtime would be: its exit handlers, registered when it loads, then run
// after libgomp's (exit runs them in reverse order of registration). Loaded later -- after the
// program or TSAR's discovery started OpenMP offload --, it would release the CUDA primary
// context at exit before libgomp frees its device memory in that context (libgomp's nvptx
// plugin uses the context current on the thread), and the program would fail at exit
// ("cuMemFree_v2 error: context is destroyed", exit status 1). Loading starts no CUDA context.
// Not where TSAR_DEVICES names devices none of which asks a GPU runtime: nothing will use it.
bool may_use_cuda() {
  const char* spec = std::getenv("TSAR_DEVICES");
  return spec == nullptr || asks_gpu_runtimes(spec);
}

[[maybe_unused]] const bool loaded_with_libtsar =
    access("/dev/nvidiactl", F_OK) == 0 && may_use_cuda() && cuda_runtime() != nullptr;

}  // namespace

}  // namespace tsar::core

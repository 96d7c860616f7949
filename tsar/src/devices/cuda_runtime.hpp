// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The CUDA runtime, loaded (dlopen) with libtsar where an NVIDIA driver is installed and
// TSAR_DEVICES is unset or asks a GPU runtime (so that it is torn down after OpenMP offload at
// exit: cuda_runtime.cpp), elsewhere the first time TSAR needs it -- a CUDA device named in a
// device list, or pinning host memory for a GPU: a machine without the driver never maps
// libcudart. The application's own kernels link the same
// shared runtime (one soname, so one instance and one set of streams).
//
// Built with TSAR_CUDA only; cuda_device.cpp calls the runtime through this table.

#include <cuda_runtime_api.h>

#include <string>

namespace tsar::core {

// The runtime functions TSAR calls.
// clang-format off
#define TSAR_CUDA_RUNTIME_FUNCTIONS(X) \
  X(cudaDeviceCanAccessPeer) \
  X(cudaDeviceEnablePeerAccess) \
  X(cudaDeviceGetAttribute) \
  X(cudaDeviceGetPCIBusId) \
  X(cudaEventCreateWithFlags) \
  X(cudaEventDestroy) \
  X(cudaEventRecord) \
  X(cudaEventSynchronize) \
  X(cudaFree) \
  X(cudaFreeHost) \
  X(cudaGetDevice) \
  X(cudaGetDeviceCount) \
  X(cudaGetErrorString) \
  X(cudaGetLastError) \
  X(cudaHostAlloc) \
  X(cudaHostRegister) \
  X(cudaHostUnregister) \
  X(cudaMalloc) \
  X(cudaMemcpy2DAsync) \
  X(cudaMemcpyAsync) \
  X(cudaMemcpyPeerAsync) \
  X(cudaSetDevice) \
  X(cudaStreamCreateWithFlags) \
  X(cudaStreamDestroy) \
  X(cudaStreamSynchronize) \
  X(cudaStreamWaitEvent)
// clang-format on

struct CudaRuntime {
#define TSAR_CUDA_RUNTIME_POINTER(f) decltype(&::f) f = nullptr;
  TSAR_CUDA_RUNTIME_FUNCTIONS(TSAR_CUDA_RUNTIME_POINTER)
#undef TSAR_CUDA_RUNTIME_POINTER
};

/// The CUDA runtime, loaded with libtsar where an NVIDIA driver is installed (/dev/nvidiactl),
/// else on the first call (thread-safe): the soname TSAR was built
/// against (found as the loader finds libraries: beside libtsar through its RUNPATH,
/// LD_LIBRARY_PATH, the system's), else the build's CUDA toolkit's copy.
/// @return nullptr when it cannot be loaded or lacks a function; cuda_runtime_error() says why.
const CudaRuntime* cuda_runtime();
/// Why cuda_runtime() returned nullptr ("" when it did not); call it after cuda_runtime().
const std::string& cuda_runtime_error();

}  // namespace tsar::core

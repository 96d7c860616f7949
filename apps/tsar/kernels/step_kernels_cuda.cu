// SPDX-License-Identifier: BSD-3-Clause
// The time-step kernels' loops as CUDA kernels (row_body.hpp's cuda_rows, for every Ops of
// step_bodies.hpp): a block of 256 threads per row, the threads over its columns, the row's
// partial by a tree in shared memory.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "step_bodies.hpp"

namespace tsar::kernels {
namespace {

constexpr int kThreads = 256;

template <class Ops>
__global__ void rows_kernel(typename Ops::View v, std::int64_t begin) {
  __shared__ double part[kThreads];
  const std::int64_t i = begin + static_cast<std::int64_t>(blockIdx.x);
  double sum = 0.0;
  for (std::int64_t j = threadIdx.x; j < v.m; j += kThreads) sum += Ops::elem(v, i, j);
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) Ops::done(v, i, part[0]);
}

}  // namespace

template <class Ops>
void cuda_rows(void* stream, const typename Ops::View& v, std::int64_t begin, std::int64_t end) {
  if (end <= begin) return;
  rows_kernel<Ops><<<static_cast<unsigned>(end - begin), kThreads, 0,
                     static_cast<cudaStream_t>(stream)>>>(v, begin);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA launch: ") + cudaGetErrorString(e));
}

#define TSAR_INSTANTIATE(Ops)                                                            \
  template void cuda_rows<steps::Ops>(void*, const steps::Ops::View&, std::int64_t, \
                                      std::int64_t);
TSAR_STEP_LOOPS(TSAR_INSTANTIATE)
#undef TSAR_INSTANTIATE

}  // namespace tsar::kernels

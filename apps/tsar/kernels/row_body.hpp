// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Loops over the rows of a grid whose work is per element, with one partial result per row
// (a residual, a dot product): the time steps of bicgstab, residual and wave. A loop is two
// static functions of a struct Ops, over Ops::View (a small struct of pointers and sizes with
// a member m, the row length, as in loop_body.hpp):
//
//   static double elem(const View& v, std::int64_t i, std::int64_t j)  element (i, j): its
//                                                    work, and its part of row i's partial
//   static void   done(const View& v, std::int64_t i, double partial)  row i's partial
//
// both marked TSAR_ROW_FN, so one definition compiles for the host, for OpenMP offloading
// (between `#pragma omp declare target` and its end) and for CUDA (step_kernels_cuda.cu).
// From them come the three range functions of a Loop: the host's (elements in order), an
// OpenMP target region (a team per row, its threads over the columns, a reduction), and a
// CUDA kernel (a block per row, a tree reduction). Partials differ between them only by
// rounding; kernels combine them serially in row order, so no result depends on the split.

#include <omp.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel.hpp"

#if defined(__CUDACC__)
#define TSAR_ROW_FN __host__ __device__ inline
#else
#define TSAR_ROW_FN inline
#endif

namespace tsar::kernels {

/// Rows [begin, end) on the calling host thread.
template <class Ops>
void host_rows(const typename Ops::View& v, std::int64_t begin, std::int64_t end) {
  for (std::int64_t i = begin; i < end; ++i) {
    double partial = 0.0;
    for (std::int64_t j = 0; j < v.m; ++j) partial += Ops::elem(v, i, j);
    Ops::done(v, i, partial);
  }
}

/// Rows [begin, end) on OpenMP device `device`: a target region in offload builds; the host's
/// loop on the initial device (host memory behind OpenMP's device interface -- a target
/// region there would fork a team per row).
template <class Ops>
void offload_rows(typename Ops::View v, std::int64_t begin, std::int64_t end, int device) {
  if (device == omp_get_initial_device()) {
    host_rows<Ops>(v, begin, end);
    return;
  }
#if TSAR_KERNELS_OFFLOAD
  const std::int64_t cols = v.m;
#pragma omp target teams distribute device(device) firstprivate(v)
  for (std::int64_t i = begin; i < end; ++i) {
    double partial = 0.0;
#pragma omp parallel for reduction(+ : partial)
    for (std::int64_t j = 0; j < cols; ++j) partial += Ops::elem(v, i, j);
    Ops::done(v, i, partial);
  }
#else
  throw std::runtime_error("OpenMP device " + std::to_string(device) +
                           ": kernels built without OpenMP offloading run on the host only");
#endif
}

/// Rows [begin, end) as a CUDA kernel on `stream` (step_kernels_cuda.cu instantiates it for
/// each loop's Ops; builds with TSAR_KERNELS_CUDA only).
template <class Ops>
void cuda_rows(void* stream, const typename Ops::View& v, std::int64_t begin, std::int64_t end);

/// The Loop over the rows of the view at `view` (which must outlive it).
template <class Ops>
Loop make_row_loop(std::string name, const typename Ops::View* view, double bytes_per_iteration,
                   std::vector<Buffer> buffers) {
  Loop loop;
  loop.name = std::move(name);
  loop.bytes_per_iteration = bytes_per_iteration;
  loop.host = [view](std::int64_t begin, std::int64_t end) { host_rows<Ops>(*view, begin, end); };
  loop.offload = [view](std::int64_t begin, std::int64_t end, int device,
                        const Translate& translate) {
    offload_rows<Ops>(view->translated(translate), begin, end, device);
  };
#if TSAR_KERNELS_CUDA
  loop.cuda = [view](std::int64_t begin, std::int64_t end, void* stream,
                     const Translate& translate) {
    cuda_rows<Ops>(stream, view->translated(translate), begin, end);
  };
#endif
  loop.buffers = std::move(buffers);
  return loop;
}

}  // namespace tsar::kernels

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// From one iteration body to a kernel Loop: the host range function and the device range
// function (an OpenMP target region in offload builds: TSAR_KERNELS_OFFLOAD, set by
// TSAR_OFFLOAD_ENABLED in cmake/TsarAccelerators.cmake).
//
// A body is `void body(const View& v, std::int64_t i)`, declared between
// `#pragma omp declare target` and `#pragma omp end declare target`, where View is a small
// struct of pointers and sizes with
//   View translated(const Translate& t) const;   // the same view with device pointers
// The loop reads the kernel's View through a pointer at each range, so a kernel may change it
// between passes (a time step, the column of Gram-Schmidt).

#include <omp.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel.hpp"

namespace tsar::kernels {

/// The body over [begin, end) on OpenMP device `device`, v holding that device's pointers:
/// a target region in offload builds; otherwise a host loop, which only the initial device
/// (host memory behind OpenMP's device interface) can run.
template <class View, void (*Body)(const View&, std::int64_t)>
void offload_range(View v, std::int64_t begin, std::int64_t end, int device) {
#if TSAR_KERNELS_OFFLOAD
#pragma omp target teams distribute parallel for device(device) firstprivate(v)
  for (std::int64_t i = begin; i < end; ++i) Body(v, i);
#else
  if (device != omp_get_initial_device())
    throw std::runtime_error("OpenMP device " + std::to_string(device) +
                             ": kernels built without OpenMP offloading run on the host only");
  for (std::int64_t i = begin; i < end; ++i) Body(v, i);
#endif
}

/// The Loop of body `Body` over the view at `view` (which must outlive the loop).
template <class View, void (*Body)(const View&, std::int64_t)>
Loop make_loop(std::string name, const View* view, double bytes_per_iteration,
               std::vector<Buffer> buffers) {
  Loop loop;
  loop.name = std::move(name);
  loop.bytes_per_iteration = bytes_per_iteration;
  loop.host = [view](std::int64_t begin, std::int64_t end) {
    const View v = *view;  // a local copy: the compiler sees the pointers cannot change
    for (std::int64_t i = begin; i < end; ++i) Body(v, i);
  };
  if (!buffers.empty()) {
    loop.offload = [view](std::int64_t begin, std::int64_t end, int device,
                          const Translate& translate) {
      offload_range<View, Body>(view->translated(translate), begin, end, device);
    };
  }
  loop.buffers = std::move(buffers);
  return loop;
}

/// A rows x cols matrix (or 1-D array: cols = 1) of which iteration i uses row i, plus
/// `halo` rows each side as input.
template <class T>
Buffer rows_buffer(const char* name, T* host, std::size_t rows, std::size_t cols, unsigned flags,
                   std::size_t halo = 0) {
  return Buffer{name, const_cast<std::remove_const_t<T>*>(host),
                tsar_mem_desc{sizeof(T), rows, cols, 0, halo, TSAR_ASSOC_ROWS, flags}};
}

/// An input every iteration may read anywhere.
template <class T>
Buffer full_buffer(const char* name, const T* host, std::size_t rows, std::size_t cols = 1) {
  return Buffer{name, const_cast<T*>(host),
                tsar_mem_desc{sizeof(T), rows, cols, 0, 0, TSAR_ASSOC_FULL, TSAR_MEM_IN}};
}

/// `p` translated for the calling device, with its type.
template <class T>
T* translate(const Translate& t, T* p) {
  return static_cast<T*>(t(p));
}

}  // namespace tsar::kernels

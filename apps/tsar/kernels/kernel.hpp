// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The benchmark kernels of TSAR's suite (thesis 2.7.2: GEMM, k-means, Helmholtz, CG, GEM,
// the PolyBench/GPU kernels, plus STREAM), shared by the suite, the peer runtimes and the
// accelerator benchmarks.
//
// A kernel is data plus a fixed sequence of parallel loops and serial steps (one *run*). Each
// parallel loop has ONE body, written once as a function of one iteration; from it come the
// host range function (every runtime calls it on its chunks) and the device range function,
// which runs the same body on a device's copies of the data: inside
// `#pragma omp target teams distribute parallel for` in offload builds (TSAR_OFFLOAD_ENABLED), as a
// host loop otherwise (for OpenMP's initial device only). A runtime plugs in through `Parallel`:
// the kernel asks it to run loop L over [0, n) and the runtime decides who runs which range.
//
//   auto k = tsar::kernels::make_kernel("gemm");
//   k->setup(tsar::kernels::Scale::quick);
//   k->compute_reference();
//   k->reset();
//   k->run([](const Loop& loop, std::int64_t n) { loop.host(0, n); });  // serially
//   bool ok = k->check().ok;
//
// Every result can be checked against an independent serial implementation of the kernel
// (the original loop nest, not the bodies) within a tolerance that only covers rounding.
// Reductions inside bodies are blockwise (one partial per iteration, combined serially in
// iteration order), so results do not depend on how a runtime splits the loop.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tsar/tsar.h"

namespace tsar::kernels {

/// What a kernel stresses in a scheduler.
enum class Kind {
  regular,            ///< every iteration costs the same; long passes
  imbalanced,         ///< iteration cost varies along the loop (triangular loops)
  overhead_sensitive  ///< many short passes, where dispatch and barrier costs show
};
/// "regular", "imbalanced", "overhead-sensitive".
const char* kind_name(Kind kind);

/// Problem sizes: tiny (unit tests, milliseconds per run), quick (CI: tens of milliseconds),
/// full (a small workstation: a few hundred milliseconds per run on 2 cores), large (a
/// many-core node or a GPU: several times full).
enum class Scale { tiny, quick, full, large };
/// "tiny", "quick", "full", "large".
const char* scale_name(Scale scale);
/// Parses a scale name; false when `text` names none.
bool parse_scale(const std::string& text, Scale& scale);

/// A buffer one loop reads or writes, described the way TSAR registers it
/// (tsar_reg_mem_desc): which part of it iteration i needs, and in which direction.
struct Buffer {
  const char* name;
  void* host;
  tsar_mem_desc desc;
};

/// Maps the host pointer of a registered buffer to the calling device's pointer for it
/// (tsar_mem() inside a TSAR chunk; the identity on host-memory devices).
using Translate = std::function<void*(const void* host)>;
/// Runs iterations [begin, end) of a loop on the calling host thread.
using HostRange = std::function<void(std::int64_t begin, std::int64_t end)>;
/// Runs iterations [begin, end) of a loop on OpenMP device `omp_device` with the pointers
/// `translate` gives (the device's copies of the loop's buffers). Without offloading
/// only omp_get_initial_device() works (std::runtime_error for others).
using OffloadRange = std::function<void(std::int64_t begin, std::int64_t end, int omp_device,
                                        const Translate& translate)>;

/// Runs iterations [begin, end) of a loop as a CUDA kernel on `stream` (a cudaStream_t; the
/// calling thread's device current) with the pointers `translate` gives; returns after the
/// launch.
using CudaRange = std::function<void(std::int64_t begin, std::int64_t end, void* stream,
                                     const Translate& translate)>;

/// One parallel loop of a kernel.
struct Loop {
  int index = 0;     ///< position in Kernel::loops()
  std::string name;  ///< "gemm", "kmeans.assign", "cg.spmv", ...
  /// Bytes an iteration reads plus writes in memory (STREAM-style count; caches ignored).
  double bytes_per_iteration = 0.0;
  /// What an iteration range touches, for TSAR's data association on devices with their own
  /// memory. Empty when the access pattern has no TSAR association (offload is then empty).
  std::vector<Buffer> buffers;
  HostRange host;
  /// Empty when `buffers` is.
  OffloadRange offload;
  /// Empty for loops without a CUDA body (or in builds without the CUDA kernels).
  CudaRange cuda;
};

/// A kernel's result compared with its serial reference.
struct Check {
  bool ok = false;
  double error = 0.0;      ///< max |result - reference| / max(|reference|, 1)
  double tolerance = 0.0;  ///< ok when error <= tolerance
  std::string detail;      ///< where the largest difference is, or why the check failed
};

/// How a runtime runs one parallel loop: iterations [0, n) of `loop`, each exactly once, with
/// loop.host (or loop.offload) on ranges of its choice; it returns when all have finished.
using Parallel = std::function<void(const Loop& loop, std::int64_t n)>;

/// A benchmark kernel: see the top of this file.
class Kernel {
 public:
  virtual ~Kernel() = default;

  /// "gemm", "kmeans", "2mm", ... (make_kernel's names).
  virtual const char* name() const = 0;
  virtual Kind kind() const = 0;
  /// One line: what it computes and where it comes from.
  virtual const char* description() const = 0;

  /// Allocates and fills the data for `scale` and defines loops(). May be called again to
  /// change the size.
  virtual void setup(Scale scale) = 0;
  /// The problem size in words ("n=1024, 10 executions").
  virtual std::string size_text() const = 0;
  /// The parallel loops a run uses (valid after setup; stable addresses until next setup).
  const std::vector<Loop>& loops() const { return loops_; }
  /// Parallel-loop passes of one run (calls of `parallel` in run()).
  virtual std::int64_t passes_per_run() const = 0;

  /// Restores the inputs and clears the outputs, so every run computes the same result.
  virtual void reset() = 0;
  /// One run: the kernel's loops in order, each through `parallel`, with the serial steps
  /// between them on the calling thread.
  virtual void run(const Parallel& parallel) = 0;

  /// Computes the reference result with the plain serial loop nest, from the inputs as
  /// reset() leaves them (call after setup; it may reset the kernel's working data).
  virtual void compute_reference() = 0;
  /// Compares the result of the last run with the reference.
  virtual Check check() const = 0;

 protected:
  /// Sets loops() and numbers them in order.
  void set_loops(std::vector<Loop> loops) {
    loops_ = std::move(loops);
    for (std::size_t i = 0; i < loops_.size(); ++i) loops_[i].index = static_cast<int>(i);
  }

 private:
  std::vector<Loop> loops_;
};

/// Every kernel name, in the suite's order.
std::vector<std::string> kernel_names();
/// A new kernel by name (before setup); nullptr when `name` is not a kernel.
std::unique_ptr<Kernel> make_kernel(const std::string& name);
/// The trivial runtime: each loop as one range on the calling thread.
void run_serially(Kernel& kernel);

}  // namespace tsar::kernels

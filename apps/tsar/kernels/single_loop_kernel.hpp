// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the PolyBench kernels made of one loop repeated share (GEMM, SYRK, SYR2K, 2DCONV,
// 3DCONV): a run is `executions` passes of that loop over `rows` iterations, updating one
// result array in place from its initial value; the check compares that array with the
// reference. Each kernel keeps its own body, data and reference loop nest.

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"
#include "kernel.hpp"

namespace tsar::kernels {

class SingleLoopKernel : public Kernel {
 public:
  std::int64_t passes_per_run() const override { return executions_; }
  void reset() override {
    if (initial_.empty())
      std::fill(result_.begin(), result_.end(), 0.0);
    else
      result_ = initial_;
  }
  void run(const Parallel& parallel) override {
    for (int e = 0; e < executions_; ++e) parallel(loops()[0], rows_);
  }
  Check check() const override {
    return compare(result_name_, result_.data(), reference_.data(), result_.size(), tolerance_);
  }

 protected:
  /// Sets the shape of a run and the result: `initial` values (empty: zeros) of `size`
  /// elements, compared with `tolerance` under the name `name`.
  void set_result(const char* name, std::int64_t rows, int executions, std::size_t size,
                  std::vector<double> initial, double tolerance) {
    result_name_ = name;
    rows_ = rows;
    executions_ = executions;
    initial_ = std::move(initial);
    result_.assign(size, 0.0);
    reset();
    tolerance_ = tolerance;
  }
  /// "N executions", for size_text.
  std::string executions_text() const { return std::to_string(executions_) + " executions"; }

  std::int64_t rows_ = 0;
  int executions_ = 0;
  std::vector<double> initial_;    ///< the result's value before a run (empty: zeros)
  std::vector<double> result_;     ///< what the loop updates
  std::vector<double> reference_;  ///< compute_reference's result

 private:
  const char* result_name_ = "";
  double tolerance_ = 0.0;
};

}  // namespace tsar::kernels

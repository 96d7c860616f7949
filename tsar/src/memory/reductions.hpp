#pragma once
// Reductions registered with a region (thesis 5.4.4, in the manner of OpenMP 4.0 declare
// reduction): one private accumulator per worker, each on its own cache lines, set to the
// identity when a pass starts and combined into the result in worker order when it ends.

#include <cstddef>
#include <memory>
#include <vector>

#include "tsar/tsar.h"

namespace tsar::core {

class Reductions {
 public:
  explicit Reductions(int workers) : workers_(workers) {}

  /// Throws Error: TSAR_ERR_NULL, TSAR_ERR_INVALID (size 0), TSAR_ERR_REGISTERED.
  void add(void* result, const void* identity, std::size_t size, tsar_combine_fn combine,
           void* ctx);
  /// Throws Error(TSAR_ERR_UNKNOWN).
  void remove(const void* result);
  /// Worker `worker`'s accumulator for `result`, or nullptr when not registered.
  void* accumulator(const void* result, int worker) const;
  /// Sets every accumulator to its identity (start of a pass).
  void reset();
  /// Combines every worker's accumulator into each result, in worker order (end of a pass).
  void merge();
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    void* result;
    std::size_t size;
    std::size_t stride;  ///< bytes between two workers' accumulators (whole cache lines)
    std::vector<unsigned char> identity;
    tsar_combine_fn combine;
    void* ctx;
    std::unique_ptr<unsigned char[], void (*)(void*)> storage;
  };
  int workers_;
  std::vector<Entry> entries_;
};

}  // namespace tsar::core

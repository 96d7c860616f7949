// SPDX-License-Identifier: BSD-3-Clause
#include "memory/copy_costs.hpp"

namespace tsar::core {

CopyCosts copy_costs(std::span<const Registration> registrations) {
  CopyCosts costs;
  for (const Registration& reg : registrations) {
    const tsar_mem_desc& d = reg.desc;
    const bool in = (d.flags & TSAR_MEM_IN) != 0;
    const bool persistent = (d.flags & TSAR_MEM_PERSIST) != 0;
    const auto bytes = static_cast<double>(d.elem_size);
    if (d.assoc == TSAR_ASSOC_FULL) {
      if (in && !persistent) costs.fixed_bytes += bytes * static_cast<double>(d.rows * d.cols);
      continue;
    }
    if (!persistent) continue;
    // An iteration's item: a row (ROWS, and the row half of ROWS_COLS) or a column (COLS).
    const double item = bytes * static_cast<double>(d.assoc == TSAR_ASSOC_COLS ? d.rows : d.cols);
    if (in) costs.moved_bytes_per_iteration += item;
  }
  return costs;
}

}  // namespace tsar::core

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// TSAR_CHECK=1: catches the program changing a registered buffer on the host between passes
// without saying so (tsar_mem_invalidate, tsar_data_update_device). Device copies then hold
// old values and only the rows an accelerator computes go wrong -- which rows depends on the
// learned split, so the error wanders from run to run.
//
// For each row some device copy holds (valid or owned), the hash of the host's row as TSAR
// last left it is kept: recorded at the end of every pass and after every write-back, checked
// before the next pass uses the buffer. A changed row fails that pass with TSAR_ERR_STATE,
// naming the buffer, the rows and the device that holds them. The cost -- hashing the rows
// devices hold twice a pass -- is why it is a checking mode.

#include <cstdint>
#include <vector>

#include "memory/interval_set.hpp"

namespace tsar::core {

struct BufferData;

/// Whether TSAR_CHECK is set to 1 now (read when a region or data environment is made).
bool check_requested();

/// The host rows' hashes of one buffer.
struct HostRowHashes {
  std::vector<std::uint64_t> hash;  ///< per row, for rows in `known`
  IntervalSet known;
};

/// Records the host's rows `rows` of `data` as TSAR leaves them.
void record_host_rows(BufferData& data, Range rows);
/// Records every row some device copy of `data` holds.
void record_held_rows(BufferData& data);
/// Throws Error(TSAR_ERR_STATE) when a row some device copy holds differs from its record.
void verify_held_rows(const BufferData& data);

}  // namespace tsar::core

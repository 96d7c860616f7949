// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// TSAR_CHECK=1: catches the program changing a registered buffer on the host between passes
// without saying so (tsar_mem_invalidate, tsar_data_update_device). Device copies then hold
// old values and only the rows an accelerator computes go wrong -- which rows depends on the
// learned split, so the error wanders from run to run.
//
// For each row some device copy holds (valid or owned) -- each column, for the copies of
// column-associated buffers -- the hash of the host's row (column) as TSAR last left it is
// kept: recorded at the end of every pass and after every write-back, checked before the
// next pass uses the buffer. A changed row or column fails that pass with TSAR_ERR_STATE,
// naming the buffer, the rows or columns and the device that holds them. The cost --
// hashing what devices hold twice a pass -- is why it is a checking mode.
//
// It also holds TSAR_MEM_OVERWRITE to its word (the loop writes every element of its rows):
// an accelerator's rows of such an output are filled with kFillByte before its range and
// read back after it; an element still all kFillByte was not written, and the pass fails
// naming it before anything is copied back (without the check, the host would get whatever
// device memory held).

#include <cstdint>
#include <vector>

#include "devices/device.hpp"
#include "memory/interval_set.hpp"

namespace tsar::core {

struct BufferData;
struct Registration;

/// The byte a checked TSAR_MEM_OVERWRITE output's device elements start as.
inline constexpr unsigned char kFillByte = 0xA5;

/// Whether TSAR_CHECK is set to 1 now (read when a region or data environment is made).
bool check_requested();

/// Hashes of a buffer's host rows, or columns.
struct HostItemHashes {
  std::vector<std::uint64_t> hash;  ///< per row (column), for those in `known`
  IntervalSet known;
};
/// The host contents of one buffer as TSAR last left them: rows, and the columns that copies
/// of COLS and ROWS_COLS registrations hold whole.
struct HostHashes {
  HostItemHashes rows, cols;
};

/// Records the host's rows `rows` of `data` as TSAR leaves them.
void record_host_rows(BufferData& data, Range rows);
/// Records every row and column some device copy of `data` holds; `assoc`: the association
/// of its registration (what a copy's items are: rows, or columns of COLS).
void record_held(BufferData& data, int assoc);
/// Throws Error(TSAR_ERR_STATE) when a row or column some device copy holds differs from its
/// record. `assoc` as for record_held.
void verify_held(const BufferData& data, int assoc);

/// Fills the elements `to_device` (a rectangle copy from a packed host buffer) covers in
/// device buffer `dev` with kFillByte and waits for the copy. `scratch`: the caller's buffer.
void fill_unwritten(Device& device, void* dev, const RectCopy& to_device,
                    std::vector<unsigned char>& scratch);
/// Reads the elements `from_device` covers of `dev` back into a packed buffer (waits for the
/// copy) and throws Error(TSAR_ERR_STATE) naming the first element whose bytes are all
/// kFillByte. `items`: the rows (COLS: columns) of `reg` the rectangle holds, for the message.
void verify_written(const Registration& reg, Device& device, const void* dev,
                    const RectCopy& from_device, Range items, std::vector<unsigned char>& scratch);

}  // namespace tsar::core

// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/share_probe.hpp"

#include <algorithm>
#include <bit>

namespace tsar::core {
namespace {

std::size_t slot(ShareMode mode) { return static_cast<std::size_t>(mode); }

}  // namespace

const char* share_mode_name(ShareMode mode) {
  switch (mode) {
    case ShareMode::kOwn:
      return "own";
    case ShareMode::kSteal:
      return "steal";
    case ShareMode::kChunks:
      return "chunks";
  }
  return "?";
}

int ShareProbe::band_of(std::int64_t n) {
  return n <= 1 ? 0 : std::bit_width(static_cast<std::uint64_t>(n)) - 1;
}

const ShareProbe::Band* ShareProbe::find(std::int64_t n) const {
  const std::uint8_t s = slot_[static_cast<std::size_t>(band_of(n))];
  return s == 0 ? nullptr : &bands_[s - 1u];
}

ShareMode ShareProbe::mode(std::int64_t n) const {
  const Band* band = find(n);
  return band ? band->mode() : ShareMode::kSteal;  // a band not seen yet: its warm-up
}

ShareMode ShareProbe::decided(std::int64_t n) const {
  const Band* band = find(n);
  return band ? band->decided : ShareMode::kSteal;
}

bool ShareProbe::probing(std::int64_t n) const {
  const Band* band = find(n);
  return band && band->phase == Phase::kProbing;
}

void ShareProbe::record(double seconds, std::int64_t n) {
  std::uint8_t& s = slot_[static_cast<std::size_t>(band_of(n))];
  if (s == 0) {
    // At most kBands entries, each made once: no allocation once a region's sizes were seen.
    if (bands_.empty()) bands_.reserve(4);
    bands_.emplace_back();
    s = static_cast<std::uint8_t>(bands_.size());
  }
  bands_[s - 1u].record(seconds, n);
}

ShareMode ShareProbe::probe_mode(int index) {
  static constexpr ShareMode kBlocks[] = {ShareMode::kSteal,  ShareMode::kOwn, ShareMode::kChunks,
                                          ShareMode::kChunks, ShareMode::kOwn, ShareMode::kSteal};
  return kBlocks[index / kBlockPasses];
}

ShareMode ShareProbe::Band::mode() const {
  switch (phase) {
    case Phase::kWarmup:
      return ShareMode::kSteal;
    case Phase::kProbing:
      return probe_mode(count);
    case Phase::kHolding:
      return decided;
  }
  return ShareMode::kSteal;
}

void ShareProbe::Band::record(double seconds, std::int64_t n) {
  const ShareMode ran = mode();
  const bool changed = ran != last;
  last = ran;
  switch (phase) {
    case Phase::kWarmup:
      if (++count >= kWarmupPasses) {
        phase = Phase::kProbing;
        count = 0;
      }
      return;
    case Phase::kProbing:
      if (int& size = sizes[slot(ran)]; !changed && n > 0 && seconds > 0.0 && size < kMaxSamples)
        samples[slot(ran)][static_cast<std::size_t>(size++)] = seconds / static_cast<double>(n);
      if (++count % kBlockPasses == 0) drop_losing_ways();
      if (count >= kProbePasses) decide();
      return;
    case Phase::kHolding:
      if (++count >= kHoldPasses << doublings) {
        phase = Phase::kProbing;
        count = 0;
      }
      return;
  }
}

double ShareProbe::Band::median(ShareMode way) {
  auto& s = samples[slot(way)];
  const auto mid = s.begin() + sizes[slot(way)] / 2;
  std::nth_element(s.begin(), mid, s.begin() + sizes[slot(way)]);
  return *mid;
}

void ShareProbe::Band::drop_losing_ways() {
  const int block = count / kBlockPasses - 1;  // the block that just ended
  const ShareMode ended = probe_mode(block * kBlockPasses);
  bool first = true;  // the way's first block
  for (int b = 0; b < block; ++b) first = first && probe_mode(b * kBlockPasses) != ended;
  if (first && ended != ShareMode::kSteal && sizes[slot(ShareMode::kSteal)] > 0 &&
      sizes[slot(ended)] > 0 && median(ended) > (1.0 + kMargin) * median(ShareMode::kSteal)) {
    dropped[slot(ended)] = true;
    sizes[slot(ended)] = 0;
  }
  while (count < kProbePasses && dropped[slot(probe_mode(count))]) count += kBlockPasses;
}

void ShareProbe::Band::decide() {
  phase = Phase::kHolding;
  count = 0;
  const ShareMode before = decided;
  // Nothing measured with stealing: the last decision stands.
  if (sizes[slot(ShareMode::kSteal)] > 0) {
    double best = (1.0 - kMargin) * median(ShareMode::kSteal);
    decided = ShareMode::kSteal;
    for (ShareMode other : {ShareMode::kOwn, ShareMode::kChunks}) {
      if (sizes[slot(other)] == 0) continue;
      if (const double m = median(other); m < best) {
        best = m;
        decided = other;
      }
    }
  }
  sizes = {};
  dropped = {};
  doublings = decided == before ? std::min(doublings + 1, kMaxHoldDoublings) : 0;
}

}  // namespace tsar::core

// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/share_probe.hpp"

#include <algorithm>

#include "schedule/upper_median.hpp"

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

ShareProbe::ShareProbe() {
  for (auto& s : samples_) s.reserve(kProbePasses);
}

ShareMode ShareProbe::probe_mode(int index) {
  static constexpr ShareMode kBlocks[] = {ShareMode::kSteal,  ShareMode::kOwn, ShareMode::kChunks,
                                          ShareMode::kChunks, ShareMode::kOwn, ShareMode::kSteal};
  return kBlocks[index / kBlockPasses];
}

ShareMode ShareProbe::mode() const {
  switch (phase_) {
    case Phase::kWarmup:
      return ShareMode::kSteal;
    case Phase::kProbing:
      return probe_mode(count_);
    case Phase::kHolding:
      return decided_;
  }
  return ShareMode::kSteal;
}

void ShareProbe::record(double seconds, std::int64_t n) {
  const ShareMode ran = mode();
  const bool changed = ran != last_;
  last_ = ran;
  switch (phase_) {
    case Phase::kWarmup:
      if (++count_ >= kWarmupPasses) {
        phase_ = Phase::kProbing;
        count_ = 0;
      }
      return;
    case Phase::kProbing:
      if (!changed && n > 0 && seconds > 0.0)
        samples_[slot(ran)].push_back(seconds / static_cast<double>(n));
      if (++count_ % kBlockPasses == 0) drop_losing_ways();
      if (count_ >= kProbePasses) decide();
      return;
    case Phase::kHolding:
      if (++count_ >= kHoldPasses << doublings_) {
        phase_ = Phase::kProbing;
        count_ = 0;
      }
      return;
  }
}

void ShareProbe::drop_losing_ways() {
  auto& steal = samples_[slot(ShareMode::kSteal)];
  const int block = count_ / kBlockPasses - 1;  // the block that just ended
  const ShareMode ended = probe_mode(block * kBlockPasses);
  bool first = true;  // the way's first block
  for (int b = 0; b < block; ++b) first = first && probe_mode(b * kBlockPasses) != ended;
  if (first && ended != ShareMode::kSteal && !steal.empty()) {
    auto& s = samples_[slot(ended)];
    if (!s.empty() && upper_median(s) > (1.0 + kMargin) * upper_median(steal)) {
      dropped_[slot(ended)] = true;
      s.clear();
    }
  }
  while (count_ < kProbePasses && dropped_[slot(probe_mode(count_))]) count_ += kBlockPasses;
}

void ShareProbe::decide() {
  phase_ = Phase::kHolding;
  count_ = 0;
  const ShareMode before = decided_;
  auto& steal = samples_[slot(ShareMode::kSteal)];
  // Nothing measured with stealing: the last decision stands.
  if (!steal.empty()) {
    double best = (1.0 - kMargin) * upper_median(steal);
    decided_ = ShareMode::kSteal;
    for (ShareMode other : {ShareMode::kOwn, ShareMode::kChunks}) {
      auto& s = samples_[slot(other)];
      if (s.empty()) continue;
      if (const double m = upper_median(s); m < best) {
        best = m;
        decided_ = other;
      }
    }
  }
  for (auto& s : samples_) s.clear();
  dropped_ = {};
  doublings_ = decided_ == before ? std::min(doublings_ + 1, kMaxHoldDoublings) : 0;
}

}  // namespace tsar::core

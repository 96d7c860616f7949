// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Locality (thesis 3.2.2 symptom 3, 3.3.1): ranks that exchange many bytes should share a
// cache, or at least a NUMA node; ranks with heavy off-node traffic should sit close to the
// core that does the protocol processing (the core with the most interrupt time, else the
// NIC's local cores).
//
// Model: moving one byte between two cores costs a time that grows with their distance
// (kSecondsPerByte: shared L1/L2, shared L3, same NUMA node, other NUMA node of the package,
// other package), a rough memory-copy figure per class. A mapping's cost is the sum over
// rank pairs of bytes exchanged times that price; the gain is the saved cost as a share of
// the ranks' total time. With PAPI cache misses per rank the metric checks that the moved
// ranks really miss more than the median; without counters (usual in VMs) the byte matrix
// alone drives it, at lower confidence, and the evidence says so.

#include <array>

#include "symmer/analysis/metric.hpp"

namespace symmer::analysis {

class LocalityMetric final : public Metric {
 public:
  /// Price of moving one byte by distance class: shared L1/L2, shared L3 (or deeper), same
  /// NUMA node without a shared cache, another NUMA node of the same package, another
  /// package. Roughly 1 / copy bandwidth of 20, 10, 5, 3.3 and 2.5 GB/s.
  static constexpr std::array<double, 5> kSecondsPerByte = {0.05e-9, 0.10e-9, 0.20e-9, 0.30e-9,
                                                            0.40e-9};
  /// A pair whose traffic reaches this rate and shares no cache shows the symptom.
  static constexpr double kHeavyBytesPerSecond = 64.0 * 1024 * 1024;
  /// A core whose interrupt share reaches this is taken as the protocol-processing core.
  static constexpr double kProtocolCoreIrqShare = 0.05;
  /// Confidence factor when no cache-miss counters back the byte matrix.
  static constexpr double kBytesOnlyConfidence = 0.85;

  std::string_view name() const override { return "locality"; }
  MetricResult evaluate(const MetricContext& context) const override;
  double predict(const MetricContext& context, std::span<const Move> moves) const override;
};

}  // namespace symmer::analysis

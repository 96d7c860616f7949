// SPDX-License-Identifier: BSD-3-Clause
// The segment layout: sizes, offsets, alignment, command/ack words, names.
#include "symmer/segment/layout.hpp"

#include <gtest/gtest.h>

#include "symmer/segment/naming.hpp"

namespace symmer::segment {
namespace {

TEST(SegmentLayout, SlotsAreCacheLineAlignedAndSizedForTheirPeers) {
  for (std::uint64_t ranks : {1, 2, 3, 16, 255, 4096}) {
    for (std::uint64_t buckets : {1, 2, 7, 1024}) {
      const std::uint64_t slot = slot_bytes(ranks, buckets);
      EXPECT_EQ(slot % kCacheLine, 0u);
      EXPECT_GE(slot, kSlotPeersOffset + (ranks + buckets) * sizeof(PeerCounters));
      EXPECT_LT(slot, kSlotPeersOffset + (ranks + buckets) * sizeof(PeerCounters) + kCacheLine);
      EXPECT_EQ(slots_offset(buckets) % kCacheLine, 0u);
      EXPECT_GE(slots_offset(buckets),
                kSummariesOffset + sizeof(SummaryArea) + buckets * sizeof(NodeSummary));
      EXPECT_EQ(segment_bytes(ranks, buckets), slots_offset(buckets) + ranks * slot);
    }
  }
  // The control words and the target set the analyzer writes never share a cache line with
  // what the rank publishes.
  EXPECT_EQ(kSlotControlOffset % kCacheLine, 0u);
  EXPECT_EQ(kSlotTargetOffset % kCacheLine, 0u);
  EXPECT_EQ(kSlotPlacementOffset % kCacheLine, 0u);
  EXPECT_EQ(kSlotCountersOffset % kCacheLine, 0u);
  EXPECT_EQ(kSlotPlacementOffset - kSlotControlOffset, sizeof(SlotControl) + sizeof(SlotTarget));
}

TEST(SegmentLayout, CommandWordRoundTrips) {
  for (Command c : {Command{1, CommandKind::kBind}, Command{7, CommandKind::kWriting},
                    Command{0xffffffffu, CommandKind::kBind}, Command{0, CommandKind::kNone}}) {
    const Command d = decode_command(encode_command(c));
    EXPECT_EQ(d.generation, c.generation);
    EXPECT_EQ(d.kind, c.kind);
  }
}

TEST(SegmentLayout, CpuMasksHoldLinuxCpuNumbers) {
  const std::vector<int> cpus = {0, 1, 63, 64, 500, kMaxSegmentCpus - 1};
  const CpuMask m = mask_of(cpus);
  EXPECT_EQ(mask_cpus(m), cpus);
  EXPECT_EQ(mask_count(m), 6);
  EXPECT_TRUE(mask_has(m, 64));
  EXPECT_FALSE(mask_has(m, 2));
  EXPECT_FALSE(mask_has(m, -1));
  EXPECT_FALSE(mask_has(m, kMaxSegmentCpus));
  // CPUs a mask cannot hold are left out, not wrapped onto others.
  EXPECT_EQ(mask_cpus(mask_of(std::vector<int>{-1, 3, kMaxSegmentCpus})), std::vector<int>{3});
  EXPECT_TRUE(mask_cpus(CpuMask{}).empty());
}

TEST(SegmentLayout, AckWordRoundTrips) {
  for (Ack a : {Ack{1, AckStatus::kOk, 0}, Ack{9, AckStatus::kNotAllowed, 1023},
                Ack{0xfffffffeu, AckStatus::kFailed, -1}, Ack{0, AckStatus::kNone, -1}}) {
    const Ack d = decode_ack(encode_ack(a));
    EXPECT_EQ(d.generation, a.generation);
    EXPECT_EQ(d.status, a.status);
    EXPECT_EQ(d.cpu, a.cpu);
  }
  EXPECT_EQ(decode_ack(0).status, AckStatus::kNone);
  EXPECT_EQ(decode_ack(0).cpu, -1);
}

TEST(SegmentNaming, FileNamesRoundTrip) {
  const std::string name = segment_file_name(1000, 0x00ab00cd00ef0012ull, 7);
  EXPECT_EQ(name, "symmer-1000-00ab00cd00ef0012-7");
  const auto parsed = parse_segment_file_name(name);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->uid, 1000u);
  EXPECT_EQ(parsed->job_id, 0x00ab00cd00ef0012ull);
  EXPECT_EQ(parsed->node_id, 7u);
}

TEST(SegmentNaming, OtherNamesAreNotSegments) {
  for (const char* bad : {"", "symmer-", "symmer-1000", "symmer-x-00ab00cd00ef0012-7",
                          "symmer-1000-ab-7", "symmer-1000-00ab00cd00ef0012-", "other-1-2-3",
                          "symmer-1000-00ab00cd00ef0012-7x", "symmer-1000-00ab00cd00ef00zz-7"})
    EXPECT_FALSE(parse_segment_file_name(bad)) << bad;
}

}  // namespace
}  // namespace symmer::segment

// SPDX-License-Identifier: BSD-3-Clause
// C++ handles that outlive their region: a Mapped or Reduction declared before its Region
// (so destroyed after it) must not unregister through the freed region in its destructor (a
// use after free ASan would report); it does nothing, and its calls say why. Run under the
// asan preset too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "tsar/tsar.hpp"

namespace {

using ::testing::HasSubstr;

class CppHandles : public ::testing::Test {
 protected:
  void SetUp() override { tsar::set_devices("cpu:0,cpu:0"); }
  void TearDown() override { tsar::set_devices(""); }
  std::vector<double> x = std::vector<double>(100, 1.0);
  double sum = 0.0;
};

TEST_F(CppHandles, HandlesDeclaredBeforeTheirRegionAreHarmless) {
  tsar::Mapped<double> xs;
  tsar::Reduction<double> total;
  {
    tsar::Region region("outlived", "static");
    xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
    total = region.reduction(sum, 0.0, [](double a, double b) { return a + b; });
    region.parallel_for(100, [&](const tsar::Chunk& c) {
      for (auto i = c.begin(); i < c.end(); ++i) c.local(total) += c.ptr(xs)[i];
    });
  }
  EXPECT_EQ(sum, 100.0);
  try {
    xs.sync();
    ADD_FAILURE() << "a call through a freed region";
  } catch (const tsar::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_STATE);
    EXPECT_THAT(e.what(), HasSubstr("the region it was registered with is gone"));
  }
}  // xs and total go here, after their region

TEST_F(CppHandles, HandlesFollowAMovedRegion) {
  tsar::Region first("moved", "static");
  auto xs = first.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
  tsar::Region second = std::move(first);
  EXPECT_NO_THROW(xs.invalidate());  // registered with the region `second` now holds
  // Re-registering the buffer works once the handle let it go.
  xs = {};
  auto again = second.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
  // A region assigned over: the handles of the region it replaced become inert.
  second = tsar::Region("replacement", "static");
  EXPECT_THROW(again.sync(), tsar::Error);
  auto fresh = second.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
  EXPECT_NO_THROW(fresh.sync());
}

// Host memory for DMA copies: aligned, writable, freed; page-locked only where a GPU is (on
// the GPU nodes, tsar-bench-translate copies from it at the hand-written ports' speed).
TEST(HostMemory, AllocationsAreAlignedUsableAndFreed) {
  EXPECT_EQ(tsar_host_alloc(0), nullptr);
  EXPECT_EQ(tsar_host_alloc(SIZE_MAX - 8), nullptr);
  tsar_host_free(nullptr);
  for (std::size_t bytes : {std::size_t{1}, std::size_t{100}, std::size_t{1} << 22}) {
    auto* p = static_cast<unsigned char*>(tsar_host_alloc(bytes));
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
    std::fill_n(p, bytes, 0xab);
    EXPECT_EQ(p[bytes - 1], 0xab);
    tsar_host_free(p);
  }
  std::vector<double, tsar::HostAllocator<double>> v(1000, 2.0);
  v.resize(5000, 3.0);
  EXPECT_EQ(v[999] + v[4999], 5.0);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 64, 0u);
}

}  // namespace

// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "kernel.hpp"
#include "tsar/tsar.h"

namespace tk = tsar::kernels;

namespace {

std::unique_ptr<tk::Kernel> tiny(const std::string& name) {
  auto k = tk::make_kernel(name);
  EXPECT_NE(k, nullptr) << name;
  k->setup(tk::Scale::tiny);
  k->compute_reference();
  k->reset();
  return k;
}

/// Uneven ranges (1, 2, 3, ... iterations) run in reverse order.
void run_scrambled(tk::Kernel& k) {
  k.run([](const tk::Loop& loop, std::int64_t n) {
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (std::int64_t b = 0, len = 1; b < n; b += len, ++len)
      ranges.emplace_back(b, std::min(n, b + len));
    std::reverse(ranges.begin(), ranges.end());
    for (auto [b, e] : ranges) loop.host(b, e);
  });
}

class EveryKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryKernel, SerialRunMatchesTheReference) {
  auto k = tiny(GetParam());
  tk::run_serially(*k);
  const auto c = k->check();
  EXPECT_TRUE(c.ok) << c.detail << " error " << c.error;
  EXPECT_GT(k->passes_per_run(), 0);
  EXPECT_FALSE(k->size_text().empty());
}

TEST_P(EveryKernel, AnySplitGivesTheSameResult) {
  auto k = tiny(GetParam());
  run_scrambled(*k);
  const auto c = k->check();
  EXPECT_TRUE(c.ok) << c.detail << " error " << c.error;
}

TEST_P(EveryKernel, ResetMakesRunsRepeatable) {
  auto k = tiny(GetParam());
  tk::run_serially(*k);
  k->reset();
  tk::run_serially(*k);
  EXPECT_TRUE(k->check().ok) << k->check().detail;
}

TEST_P(EveryKernel, AMissingRangeFailsTheCheck) {
  auto k = tiny(GetParam());
  // Every loop skips its middle iteration: some output must then differ from the reference.
  k->run([](const tk::Loop& loop, std::int64_t n) {
    loop.host(0, n / 2);
    loop.host(std::min(n, n / 2 + 1), n);
  });
  EXPECT_FALSE(k->check().ok);
}

TEST_P(EveryKernel, LoopsAreNumberedAndDescribed) {
  auto k = tiny(GetParam());
  ASSERT_FALSE(k->loops().empty());
  for (std::size_t i = 0; i < k->loops().size(); ++i) {
    const auto& loop = k->loops()[i];
    EXPECT_EQ(loop.index, static_cast<int>(i));
    EXPECT_EQ(loop.name.rfind(k->name(), 0), 0u) << loop.name << " is not named after its kernel";
    EXPECT_GT(loop.bytes_per_iteration, 0.0);
    EXPECT_TRUE(static_cast<bool>(loop.host));
    EXPECT_EQ(static_cast<bool>(loop.offload), !loop.buffers.empty());
  }
}

TEST_P(EveryKernel, BuffersRegisterWithTsarAndTsarRunsTheKernel) {
  auto k = tiny(GetParam());
  ASSERT_EQ(tsar_set_devices("cpu:0,cpu:0"), TSAR_OK);
  std::map<int, tsar_region*> regions;
  for (const auto& loop : k->loops()) {
    tsar_region* r = nullptr;
    ASSERT_EQ(tsar_init(&r, loop.name.c_str(), "chunk:3", TSAR_DEVICE_CPU, nullptr, 0, 0), TSAR_OK);
    for (const auto& b : loop.buffers)
      EXPECT_EQ(tsar_reg_mem_desc(r, b.host, &b.desc), TSAR_OK)
          << loop.name << " buffer " << b.name << ": " << tsar_last_error();
    regions[loop.index] = r;
  }
  k->run([&](const tk::Loop& loop, std::int64_t n) {
    ASSERT_EQ(tsar_run(
                  regions[loop.index], n,
                  [](const tsar_chunk* c, void* arg) {
                    static_cast<const tk::Loop*>(arg)->host(c->begin, c->end);
                  },
                  const_cast<tk::Loop*>(&loop)),
              TSAR_OK)
        << tsar_last_error();
  });
  const auto c = k->check();
  EXPECT_TRUE(c.ok) << c.detail;
  for (auto& [index, r] : regions) tsar_free(r);
  tsar_set_devices(nullptr);
}

TEST_P(EveryKernel, DeviceBodiesMatchTheReferenceOnTheInitialDevice) {
  auto k = tiny(GetParam());
  // The initial device shares host memory: the translation is the identity.
  const tk::Translate same = [](const void* p) { return const_cast<void*>(p); };
  k->run([&](const tk::Loop& loop, std::int64_t n) {
    if (loop.offload)
      loop.offload(0, n, omp_get_initial_device(), same);
    else
      loop.host(0, n);
  });
  EXPECT_TRUE(k->check().ok) << k->check().detail;
}

TEST_P(EveryKernel, DeviceBodiesReadTheTranslatedPointers) {
  auto k = tiny(GetParam());
  // Each device range runs on copies at other addresses: the body must use the translated
  // pointers only. Copies of every buffer stand for the device's memory.
  bool any = false;
  k->run([&](const tk::Loop& loop, std::int64_t n) {
    if (!loop.offload) {
      loop.host(0, n);
      return;
    }
    any = true;
    std::vector<std::vector<unsigned char>> copies;
    std::map<const void*, void*> where;
    for (const auto& b : loop.buffers) {
      const std::size_t stride = b.desc.row_stride ? b.desc.row_stride : b.desc.cols;
      const std::size_t bytes = b.desc.elem_size * stride * b.desc.rows;
      auto* host = static_cast<unsigned char*>(b.host);
      copies.emplace_back(host, host + bytes);
      where[b.host] = copies.back().data();
    }
    // Like tsar_mem: nullptr for what the loop did not register (a body touching it crashes).
    const tk::Translate to_copy = [&](const void* p) -> void* {
      const auto it = where.find(p);
      return it == where.end() ? nullptr : it->second;
    };
    loop.offload(0, n, omp_get_initial_device(), to_copy);
    for (const auto& b : loop.buffers) {
      if ((b.desc.flags & TSAR_MEM_OUT) == 0) continue;
      const auto& copy = copies[static_cast<std::size_t>(&b - loop.buffers.data())];
      std::copy(copy.begin(), copy.end(), static_cast<unsigned char*>(b.host));
    }
  });
  if (any) {
    EXPECT_TRUE(k->check().ok) << k->check().detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, EveryKernel, ::testing::ValuesIn(tk::kernel_names()),
                         [](const auto& param_info) {
                           std::string s = param_info.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return "k_" + s;
                         });

TEST(KernelList, NamesAreUniqueAndUnknownNamesGiveNull) {
  auto names = tk::kernel_names();
  EXPECT_EQ(names.size(), 23u);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  EXPECT_EQ(tk::make_kernel("no-such-kernel"), nullptr);
}

TEST(KernelList, ScalesParseByName) {
  tk::Scale s{};
  EXPECT_TRUE(tk::parse_scale("quick", s));
  EXPECT_EQ(s, tk::Scale::quick);
  EXPECT_FALSE(tk::parse_scale("huge", s));
}

}  // namespace

// SPDX-License-Identifier: BSD-3-Clause
// /proc/stat, /proc/interrupts and /proc/softirqs parsers on real captures, hand-written
// snapshots in several kernels' formats, corrupt files, and every truncation of real files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "proc_fixtures.hpp"
#include "symmer/topology/proc_interrupts.hpp"
#include "symmer/topology/proc_reader.hpp"
#include "symmer/topology/proc_softirqs.hpp"
#include "symmer/topology/proc_stat.hpp"

namespace {

using namespace symmer::topology;
using symmer::Errc;
using symmer::topology::testing::proc_fixture;
using symmer::topology::testing::read_text;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- /proc/stat ---------------------------------------------------------------------------

TEST(ProcStat, RealCaptureOfThisVm) {
  auto s = parse_proc_stat(read_text(proc_fixture("vm-2cpu/a/stat")));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->cpus.size(), 2u);
  const CpuTimes& c0 = s->cpus.at(0);  // "cpu0 12218 0 1820 52873 110 0 82 442 0 0"
  EXPECT_EQ(c0.user, 12218u);
  EXPECT_EQ(c0.system, 1820u);
  EXPECT_EQ(c0.idle, 52873u);
  EXPECT_EQ(c0.iowait, 110u);
  EXPECT_EQ(c0.softirq, 82u);
  EXPECT_EQ(c0.steal, 442u);
  EXPECT_EQ(c0.total(), 12218u + 1820 + 52873 + 110 + 82 + 442);
  EXPECT_EQ(s->all.user, 28437u);
}

TEST(ProcStat, OldKernelWithFourColumns) {
  auto s = parse_proc_stat("cpu 10 0 5 100\ncpu0 10 0 5 100\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cpus.at(0).idle, 100u);
  EXPECT_EQ(s->cpus.at(0).steal, 0u);
}

TEST(ProcStat, SparseCpuNumbersStayLinuxNumbers) {
  auto s = parse_proc_stat("cpu 2 0 0 2\ncpu0 1 0 0 1\ncpu7 1 0 0 1\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cpus.count(7), 1u);
  EXPECT_EQ(s->cpus.count(1), 0u);
}

struct CorruptCase {
  const char* file;
  const char* message;
};

// "stat-truncated-line" -> "stat_truncated_line", so ctest lists each case by its fixture.
std::string case_name(const ::testing::TestParamInfo<CorruptCase>& info) {
  std::string name = info.param.file;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

class CorruptProcStat : public ::testing::TestWithParam<CorruptCase> {};

TEST_P(CorruptProcStat, IsAParseErrorNamingTheProblem) {
  auto s = parse_proc_stat(read_text(proc_fixture(std::string("corrupt/") + GetParam().file)));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::kParse);
  EXPECT_THAT(s.error().message, HasSubstr(GetParam().message));
  EXPECT_THAT(s.error().message, HasSubstr("/proc/stat"));
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, CorruptProcStat,
    ::testing::Values(CorruptCase{"stat-truncated-line", "line 3: fewer than 4"},
                      CorruptCase{"stat-no-cpu-lines", "no aggregate 'cpu' line"},
                      CorruptCase{"stat-duplicate-cpu", "CPU 0 appears twice"},
                      CorruptCase{"stat-negative", "line 2: column 3 is not a number"},
                      CorruptCase{"stat-overflow", "column 4 is not a number"},
                      CorruptCase{"stat-bad-cpu-name", "bad CPU name 'cpuX'"},
                      CorruptCase{"empty", "no aggregate"},
                      CorruptCase{"binary-garbage", "/proc/stat"}),
    case_name);

// --- /proc/interrupts ---------------------------------------------------------------------

TEST(ProcInterrupts, RealCaptureOfThisVm) {
  auto s = parse_proc_interrupts(read_text(proc_fixture("vm-2cpu/a/interrupts")));
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_THAT(s->cpus, ElementsAre(0, 1));
  const IrqLine* input = nullptr;
  for (const auto& l : s->lines)
    if (l.id == "38") input = &l;
  ASSERT_NE(input, nullptr);
  EXPECT_TRUE(input->is_device);
  EXPECT_THAT(input->counts, ElementsAre(0u, 345u));
  EXPECT_EQ(input->description, "PCI-MSIX-0000:00:03.0 1-edge virtio2-input.0");
  EXPECT_THAT(input->actions, ElementsAre("virtio2-input.0"));
  const IrqLine& err = *std::find_if(s->lines.begin(), s->lines.end(),
                                     [](const IrqLine& l) { return l.id == "ERR"; });
  EXPECT_FALSE(err.is_device);
  EXPECT_TRUE(err.counts.empty());
  EXPECT_EQ(err.total, 0u);
}

TEST(ProcInterrupts, FormatsOfSeveralKernels) {
  auto s = parse_proc_interrupts(read_text(proc_fixture("synthetic-4cpu/a/interrupts")));
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_THAT(s->cpus, ElementsAre(0, 1, 2, 3));
  std::map<std::string, const IrqLine*> by_id;
  for (const auto& l : s->lines) by_id[l.id] = &l;
  EXPECT_THAT(by_id.at("24")->actions, ElementsAre("mlx5_comp0@pci:0000:3b:00.0"));
  EXPECT_THAT(by_id.at("16")->actions, ElementsAre("ehci_hcd:usb1", "uhci_hcd:usb2"));
  EXPECT_THAT(by_id.at("0")->actions, ElementsAre("timer"));
  EXPECT_EQ(by_id.at("24")->total, 120000u);
  EXPECT_THAT(by_id.at("LOC")->counts, ElementsAre(10000u, 10000u, 10000u, 10000u));
  EXPECT_TRUE(by_id.at("LOC")->actions.empty());
  EXPECT_EQ(by_id.at("LOC")->description, "Local timer interrupts");
}

TEST(ProcInterrupts, ArmGicLevelColumnAndLegacyX86ChipNames) {
  auto arm = parse_proc_interrupts(
      "           CPU0       CPU1\n"
      " 11:       5000       4000     GICv3  27 Level     arch_timer\n"
      " 45:        100          0     ITS-MSI 524288 Edge      eth0-rx-0\n");
  ASSERT_TRUE(arm) << arm.error().to_string();
  EXPECT_THAT(arm->lines[0].actions, ElementsAre("arch_timer"));
  EXPECT_THAT(arm->lines[1].actions, ElementsAre("eth0-rx-0"));
  auto old = parse_proc_interrupts(
      "           CPU0\n"
      "  0:        127   IO-APIC-edge      timer\n"
      " 58:       9999   PCI-MSI-edge      eth0-TxRx-3\n"
      " 61:          0   xen-pirq    -ioapic-level  acpi\n");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_THAT(old->lines[1].actions, ElementsAre("eth0-TxRx-3"));
  EXPECT_THAT(old->lines[2].actions, ElementsAre("acpi"));
}

TEST(ProcInterrupts, UnusedLineHasNoHandler) {
  auto s = parse_proc_interrupts("   CPU0 CPU1\n 7:  0  0  IR-PCI-MSI 1-edge\n");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->lines[0].actions.empty());
}

class CorruptProcInterrupts : public ::testing::TestWithParam<CorruptCase> {};

TEST_P(CorruptProcInterrupts, IsAParseErrorNamingTheProblem) {
  auto s =
      parse_proc_interrupts(read_text(proc_fixture(std::string("corrupt/") + GetParam().file)));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::kParse);
  EXPECT_THAT(s.error().message, HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, CorruptProcInterrupts,
    ::testing::Values(CorruptCase{"interrupts-no-header", "expected a header of CPU<n> columns"},
                      CorruptCase{"interrupts-truncated-counts",
                                  "line 3: interrupt 24 has 2 counts for 4 CPUs"},
                      CorruptCase{"interrupts-truncated-id", "line 3: no ':'"},
                      CorruptCase{"interrupts-unordered-header", "not in increasing order"},
                      CorruptCase{"empty", "empty"}, CorruptCase{"binary-garbage", "line 1"}),
    case_name);

// --- /proc/softirqs -----------------------------------------------------------------------

TEST(ProcSoftirqs, RealCaptureOfThisVm) {
  auto s = parse_proc_softirqs(read_text(proc_fixture("vm-2cpu/a/softirqs")));
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_THAT(s->cpus, ElementsAre(0, 1));
  EXPECT_EQ(s->counts.size(), 10u);
  EXPECT_EQ(s->count("NET_RX", 0), 394u);
  EXPECT_EQ(s->count("NET_RX", 1), 542u);
  EXPECT_EQ(s->count("NET_RX", 2), 0u) << "no such CPU";
  EXPECT_EQ(s->count("NO_SUCH", 0), 0u);
}

class CorruptProcSoftirqs : public ::testing::TestWithParam<CorruptCase> {};

TEST_P(CorruptProcSoftirqs, IsAParseErrorNamingTheProblem) {
  auto s = parse_proc_softirqs(read_text(proc_fixture(std::string("corrupt/") + GetParam().file)));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::kParse);
  EXPECT_THAT(s.error().message, HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, CorruptProcSoftirqs,
    ::testing::Values(CorruptCase{"softirqs-short-line", "line 3: 2 counts for 4 CPUs"},
                      CorruptCase{"softirqs-not-a-number", "line 2: count 2 is not a number"},
                      CorruptCase{"empty", "empty"}, CorruptCase{"binary-garbage", "line 1"}),
    case_name);

// --- Truncations and mutations of real files never crash ------------------------------------

// Every prefix of every real file parses to a value or an error; values stay consistent.
TEST(ProcParsers, EveryTruncationOfRealFilesIsAValueOrAnError) {
  for (const char* capture : {"vm-2cpu/a", "synthetic-4cpu/b"}) {
    const std::string dir = proc_fixture(capture);
    const std::string stat = read_text(dir + "/stat");
    const std::string interrupts = read_text(dir + "/interrupts");
    const std::string softirqs = read_text(dir + "/softirqs");
    for (size_t n = 0; n <= stat.size(); ++n) {
      auto s = parse_proc_stat(std::string_view(stat).substr(0, n));
      if (s) {
        EXPECT_FALSE(s->cpus.empty());
      }
    }
    for (size_t n = 0; n <= interrupts.size(); ++n) {
      auto s = parse_proc_interrupts(std::string_view(interrupts).substr(0, n));
      if (!s) continue;
      for (const IrqLine& l : s->lines) {
        if (l.is_device) {
          EXPECT_EQ(l.counts.size(), s->cpus.size()) << "prefix " << n;
        }
      }
    }
    for (size_t n = 0; n <= softirqs.size(); ++n) {
      auto s = parse_proc_softirqs(std::string_view(softirqs).substr(0, n));
      if (!s) continue;
      for (const auto& [kind, counts] : s->counts) EXPECT_EQ(counts.size(), s->cpus.size());
    }
  }
}

// Random byte mutations of real files (fixed seed): no crash, no exception.
TEST(ProcParsers, RandomMutationsOfRealFilesNeverThrow) {
  std::mt19937 rng(20240611);
  const std::string dir = proc_fixture("vm-2cpu/b");
  for (const char* name : {"stat", "interrupts", "softirqs"}) {
    const std::string original = read_text(dir + "/" + name);
    for (int round = 0; round < 500; ++round) {
      std::string text = original;
      const int edits = 1 + static_cast<int>(rng() % 8);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng() % text.size();
        switch (rng() % 3) {
          case 0:
            text[at] = static_cast<char>(rng() % 256);
            break;
          case 1:
            text.erase(at, 1 + rng() % 16);
            break;
          default:
            text.insert(at, std::string(1 + rng() % 4, static_cast<char>(rng() % 256)));
        }
      }
      EXPECT_NO_THROW({
        (void)parse_proc_stat(text);
        (void)parse_proc_interrupts(text);
        (void)parse_proc_softirqs(text);
      });
    }
  }
}

// --- ProcReader ---------------------------------------------------------------------------

TEST(ProcReader, ReadsACaptureDirectory) {
  auto s = ProcReader(proc_fixture("synthetic-4cpu/a")).read();
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->stat.cpus.size(), 4u);
  EXPECT_EQ(s->interrupts.cpus.size(), 4u);
  EXPECT_EQ(s->softirqs.count("NET_RX", 1), 2000u);
}

TEST(ProcReader, MissingRootIsNotFoundNamingThePath) {
  auto s = ProcReader("/nonexistent/proc").read();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Errc::kNotFound);
  EXPECT_THAT(s.error().message, HasSubstr("/nonexistent/proc/stat"));
}

TEST(ProcReader, CorruptFileErrorNamesTheFileRead) {
  const std::string root = ::testing::TempDir() + "corrupt-proc";
  std::filesystem::create_directories(root);
  std::filesystem::copy_file(proc_fixture("vm-2cpu/a/stat"), root + "/stat",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(proc_fixture("corrupt/interrupts-truncated-id"), root + "/interrupts",
                             std::filesystem::copy_options::overwrite_existing);
  auto s = ProcReader(root).read();
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, HasSubstr(root + "/interrupts line 3"));
  std::filesystem::remove_all(root);
}

TEST(ProcReader, ThisNodesProcParses) {
  auto s = ProcReader().read();
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_FALSE(s->stat.cpus.empty());
  EXPECT_FALSE(s->interrupts.cpus.empty());
  EXPECT_TRUE(s->softirqs.counts.count("NET_RX"));
}

}  // namespace

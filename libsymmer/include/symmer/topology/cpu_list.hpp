// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Linux CPU lists ("0-3,8,10-11", as taskset -c, OMP_PLACES numbers, /proc/<pid>/status
// Cpus_allowed_list and srun --cpu-bind=map_cpu print them): the one parser every part of
// symmer and TSAR uses, and its inverse. Numbers are Linux CPU numbers, never logical indices.
//
// Grammar (strict): item {"," item}, item = N | N "-" M with N <= M, decimal digits only. No
// spaces, no empty items, no signs, nothing after the last item. Duplicates are allowed and
// merged; the result is sorted.

#include <sched.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symmer/expected.hpp"

namespace symmer::topology {

class NodeModel;

/// Largest CPU number a list may name (the kernel's NR_CPUS limit is 8192).
inline constexpr int kMaxCpuNumber = 8191;

/// The CPUs of `text`, sorted, without duplicates. kParse naming the offending item when the
/// text does not follow the grammar, names a CPU above kMaxCpuNumber or lists none.
Expected<std::vector<int>> parse_cpu_list(std::string_view text);

/// The logical cores of `node` a user's selection names: Linux CPUs ("1", "0-3,8": the cores
/// holding them, every CPU must be one `node` has), or logical core indices with the explicit
/// prefix "L:" ("L:0-3"), as likwid writes them. Ascending, without duplicates. kParse or
/// kInvalidArgument naming what was wrong.
Expected<std::vector<int>> parse_core_selection(std::string_view text, const NodeModel& node);

/// `cpus` (any order, duplicates allowed) as a list with ranges: {0,1,2,3,8} -> "0-3,8".
/// "" for no CPU.
std::string format_cpu_list(std::span<const int> cpus);

/// Where a thread bound to `cpus` goes when its process moves from CPU set `from` to `to`
/// (all sorted): a thread bound to all of `from` (or to none of it) gets all of `to`; with
/// sets of equal size, every CPU of `from` it is bound to maps to the CPU of `to` at the same
/// position, so threads keep their relative places; between sets of different sizes it gets
/// all of `to`. Used by the shim when it re-binds a rank and by TSAR when its workers follow.
std::vector<int> map_relative(std::span<const int> cpus, std::span<const int> from,
                              std::span<const int> to);

/// `cpus` as a kernel CPU mask (for sched_setaffinity); CPUs outside 0..CPU_SETSIZE-1 are
/// left out, so the mask may be empty.
cpu_set_t cpu_set_of(std::span<const int> cpus);

/// The CPUs the calling thread may run on (sched_getaffinity), sorted; empty when the call
/// fails.
std::vector<int> this_thread_cpus();

/// The CPUs thread or process `tid` may run on (sched_getaffinity), sorted; empty when it is
/// gone or the call fails.
std::vector<int> thread_cpus(int tid);

}  // namespace symmer::topology

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The end-of-pass barrier of a region's workers. Worker 0 leads: it waits for every other
// worker's arrival, runs the pass's completion (timing, adapting, merging) and only then
// releases the others, so they find its results when they wake.
//
// No shared counter: each worker announces its arrival in a word of its own cache line, so
// arrivals never queue behind each other's read-modify-writes on one line, and the leader
// reads the lines as they come (the loads overlap). The release is one generation word the
// others wait on. Arrival words hold the generation their arrival completes, so a word left
// from an earlier pass never counts for this one -- nor the word of a worker that sat some
// passes out: the leader waits for the workers the pass expects (expect()), and only them.
//
// The release word also carries the completion's answer (another round follows, or not), so a
// released worker reads nothing of the leader's after it: a worker slow to leave (preempted
// right after its release) may find the leader already in a later pass, one it is not part
// of, writing what a read of shared state would see.

#include <sched.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "workers/wait_word.hpp"

namespace tsar::core {

class PassBarrier {
 public:
  /// Re-arms it for `count` workers (>= 1), all of them expected. Not concurrent with
  /// arrivals.
  void set_count(int count) {
    count_ = count;
    arrivals_ = std::make_unique<Arrival[]>(static_cast<std::size_t>(count));
    generation_.store(0);
    expected_.clear();
    for (int w = 1; w < count; ++w) expected_.push_back(w);
  }

  /// The workers besides 0 that arrive at the next barriers (those taking part in the pass).
  /// Called by worker 0 while no other worker is between its release and its next arrival;
  /// allocates nothing.
  void expect(std::span<const int> others) { expected_.assign(others.begin(), others.end()); }

  /// Worker 0, before its arrival: waits until every expected worker w with candidate(w) has
  /// arrived or the clock `now` reads `deadline`; then calls excuse(w) on the candidates still
  /// missing, in turn, until it returns true for one, which it stops expecting. Returns that
  /// worker, or -1 (all arrived, or none excused). Allocates nothing.
  template <class Now, class Candidate, class Excuse>
  int excuse_missing_at(double deadline, Now&& now, Candidate&& candidate, Excuse&& excuse) {
    const std::uint32_t next = next_generation(generation_.load());
    const auto missing = [&](int w) {
      return candidate(w) && arrivals_[static_cast<std::size_t>(w)].word.load() != next;
    };
    const double start = now();
    for (const int w : expected_) {
      while (missing(w)) {
        const double t = now();
        if (t >= deadline) {
          for (auto it = expected_.begin(); it != expected_.end(); ++it) {
            if (!missing(*it) || !excuse(*it)) continue;
            const int excused = *it;
            expected_.erase(it);
            return excused;
          }
          return -1;
        }
        for (int i = 0; i < 32; ++i) cpu_relax();
        if (t - start >= kPureSpinSeconds)
          sched_yield();  // as WaitWord: a core's other thread runs
      }
    }
    return -1;
  }

  /// Worker `worker` (0 or an expected worker) arrives. Worker 0 waits for the expected ones,
  /// runs completion() and releases them; the others return once it has. Returns what
  /// completion returned (true: another round follows, which every released worker joins);
  /// false for a completion returning nothing.
  template <class Completion>
  bool arrive_and_wait(int worker, Completion&& completion) {
    // The generation cannot move before this arrival is seen: the leader releases it only
    // after every arrival.
    const std::uint32_t word = generation_.load();
    const std::uint32_t next = next_generation(word);
    if (worker == 0) {
      for (const int w : expected_) {
        WaitWord& arrival = arrivals_[static_cast<std::size_t>(w)].word;
        for (std::uint32_t v = arrival.load(); v != next; v = arrival.load()) arrival.wait_while(v);
      }
      bool more = false;
      if constexpr (std::is_void_v<decltype(completion())>)
        completion();
      else
        more = completion();
      generation_.store(next << 1 | (more ? 1U : 0U));
      return more;
    }
    arrivals_[static_cast<std::size_t>(worker)].word.store(next);
    // The word the wait ended on: a later generation means later rounds went on without this
    // worker, so the one it waited for said no more rounds (one that says more waits for it).
    const std::uint32_t released = generation_.wait_while(word);
    return released >> 1 == next && (released & 1U) != 0;
  }

 private:
  struct alignas(64) Arrival {
    WaitWord word;  ///< the generation this worker's latest arrival completes
  };

  /// The generation (the release word's upper 31 bits, counting releases) that an arrival
  /// after release word `word` completes.
  static std::uint32_t next_generation(std::uint32_t word) { return ((word >> 1) + 1) & kCount; }
  static constexpr std::uint32_t kCount = 0x7fffffffU;

  static constexpr double kPureSpinSeconds =
      std::chrono::duration<double>(WaitWord::kPureSpin).count();

  int count_ = 1;
  std::unique_ptr<Arrival[]> arrivals_ = std::make_unique<Arrival[]>(1);
  std::vector<int> expected_;  ///< workers besides 0 the leader waits for
  /// (releases << 1) | whether the last release's completion asked for another round
  alignas(64) WaitWord generation_;
};

}  // namespace tsar::core

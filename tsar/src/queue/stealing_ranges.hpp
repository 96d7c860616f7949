// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The CPU share of a ratio (sub-)pass, balanced among its cores within the pass. Every CPU
// worker owns the contiguous range the split gave it and takes it in pieces that shrink with
// what remains (guided, down to a minimum piece), so a regular loop runs exactly as split --
// each core on its own rows, in order, as OpenMP static does; a worker whose range is
// exhausted takes a piece of what remains of the fullest range of another. Imbalance inside
// the share (triangular loops, a core slowed by another program, a split learned on other
// iterations) is absorbed before the barrier instead of waited out at it, the way the
// thesis's CPU device runs its share with OpenMP.
//
// Thieves leave a range alone once no more than one of its owner's minimum pieces remains:
// the owner finishes that in less time than the minimum piece stands for, and short passes
// (every range at most one piece) then run without a thief ever reading another's line.
//
// A worker may also be a thief without being a member (an accelerator beside the cores:
// "stealing across the accelerator boundary"): its own range is its alone and run outside
// these ranges, and once it is done it takes pieces of the members' ranges, none smaller than
// its own minimum piece -- what a piece must be to pay for the thief's launch and copies
// (schedule/planner.hpp decides who steals and that minimum).
//
// Owner and thieves both take with one fetch-and-add on the range's head (the blocking
// interface of the ticket queue, queue/chunk_queue.hpp), so no lock is taken, nothing is
// retried except after another taker's progress, and every iteration is handed out once.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "queue/chunk_queue.hpp"

namespace tsar::core {

class StealingRanges {
 public:
  /// A piece is 1/kPieceDivisor of what remains of the range it comes from: the pieces in
  /// flight when the ranges run out -- what the others wait for at the barrier -- shrink
  /// with what remains, as guided chunks do. (A stolen piece is its thief's alone: it is not
  /// split again, so thieves take no more than owners.)
  static constexpr std::int64_t kPieceDivisor = 4;

  /// Ranges for `workers` workers, none of them a member until reset().
  explicit StealingRanges(int workers = 0) { resize(workers); }

  /// Ranges for `workers` workers, none of them a member. Not concurrent with takers.
  void resize(int workers) {
    owners_ = std::make_unique<Owner[]>(static_cast<std::size_t>(workers));
    workers_ = workers;
    members_.clear();
    members_.reserve(static_cast<std::size_t>(workers));
    open_.store(0, std::memory_order_relaxed);
    resting_ = true;
  }

  int workers() const { return workers_; }

  /// Re-arms for a (sub-)pass: worker w owns ranges[w] when member[w] != 0 and takes no
  /// piece smaller than min_piece[w] (>= 1). Non-members' ranges are not handed out; a
  /// non-member w with thief[w] != 0 (`thief` may be empty: none) steals pieces of at least
  /// min_piece[w] from the members' ranges. Not concurrent with takers; allocates nothing.
  void reset(std::span<const Range> ranges, std::span<const unsigned char> member,
             std::span<const std::int64_t> min_piece, std::span<const unsigned char> thief = {}) {
    members_.clear();
    int open = 0;
    resting_ = true;
    for (int w = 0; w < workers_; ++w) {
      const auto i = static_cast<std::size_t>(w);
      Owner& o = owners_[i];
      o.member = member[i] != 0;
      o.thief = !o.member && i < thief.size() && thief[i] != 0;
      o.min_piece = std::max<std::int64_t>(1, min_piece[i]);
      o.hi = o.member ? ranges[i].end : ranges[i].begin;
      o.head.store(ranges[i].begin, std::memory_order_relaxed);
      if (o.member) members_.push_back(w);
      if (o.member && ranges[i].size() > o.min_piece) ++open;
      if (o.member && !ranges[i].empty()) resting_ = false;
    }
    open_.store(open, std::memory_order_relaxed);
    reopen();
  }

  /// Whether no member had anything to run at the last reset(): takers then changed nothing,
  /// and every take finds nothing until a reset gives a member a range.
  bool resting() const { return resting_; }
  /// Re-arms, when resting(), for a (sub-)pass in which no member has anything to run either:
  /// every take finds nothing, as after reset() with such ranges, and no owner's line is
  /// written (a pass that is all the accelerators' touches none of the idle cores').
  void rest() { reopen(); }

  bool member(int worker) const { return owners_[static_cast<std::size_t>(worker)].member; }
  /// Whether non-member `worker` steals from the members' ranges (reset's thief).
  bool thief(int worker) const { return owners_[static_cast<std::size_t>(worker)].thief; }

  /// Member `worker`'s next range: a piece of its own, else a piece of the fullest range of
  /// another member that has more than one of its owner's minimum pieces left. A thief's: a
  /// piece of the fullest member's range that has more than one of its owner's minimum pieces
  /// and at least one of the thief's left. kClosed once none is left, for a worker neither
  /// member nor thief, or after close().
  ChunkQueue::Result take(int worker, Range& out) {
    const Owner& me = owners_[static_cast<std::size_t>(worker)];
    if (closed_.load(std::memory_order_relaxed) || !(me.member || me.thief))
      return ChunkQueue::Result::kClosed;
    if (me.member && take_from(owners_[static_cast<std::size_t>(worker)], me.min_piece, out))
      return ChunkQueue::Result::kSuccess;
    // A member takes whatever is left of a range; a thief no piece its minimum does not pay.
    const std::int64_t least = me.member ? 1 : me.min_piece;
    // A failed take means other takers emptied that range since it was read, so the loop
    // ends: each round either succeeds or finds strictly less left to take.
    for (;;) {
      // One shared word answers "anything to steal?" without reading every owner's line.
      if (closed_.load(std::memory_order_relaxed) || open_.load(std::memory_order_relaxed) <= 0)
        return ChunkQueue::Result::kClosed;
      Owner* victim = nullptr;
      std::int64_t most = 0;
      for (int w : members_) {
        Owner& o = owners_[static_cast<std::size_t>(w)];
        const std::int64_t left = o.hi - o.head.load(std::memory_order_relaxed);
        if (left > o.min_piece && left >= least && left > most) {
          most = left;
          victim = &o;
        }
      }
      if (victim == nullptr) return ChunkQueue::Result::kClosed;
      if (take_from(*victim, me.min_piece, out)) return ChunkQueue::Result::kSuccess;
    }
  }

  /// All that is left of member `owner`'s range, for a worker that runs it in place of an
  /// owner that never started (Region's late workers); false when nothing is left. Concurrent
  /// with thieves; the owner must not take from it.
  bool take_rest(int owner, Range& out) {
    Owner& o = owners_[static_cast<std::size_t>(owner)];
    const std::int64_t left = o.hi - o.head.load(std::memory_order_relaxed);
    if (!o.member || left <= 0) return false;
    const std::int64_t begin = o.head.fetch_add(left, std::memory_order_relaxed);
    if (begin >= o.hi) return false;
    out = {begin, o.hi};  // begin + left >= hi: heads only grow
    if (o.hi - begin > o.min_piece) open_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }

  /// Stops handing out ranges (cancellation); concurrent with takers.
  void close() { closed_.store(true, std::memory_order_relaxed); }

 private:
  /// One cache line per owner: its head (moved by one fetch-and-add per piece) and what
  /// every taker reads with it.
  struct alignas(64) Owner {
    std::atomic<std::int64_t> head{0};
    std::int64_t hi = 0;
    std::int64_t min_piece = 1;
    bool member = false;
    bool thief = false;
  };

  /// A piece of o's range; false when it is exhausted. The one take that leaves no more
  /// than the owner's minimum piece (heads only grow: exactly one piece straddles that point)
  /// closes the range to thieves in open_. Heads overshoot hi by at most one piece per taker
  /// (pieces are at most what remained, so no overflow within Region's 2^60 iterations).
  bool take_from(Owner& o, std::int64_t min_piece, Range& out) {
    const std::int64_t left = o.hi - o.head.load(std::memory_order_relaxed);
    if (left <= 0) return false;
    const std::int64_t size = std::max(min_piece, (left + kPieceDivisor - 1) / kPieceDivisor);
    const std::int64_t begin = o.head.fetch_add(size, std::memory_order_relaxed);
    if (begin >= o.hi) return false;
    out = {begin, std::min(begin + size, o.hi)};
    const std::int64_t before = o.hi - begin;
    if (before > o.min_piece && before - size <= o.min_piece)
      open_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }

  void reopen() {
    // Written only when it changes: every take reads it, so it stays in every taker's cache.
    if (closed_.load(std::memory_order_relaxed)) closed_.store(false, std::memory_order_relaxed);
  }

  std::unique_ptr<Owner[]> owners_;  // atomics: fixed addresses
  int workers_ = 0;
  bool resting_ = true;  ///< no member had a range at the last reset()
  std::vector<int> members_;
  alignas(64) std::atomic<int> open_{0};         ///< members' ranges thieves may still take from
  alignas(64) std::atomic<bool> closed_{false};  ///< read-mostly: not on open_'s line
};

}  // namespace tsar::core

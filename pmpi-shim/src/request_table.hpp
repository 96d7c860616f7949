// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Requests the shim follows from post (Isend, Irecv, *_init) to completion (Wait*, Test*):
// whether they are sends (pending sends make compute "out of sync"), their peer, and for
// receives the communicator to translate MPI_SOURCE with.
//
// A fixed, lock-free table: 8-entry buckets keyed by the request handle's bits. Insert takes an
// empty (or stale same-handle) entry with a CAS through a BUSY key; a completing thread copies
// an entry before the real call and claims it afterwards only if no one re-used it meanwhile
// (the `serial` check), so a handle the MPI library recycles to another thread is never lost.
// A full bucket leaves the request untracked (counted in SlotCounters::untracked_requests).
// Below MPI_THREAD_MULTIPLE only one thread at a time uses the table: set_concurrent(false)
// then claims entries with plain loads and stores instead of locked compare-and-swaps, and
// keeps a used flag per entry, so that an insert looks only at its bucket's used ways for a
// stale entry of its handle.

#include <atomic>
#include <cstdint>
#include <cstring>

namespace symmer::shim {

/// What the shim knows about one request.
struct RequestInfo {
  enum Kind : std::uint8_t { kSend = 1, kRecv = 2 };
  Kind kind = kSend;
  bool rendezvous = false;  ///< send above the eager limit (or synchronous)
  bool persistent = false;
  bool active = true;       ///< persistent requests: started and not yet completed
  std::int32_t peer = -1;   ///< peer entry; -1: unknown (receives: resolve from MPI_SOURCE)
  std::uint64_t bytes = 0;  ///< persistent sends: bytes per start
  void* comm = nullptr;     ///< receives from MPI_ANY_SOURCE on a non-world communicator:
                            ///< a referenced CommInfo (hooks.cpp)
};

class RequestTable {
 public:
  static constexpr std::uint64_t kBuckets = 2048;
  static constexpr std::uint64_t kWays = 8;

  /// Whether several threads may use the table at once (the default). Set before any use.
  void set_concurrent(bool concurrent) noexcept { concurrent_ = concurrent; }

  /// Records `info` for request handle `key` (never 0); false when its bucket is full.
  __attribute__((always_inline)) bool insert(std::uint64_t key, const RequestInfo& info) noexcept {
    if (__builtin_expect(concurrent_, 0)) return insert_concurrent(key, info);
    const std::uint64_t first = hash(key) * kWays;
    Entry* b = &entries_[first];
    std::uint64_t used;  // byte w: 1 when way w holds a key
    std::memcpy(&used, &used_[first], sizeof used);
    for (std::uint64_t m = used; m != 0; m &= m - 1) {  // a stale entry of the same handle
      Entry& e = b[__builtin_ctzll(m) / 8];
      if (e.key.load(std::memory_order_relaxed) == key) {
        fill(e, key, info);
        return true;
      }
    }
    const std::uint64_t free = ~used & 0x0101010101010101ull;
    if (free == 0) return false;
    const std::uint64_t w = static_cast<std::uint64_t>(__builtin_ctzll(free)) / 8;
    used_[first + w] = 1;
    fill(b[w], key, info);
    return true;
  }

  /// Index of the entry of `key`, or -1.
  std::int64_t find(std::uint64_t key) const noexcept {
    const std::uint64_t first = hash(key) * kWays;
    for (std::uint64_t i = first; i < first + kWays; ++i)
      if (entries_[i].key.load(std::memory_order_acquire) == key)
        return static_cast<std::int64_t>(i);
    return -1;
  }

  /// The entry at `index` (found with find) and its serial, copied.
  RequestInfo info(std::int64_t index) const noexcept { return entries_[index].info; }
  /// The entry at `index`, for the thread that owns its request.
  const RequestInfo& at(std::int64_t index) const noexcept { return entries_[index].info; }
  std::uint64_t serial(std::int64_t index) const noexcept {
    return entries_[index].serial.load(std::memory_order_relaxed);
  }
  /// Updates the info of an entry its request's owner holds (persistent start/complete).
  void set_active(std::int64_t index, bool active) noexcept {
    entries_[index].info.active = active;
  }

  /// Frees the entry at `index` if it still holds `key` at `serial`.
  void erase(std::int64_t index, std::uint64_t key, std::uint64_t serial) noexcept {
    Entry& e = entries_[index];
    if (__builtin_expect(!concurrent_, 1)) {
      if (e.key.load(std::memory_order_relaxed) == key &&
          e.serial.load(std::memory_order_relaxed) == serial)
        erase_found(index);
      return;
    }
    if (!claim(e, key)) return;
    const bool same = e.serial.load(std::memory_order_relaxed) == serial;
    e.key.store(same ? 0 : key, std::memory_order_release);
  }

  /// Frees the entry at `index`, just found by this thread while no other uses the table
  /// (set_concurrent(false)): nobody can have re-used it since.
  void erase_found(std::int64_t index) noexcept {
    entries_[index].key.store(0, std::memory_order_relaxed);
    used_[index] = 0;
  }

 private:
  static constexpr std::uint64_t kBusy = ~std::uint64_t{0};
  struct Entry {
    std::atomic<std::uint64_t> key{0};
    std::atomic<std::uint64_t> serial{0};
    RequestInfo info;
  };
  [[gnu::noinline]] bool insert_concurrent(std::uint64_t key, RequestInfo info) noexcept {
    Entry* b = &entries_[hash(key) * kWays];
    for (int pass = 0; pass < 2;
         ++pass) {  // first a stale entry of the same handle, then a free one
      const std::uint64_t want = pass == 0 ? key : 0;
      for (std::uint64_t w = 0; w < kWays; ++w) {
        if (claim(b[w], want)) {
          fill(b[w], key, info);
          return true;
        }
      }
    }
    return false;
  }
  // Writes an entry the caller claimed (holds busy, or alone uses the table).
  static void fill(Entry& e, std::uint64_t key, const RequestInfo& info) noexcept {
    e.info = info;
    // Only the claiming thread writes the serial: no atomic add needed.
    e.serial.store(e.serial.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    e.key.store(key, std::memory_order_release);
  }
  // Takes the entry if it holds `expected`, marking it busy (concurrent use).
  static bool claim(Entry& e, std::uint64_t expected) noexcept {
    if (e.key.load(std::memory_order_relaxed) != expected) return false;
    return e.key.compare_exchange_strong(expected, kBusy, std::memory_order_acquire);
  }
  static std::uint64_t hash(std::uint64_t key) noexcept {
    return (key * 0x9E3779B97F4A7C15ull) >> 53;  // 11 bits: kBuckets
  }
  // In the object itself (a global in the shim): addressed without a pointer load.
  Entry entries_[kBuckets * kWays];
  /// Per entry, 1 while it holds a key: kept only without concurrent use (insert reads a
  /// bucket's 8 as one word).
  alignas(8) std::uint8_t used_[kBuckets * kWays] = {};
  bool concurrent_ = true;
};

}  // namespace symmer::shim

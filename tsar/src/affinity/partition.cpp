// SPDX-License-Identifier: BSD-3-Clause
#include "affinity/partition.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "api/error.hpp"
#include "region/region.hpp"
#include "region/tick_clock.hpp"
#include "region/trace_sink.hpp"
#include "runtime/symmer_link.hpp"
#include "workers/caller_mask.hpp"
#include "workers/worker_pool.hpp"

namespace tsar::core {
namespace {

// The place whose body the calling thread runs (place operations that must come from it).
thread_local const tsar_place* tls_place = nullptr;
// The device the calling thread was last pinned to as a place thread (Device::serial).
thread_local std::uint64_t tls_place_device = 0;
thread_local std::uint64_t tls_place_generation = 0;  // symmer's move generation then

bool same(Range a, Range b) { return a.begin == b.begin && a.end == b.end; }

bool overlaps(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto lo = reinterpret_cast<std::uintptr_t>(a);
  const auto blo = reinterpret_cast<std::uintptr_t>(b);
  return lo < blo + b_bytes && blo < lo + a_bytes;
}

}  // namespace

const char* mem_policy_name(int policy) {
  switch (policy) {
    case TSAR_POLICY_COHERENT:
      return "coherent";
    case TSAR_POLICY_INTERLEAVE:
      return "interleave";
    case TSAR_POLICY_MIGRATE:
      return "migrate";
    case TSAR_POLICY_MIGRATE_INTERLEAVED:
      return "migrate-interleaved";
    case TSAR_POLICY_REPLICATE:
      return "replicate";
    default:
      return "?";
  }
}

std::string partition_pass_to_json(const std::string& name, int policy, const tsar_pass_stats& pass,
                                   std::span<const tsar_place_stats> places) {
  nlohmann::json j{{"partition", name},
                   {"policy", mem_policy_name(policy)},
                   {"pass", pass.pass},
                   {"n", pass.n},
                   {"canceled", pass.canceled != 0},
                   {"seconds", pass.seconds},
                   {"schedule_seconds", pass.schedule_seconds}};
  auto& list = j["places"] = nlohmann::json::array();
  for (const auto& p : places)
    list.push_back({{"node", p.numa_node},
                    {"begin", p.begin},
                    {"end", p.end},
                    {"seconds", p.seconds},
                    {"timed_seconds", p.timed_seconds},
                    {"wait_seconds", p.wait_seconds},
                    {"placement_seconds", p.placement_seconds},
                    {"pages_moved", p.pages_moved},
                    {"pages_failed", p.pages_failed},
                    {"pages_absent", p.pages_absent},
                    {"bytes_replicated", p.bytes_replicated},
                    {"bytes_merged", p.bytes_merged},
                    {"halo_bytes", p.halo_bytes}});
  return j.dump() + "\n";
}

Partition::Partition(symmer::topology::NodeModel node, std::vector<Place> places, Options options,
                     std::shared_ptr<NumaMemory> memory)
    : node_(std::move(node)),
      options_(std::move(options)),
      memory_(std::move(memory)),
      pool_(static_cast<int>(places.size())),
      trace_(TraceSink::from_env()) {
  if (places.empty()) throw Error(TSAR_ERR_DEVICES, "a partition needs at least one place");
  if (options_.outer.kind != ScheduleKind::kStatic &&
      options_.outer.kind != ScheduleKind::kAdaptive)
    throw Error(TSAR_ERR_SCHEDULE,
                "outer schedule '" + options_.outer.to_string() +
                    "': the split over places is static or adaptive (a place body runs once "
                    "per pass, so chunk and sub-pass schedules do not apply)");
  const auto n = places.size();
  for (std::size_t i = 0; i < n; ++i) {
    auto slot = std::make_unique<Slot>();
    slot->place = std::move(places[i]);
    slot->runtime = std::make_shared<Runtime>(node_, slot->place.devices, slot->place.keys);
    slot->handle = {this, static_cast<int>(i)};
    double peak = 0.0;
    for (const auto& d : slot->place.devices) peak += d->description().peak_gflops;
    TimeEstimator estimator;
    estimator.set_prior(peak > 0.0 ? 1.0 / peak : 1.0);
    estimators_.push_back(estimator);
    slots_.push_back(std::move(slot));
    pool_slots_.push_back(static_cast<int>(i));
  }
  scheduler_ = make_scheduler(options_.outer, static_cast<int>(n));
  active_.assign(n, 1);
  times_.assign(n, 0.0);
  plan_.counts.assign(n, 0);
  pass_ring_.resize(static_cast<std::size_t>(kKeepPasses));
  place_ring_.resize(static_cast<std::size_t>(kKeepPasses) * n);
}

Partition::~Partition() {
  if (trace_ != nullptr) trace_->flush();
}

// ---------------------------------------------------------------------------------------
// Configuration

void Partition::map(Association a) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "buffers cannot be mapped during a pass");
  for (const auto& e : entries_) {
    const Association& b = e->association;
    if (b.host() == a.host())
      throw Error(TSAR_ERR_REGISTERED,
                  a.label() + " is already mapped to partition '" + options_.name + "'");
    if (overlaps(a.host(), a.bytes(), b.host(), b.bytes()))
      throw Error(TSAR_ERR_REGISTERED, a.label() + " (" + std::to_string(a.bytes()) +
                                           " bytes) overlaps mapped buffer " + b.label() + " (" +
                                           std::to_string(b.bytes()) + " bytes)");
    // Map arrays are read-only and may be shared (one CSR row pointer for values and
    // column indices), but no data buffer may overlap one.
    if (b.map() != nullptr && overlaps(a.host(), a.bytes(), b.map(), b.map_bytes()))
      throw Error(TSAR_ERR_REGISTERED,
                  a.label() + " overlaps the map array of mapped buffer " + b.label());
    if (a.map() != nullptr && overlaps(a.map(), a.map_bytes(), b.host(), b.bytes()))
      throw Error(TSAR_ERR_REGISTERED,
                  "the map array of " + a.label() + " overlaps mapped buffer " + b.label());
  }
  if (a.map() != nullptr && overlaps(a.host(), a.bytes(), a.map(), a.map_bytes()))
    throw Error(TSAR_ERR_INVALID, a.label() + ": its map array overlaps its data");
  entries_.push_back(std::make_unique<Entry>(Entry{std::move(a), {}, false}));
}

void Partition::unmap(const void* host) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "buffers cannot be unmapped during a pass");
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i]->association.host() != host) continue;
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    for (auto& s : slots_)
      if (i < s->copies.size()) s->copies.erase(s->copies.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", host);
  throw Error(TSAR_ERR_UNKNOWN,
              std::string("buffer ") + buf + " is not mapped to partition '" + options_.name + "'");
}

void Partition::set_policy(int level, int policy) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "memory policies cannot change during a pass");
  if (policy < TSAR_POLICY_COHERENT || policy > TSAR_POLICY_REPLICATE)
    throw Error(TSAR_ERR_INVALID, "unknown memory policy " + std::to_string(policy));
  if (level == TSAR_LEVEL_DEVICES) {
    if (policy != TSAR_POLICY_COHERENT)
      throw Error(TSAR_ERR_UNSUPPORTED,
                  std::string("policy ") + mem_policy_name(policy) +
                      " at TSAR_LEVEL_DEVICES: the devices of a place share its NUMA node, so "
                      "only coherent applies there (per-device copies are not built)");
    return;
  }
  if (level != TSAR_LEVEL_PLACES)
    throw Error(TSAR_ERR_INVALID, "unknown partition level " + std::to_string(level) +
                                      " (TSAR_LEVEL_PLACES or TSAR_LEVEL_DEVICES)");
  if (policy == outer_policy_) return;
  outer_policy_ = policy;
  for (auto& e : entries_) {
    e->placed.clear();
    e->interleaved = false;
  }
  if (policy != TSAR_POLICY_REPLICATE)
    for (auto& s : slots_) s->copies.clear();
}

void Partition::bind(int loop) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "tsar_bind_partition during a pass");
  if (loop < -1) throw Error(TSAR_ERR_INVALID, "loop must be >= 0, or -1 to unbind");
  bound_loop_ = loop;
}

void Partition::set_clock(std::shared_ptr<PassClock> clock) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "a partition's clock cannot change during a pass");
  clock_ = std::move(clock);
}

void Partition::set_rebalance(int passes) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "tsar_partition_set_rebalance during a pass");
  if (passes < 1) throw Error(TSAR_ERR_INVALID, "rebalance passes must be >= 1");
  rebalance_ = passes;
}

std::vector<Range> Partition::ranges() const {
  std::vector<Range> out;
  for (const auto& s : slots_) out.push_back(s->range);
  return out;
}

// ---------------------------------------------------------------------------------------
// A pass

void Partition::run(std::int64_t n, tsar_place_fn body, void* arg) {
  if (body == nullptr) throw Error(TSAR_ERR_NULL, "the place body is NULL");
  const CallerMask::Scope caller;  // the caller, place 0's thread, gets its CPU mask back
  bool idle = false;
  if (!in_pass_.compare_exchange_strong(idle, true, std::memory_order_acq_rel))
    throw Error(TSAR_ERR_STATE, "partition '" + options_.name +
                                    "' is already running a pass (a place body cannot start "
                                    "another pass of it)");
  struct Done {
    std::atomic<bool>& flag;
    ~Done() { flag.store(false, std::memory_order_release); }
  } done{in_pass_};

  if (n < 0) throw Error(TSAR_ERR_INVALID, "n = " + std::to_string(n) + " is negative");
  if (n > Region::kMaxIterations)
    throw Error(TSAR_ERR_INVALID, "n = " + std::to_string(n) + " is larger than 2^60");
  // Every buffer is checked, its map contents included, before a page moves or a copy is made.
  for (const auto& e : entries_) e->association.check_pass(n);

  const double t0 = now_seconds();
  if (split_n_ != n || passes_since_split_ >= rebalance_) {
    effective_times(estimators_, active_, times_, times_scratch_);
    scheduler_->begin_pass(n, times_, plan_);
    split_n_ = n;
    passes_since_split_ = 0;
    std::int64_t at = 0;
    for (std::size_t p = 0; p < slots_.size(); ++p) {
      slots_[p]->range = {at, at + plan_.counts[p]};
      at += plan_.counts[p];
    }
  }
  ++passes_since_split_;
  for (auto& s : slots_) {
    s->stats = {};
    s->stats.begin = s->range.begin;
    s->stats.end = s->range.end;
    s->stats.numa_node = s->place.numa_node;
    s->bound_seconds = 0.0;
    s->error = TSAR_OK;
    s->message.clear();
  }
  plan_placement();
  const double planned = now_seconds();

  n_ = n;
  body_ = body;
  body_arg_ = arg;
  canceled_.store(false);
  barrier_.reset(num_places(), clock_.get());
  pool_.run(pool_slots_, &Partition::body_job, this);
  bool failed = false;
  for (const auto& s : slots_) failed = failed || s->error != TSAR_OK;
  if (!canceled_.load() && !failed && outer_policy_ == TSAR_POLICY_REPLICATE)
    pool_.run(pool_slots_, &Partition::merge_job, this);
  const double end = now_seconds();

  const bool canceled = canceled_.load();
  if (!canceled && !failed) {
    for (std::size_t p = 0; p < slots_.size(); ++p) {
      const Slot& s = *slots_[p];
      if (s.range.size() > 0 && s.stats.timed_seconds > 0.0)
        estimators_[p].add(s.stats.timed_seconds / static_cast<double>(s.range.size()));
    }
  }
  record_pass(n, end - t0, planned - t0);
  for (const auto& s : slots_)
    if (s->error != TSAR_OK && s->error != TSAR_ERR_CANCELED)
      throw Error(static_cast<tsar_status>(s->error),
                  "place " + std::to_string(s->handle.index) + ": " + s->message);
  if (canceled)
    throw Error(TSAR_ERR_CANCELED, "the pass of partition '" + options_.name + "' was canceled");
}

void Partition::plan_placement() {
  for (auto& s : slots_) s->moves.clear();
  const int policy = outer_policy_;
  if (policy == TSAR_POLICY_COHERENT || policy == TSAR_POLICY_REPLICATE) return;
  const std::size_t ps = memory_->page_size();
  const std::vector<Range> parts = ranges();
  std::vector<int> nodes;
  for (const auto& s : slots_) nodes.push_back(s->place.os_node);
  std::vector<std::vector<PageRun>> moves(slots_.size());
  for (auto& e : entries_) {
    const Association& a = e->association;
    const bool migrate = a.partitioned() && (policy == TSAR_POLICY_MIGRATE ||
                                             policy == TSAR_POLICY_MIGRATE_INTERLEAVED);
    const bool spread = policy == TSAR_POLICY_INTERLEAVE ||
                        (policy == TSAR_POLICY_MIGRATE_INTERLEAVED && !a.partitioned());
    if (migrate) {
      // Pages stay where the last split put them until a part moves.
      if (e->placed.size() == parts.size() &&
          std::equal(parts.begin(), parts.end(), e->placed.begin(), same))
        continue;
      plan_migrate(a, parts, ps, moves);
      e->placed = parts;
    } else if (spread && !e->interleaved) {
      plan_interleave(a, nodes, ps, moves);
      e->interleaved = true;
    }
  }
  for (std::size_t p = 0; p < slots_.size(); ++p) slots_[p]->moves = std::move(moves[p]);
}

void Partition::body_job(void* context, int worker) {
  static_cast<Partition*>(context)->run_place(worker);
}

void Partition::merge_job(void* context, int worker) {
  static_cast<Partition*>(context)->merge_place(worker);
}

void Partition::fail_place(Slot& s, int status, const std::string& message) {
  if (s.error == TSAR_OK) {
    s.error = status;
    s.message = message;
  }
  cancel_all();
}

void Partition::cancel_all() {
  canceled_.store(true);
  barrier_.cancel();
  for (auto& slot : slots_) {
    if (Region* r = slot->running.load(); r != nullptr) {
      try {
        r->cancel();
      } catch (const Error&) {  // it ended (or has not started: it checks canceled_ first)
      }
    }
  }
}

void Partition::run_place(int w) {
  Slot& s = *slots_[static_cast<std::size_t>(w)];
  const double t0 = clock(w);
  try {
    // The place's thread lives on a core of its place, where its moves and copies run too
    // (place 0's is the caller's thread: pinned for the pass only where it runs elsewhere,
    // CallerMask).
    const Device& first = *s.place.devices.front();
    SymmerLink& symmer = SymmerLink::instance();  // where symmer moved the rank, if it did
    if (!WorkerPool::on_pool_thread()) {
      CallerMask::pin(symmer.follow(first.worker_cpus(node_)));
    } else if (tls_place_device != first.serial() ||
               tls_place_generation != symmer.generation()) {
      first.bind_worker(node_);
      symmer.follow_this_thread(first.worker_cpus(node_));
      tls_place_generation = symmer.generation();
      tls_place_device = first.serial();
    }
    place_data(s);
  } catch (const Error& e) {
    fail_place(s, e.status(), e.what());
  } catch (const std::exception& e) {
    fail_place(s, TSAR_ERR_SYSTEM, std::string("placing data: ") + e.what());
  }
  s.stats.placement_seconds = clock(w) - t0;
  if (s.error == TSAR_OK && !canceled_.load()) {
    const tsar_place* const outer = tls_place;
    tls_place = &s.handle;
    const double tb = clock(w);
    try {
      body_(&s.handle, s.range.begin, s.range.end, body_arg_);
    } catch (...) {  // a C++ body passed as a C callback: stop the pass, keep the partition
      fail_place(s, TSAR_ERR_CANCELED, "the place body threw");
    }
    tls_place = outer;
    s.stats.seconds = clock(w) - tb;
    s.stats.timed_seconds =
        bound_loop_ >= 0 ? s.bound_seconds : std::max(0.0, s.stats.seconds - s.stats.wait_seconds);
  }
  barrier_.depart();
}

void Partition::place_data(Slot& s) {
  if (!s.moves.empty()) {
    PageMover mover(*memory_, options_.migration);
    MoveResult r;
    mover.move(s.moves, s.place.os_node, &r);
    s.stats.pages_moved = r.moved;
    s.stats.pages_failed = r.failed;
    s.stats.pages_absent = r.absent;
  }
  if (outer_policy_ != TSAR_POLICY_REPLICATE) return;
  s.copies.resize(entries_.size());
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Association& a = entries_[i]->association;
    auto& copy = s.copies[i];
    if (!copy) copy = std::make_unique<PlaceCopy>(*memory_, s.place.os_node);
    // A persistent buffer whose part did not move is current in the copy (it was merged
    // back, not changed since): only its halo, which neighbours wrote, is read again.
    const bool current =
        (a.flags() & TSAR_MEM_PERSIST) != 0 && copy->laid_out() && same(copy->range(), s.range);
    bytes += copy->copy_in(a, s.range, current);
  }
  s.stats.bytes_replicated = static_cast<std::int64_t>(bytes);
}

void Partition::merge_place(int w) {
  Slot& s = *slots_[static_cast<std::size_t>(w)];
  const double t0 = clock(w);
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < entries_.size() && i < s.copies.size(); ++i)
    if (s.copies[i]) bytes += s.copies[i]->merge_out(entries_[i]->association);
  s.stats.bytes_merged = static_cast<std::int64_t>(bytes);
  s.stats.placement_seconds += clock(w) - t0;
}

// ---------------------------------------------------------------------------------------
// Place operations

int Partition::place_for(int place, int loop, std::int64_t begin, std::int64_t end,
                         tsar_body_fn body, void* arg) {
  Slot& s = *slots_[static_cast<std::size_t>(place)];
  if (tls_place != &s.handle)
    return fail(TSAR_ERR_THREADS, "tsar_place_for: call it from the body of place " +
                                      std::to_string(place) + " (on its thread)");
  if (body == nullptr) return fail(TSAR_ERR_NULL, "tsar_place_for: body is NULL");
  if (loop < 0) return fail(TSAR_ERR_INVALID, "tsar_place_for: loop number must be >= 0");
  if (begin < 0 || end < begin)
    return fail(TSAR_ERR_INVALID, "tsar_place_for: [" + std::to_string(begin) + ", " +
                                      std::to_string(end) + ") is not a range of iterations");
  if (canceled_.load())
    return fail(TSAR_ERR_CANCELED, "the pass of partition '" + options_.name + "' was canceled");
  int status = TSAR_OK;
  try {
    auto& region = s.loops[loop];
    if (!region)
      region = std::make_unique<Region>(
          s.runtime,
          options_.name + "/place:" + std::to_string(place) + "/loop:" + std::to_string(loop),
          options_.inner, static_cast<unsigned>(TSAR_DEVICE_ALL), nullptr, 0);
    s.running.store(region.get());
    if (canceled_.load()) {  // canceled before the loop was visible to cancel_all
      s.running.store(nullptr);
      return fail(TSAR_ERR_CANCELED, "the pass of partition '" + options_.name + "' was canceled");
    }
    const double t0 = clock(place);
    try {
      region->run(begin, end - begin, body, arg);
    } catch (...) {
      s.running.store(nullptr);
      if (loop == bound_loop_) s.bound_seconds += clock(place) - t0;
      throw;
    }
    s.running.store(nullptr);
    if (loop == bound_loop_) s.bound_seconds += clock(place) - t0;
  } catch (const Error& e) {
    status = fail(e.status(), std::string("tsar_place_for: ") + e.what());
  } catch (const std::exception& e) {
    status = fail(TSAR_ERR_SYSTEM, std::string("tsar_place_for: ") + e.what());
  }
  return status;
}

int Partition::barrier(int place) {
  Slot& s = *slots_[static_cast<std::size_t>(place)];
  if (tls_place != &s.handle)
    return fail(TSAR_ERR_THREADS, "tsar_place_barrier: call it from the body of place " +
                                      std::to_string(place) + " (on its thread)");
  const double t0 = clock(place);
  const bool ok = barrier_.arrive_and_wait();
  s.stats.wait_seconds += clock(place) - t0;
  if (!ok)
    return fail(TSAR_ERR_CANCELED, "the pass of partition '" + options_.name + "' was canceled");
  return TSAR_OK;
}

int Partition::cancel() {
  if (!in_pass()) return fail(TSAR_ERR_STATE, "tsar_place_cancel outside a pass");
  cancel_all();
  return TSAR_OK;
}

const Partition::Entry* Partition::find_entry(const void* host, bool* is_map) const {
  for (const auto& e : entries_) {
    if (e->association.host() == host) {
      *is_map = false;
      return e.get();
    }
  }
  for (const auto& e : entries_) {
    if (e->association.map() != nullptr && e->association.map() == host) {
      *is_map = true;
      return e.get();
    }
  }
  return nullptr;
}

View Partition::view(int place, const void* host) const {
  if (!in_pass()) throw Error(TSAR_ERR_STATE, "place views exist during a partition pass only");
  bool is_map = false;
  const Entry* e = find_entry(host, &is_map);
  if (e == nullptr) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", host);
    throw Error(TSAR_ERR_UNKNOWN, std::string("buffer ") + buf + " is not mapped to partition '" +
                                      options_.name + "'");
  }
  const Slot& s = *slots_[static_cast<std::size_t>(place)];
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].get() != e) continue;
    if (i < s.copies.size() && s.copies[i] && s.copies[i]->laid_out())
      return is_map ? s.copies[i]->map() : s.copies[i]->data();
  }
  return is_map ? host_map_view(e->association) : host_view(e->association);
}

int Partition::update(int place, const void* host, int what) {
  Slot& s = *slots_[static_cast<std::size_t>(place)];
  if (tls_place != &s.handle)
    return fail(TSAR_ERR_THREADS, "tsar_place_update: call it from the body of place " +
                                      std::to_string(place) + " (on its thread)");
  std::size_t index = entries_.size();
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i]->association.host() == host) index = i;
  if (index == entries_.size()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", host);
    return fail(TSAR_ERR_UNKNOWN, std::string("tsar_place_update: buffer ") + buf +
                                      " is not mapped to partition '" + options_.name + "'");
  }
  const Association& a = entries_[index]->association;
  if (what < TSAR_UPDATE_PADDING_NEARBY || what > TSAR_UPDATE_MERGE)
    return fail(TSAR_ERR_INVALID, "tsar_place_update: unknown update " + std::to_string(what));
  if (what != TSAR_UPDATE_MERGE && (a.kind() != AssocKind::kArray || a.halo() == 0))
    return fail(TSAR_ERR_INVALID, "tsar_place_update: " + a.label() +
                                      " has no halo (padding updates exchange halos; "
                                      "TSAR_UPDATE_MERGE merges any partitioned buffer)");
  if (what == TSAR_UPDATE_MERGE && !a.partitioned())
    return fail(TSAR_ERR_INVALID, "tsar_place_update: " + a.label() +
                                      " is shared, not partitioned: nothing to merge");
  const bool copies = outer_policy_ == TSAR_POLICY_REPLICATE;
  if (!copies) return barrier(place);  // one shared buffer: already coherent
  const std::size_t bytes = exchange_halo(place, *entries_[index], what);
  if (bytes == static_cast<std::size_t>(-1))
    return fail(TSAR_ERR_CANCELED, "the pass of partition '" + options_.name + "' was canceled");
  s.stats.halo_bytes += static_cast<std::int64_t>(bytes);
  return TSAR_OK;
}

std::size_t Partition::exchange_halo(int place, const Entry& entry, int what) {
  Slot& s = *slots_[static_cast<std::size_t>(place)];
  const Association& a = entry.association;
  std::size_t index = 0;
  while (entries_[index].get() != &entry) ++index;
  PlaceCopy& mine = *s.copies[index];
  const std::size_t e = a.shape().elem_size;
  const View host = host_view(a);
  const auto wait = [&] {
    const double t0 = clock(place);
    const bool ok = barrier_.arrive_and_wait();
    s.stats.wait_seconds += clock(place) - t0;
    return ok;
  };
  constexpr std::size_t kCanceled = static_cast<std::size_t>(-1);
  std::size_t bytes = 0;
  if (what == TSAR_UPDATE_MERGE) {
    if (!wait()) return kCanceled;
    bytes += mine.merge_out(a);
    if (!wait()) return kCanceled;
    return bytes + mine.copy_in(a, s.range, false);
  }
  const auto d = static_cast<std::size_t>(a.part_dim());
  const auto h = static_cast<std::int64_t>(a.halo());
  const Box need = a.box(s.range, true);
  const Box own = a.box(s.range, false);
  Box before = need, after = need;
  before.hi[d] = s.range.empty() ? before.lo[d] : own.lo[d];
  after.lo[d] = s.range.empty() ? after.hi[d] : own.hi[d];
  switch (what) {
    case TSAR_UPDATE_PADDING_NEARBY:
      if (!wait()) return kCanceled;  // every place's boundary is final
      for (const auto& other : slots_) {
        if (other.get() == &s || other->range.empty() || index >= other->copies.size() ||
            !other->copies[index])
          continue;
        const Box theirs = a.box(other->range, false);
        for (Box halo : {before, after}) {
          halo.lo[d] = std::max(halo.lo[d], theirs.lo[d]);
          halo.hi[d] = std::min(halo.hi[d], theirs.hi[d]);
          bytes += copy_box(mine.data(), other->copies[index]->data(), e, halo);
        }
      }
      if (!wait()) return kCanceled;  // nobody writes its boundary before the others read it
      return bytes;
    case TSAR_UPDATE_PADDING_FROM:
      if (a.output() && !s.range.empty()) {
        Box first = own, last = own;
        first.hi[d] = std::min(own.hi[d], own.lo[d] + h);
        last.lo[d] = std::max(first.hi[d], own.hi[d] - h);
        bytes += copy_box(host, mine.data(), e, first) + copy_box(host, mine.data(), e, last);
      }
      if (!wait()) return kCanceled;
      return bytes;
    case TSAR_UPDATE_PADDING_TO:
      if (!wait()) return kCanceled;
      return copy_box(mine.data(), host, e, before) + copy_box(mine.data(), host, e, after);
    default:
      return 0;
  }
}

// ---------------------------------------------------------------------------------------
// Statistics

void Partition::record_pass(std::int64_t n, double seconds, double schedule_seconds) {
  const auto slot = static_cast<std::size_t>(passes_ % kKeepPasses);
  tsar_pass_stats& ps = pass_ring_[slot];
  ps = {};
  ps.pass = passes_;
  ps.n = n;
  ps.sub_passes = 1;
  ps.canceled = canceled_.load() ? 1 : 0;  // failed places cancel the pass too
  ps.seconds = seconds;
  ps.schedule_seconds = schedule_seconds;
  for (std::size_t p = 0; p < slots_.size(); ++p)
    place_ring_[slot * slots_.size() + p] = slots_[p]->stats;
  ++passes_;
  if (trace_ != nullptr && !trace_->csv())  // the CSV columns are the regions' (per device)
    trace_->write(partition_pass_to_json(options_.name, outer_policy_, ps,
                                         std::span<const tsar_place_stats>(place_ring_)
                                             .subspan(slot * slots_.size(), slots_.size())));
}

void Partition::pass_stats(std::int64_t pass, tsar_pass_stats* stats, tsar_place_stats* places,
                           int capacity) const {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "statistics are read outside passes");
  if (capacity < 0) throw Error(TSAR_ERR_INVALID, "capacity is negative");
  if (capacity > 0 && places == nullptr)
    throw Error(TSAR_ERR_NULL, "places is NULL but capacity > 0");
  const std::int64_t p = pass == -1 ? passes_ - 1 : pass;
  if (p < 0 || p >= passes_ || p < passes_ - kKeepPasses)
    throw Error(TSAR_ERR_INVALID, "pass " + std::to_string(pass) +
                                      " is not kept (passes run: " + std::to_string(passes_) +
                                      ", the last " + std::to_string(kKeepPasses) + " are kept)");
  const auto slot = static_cast<std::size_t>(p % kKeepPasses);
  if (stats != nullptr) *stats = pass_ring_[slot];
  for (int i = 0; i < std::min(capacity, num_places()); ++i)
    places[i] = place_ring_[slot * slots_.size() + static_cast<std::size_t>(i)];
}

}  // namespace tsar::core

// SPDX-License-Identifier: BSD-3-Clause
// MPI_Init / MPI_Finalize: setting monitoring up and tearing it down.
//
// Everything here runs on the thread that calls MPI_Init/MPI_Finalize, inside those calls, on
// private duplicates of MPI_COMM_WORLD. Every rank takes the same collective path whatever its
// own configuration says (the first step agrees on it), so a bad value on one rank can never
// make the others wait. Any failure leaves the job running unmonitored with one message.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "comm_map.hpp"
#include "exchange.hpp"
#include "hooks.hpp"
#include "message_size.hpp"
#include "mpi.hpp"
#include "papi_sampler.hpp"
#include "placement.hpp"
#include "runtime.hpp"
#include "symmer/segment/naming.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/segment/report.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::shim {
namespace {

#if defined(OPEN_MPI)
constexpr segment::MpiFamily kFamily = segment::MpiFamily::kOpenMpi;
constexpr const char* kFamilyName = "Open MPI";
#else
constexpr segment::MpiFamily kFamily = segment::MpiFamily::kMpich;
constexpr const char* kFamilyName = "MPICH";
#endif

struct InitState {
  Expected<Config> config = Error(Errc::kInternal, "MPI_Init not seen");
  MPI_Comm world;  ///< private duplicate of MPI_COMM_WORLD
  MPI_Comm node;   ///< the ranks of this node
  bool have_world = false, have_node = false;
};
InitState init_state;

// The MPI's own description of itself (MPICH's names its device: "MPICH Device: ch4:ucx").
std::string full_library_version() {
  std::vector<char> text(16384, '\0');  // larger than any MPI_MAX_LIBRARY_VERSION_STRING
  int len = 0;
  if (mpi.PMPI_Get_library_version == nullptr ||
      mpi.PMPI_Get_library_version(text.data(), &len) != MPI_SUCCESS)
    return {};
  return text.data();
}

std::string library_version() {
  const std::string v = full_library_version();
  return v.substr(0, v.find('\n'));
}

bool library_matches(const std::string& version) {
#if defined(OPEN_MPI)
  return version.find("Open MPI") != std::string::npos;
#else
  // MPICH and the MPICH-ABI derivatives.
  return version.find("MPICH") != std::string::npos ||
         version.find("MVAPICH") != std::string::npos ||
         version.find("Intel(R) MPI") != std::string::npos;
#endif
}

// Rank 0 by the launcher's environment: only usable before the MPI library is known to match.
bool launcher_rank_zero() {
  for (const char* v : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
    if (const char* r = std::getenv(v)) return std::strcmp(r, "0") == 0;
  return true;
}

std::string app_name() {
  std::ifstream in("/proc/self/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

std::uint64_t random_job_id() {
  std::random_device rd;
  std::uint64_t id = 0;
  while (id == 0) id = (std::uint64_t{rd()} << 32) ^ rd();
  return id;
}

// Reads an integer control variable through MPI_T; nullopt when the MPI has no such variable.
std::optional<std::uint64_t> cvar(const char* wanted) {
  int count = 0;
  if (mpi.PMPI_T_cvar_get_num(&count) != MPI_SUCCESS) return std::nullopt;
  for (int i = 0; i < count; ++i) {
    char name[256];
    int name_len = sizeof name, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    if (mpi.PMPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, nullptr, nullptr,
                                 &bind, &scope) != MPI_SUCCESS ||
        std::strcmp(name, wanted) != 0 || bind != MPI_T_BIND_NO_OBJECT)
      continue;
    MPI_T_cvar_handle handle;
    int n = 0;
    if (mpi.PMPI_T_cvar_handle_alloc(i, nullptr, &handle, &n) != MPI_SUCCESS || n != 1)
      return std::nullopt;
    std::optional<std::uint64_t> value;
    if (type == MPI_INT || type == MPI_UNSIGNED) {
      int v = 0;
      if (mpi.PMPI_T_cvar_read(handle, &v) == MPI_SUCCESS && v > 0)
        value = static_cast<std::uint64_t>(v);
    } else if (type == MPI_UNSIGNED_LONG || type == MPI_UNSIGNED_LONG_LONG || type == MPI_COUNT ||
               type == MPI_LONG_LONG) {
      long long v = 0;
      if (mpi.PMPI_T_cvar_read(handle, &v) == MPI_SUCCESS && v > 0)
        value = static_cast<std::uint64_t>(v);
    }
    mpi.PMPI_T_cvar_handle_free(&handle);
    return value;
  }
  return std::nullopt;
}

// Eager limits towards local and remote peers: SYMMER_EAGER_LIMIT, else the MPI's own control
// variables (MPI_T), else 64 KiB.
void choose_eager_limits(const Config& cfg, std::uint64_t& local, std::uint64_t& remote) {
  local = remote = 65536;
  if (cfg.eager_limit) {
    local = remote = *cfg.eager_limit;
    return;
  }
  int provided = 0;
  if (mpi.PMPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
  auto first = [](std::initializer_list<const char*> names) -> std::optional<std::uint64_t> {
    for (const char* n : names)
      if (auto v = cvar(n)) return v;
    return std::nullopt;
  };
  // MPICH lists the control variables of every device it knows; only its own device's apply.
  const bool ch3 = full_library_version().find("Device:\tch3") != std::string::npos;
  const char* mpich_local =
      ch3 ? "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE" : "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE";
  const char* mpich_remote =
      ch3 ? "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE" : "MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE";
  if (auto v = first({mpich_local, "btl_vader_eager_limit", "btl_sm_eager_limit"})) local = *v;
  if (auto v = first({mpich_remote, "btl_tcp_eager_limit"})) remote = *v;
  mpi.PMPI_T_finalize();
}

// Creates (local rank 0) or attaches to the node segment. Returns an error message or "".
std::string open_segment(const Config& cfg, int local_rank, MPI_Comm node) {
  segment::SegmentParams p;
  p.directory = cfg.shm_dir;
  p.job_id = g.job_id;
  p.node_id = g.node_id;
  p.node_index = g.node_index;
  p.node_count = g.node_count;
  p.local_ranks = g.local_ranks;
  p.world_size = g.world_size;
  p.mpi_family = kFamily;
  p.thread_level = static_cast<std::uint64_t>(g.thread_level);
  p.publish_period_ns = cfg.period_ms * 1'000'000ull;
  p.app_name = app_name();
  p.mpi_library = library_version();
  std::string problem;
  int created = 0;
  if (local_rank == 0) {
    choose_eager_limits(cfg, p.eager_limit_local, p.eager_limit_remote);
    auto seg = segment::SegmentWriter::create(p);
    if (seg) {
      g.segment.emplace(std::move(*seg));
      created = 1;
    } else {
      problem = "cannot create the node segment: " + seg.error().message;
    }
  }
  mpi.PMPI_Bcast(&created, 1, MPI_INT, 0, node);
  if (created && local_rank != 0) {
    const std::string dir = cfg.shm_dir.empty() ? segment::segment_directory() : cfg.shm_dir;
    const std::string path =
        dir + "/" + segment::segment_file_name(::geteuid(), g.job_id, g.node_id);
    auto seg = segment::SegmentWriter::attach(path, g.job_id, g.node_id, g.local_ranks);
    if (seg)
      g.segment.emplace(std::move(*seg));
    else
      problem = "cannot attach to the node segment: " + seg.error().message;
  }
  return problem;
}

void release_comms() {
  if (init_state.have_node) mpi.PMPI_Comm_free(&init_state.node);
  if (init_state.have_world) mpi.PMPI_Comm_free(&init_state.world);
  init_state.have_node = init_state.have_world = false;
}

// Gives up monitoring after a failed set-up step (all ranks agreed to).
void abandon() {
  if (g.segment && g.local_rank == 0) (void)g.segment->remove();
  g.segment.reset();
  release_comms();
}

// Local rank 0 writes the node segment as JSON (SYMMER_DUMP).
void dump_segment(const std::string& pattern) {
  std::string path = pattern;
  const std::string node = std::to_string(g.node_id);
  if (const auto at = path.find("{node}"); at != std::string::npos)
    path.replace(at, 6, node);
  else if (g.node_count > 1)
    path += ".node" + node;
  auto snap = segment::read_segment(g.segment->path());
  if (!snap) {
    say("cannot dump the node segment: " + snap.error().message);
    return;
  }
  auto j = segment::to_json(*snap);
  j["counters_note"] = papi_note();
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out) say("cannot write SYMMER_DUMP file " + path);
}

}  // namespace

namespace hooks {

void init_begin() noexcept {
  init_state.config = read_config();
  const ClockChoice clock = init_state.config ? init_state.config->clock : ClockChoice::kAuto;
  const bool tsc =
      clock == ClockChoice::kTsc || (clock == ClockChoice::kAuto && tsc_is_invariant());
  g_clock_source = tsc ? ClockSource::kTsc : ClockSource::kMonotonic;
  g.ticks.begin();  // calibrated over MPI_Init, which takes milliseconds anyway
}

void init_end(int rc, int /*required*/, int* provided) noexcept {
  if (rc != MPI_SUCCESS || g.active.load()) return;
  const std::string version = library_version();
  if (!library_matches(version)) {
    if (launcher_rank_zero())
      say(std::string("this shim was built for ") + kFamilyName + " but the application uses '" +
          (version.empty() ? "an unknown MPI" : version) +
          "'; the job runs unmonitored (symmer-run picks the matching shim)");
    return;
  }
  if (!mpi.complete) {
    if (launcher_rank_zero())
      say("the MPI library lacks functions the shim needs; the job runs unmonitored");
    return;
  }
  int world_rank = 0, world_size = 1, level = MPI_THREAD_SINGLE;
  mpi.PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  mpi.PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  mpi.PMPI_Query_thread(&level);
  if (provided) level = *provided;

  // 1. Agree: monitoring on everywhere and every configuration valid? The lowest rank with a
  //    bad value names it.
  if (mpi.PMPI_Comm_dup(MPI_COMM_WORLD, &init_state.world) != MPI_SUCCESS) return;
  init_state.have_world = true;
  mpi.PMPI_Comm_set_errhandler(init_state.world, MPI_ERRORS_RETURN);
  const Expected<Config>& cfg = init_state.config;
  // vote: {monitoring on and configuration valid, rank with a bad configuration}
  int vote[2] = {cfg && cfg->monitor ? 1 : 0, cfg ? INT_MAX : world_rank};
  int agreed[2] = {0, 0};
  if (mpi.PMPI_Allreduce(vote, agreed, 2, MPI_INT, MPI_MIN, init_state.world) != MPI_SUCCESS) {
    release_comms();
    return;
  }
  if (!cfg && agreed[1] == world_rank) say(cfg.error().message + "; the job runs unmonitored");
  if (!agreed[0]) {
    release_comms();
    return;
  }

  // 2. Nodes: the shared-memory split, refined by SYMMER_NODE_ID; local rank 0s lead them.
  g.config = *cfg;
  g.world_rank = static_cast<std::uint64_t>(world_rank);
  g.world_size = static_cast<std::uint64_t>(world_size);
  g.thread_level = level;
  g.status_ignore = MPI_STATUS_IGNORE;
  MPI_Comm shared;
  if (mpi.PMPI_Comm_split_type(init_state.world, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL,
                               &shared) != MPI_SUCCESS) {
    release_comms();
    return;
  }
  if (g.config.node_id) {
    mpi.PMPI_Comm_split(shared, static_cast<int>(*g.config.node_id), world_rank, &init_state.node);
    mpi.PMPI_Comm_free(&shared);
  } else {
    init_state.node = shared;
  }
  init_state.have_node = true;
  int local_rank = 0, local_size = 1;
  mpi.PMPI_Comm_rank(init_state.node, &local_rank);
  mpi.PMPI_Comm_size(init_state.node, &local_size);
  MPI_Comm leaders;
  mpi.PMPI_Comm_split(init_state.world, local_rank == 0 ? 0 : MPI_UNDEFINED, world_rank, &leaders);
  std::uint64_t node_info[2] = {0, 1};  // index, count
  if (local_rank == 0) {
    int r = 0, n = 1;
    mpi.PMPI_Comm_rank(leaders, &r);
    mpi.PMPI_Comm_size(leaders, &n);
    node_info[0] = static_cast<std::uint64_t>(r);
    node_info[1] = static_cast<std::uint64_t>(n);
  }
  mpi.PMPI_Bcast(node_info, 2, MPI_UINT64_T, 0, init_state.node);
  g.local_rank = static_cast<std::uint64_t>(local_rank);
  g.local_ranks = static_cast<std::uint64_t>(local_size);
  g.node_index = node_info[0];
  g.node_count = node_info[1];
  g.node_id = g.config.node_id ? *g.config.node_id : g.node_index;
  g.node_buckets = std::min<std::uint64_t>(g.node_count, segment::kMaxNodeBuckets);
  g.peer_entries = g.local_ranks + g.node_buckets;

  // 3. Peer map: every world rank's node and local rank.
  std::vector<std::int32_t> mine = {static_cast<std::int32_t>(g.node_index), local_rank},
                            all(2 * world_size);
  mpi.PMPI_Allgather(mine.data(), 2, MPI_INT, all.data(), 2, MPI_INT, init_state.world);
  g.peer_of_world.assign(world_size, -1);
  for (int w = 0; w < world_size; ++w) {
    const auto node = static_cast<std::uint64_t>(all[2 * w]);
    g.peer_of_world[w] = node == g.node_index
                             ? all[2 * w + 1]
                             : static_cast<std::int32_t>(g.local_ranks + node % g.node_buckets);
  }

  // 4. Job identity, then the node segment.
  std::uint64_t job = g.config.job_id ? *g.config.job_id : (world_rank == 0 ? random_job_id() : 0);
  mpi.PMPI_Bcast(&job, 1, MPI_UINT64_T, 0, init_state.world);
  g.job_id = job;
  std::string problem =
      g.local_ranks > segment::kMaxLocalRanks
          ? "more than " + std::to_string(segment::kMaxLocalRanks) + " ranks on a node"
          : open_segment(g.config, local_rank, init_state.node);
  int ok = problem.empty() ? 1 : 0, all_ok = 0;
  mpi.PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, init_state.world);
  if (!problem.empty()) say(problem + "; the job runs unmonitored");
  if (!all_ok) {
    if (leaders != MPI_COMM_NULL) mpi.PMPI_Comm_free(&leaders);
    abandon();
    return;
  }

  // 5. This rank's slot and runtime state.
  const segment::SegmentHeader& h = g.segment->header();
  g.eager_local = h.eager_limit_local;
  g.eager_remote = h.eager_limit_remote;
  g.launch_cpus = launch_cpus();
  g.current_cpus = g.launch_cpus;
  g.compute_threads = compute_threads();
  g.publishing.store(true);
  if (g.segment->attach_slot(g.local_rank, g.world_rank, segment::mask_of(g.launch_cpus),
                             g.compute_threads)) {
    g.slot_seq.emplace(g.segment->identity(g.local_rank).seq);
    const std::uint64_t* word = &g.segment->control(g.local_rank).command;
    g.seen_command.store(segment::load_word(*word));
    g.command_word.store(word);
  } else {
    stop_publishing("slot " + std::to_string(g.local_rank) + " is being written by someone else",
                    false);
  }
  hooks::prepare(g.thread_level);
  g.retired_peers.reset(new PeerCounter[g.peer_entries]);
  g.sum_peers.reset(new PeerCounter[g.peer_entries]);
  comm_map_init(MPI_COMM_WORLD);
  message_size_init();
  papi_start(g.config.papi);
  g.ticks.end(2'000'000);  // at least 2 ms of calibration
  g.publish_period_ticks = g.ticks.to_ticks(g.config.period_ms * 1'000'000ull);
  if (leaders != MPI_COMM_NULL) {
    if (g.node_count > 1) exchange_init(leaders);
    mpi.PMPI_Comm_free(&leaders);
  }
  ThreadState* main = register_thread();
  if (main == nullptr) {
    abandon();
    return;
  }
  main->main_thread = true;
  if (local_rank == 0 && g.config.embedded_analyzer) {
    EmbeddedAnalyzerContext ctx;
    ctx.segment_path = g.segment->path();
    ctx.job_id = g.job_id;
    ctx.node_id = g.node_id;
    ctx.local_ranks = g.local_ranks;
    ctx.world_size = g.world_size;
    ctx.node_count = g.node_count;
    ctx.publish_period_ns = h.publish_period_ns;
    g.analyzer = start_embedded_analyzer(ctx);
  }
  // A job that exits without MPI_Finalize leaves no segment behind (a killed one is removed
  // by the next reader that finds its processes gone).
  if (local_rank == 0)
    std::atexit([] {
      if (g.active.load() && g.segment) (void)g.segment->remove();
    });
  publish_final(segment::SlotState::kActive);  // the slot is valid from now on
  g.next_publish.store(now_ticks() + g.publish_period_ticks);
  main->last_exit = now_ticks();
  g.active.store(true, std::memory_order_release);
  g.fast.store(g_clock_source == ClockSource::kTsc, std::memory_order_release);
}

void finalize_begin() noexcept {
  g.fast.store(false);
  if (!g.active.exchange(false)) return;
  if (t_state != &unregistered_thread)
    account_compute(*t_state, now_ticks());  // up to MPI_Finalize
  // The slot's final figures, then wait for the node's other ranks to publish theirs.
  publish_final(segment::SlotState::kFinished);
  mpi.PMPI_Barrier(init_state.node);
  if (g.local_rank == 0) {
    exchange_finish();
    g.analyzer.reset();  // stops and joins the embedded analyzer
    if (!g.config.dump_path.empty()) dump_segment(g.config.dump_path);
    (void)g.segment->remove();
  }
  comm_map_shutdown();
  papi_stop();
  g.publishing.store(false);
  g.command_word.store(&kNoCommand);
  g.slot_seq.reset();
  g.segment.reset();
  release_comms();
}

}  // namespace hooks
}  // namespace symmer::shim

// SPDX-License-Identifier: BSD-3-Clause
// symmer-run: starts an MPI job with symmer's PMPI shim preloaded.
//
//   symmer-run [options] mpiexec -n 16 ./app args...
//   symmer-run [options] ./app args...           (a singleton MPI process)
//
// Finds the MPI application among the arguments (the first ELF executable linked against an
// MPI library), picks the shim built for that MPI (MPICH: libsymmer-pmpi.so, Open MPI:
// libsymmer-pmpi-ompi.so), appends it to LD_PRELOAD, sets SYMMER_* variables from the options
// and execs the command. Without a recognisable MPI application the command runs unmonitored.
// With --report it runs the command as a child instead, and once it ends prints the analyzer's
// end-of-job report (symptoms seen, moves made, time recovered) from the decision log -- or,
// when symmerd analysed the job, from the daemon's decisions for it (asked through symmerctl,
// found beside symmer-run).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symmer/analysis/report.hpp"
#include "symmer_version.hpp"

namespace fs = std::filesystem;

namespace {

enum class Mpi { kNone, kMpich, kOpenMpi };

const char* shim_file(Mpi m) {
  return m == Mpi::kOpenMpi ? "libsymmer-pmpi-ompi.so" : "libsymmer-pmpi.so";
}

const char* mpi_name(Mpi m) {
  switch (m) {
    case Mpi::kMpich:
      return "MPICH";
    case Mpi::kOpenMpi:
      return "Open MPI";
    case Mpi::kNone:
      break;
  }
  return "none";
}

/// Options of the launcher; more are added here (e.g. reports) without touching main().
struct RunOptions {
  std::string mpi = "auto";
  std::string dump;
  std::string analyzer;
  std::string shim;
  std::string decision_log;
  std::string domain;
  bool report = false;
  bool dry_run = false;
};

void add_run_options(CLI::App& app, RunOptions& o) {
  app.add_option("--mpi", o.mpi,
                 "MPI of the application: auto (from its libraries), mpich, openmpi")
      ->check(CLI::IsMember({"auto", "mpich", "openmpi"}));
  app.add_option("--dump", o.dump,
                 "write each node's figures as JSON at MPI_Finalize (SYMMER_DUMP)");
  app.add_option("--analyzer", o.analyzer, "embedded analyzer in local rank 0: embedded or off")
      ->check(CLI::IsMember({"embedded", "off"}));
  app.add_option("--shim", o.shim,
                 "use this shim library instead of the one found beside symmer-run");
  app.add_option("--decision-log", o.decision_log,
                 "append the analyzer's decisions as JSON lines to this file "
                 "(SYMMER_DECISION_LOG)");
  app.add_option("--domain", o.domain,
                 "where symmer may place ranks: job (the CPUs the ranks were launched on, the "
                 "default) or node (every CPU the job's cpuset allows) (SYMMER_DOMAIN)")
      ->check(CLI::IsMember({"job", "node"}));
  app.add_flag("--report", o.report,
               "print the end-of-job report (symptoms seen, moves made, time recovered) to "
               "stderr when the job ends");
  app.add_flag("--dry-run", o.dry_run, "print the decision and the environment, run nothing");
}

/// Runs `args` as a child and returns its exit status the way a shell reports it.
int run_child(std::vector<char*>& args) {
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::cerr << "symmer-run: cannot start " << args[0] << ": " << std::strerror(errno) << "\n";
    return 127;
  }
  if (pid == 0) {
    ::execvp(args[0], args.data());
    std::cerr << "symmer-run: cannot run " << args[0] << ": " << std::strerror(errno) << "\n";
    ::_exit(127);
  }
  // Ctrl-C reaches the whole foreground group: the job handles it, the launcher waits.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// symmerd logs a job's summary (its totals) once it sees the job gone, within a period or at
// once through inotify: how long the report waits for it at most.
constexpr int kSummaryTries = 30;
constexpr auto kSummaryRetry = std::chrono::milliseconds(100);

/// symmerd's decisions for job `job_id` of this user (symmerctl beside this launcher asks the
/// daemon); empty when no daemon answers or it made none. Waits a while for the job's summary.
std::vector<nlohmann::json> daemon_decisions(std::uint64_t job_id) {
  std::error_code ec;
  const fs::path ctl = fs::read_symlink("/proc/self/exe", ec).parent_path() / "symmerctl";
  if (ec || !fs::exists(ctl, ec)) return {};
  const std::string cmd = "'" + ctl.string() + "' decisions --json --limit 100000 2>/dev/null";
  char prefix[64];
  std::snprintf(prefix, sizeof prefix, "symmer-%u-%016llx-", static_cast<unsigned>(::geteuid()),
                static_cast<unsigned long long>(job_id));
  for (int attempt = 1;; ++attempt) {
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (pipe == nullptr) return {};
    std::string text;
    std::array<char, 4096> buf{};
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;)
      text.append(buf.data(), n);
    ::pclose(pipe);
    const auto reply = nlohmann::json::parse(text, nullptr, false);
    if (!reply.is_object() || reply.value("mode", "") == "embedded") return {};
    std::vector<nlohmann::json> out;
    bool summarised = false;
    for (const auto& e : reply.value("decisions", nlohmann::json::array()))
      if (e.is_object() && e.value("job", "").rfind(prefix, 0) == 0) {
        out.push_back(e);
        summarised = summarised || e.value("event", "") == "summary";
      }
    if (out.empty() || summarised || attempt == kSummaryTries) return out;
    std::this_thread::sleep_for(kSummaryRetry);
  }
}

/// Prints the report of the events appended to `log` after byte `from`, or of symmerd's
/// decisions for the job when the daemon analysed it.
void print_report(const fs::path& log, std::uintmax_t from, std::uint64_t job_id) {
  if (const auto events = daemon_decisions(job_id); !events.empty()) {
    symmer::analysis::Report report;
    for (const auto& e : events) report.add(e);
    std::cerr << "symmerd analysed this job; its decisions for it:\n" << report.to_text() << std::flush;
    return;
  }
  // Nothing logged: nobody analysed the job, and an empty report would say nothing was seen.
  std::error_code ec;
  std::ifstream in(log);
  if (!in || fs::file_size(log, ec) <= from || ec) {
    std::cerr << "symmer-run: no report: the job's analyzer logged nothing (it was off or "
                 "disabled, or the job ended before MPI_Init)\n";
    return;
  }
  in.seekg(static_cast<std::streamoff>(from));
  const symmer::analysis::Report report = symmer::analysis::summarize(in);
  std::cerr << report.to_text() << std::flush;
}

/// The job id the shim will use: SYMMER_JOB_ID, else a new random one set there (so the
/// report can find the job among symmerd's). 0 when SYMMER_JOB_ID is not a number.
std::uint64_t job_id_for_report() {
  if (const char* v = std::getenv("SYMMER_JOB_ID")) return std::strtoull(v, nullptr, 0);
  std::random_device rd;
  std::uint64_t id = 0;
  while (id == 0) id = (std::uint64_t{rd()} << 32) ^ rd();
  char text[32];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(id));
  ::setenv("SYMMER_JOB_ID", text, 1);
  return id;
}

/// `name` as execvp would find it.
std::optional<fs::path> resolve_program(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) return fs::path(name);
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = dirs.find(':', start);
    const std::string dir =
        dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return std::nullopt;
}

bool is_elf_executable(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec) || ::access(p.c_str(), X_OK) != 0) return false;
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[4] = {};
  const bool elf = ::read(fd, magic, 4) == 4 && std::memcmp(magic,
                                                            "\x7f"
                                                            "ELF",
                                                            4) == 0;
  ::close(fd);
  return elf;
}

/// Which MPI a program is linked against, from the dynamic loader's view of it (ldd).
Mpi linked_mpi(const fs::path& program) {
  std::string cmd = "ldd '";
  for (char c : fs::absolute(program).string())
    cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
  cmd += "' 2>/dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return Mpi::kNone;
  std::array<char, 1024> line{};
  Mpi found = Mpi::kNone;
  while (std::fgets(line.data(), line.size(), pipe)) {
    const std::string l = line.data();
    if (l.find("libmpich.so") != std::string::npos || l.find("libmpi.so.12") != std::string::npos)
      found = Mpi::kMpich;
    else if (found == Mpi::kNone && l.find("libmpi.so.4") != std::string::npos)
      found = Mpi::kOpenMpi;
  }
  ::pclose(pipe);
  return found;
}

/// The shim beside this launcher: build tree (bin/../lib) or installed (bin/../<libdir>).
std::optional<fs::path> find_shim(Mpi m) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  for (const char* rel : {"../lib", SYMMER_RUN_INSTALL_LIBDIR}) {
    const fs::path p = self.parent_path() / rel / shim_file(m);
    if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec);
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"symmer-run: run an MPI job with symmer's monitor (PMPI shim) preloaded"};
  app.prefix_command();  // the first positional argument and everything after it is the command
  app.footer("Example: symmer-run mpiexec -n 16 ./app");
  RunOptions opts;
  add_run_options(app, opts);
  symmer::add_version_flag(app, "symmer-run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Bad options exit 2, as the manual page says; CLI11's own codes differ by error.
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::vector<std::string> command = app.remaining();
  // An option symmer-run does not know would else be taken for the command.
  if (!command.empty() && command.front().size() > 1 && command.front().front() == '-' &&
      command.front() != "--") {
    std::cerr << "symmer-run: unknown option " << command.front()
              << " (symmer-run's options come before the command; see --help)\n";
    return 2;
  }
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (command.empty()) {
    std::cerr << "symmer-run: no command given (try: symmer-run mpiexec -n 2 ./app)\n";
    return 2;
  }

  // The application: the first argument that is an ELF executable linked against an MPI.
  Mpi mpi = Mpi::kNone;
  std::string app_path;
  for (const std::string& arg : command) {
    const auto p = resolve_program(arg);
    if (!p || !is_elf_executable(*p)) continue;
    if (const Mpi m = linked_mpi(*p); m != Mpi::kNone) {
      mpi = m;
      app_path = p->string();
      break;
    }
  }
  if (opts.mpi == "mpich") mpi = Mpi::kMpich;
  if (opts.mpi == "openmpi") mpi = Mpi::kOpenMpi;

  std::optional<fs::path> shim;
  if (!opts.shim.empty())
    shim = fs::path(opts.shim);
  else if (mpi != Mpi::kNone)
    shim = find_shim(mpi);
  if (mpi == Mpi::kNone) {
    std::cerr << "symmer-run: no application linked against MPICH or Open MPI among the "
                 "arguments; running it unmonitored\n";
  } else if (!shim || !fs::exists(*shim)) {
    std::cerr << "symmer-run: no symmer shim for " << mpi_name(mpi) << " (" << shim_file(mpi)
              << ") was built or installed beside symmer-run; running unmonitored\n";
    shim.reset();
  }

  if (shim) {
    const char* old = std::getenv("LD_PRELOAD");
    const std::string preload =
        old && *old ? std::string(old) + ":" + shim->string() : shim->string();
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    if (!opts.dump.empty()) ::setenv("SYMMER_DUMP", opts.dump.c_str(), 1);
    if (!opts.analyzer.empty()) ::setenv("SYMMER_ANALYZER", opts.analyzer.c_str(), 1);
    if (!opts.domain.empty()) ::setenv("SYMMER_DOMAIN", opts.domain.c_str(), 1);
  }
  const std::uint64_t job_id = shim && opts.report && !opts.dry_run ? job_id_for_report() : 0;
  // The report reads the decision log: the one asked for, else a temporary file.
  fs::path log_path = opts.decision_log;
  bool temporary_log = false;
  std::uintmax_t log_start = 0;
  if (shim && opts.report && log_path.empty() && !opts.dry_run) {
    char name[] = "/tmp/symmer-decisions-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd >= 0) {
      ::close(fd);
      log_path = name;
      temporary_log = true;
    } else {
      std::cerr << "symmer-run: no report: cannot create a temporary decision log: "
                << std::strerror(errno) << "\n";
    }
  }
  if (shim && !log_path.empty()) {
    std::error_code ec;
    if (fs::exists(log_path, ec)) log_start = fs::file_size(log_path, ec);
    ::setenv("SYMMER_DECISION_LOG", log_path.c_str(), 1);
  }
  if (opts.dry_run) {
    std::cout << "application: " << (app_path.empty() ? "-" : app_path) << " (" << mpi_name(mpi)
              << ")\n"
              << "shim: " << (shim ? shim->string() : "-") << "\n"
              << "LD_PRELOAD=" << (std::getenv("LD_PRELOAD") ? std::getenv("LD_PRELOAD") : "")
              << "\n";
    return 0;
  }
  std::vector<char*> args;
  for (auto& a : command) args.push_back(a.data());
  args.push_back(nullptr);
  if (opts.report) {
    const int status = run_child(args);
    if (!shim)
      std::cerr << "symmer-run: no report: the job ran unmonitored\n";
    else if (!log_path.empty())
      print_report(log_path, log_start, job_id);
    if (temporary_log) ::unlink(log_path.c_str());
    return status;
  }
  ::execvp(args[0], args.data());
  std::cerr << "symmer-run: cannot run " << command[0] << ": " << std::strerror(errno) << "\n";
  return 127;
}

// SPDX-License-Identifier: BSD-3-Clause
#include "noise_process.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace tsar::bench {

std::string noise_program_path() {
  char buf[4096];
  const ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (len <= 0) return "symmer-noise";
  std::string self(buf, static_cast<std::size_t>(len));
  return self.substr(0, self.rfind('/') + 1) + "symmer-noise";
}

NoiseProcess::NoiseProcess(const std::string& program, const std::string& cores, double share) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  const std::string share_text = std::to_string(share);
  std::vector<std::string> args = {program, "--cpus", cores, "--share", share_text};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (rc != 0) {
    close(pipe_fds[0]);
    throw std::runtime_error("starting " + program + ": " + std::strerror(rc));
  }
  out_fd_ = pipe_fds[0];
  usleep(300'000);  // let it pin itself and settle
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    throw std::runtime_error(program + " exited at once (status " + std::to_string(status) + ")");
  }
}

std::string NoiseProcess::stop() {
  if (pid_ < 0) return "";
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  std::string out;
  char buf[1024];
  for (ssize_t n; (n = read(out_fd_, buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  close(out_fd_);
  out_fd_ = -1;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

NoiseProcess::~NoiseProcess() { stop(); }

}  // namespace tsar::bench

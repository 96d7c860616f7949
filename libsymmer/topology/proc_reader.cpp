// SPDX-License-Identifier: BSD-3-Clause
// ProcReader (see proc_reader.hpp).
#include "symmer/topology/proc_reader.hpp"

#include <cerrno>
#include <fstream>
#include <system_error>

namespace symmer::topology {
namespace {

constexpr std::size_t kMaxProcFileBytes = 64u << 20;

}  // namespace

ProcReader::ProcReader(std::string root) : root_(std::move(root)) {}

Expected<std::string> ProcReader::read_file(const std::string& name) const {
  const std::string path = root_ + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return Error(err == ENOENT ? Errc::kNotFound : Errc::kIo,
                 "cannot open " + path + ": " + std::generic_category().message(err));
  }
  // /proc files report size 0: read in chunks until EOF.
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxProcFileBytes)
      return Error(Errc::kIo, path + " is larger than 64 MiB; not a /proc file?");
  }
  if (in.bad()) return Error(Errc::kIo, "reading " + path + " failed");
  return text;
}

Expected<StatSnapshot> ProcReader::read_stat() const {
  auto text = read_file("stat");
  if (!text) return std::move(text).error();
  return parse_proc_stat(*text, root_ + "/stat");
}

Expected<InterruptsSnapshot> ProcReader::read_interrupts() const {
  auto text = read_file("interrupts");
  if (!text) return std::move(text).error();
  return parse_proc_interrupts(*text, root_ + "/interrupts");
}

Expected<SoftirqsSnapshot> ProcReader::read_softirqs() const {
  auto text = read_file("softirqs");
  if (!text) return std::move(text).error();
  return parse_proc_softirqs(*text, root_ + "/softirqs");
}

Expected<ProcSnapshot> ProcReader::read() const {
  ProcSnapshot snap;
  snap.taken = std::chrono::steady_clock::now();
  auto stat = read_stat();
  if (!stat) return std::move(stat).error();
  auto interrupts = read_interrupts();
  if (!interrupts) return std::move(interrupts).error();
  auto softirqs = read_softirqs();
  if (!softirqs) return std::move(softirqs).error();
  snap.stat = std::move(*stat);
  snap.interrupts = std::move(*interrupts);
  snap.softirqs = std::move(*softirqs);
  return snap;
}

}  // namespace symmer::topology

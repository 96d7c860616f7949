// SPDX-License-Identifier: BSD-3-Clause
// The SIGBUS guard of shared mappings (see guarded_mapping.hpp).
#include "symmer/segment/guarded_mapping.hpp"

#include <signal.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>

namespace symmer::segment {
namespace {

// Mappings under the guard. The handler reads the table without a lock (it may run at any
// point), so each entry is published with atomics: `begin` last on registration, first on
// removal.
struct Entry {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::size_t> size{0};
  std::atomic<bool> lost{false};
};
constexpr int kEntries = 64;
Entry table[kEntries];

std::mutex install_mutex;  // registration and the handler's installation (never in the handler)
bool installed = false;
struct sigaction previous {};

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (Entry& e : table) {
    const std::uintptr_t begin = e.begin.load(std::memory_order_acquire);
    const std::size_t size = e.size.load(std::memory_order_acquire);
    if (begin == 0 || addr < begin || addr - begin >= size) continue;
    // mmap is async-signal-safe in practice (a system call); errno is the interrupted code's.
    const int saved = errno;
    ::mmap(reinterpret_cast<void*>(begin), size, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    errno = saved;
    e.lost.store(true, std::memory_order_release);
    return;  // the faulting access runs again, on the private memory
  }
  // Not ours: whoever handled SIGBUS before, else the default action (the access faults again
  // on return and the kernel delivers it with the default disposition).
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else {
    ::signal(SIGBUS, SIG_DFL);
  }
}

bool install_handler() {
  if (installed) return true;
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (::sigaction(SIGBUS, &action, &previous) != 0) return false;
  installed = true;
  return true;
}

}  // namespace

Expected<GuardedMapping> GuardedMapping::map(int fd, std::size_t size, std::uint64_t offset) {
  std::lock_guard lock(install_mutex);
  if (!install_handler())
    return Error(Errc::kIo,
                 std::string("cannot install the SIGBUS guard: ") + std::strerror(errno));
  int slot = -1;
  for (int i = 0; i < kEntries && slot < 0; ++i)
    if (table[i].begin.load(std::memory_order_relaxed) == 0) slot = i;
  if (slot < 0) return Error(Errc::kUnsupported, "too many guarded mappings in this process");
  void* data =
      ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(offset));
  if (data == MAP_FAILED) return Error(Errc::kIo, std::string("mmap: ") + std::strerror(errno));
  Entry& e = table[slot];
  e.lost.store(false, std::memory_order_relaxed);
  e.size.store(size, std::memory_order_release);
  e.begin.store(reinterpret_cast<std::uintptr_t>(data), std::memory_order_release);
  return GuardedMapping(data, size, slot);
}

GuardedMapping::GuardedMapping(GuardedMapping&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      slot_(std::exchange(other.slot_, -1)) {}

GuardedMapping& GuardedMapping::operator=(GuardedMapping&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    slot_ = std::exchange(other.slot_, -1);
  }
  return *this;
}

GuardedMapping::~GuardedMapping() { release(); }

bool GuardedMapping::lost() const {
  return slot_ >= 0 && table[slot_].lost.load(std::memory_order_acquire);
}

void GuardedMapping::release() {
  if (data_ == nullptr) return;
  {
    std::lock_guard lock(install_mutex);
    table[slot_].begin.store(0, std::memory_order_release);
    table[slot_].size.store(0, std::memory_order_release);
  }
  ::munmap(data_, size_);
  data_ = nullptr;
  slot_ = -1;
}

}  // namespace symmer::segment

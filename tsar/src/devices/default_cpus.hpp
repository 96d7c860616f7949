// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which CPUs TSAR's default devices use: the CPUs this process was given -- by taskset, the
// MPI launcher (mpiexec -bind-to), Slurm, a cgroup -- and, when the program's OpenMP settings
// say so, only as many of them as OMP_NUM_THREADS asks for, in OMP_PLACES's places. So N MPI
// ranks each running TSAR on the CPUs their launcher gave them never oversubscribe a node.
// How those CPUs are grouped into devices (a device per core) is device_list's decision;
// GPU control cores come out of this set too (gpu_discovery).

#include <vector>

namespace symmer::topology {
class NodeModel;
}

namespace tsar::core {

/// What decides a process's CPUs, read from the process (this_process_cpus) or given by tests.
struct ProcessCpus {
  std::vector<int> affinity;                 ///< the calling thread's mask (Linux CPU numbers)
  std::vector<std::vector<int>> omp_places;  ///< the OpenMP runtime's places; empty: none
  int omp_num_threads = 0;                   ///< OMP_NUM_THREADS (first level); 0 when unset
};

/// This process's: the calling thread's affinity mask (a program's thread: TSAR gives every
/// such thread its mask back after each call); the places of the OpenMP runtime, which it
/// makes from OMP_PLACES, or from the cores when OMP_PROC_BIND asks it to bind, within the
/// process's mask at start-up (it binds the initial thread to the first place, so the mask
/// alone would say one place); and OMP_NUM_THREADS as the OpenMP runtime read it.
ProcessCpus this_process_cpus();

/// The CPUs of TSAR's default devices, Linux CPU numbers, sorted, never empty:
///  - with OpenMP places: the CPUs of the first OMP_NUM_THREADS places (all without it);
///  - else the affinity mask's CPUs, of its first OMP_NUM_THREADS cores (all without it);
/// either way within the node's allowed CPUs (the cgroup's). When neither leaves a CPU the
/// model knows, every allowed CPU.
std::vector<int> default_cpus(const symmer::topology::NodeModel& node, const ProcessCpus& process);

}  // namespace tsar::core

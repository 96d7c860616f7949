/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SYMMER_RANK_H
#define SYMMER_RANK_H
/* What libsymmer-pmpi.so tells a runtime running inside an MPI rank (TSAR) about the rank's
 * CPUs, and what such a runtime tells symmer. A runtime must not link the shim: it looks the
 * functions up with dlsym(RTLD_DEFAULT, "symmer_rank_...") and does nothing when they are
 * absent (no symmer) or answer -1 / 0 (symmer loaded but not monitoring this process).
 *
 * A rank is a set of Linux CPUs. When symmer moves the rank it re-binds every thread of the
 * process to the same relative place in the new set (symmer::topology::map_relative in
 * symmer/topology/cpu_list.hpp is the rule) and increments the set generation; a runtime
 * notices the new generation at its next pass and updates what it knows about its threads. */

#ifdef __cplusplus
extern "C" {
#endif

/* Number of CPU sets symmer has bound the rank to since MPI_Init (0: its launch set). 0 also
 * when symmer does not monitor this process. One atomic load: cheap enough for every pass. */
unsigned long long symmer_rank_set_generation(void);

/* Writes the rank's current CPU set (ascending Linux CPU numbers) into cpus[0..capacity-1]
 * and its generation into *generation (when not NULL). Returns the number of CPUs in the set
 * (which may exceed capacity: call again with more room), or -1 when symmer does not
 * monitor this process. */
int symmer_rank_cpus(int* cpus, int capacity, unsigned long long* generation);

/* The runtime's worker CPUs and GPU control cores in this rank (Linux CPU numbers), published
 * in the rank's slot of the node segment: the analyzer plans with them and keeps other ranks
 * off the control cores. Returns 0, or -1 when symmer does not monitor this process or a CPU
 * is out of range (nothing is published then). */
int symmer_rank_publish_runtime_cpus(const int* workers, int nworkers, const int* control,
                                     int ncontrol);

#ifdef __cplusplus
}
#endif
#endif

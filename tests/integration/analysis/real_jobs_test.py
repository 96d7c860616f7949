#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""symmer on jobs as real clusters launch them (ctest label mpi, a real mpiexec, at most 2
ranks on 2 CPUs): ranks bound to several CPUs, jobs confined by taskset, one rank alone on a
degraded core, the report against what the application itself measured, symmerctl without a
daemon.

    real_jobs_test.py --bin <build/bin> --mpiexec <mpiexec.mpich> <case>

Each case checks behaviour, never timings: where the ranks were allowed to run while the job
ran (/proc, every 20 ms), what the decision log and the report say, and ratios with generous
margins between the report's figures and the application's own.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../support'))
from symmer_testing.cases import Cases, Failure, Skip, check  # noqa: E402
from symmer_testing.mpi_jobs import (JobFolder, Noise, cpu_list, cpus_allowed,  # noqa: E402
                                     descendants, json_lines, last_cpu, last_json_line,
                                     threads_named)

CASES = Cases()
case = CASES.case


class Env:
    def __init__(self, args):
        self.args = args
        self.folder = JobFolder('symmer-real-jobs-')
        self.log = self.folder.path('decisions.jsonl')
        if len(os.sched_getaffinity(0)) < 2 or not {0, 1} <= os.sched_getaffinity(0):
            raise Skip('needs CPUs 0 and 1')

    def env(self, **extra):
        return self.folder.env(**{'SYMMER_CONFIG': '', **extra})

    def bench(self, *options):
        return [os.path.join(self.args.bin, 'symmer-idleness'), *map(str, options)]

    def symmer_run(self, *options):
        return [os.path.join(self.args.bin, 'symmer-run'), '--report', '--decision-log', self.log,
                *options]

    def run(self, cmd, noise_cpus=(), watch=None, noise_share=0.5, **env):
        """Runs `cmd` to its end with symmer-noise taking `noise_share` of `noise_cpus`, calling
        watch(ranks) every 20 ms with the pids of the benchmark's ranks; returns (result line,
        events, process)."""
        cmd = [str(c) for c in cmd]

        def go():
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=self.env(**env))
            end = time.monotonic() + 150
            while p.poll() is None and time.monotonic() < end:
                if watch:
                    ranks = [r for r in descendants(p.pid) if comm(r) == 'symmer-idleness']
                    if ranks:
                        watch(sorted(ranks))
                time.sleep(0.02)
            out, err = p.communicate(timeout=max(1, end - time.monotonic()))
            return subprocess.CompletedProcess(cmd, p.returncode, out, err)

        if noise_cpus:
            with Noise(self.args.bin, list(noise_cpus), share=noise_share):
                p = go()
        else:
            p = go()
        check(p.returncode == 0, f'{" ".join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}')
        result = last_json_line(p.stdout)
        check(result is not None, f'no result line:\n{p.stdout}')
        return result, json_lines(self.log), p

    @staticmethod
    def kinds(events, kind):
        return [e for e in events if e.get('event') == kind]

    def close(self):
        self.folder.remove()


def comm(pid):
    try:
        with open(f'/proc/{pid}/comm') as f:
            return f.read().strip()
    except OSError:
        return ''


def maps_segment(pid, shm):
    """Whether process `pid` has mapped a node segment of `shm` (it attached: past MPI_Init)."""
    try:
        with open(f'/proc/{pid}/maps') as f:
            return shm in f.read()
    except OSError:
        return False


def rank_sets(env):
    """watch() that records every CPU set each rank process was allowed, in order, from the
    moment it attached to its node segment: MPICH itself binds a rank to CPU 0 for a moment
    inside MPI_Init (hwloc reads each CPU's CPUID), whatever symmer does or does not do."""
    seen = {}

    def watch(ranks):
        for r in ranks:
            if r not in seen and not maps_segment(r, env.folder.shm):
                continue
            cpus = cpus_allowed(r)
            if cpus and (not seen.get(r) or seen[r][-1] != cpus):
                seen.setdefault(r, []).append(cpus)
    return seen, watch


@case
def hybrid_rank_keeps_its_set(env):
    # The job: rank 0 on CPU 0, rank 1 on CPUs 0 and 1 with two compute threads each,
    # CPU 0 half taken by noise. Rank 1's two CPUs are its set: no move may leave it one.
    seen, watch = rank_sets(env)
    result, events, p = env.run(
        env.symmer_run(env.args.mpiexec, '-n', 2, '-bind-to', 'user:0,0+1',
                       *env.bench('--iterations', 150, '--work-ms', 5, '--ratio', 4)),
        noise_cpus=[0], watch=watch, OMP_NUM_THREADS=2)
    check(len(seen) == 2, f'saw {len(seen)} ranks: {seen}')
    launched = {pid: sets[0] for pid, sets in seen.items()}
    check(sorted(launched.values()) == ['0', '0-1'], f'launch sets: {launched}')
    for pid, sets in seen.items():
        sizes = {len(cpu_list(s)) for s in sets}
        check(sizes == {len(cpu_list(sets[0]))},
              f'rank pid {pid} changed the size of its set: {sets}; decisions: {events}')


@case
def unbound_hybrid_ranks_are_the_reason_given(env):
    # Two ranks of two threads each, launched unbound: symmer cannot tell which cores their
    # threads use and moves neither; the report says that, not that no core was better.
    result, events, p = env.run(
        env.symmer_run(env.args.mpiexec, '-n', 2, '-bind-to', 'none',
                       *env.bench('--iterations', 100, '--work-ms', 5, '--ratio', 4)),
        OMP_NUM_THREADS=2)
    check(not env.kinds(events, 'actuation'), f'a move was made: {events}')
    check('idleness: no rank has a place' in p.stderr and 'no better core' not in p.stderr,
          f'report:\n{p.stderr}')


@case
def taskset_domain_is_respected(env):
    # The whole job confined to CPU 1 by its user, ranks unbound inside it, CPU 1 noisy: a
    # cleaner CPU 0 exists, but nothing of the job may run there: no rank, and not symmer's
    # own analyzer thread in rank 0's process either.
    seen, watch_ranks = rank_sets(env)
    analyzer = set()

    def watch(ranks):
        watch_ranks(ranks)
        for r in ranks:
            for tid in threads_named(r, 'symmer-analyze'):
                if cpus := cpus_allowed(r, tid):
                    analyzer.add(cpus)

    result, events, p = env.run(
        ['taskset', '-c', '1'] + env.symmer_run(env.args.mpiexec, '-n', 2, '-bind-to', 'none',
                                                *env.bench('--iterations', 100, '--work-ms', 5,
                                                           '--ratio', 4)),
        noise_cpus=[1], watch=watch)
    check(seen, 'no rank seen')
    for pid, sets in seen.items():
        for s in sets:
            check(cpu_list(s) <= {1}, f'rank pid {pid} was allowed CPUs {s} outside the mask 1; '
                  f'all: {seen}; decisions: {env.kinds(events, "plan")}')
    check(analyzer, 'the analyzer thread was never seen while the job ran')
    for s in analyzer:
        check(cpu_list(s) <= {1}, f'the analyzer thread was allowed CPUs {s} outside the mask 1')
    check(not env.kinds(events, 'actuation'), f'a move was made: {env.kinds(events, "actuation")}')


def taken_ticks(cpu):
    """(ticks CPU `cpu` gave to work at a nice-0 priority, interrupts and steal; all its ticks)
    from /proc/stat: niced work yields to a nice-0 rank, the rest a rank moving there would
    share or lose."""
    with open('/proc/stat') as f:
        for line in f:
            words = line.split()
            if words[0] == f'cpu{cpu}':
                user, nice, system, idle, iowait, irq, softirq, steal = map(int, words[1:9])
                return (user + system + irq + softirq + steal,
                        user + nice + system + idle + iowait + irq + softirq + steal)
    raise Failure(f'no cpu{cpu} line in /proc/stat')


@case
def lone_rank_leaves_a_degraded_core(env):
    # One rank, nobody waits for it, three quarters of its CPU taken by noise, the user lets
    # symmer use the node (--domain node): it moves to the free clean CPU (the capability
    # symptom). Whether CPU 1 was clean while the rank sat on CPU 0 is measured here, from
    # /proc/stat, independently of the analyzer: only other work of the rank's priority,
    # interrupts or steal taking much of CPU 1 make staying right, and only then is the case
    # skipped.
    samples = []  # (CPU 1's taken and total ticks, the rank's CPUs, its last CPU), every 20 ms

    def watch(ranks):
        samples.append((taken_ticks(1), cpus_allowed(ranks[0]), last_cpu(ranks[0])))

    result, events, p = env.run(
        env.symmer_run('--domain', 'node', env.args.mpiexec, '-n', 1, '-bind-to', 'user:0',
                       *env.bench('--iterations', 300, '--work-ms', 10)),
        noise_cpus=[0], noise_share=0.75, watch=watch)
    on_cpu0 = [ticks for ticks, cpus, _ in samples if cpus == '0']
    check(len(on_cpu0) >= 2, f'the rank was never seen on CPU 0: {samples[:5]}')
    (taken0, total0), (taken1, total1) = on_cpu0[0], on_cpu0[-1]
    taken = (taken1 - taken0) / max(1, total1 - total0)
    done = [e for e in env.kinds(events, 'actuation') if e['completed'] and not e['rollback']]
    if not done and taken > 0.4:
        raise Skip(f'CPU 1 was not clean while the rank sat on CPU 0: {taken:.0%} of it went to '
                   f'other work at nice 0, interrupts and steal (symptoms: '
                   f'{[e["evidence"] for e in env.kinds(events, "symptom")][:2]})')
    check(done, f'the lone rank was not moved although CPU 1 was clean ({taken:.0%} taken); '
          f'decisions: {events}')
    plans = {e['plan']: e for e in env.kinds(events, 'plan')}
    check('capability' in plans[done[0]['plan']]['metrics'],
          f'moved for another reason: {plans[done[0]["plan"]]}')
    check(done[0]['moves_in_effect'][0]['to_cpus'] == '1', f'moved where? {done[0]}')
    # The benchmark sees the move at its next iteration; a move near its end may come after
    # its last, and then /proc's view of where the rank ran is the evidence.
    ran_on_cpu1 = any(cpus == '1' and cpu == 1 for _, cpus, cpu in samples)
    check(result['per_rank'][0]['moved_at_s'] is not None or ran_on_cpu1,
          f'the rank never ran elsewhere: {samples[-5:]}')
    check('moved r0: CPUs 0 -> 1 (capability)' in p.stderr, f'report:\n{p.stderr}')


@case
def lone_rank_stays_inside_its_domain(env):
    # The same rank launched on CPU 0 alone, the domain not widened: it stays, and the report
    # says why.
    result, events, p = env.run(
        env.symmer_run(env.args.mpiexec, '-n', 1, '-bind-to', 'user:0',
                       *env.bench('--iterations', 150, '--work-ms', 10)),
        noise_cpus=[0])
    check(not env.kinds(events, 'actuation'), f'a move was made: {events}')
    check('capability: no better core' in p.stderr, f'report gives no reason:\n{p.stderr}')


@case
def report_symptom_time_is_the_measured_wait(env):
    # Advice only, so the symptom lasts the whole run: the report's duration is the run's, and
    # the waiting it shows is what the benchmark's ranks measured inside their MPI calls.
    result, events, p = env.run(
        env.symmer_run(env.args.mpiexec, '-n', 2, '-bind-to', 'user:0,1',
                       *env.bench('--iterations', 200, '--work-ms', 5, '--ratio', 4)),
        noise_cpus=[0], SYMMER_ADVICE_ONLY='true')
    summary = env.kinds(events, 'summary')
    check(summary and 'idleness' in summary[-1].get('symptoms', {}),
          f'no idleness totals in the summary: {summary}')
    s = summary[-1]['symptoms']['idleness']
    waited = sum(r['wait_s'] for r in result['per_rank'])
    check(0.5 * waited <= s['wait_s'] <= 1.3 * waited,
          f'report: ranks waited {s["wait_s"]:.3f} s; the ranks measured {waited:.3f} s')
    check(s['duration_s'] >= 0.5 * result['time_s'],
          f'symptom lasted {s["duration_s"]:.2f} s of a {result["time_s"]:.2f} s run')
    check('ranks waited' in p.stderr and 'lasted' in p.stderr, f'report:\n{p.stderr}')


@case
def symmerctl_reads_an_embedded_job(env):
    # No daemon anywhere: symmerctl shows the running job from its segment and the decisions
    # its embedded analyzer published.
    ctl = os.path.join(env.args.bin, 'symmerctl')
    no_daemon = ['--socket', os.path.join(env.folder.tmp, 'no-daemon.sock')]
    outputs = {}

    def watch(ranks):
        if outputs or len(ranks) < 2:
            return
        time.sleep(1.0)  # a few windows: decisions published
        for what in (['status'], ['jobs'], ['cores'], ['ranks'], ['decisions', '--limit', '500'],
                     ['watch', '--count', '2', '--interval', '0.2']):
            q = subprocess.run([ctl, *what, *no_daemon, '--dir', env.folder.shm],
                               capture_output=True, text=True, timeout=60, env=env.env())
            outputs[what[0]] = q

    env.run(env.symmer_run(env.args.mpiexec, '-n', 2, '-bind-to', 'user:0,1',
                           *env.bench('--iterations', 300, '--work-ms', 5, '--ratio', 4)),
            noise_cpus=[0], watch=watch)
    check(len(outputs) == 6, f'symmerctl ran {sorted(outputs)} only (the job ended too soon?)')
    for name, q in outputs.items():
        check(q.returncode == 0, f'symmerctl {name} exit {q.returncode}:\n{q.stdout}\n{q.stderr}')
    check('embedded' in outputs['status'].stdout and 'symmer-idleness' in outputs['status'].stdout,
          f'status:\n{outputs["status"].stdout}')
    check('symmer-idleness' in outputs['jobs'].stdout, f'jobs:\n{outputs["jobs"].stdout}')
    cores = outputs['cores'].stdout
    check('CPUS' in cores and 'Linux CPU numbers' in cores and ':0' in cores,
          f'cores:\n{cores}')
    ranks = outputs['ranks'].stdout
    check('CPUS' in ranks and 'Linux CPU numbers' in ranks and 'symmer-idleness' in ranks,
          f'ranks:\n{ranks}')
    check('config' in outputs['decisions'].stdout, f'decisions:\n{outputs["decisions"].stdout}')
    watched = outputs['watch'].stdout
    check('embedded' in watched and 'RANK' in watched, f'watch:\n{watched}')
    # Into a pipe: one refresh after another, no terminal control codes.
    check(watched.count('no symmerd') == 2 and '\033' not in watched, f'watch:\n{watched!r}')


if __name__ == '__main__':
    sys.exit(CASES.main(['--bin', '--mpiexec'], setup=Env, teardown=Env.close))

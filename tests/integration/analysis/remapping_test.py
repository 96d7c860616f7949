#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Autonomic remapping end to end: the symptom benchmarks under symmer-run with a real mpiexec
(ctest label mpi, 2 pinned ranks, the embedded analyzer in local rank 0).

    remapping_test.py --bin <build/bin> --mpiexec <mpiexec.mpich> <case>

Each case checks behaviour, never timings: which moves the decision log records, where the
benchmark's ranks ran (they report their CPU every iteration), what symmer-run --report and
the analyzer print, that the job completes with exit code 0, and that no two ranks end on one
core.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../support'))
from symmer_testing.cases import Cases, Skip, check  # noqa: E402
from symmer_testing.mpi_jobs import (JobFolder, Noise, cpu_list, cpus_allowed,  # noqa: E402
                                     descendants, json_lines, last_json_line, threads_named)

CASES = Cases()
case = CASES.case


class Env:
    def __init__(self, args):
        self.args = args
        self.folder = JobFolder('symmer-remap-test-')
        self.tmp = self.folder.tmp
        self.log = self.folder.path('decisions.jsonl')

    def env(self, **extra):
        # The built-in defaults, whatever symmer.toml is installed, unless the case says.
        return self.folder.env(**{'SYMMER_CONFIG': '', **extra})

    def command(self, bench, options, cpus=(0, 1), report=True):
        """symmer-run [--report] --decision-log L mpiexec -n N -bind-to user:CPUS bench ..."""
        cmd = [os.path.join(self.args.bin, 'symmer-run'), '--decision-log', self.log]
        if report:
            cmd.append('--report')
        return cmd + [self.args.mpiexec, '-n', str(len(cpus)), '-bind-to',
                      'user:' + ','.join(map(str, cpus)),
                      os.path.join(self.args.bin, f'symmer-{bench}'), *map(str, options)]

    def run(self, bench, options, noise_core=None, report=True, watch=None, **env):
        """Runs the benchmark to its end (calling watch(pid of symmer-run) every 20 ms while it
        runs); returns its result line, the decision log and the finished process."""
        cmd = self.command(bench, options, report=report)
        if noise_core is None:
            p = self.complete(cmd, watch, env)
        else:
            with Noise(self.args.bin, [noise_core], share=NOISE_SHARE):
                p = self.complete(cmd, watch, env)
        check(p.returncode == 0, f'{" ".join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}')
        result = last_json_line(p.stdout)
        check(result is not None, f'{bench} printed no result:\n{p.stdout}')
        return result, json_lines(self.log), p

    def complete(self, cmd, watch, env):
        if watch is None:
            return subprocess.run(cmd, capture_output=True, text=True, env=self.env(**env),
                                  timeout=150)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=self.env(**env))
        end = time.monotonic() + 150
        while p.poll() is None and time.monotonic() < end:
            watch(p.pid)
            time.sleep(0.02)
        p.stdout_text, p.stderr_text = p.communicate(timeout=max(1, end - time.monotonic()))
        return subprocess.CompletedProcess(cmd, p.returncode, p.stdout_text, p.stderr_text)

    @staticmethod
    def kinds(events, kind):
        return [e for e in events if e.get('event') == kind]

    def close(self):
        self.folder.remove()


def no_shared_core(result):
    ends = [r['cpu_end'] for r in result['per_rank']]
    check(len(set(ends)) == len(ends), f'ranks ended sharing a core: {result["per_rank"]}')


# symmer-noise takes this share of core 0 (real-time): core 1 stays the better core when other
# processes load the machine too. Two busy processes beside rank 1 leave core 1 a third for a
# rank, against core 0's fifth; with half taken, such a load leaves both cores about half, and
# not moving is then right.
NOISE_SHARE = 0.8


def idleness_options(iterations=100):
    # Rank 0 computes 4x rank 1 between exchanges; on the noisy core it holds both back.
    return ['--iterations', iterations, '--work-ms', 5, '--ratio', 4]


@case
def noisy_core_is_left(env):
    result, events, p = env.run('idleness', idleness_options(), noise_core=0)
    done = [e for e in env.kinds(events, 'actuation') if e['completed'] and not e['rollback']]
    check(done, f'no move made for the noisy core; decision log:\n{events}')
    first = done[0]
    moved = {m['rank']: (m['from_core'], m['to_core']) for m in first['moves_in_effect']}
    check(0 in moved and moved[0][0] == 0 and moved[0][1] != 0,
          f'the busy rank 0 was not moved off noisy core 0: {first}')
    check(first.get('reaction_s') is not None and first['reaction_s'] > 0,
          f'no reaction time recorded: {first}')
    symptoms = [e for e in env.kinds(events, 'symptom') if e['metric'] == 'idleness']
    check(symptoms and symptoms[0]['present'], 'the idleness symptom was not logged first')
    # The benchmark saw it too: rank 0 ran on another CPU before the end.
    r0 = result['per_rank'][0]
    check(r0['moved_at_s'] is not None, f'rank 0 never ran elsewhere: {r0}')
    no_shared_core(result)
    check('symmer report' in p.stderr and 'moved r0: CPUs 0 -> 1' in p.stderr
          and 'time recovered' in p.stderr, f'--report output missing:\n{p.stderr}')


def explained_by_outside_load(decision, events):
    """Whether an accepted move's evidence shows unequal cores: one with less capability than
    the other by more than the analyzer's resolution (the idleness symptom's, at the time),
    holding the rank with the larger compute share -- the one the other rank waited for. Both
    cores may be loaded (capabilities of 0.63 and 0.73 on a busy 2-core machine): what counts
    is the difference the analyzer can tell."""
    ranks = decision['evidence'].get('ranks') or []
    if len(ranks) < 2:
        return False
    slow = min(ranks, key=lambda r: r['capability'])
    fast = max(ranks, key=lambda r: r['capability'])
    symptoms = [e for e in events if e.get('event') == 'symptom' and e.get('metric') == 'idleness'
                and e['t_s'] <= decision['t_s']]
    resolution = symptoms[-1]['evidence'].get('capability_resolution', 0.0) if symptoms else 0.0
    return (fast['capability'] - slow['capability'] > resolution and
            slow['compute_share'] >= fast['compute_share'])


@case
def balanced_run_is_left_alone(env):
    # Equal compute, no noise, one rank per core: nothing to gain from any move.
    result, events, p = env.run('idleness', ['--iterations', 150, '--work-ms', 10, '--ratio', 1])
    # On a shared machine another process may really load one of the two cores: a move is then
    # right, and its evidence shows it. A move whose evidence shows equal cores is the defect.
    accepted = [e for e in env.kinds(events, 'decision') if e.get('verdict') == 'accepted']
    if accepted and all(explained_by_outside_load(e, events) for e in accepted):
        print('note: the machine was not quiet (one core had less capability than the other, '
              'lost to other processes, and its rank was the one the other waited for); the '
              'move that followed is the right answer, not a defect')
        return
    check(not env.kinds(events, 'plan') and not env.kinds(events, 'actuation'),
          f'a balanced run was remapped: {events}')
    check(all(r['moved_at_s'] is None for r in result['per_rank']),
          f'a rank of a balanced run moved: {result["per_rank"]}')
    check('moves made: 0' in p.stderr, f'report should say no moves:\n{p.stderr}')


@case
def analyzer_keeps_off_rank_cores(env):
    # Ranks on CPUs 0 and 1 of a node with more: the analyzer thread (in rank 0's process)
    # runs elsewhere from the start, so it takes no time from any rank. On 2 CPUs it can only
    # leave rank 0's own CPU. Its cost is in the decision log's summary and the report. (It
    # takes its name after the topology discovery, whose CPUID walk visits every CPU briefly.)
    allowed = sorted(os.sched_getaffinity(0))
    if allowed[:2] != [0, 1]:
        raise Skip(f'needs CPUs 0 and 1 (may use {allowed})')
    seen, history = [], []
    start = time.monotonic()

    def watch(pid):
        for rank in descendants(pid):
            for tid in threads_named(rank, 'symmer-analyze'):
                cpus = cpus_allowed(rank, tid)
                if cpus:
                    seen.append(cpu_list(cpus))
                    history.append((round(time.monotonic() - start, 3), rank, tid, cpus))

    result, events, p = env.run('idleness', ['--iterations', 100, '--work-ms', 10, '--ratio', 1],
                                watch=watch)
    check(seen, 'the analyzer thread was never seen while the job ran')
    on_rank0 = [sorted(s) for s in seen if 0 in s]
    check(not on_rank0, f'the analyzer thread could run on rank 0\'s CPU: {on_rank0[:3]}; '
          f'(s, pid, tid, CPUs) seen: {history}; decisions: {events}')
    # Once a window told it where the ranks are, it keeps off rank 1's CPU too, when it can.
    if len(allowed) > 2:
        check(1 not in seen[-1], f'the analyzer thread may run on rank 1\'s CPU: {sorted(seen[-1])}')
    summary = env.kinds(events, 'summary')
    check(summary and summary[-1].get('windows', 0) >= 1 and summary[-1].get('cpu_s', 0) > 0,
          f'the summary does not say what the analysis cost: {summary}')
    check('analysis cost:' in p.stderr, f'the report does not show the cost:\n{p.stderr}')


@case
def advice_only_moves_nothing(env):
    result, events, p = env.run('idleness', idleness_options(), noise_core=0,
                                SYMMER_ADVICE_ONLY='true')
    check(env.kinds(events, 'advice'), f'no advice given for the noisy core: {events}')
    check(not env.kinds(events, 'actuation'), 'advice-only mode moved ranks')
    check(all(r['moved_at_s'] is None for r in result['per_rank']),
          f'a rank moved in advice-only mode: {result["per_rank"]}')
    check('symmer advice:' in p.stderr and 'r0: CPUs 0 -> 1' in p.stderr,
          f'the advice was not printed:\n{p.stderr}')
    check('advised only' in p.stderr, f'report does not mention the advice:\n{p.stderr}')


@case
def bad_config_is_named_and_job_runs(env):
    toml = os.path.join(env.tmp, 'bad.toml')
    with open(toml, 'w') as f:
        f.write('[analyzer]\nwindow_ms = 3\n')
    result, events, p = env.run('idleness', idleness_options(40), noise_core=0,
                                SYMMER_CONFIG=toml, SYMMER_MIN_GAIN='lots')
    check('SYMMER_MIN_GAIN' in p.stderr and 'lots' in p.stderr,
          f'bad environment value not named:\n{p.stderr}')
    check('analyzer.window_ms = 3' in p.stderr, f'bad file value not named:\n{p.stderr}')
    check('analyzer disabled' in p.stderr, f'no word that the analyzer is off:\n{p.stderr}')
    check(not events, f'a disabled analyzer wrote decisions: {events}')
    check(all(r['moved_at_s'] is None for r in result['per_rank']), 'ranks moved')
    no_shared_core(result)


@case
def silent_rank_is_not_left_sharing(env):
    # Rank 0 computes 8 x 16 ms between MPI calls (five times that on the noisy core), rank 1 waits
    # as long inside one: a command reaches them within the 10 ms acknowledgement timeout only
    # when it lands just before rank 0's call. A rank the analyzer sees making no call is bound
    # from outside at once; one that published just before the command and then does not
    # answer times out. Only the idleness metric plans, with confidence and gain floors lowered,
    # because this case is about ranks that do not answer, not the planner: with one call every
    # ~0.6 s the split-half check often sees no complete iteration in a half and would veto
    # every plan on a loaded machine, and the capability metric counts rank 1's wait in one long
    # call as compute that the noisy core would slow. A job whose every plan was answered in time tested nothing and runs again (at
    # most 3 times). Each such plan is either done from outside or fails with the fault named;
    # nobody is left sharing a core, and the job finishes.
    options = ['--iterations', 16, '--work-ms', 16, '--ratio', 8]
    for _ in range(3):
        result, events, p = env.run('idleness', options, noise_core=0,
                                    SYMMER_ACK_TIMEOUT_MS=10, SYMMER_HOLD_OFF_S=0.5,
                                    SYMMER_METRICS='idleness', SYMMER_MIN_CONFIDENCE=0,
                                    SYMMER_MIN_GAIN=0.01)
        no_shared_core(result)
        actuations = env.kinds(events, 'actuation')
        check(actuations, f'no plan was made: {events}')
        failed = [e for e in actuations if not e['completed']]
        outside = [e for e in actuations if e['completed'] and e.get('bound_from_outside')]
        if failed or outside:
            break
    check(failed or outside, f'every plan of 3 jobs was answered within 10 ms: {events}')
    for e in failed:
        check(any('did not answer' in f for f in e['faults']), f'fault not named: {e}')
    for e in failed + outside:
        check(not e['shared_cores'], f'a core was left shared: {e}')
    if failed:
        check('did not answer' in p.stderr, f'the fault was not reported:\n{p.stderr}')


if __name__ == '__main__':
    sys.exit(CASES.main(['--bin', '--mpiexec'], setup=Env, teardown=Env.close))

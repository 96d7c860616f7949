#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration tests of the PMPI shim with a real mpiexec (ctest label mpi).

    run_shim_test.py --build <build dir> --mpiexec <mpiexec.mpich> --ompi-mpiexec <mpiexec.openmpi or ""> <case>

Each case runs MPI programs (at most 2 ranks, pinned, never oversubscribed) with the shim
preloaded, then checks the node segment figures (SYMMER_DUMP) against what the programs
measured themselves, or checks that bad input gives one clear message and the job still
completes with exit code 0. Timings are compared as ratios with a 10% tolerance; nothing here
depends on how fast the machine is.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../support'))
from symmer_testing.cases import Cases, Failure, Skip, check  # noqa: E402
from symmer_testing.mpi_jobs import JobFolder, cpu_list, run  # noqa: E402

CASES = Cases()
case = CASES.case


def close(measured, expected, what, rel=0.10, abs_slack=0.0):
    """measured within rel (and abs_slack, same unit) of expected."""
    ok = abs(measured - expected) <= rel * abs(expected) + abs_slack
    check(ok, f'{what}: shim says {measured:.6g}, program measured {expected:.6g} (tolerance {rel:.0%})')


class Env:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.bin = os.path.join(self.build, 'bin')
        self.tests = os.path.join(self.build, 'tests')
        self.shim = os.path.join(self.build, 'lib', 'libsymmer-pmpi.so')
        self.shim_ompi = os.path.join(self.build, 'lib', 'libsymmer-pmpi-ompi.so')
        self.folder = JobFolder('symmer-shim-test-')
        self.tmp = self.folder.tmp
        self.shm = self.folder.shm

    def close(self):
        self.folder.remove()

    def env(self, preload=True, **extra):
        """The jobs' environment (JobFolder.env) with the shim preloaded unless preload is
        False or names another library."""
        return self.folder.env(preload=self.shim if preload is True else preload, **extra)

    def mpiexec(self, ranks, argv, env, timeout=120, mpmd_env=None, bind='core', wrap=()):
        """Runs ranks (pinned one per core unless `bind` says otherwise) under `wrap` (e.g.
        taskset); mpmd_env: per-rank extra environment."""
        cmd = [*wrap, self.args.mpiexec, '-bind-to', bind]
        if mpmd_env:
            for i, extra in enumerate(mpmd_env):
                if i:
                    cmd.append(':')
                cmd += ['-n', '1']
                for k, v in extra.items():
                    cmd += ['-env', k, str(v)]
                cmd += argv
        else:
            cmd += ['-n', str(ranks)] + argv
        return run(cmd, env, timeout)


def symmer_lines(text):
    return [l for l in text.splitlines() if l.startswith('symmer: ')]


def load_dump(path):
    with open(path) as f:
        return json.load(f)


def rank_of(dump, global_rank):
    for r in dump['ranks']:
        if r.get('global_rank') == global_rank:
            return r
    raise Failure(f'rank {global_rank} missing from the dump')


def peer(r, local_rank):
    for p in r['local_peers']:
        if p['local_rank'] == local_rank:
            return p
    return {'bytes_sent': 0, 'bytes_recv': 0, 'msgs_sent': 0, 'msgs_recv': 0, 'late_sender_ns': 0,
            'send_wait_ns': 0}


# ---- figures --------------------------------------------------------------------------------

@case
def figures(t):
    """Known compute, idle, late-sender, out-of-sync and per-peer traffic of a 2-rank program."""
    prefix = os.path.join(t.tmp, 'self')
    dump = os.path.join(t.tmp, 'dump.json')
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_figures'), prefix],
                             t.env(SYMMER_DUMP=dump, SYMMER_EAGER_LIMIT='16k'))
    check(rc == 0, f'figures exited {rc}: {err}')
    check(not symmer_lines(err), f'unexpected messages: {symmer_lines(err)}')
    d = load_dump(dump)
    check(d['local_ranks'] == 2 and d['world_size'] == 2, 'segment sizes')
    check(d['eager_limit']['local'] == 16384, 'SYMMER_EAGER_LIMIT not applied')
    check(os.listdir(t.shm) == [], f'segment not removed at MPI_Finalize: {os.listdir(t.shm)}')
    for rank in (0, 1):
        with open(f'{prefix}.{rank}.json') as f:
            me = json.load(f)
        r = rank_of(d, rank)
        other = me['peer']
        check(r['state'] == 'finished', f'rank {rank} state {r["state"]}')
        # Time: inside intercepted calls vs between them, as the program measured it.
        in_mpi = (r['idle_ns'] + r['other_mpi_ns']) * 1e-9
        compute = r['compute_ns'] * 1e-9
        close(in_mpi, me['in_mpi'], f'rank {rank} time inside MPI', abs_slack=0.002)
        close(compute, me['wall'] - me['in_mpi'], f'rank {rank} compute time', abs_slack=0.002)
        # Traffic: exact, in total and towards the one peer.
        for k in ('bytes_sent', 'bytes_recv', 'msgs_sent', 'msgs_recv'):
            check(r[k] == me[k], f'rank {rank} {k}: shim {r[k]}, program {me[k]}')
            check(peer(r, other)[k] == me[k], f'rank {rank} {k} to peer {other}: {peer(r, other)[k]} != {me[k]}')
        check(peer(r, rank)['bytes_sent'] == 0, f'rank {rank} sent to itself?')
        calls = r['calls']
        for k, n in (('send', me['sends']), ('recv', me['recvs']), ('isend', me['isends']),
                     ('irecv', me['irecvs']), ('wait', me['waits']), ('persistent', me['persistent']),
                     ('collective', me['collectives']), ('test', me['tests'])):
            check(calls[k] == n, f'rank {rank} {k} calls: shim {calls[k]}, program {n}')
        # Late sender, attributed to the peer.
        close(peer(r, other)['late_sender_ns'] * 1e-9, me['late_from_peer'],
              f'rank {rank} late-sender wait for peer {other}', abs_slack=0.002)
        # Out of sync: compute while a rendezvous Isend was incomplete (rank 0 only); pending:
        # while any Isend was (the eager ones too).
        close(r['out_of_sync_ns'] * 1e-9, me['pending_compute'], f'rank {rank} out-of-sync compute',
              abs_slack=0.002)
        close(r['pending_send_compute_ns'] * 1e-9, me['pending_any'],
              f'rank {rank} compute with incomplete sends', abs_slack=0.002)
        # Blocking-send wait: inside Ssend, sends above the eager limit and their waits.
        close(r['send_wait_ns'] * 1e-9, me['send_wait'], f'rank {rank} send wait', abs_slack=0.002)
        close(peer(r, other)['send_wait_ns'] * 1e-9, me['send_wait'],
              f'rank {rank} send wait for peer {other}', abs_slack=0.002)
    r0 = rank_of(d, 0)
    check(r0['out_of_sync_ns'] > 80e6, f'rank 0 out of sync {r0["out_of_sync_ns"]} ns, expected about 90 ms')
    # The eager Isends of phase 8 (2 x 10 ms) are pending but not out of sync.
    check(r0['pending_send_compute_ns'] - r0['out_of_sync_ns'] > 15e6,
          f'rank 0 pending {r0["pending_send_compute_ns"]} ns vs out of sync {r0["out_of_sync_ns"]} ns')
    # Rank 0's four Ssends each waited for rank 1's 5 ms of compute.
    check(r0['send_wait_ns'] > 15e6, f'rank 0 send wait {r0["send_wait_ns"]} ns, expected over 20 ms')
    # Rank 1 waited ~4 ms for each of rank 0's ten phase-1 messages: the phases are real.
    check(peer(rank_of(d, 1), 0)['late_sender_ns'] > 30e6, 'rank 1 late sender too small for its phases')
    check(r0['counters'] in ('available', 'unavailable'), f'counters status {r0["counters"]}')
    if r0['counters'] == 'unavailable':
        check(r0['cache_misses'] is None and d['counters_note'], 'unavailable counters must say why')


@case
def thread_multiple(t):
    """4 threads per rank under MPI_THREAD_MULTIPLE: totals exact, no update lost."""
    prefix = os.path.join(t.tmp, 'self')
    dump = os.path.join(t.tmp, 'dump.json')
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_threads'), prefix], t.env(SYMMER_DUMP=dump))
    check(rc == 0, f'threads exited {rc}: {err}')
    if out.startswith('SKIP'):
        raise Skip(out.strip().removeprefix('SKIP').lstrip(': '))
    check(not symmer_lines(err), f'unexpected messages: {symmer_lines(err)}')
    d = load_dump(dump)
    check(d['thread_level'] == 3, f'thread level {d["thread_level"]}')
    for rank in (0, 1):
        with open(f'{prefix}.{rank}.json') as f:
            me = json.load(f)
        r = rank_of(d, rank)
        p = peer(r, 1 - rank)
        if rank == 0:
            check(r['bytes_sent'] == me['bytes'] and p['bytes_sent'] == me['bytes'],
                  f'rank 0 bytes sent {r["bytes_sent"]} / to peer {p["bytes_sent"]}, expected {me["bytes"]}')
            check(r['msgs_sent'] == me['messages'], f'rank 0 messages {r["msgs_sent"]} != {me["messages"]}')
            check(r['calls']['send'] == me['blocking'] and r['calls']['isend'] == me['nonblocking'],
                  f'rank 0 calls {r["calls"]}')
            check(r['pending_send_compute_ns'] <= r['compute_ns'], 'pending compute above compute')
        else:
            check(r['bytes_recv'] == me['bytes'] and p['bytes_recv'] == me['bytes'],
                  f'rank 1 bytes received {r["bytes_recv"]} / from peer {p["bytes_recv"]}, expected {me["bytes"]}')
            check(r['msgs_recv'] == me['messages'], f'rank 1 messages {r["msgs_recv"]} != {me["messages"]}')
            check(r['calls']['recv'] == me['blocking'] and r['calls']['irecv'] == me['nonblocking'],
                  f'rank 1 calls {r["calls"]}')
        check(r['calls']['wait'] == me['nonblocking'], f'rank {rank} waits {r["calls"]["wait"]}')
        check(r['untracked_requests'] == 0, 'requests left untracked')


def check_fortran_dump(d):
    """The figures of fortran_pingpong.f90: 50 Send + 50 Isend/Wait of 1 KiB, one Barrier."""
    r0, r1 = rank_of(d, 0), rank_of(d, 1)
    for r, sent, recv in ((r0, 102400, 0), (r1, 0, 102400)):
        check(r['bytes_sent'] == sent and r['bytes_recv'] == recv,
              f'rank {r["global_rank"]} bytes {r["bytes_sent"]}/{r["bytes_recv"]}, expected {sent}/{recv}')
    check(r0['calls']['send'] == 50 and r0['calls']['isend'] == 50 and r0['calls']['wait'] == 50,
          f'rank 0 calls {r0["calls"]}')
    check(r1['calls']['recv'] == 50 and r1['calls']['irecv'] == 50 and r1['calls']['wait'] == 50,
          f'rank 1 calls {r1["calls"]}')
    check(r0['calls']['collective'] == 1 and r1['calls']['collective'] == 1, 'barrier counted once')
    check(peer(r1, 0)['msgs_recv'] == 100, 'receives attributed to rank 0 (MPI_SOURCE through Fortran statuses)')
    check(peer(r1, 0)['late_sender_ns'] > 0, 'late sender attributed')


@case
def fortran(t):
    """Fortran bindings (`use mpi`): every call counted exactly once, statuses ignored or not
    (MPICH's Fortran library reaches some C functions itself, the nesting guard sees it)."""
    app = os.path.join(t.tests, 'shim_fortran_pingpong')
    if not os.path.exists(app):
        raise Skip('no Fortran compiler, shim_fortran_pingpong not built')
    dump = os.path.join(t.tmp, 'dump.json')
    rc, out, err = t.mpiexec(2, [app], t.env(SYMMER_DUMP=dump))
    check(rc == 0, f'fortran program exited {rc}: {err}')
    check_fortran_dump(load_dump(dump))


@case
def rebind(t):
    """Command word -> both ranks move all their threads to the ordered CPUs and acknowledge;
    a corrupt command (CPU 1023, which the node lacks) is refused with invalid-cpu and the job
    goes on."""
    if os.cpu_count() < 2:
        raise Skip('needs 2 CPUs')
    prefix = os.path.join(t.tmp, 'self')
    dump = os.path.join(t.tmp, 'dump.json')
    # The embedded analyzer would post orders of its own: this test is the only one giving them.
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_rebind'), prefix],
                             t.env(SYMMER_DUMP=dump, SYMMER_ANALYZER='off'))
    check(rc == 0, f'rebind exited {rc}: {err}')
    for rank in (0, 1):
        with open(f'{prefix}.{rank}.json') as f:
            me = json.load(f)
        check(me['cpu'] == me['target'], f'rank {rank} runs on {me["cpu"]}, ordered onto {me["target"]}')
        check(me['helper_cpu'] == me['target'], f'rank {rank} helper thread on {me["helper_cpu"]}, ordered onto {me["target"]}')
        if rank == 0:
            check(me['ack_ok'] == 'ok', f'ack of the valid orders: {me["ack_ok"]}')
            check(me['ack_bad'] == 'invalid-cpu', f'ack of the corrupt order: {me["ack_bad"]}')
    d = load_dump(dump)
    check(rank_of(d, 1)['rebinds_ok'] == 1 and rank_of(d, 1)['rebinds_failed'] == 1,
          f'rank 1 rebinds ok/failed {rank_of(d, 1)["rebinds_ok"]}/{rank_of(d, 1)["rebinds_failed"]}')


def tsar_ranks(t, extra_args, env, mpmd_env=None, **launch):
    """Runs shim_tsar_ranks on 2 ranks (mpiexec -bind-to core unless `launch` says otherwise);
    returns each rank's JSON."""
    if len(os.sched_getaffinity(0)) < 2:
        raise Skip('needs 2 CPUs')
    prefix = os.path.join(t.tmp, 'tsar')
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_tsar_ranks'), prefix, *extra_args],
                             env, mpmd_env=mpmd_env, **launch)
    check(rc == 0, f'shim_tsar_ranks exited {rc}: {err}')
    ranks = []
    for rank in (0, 1):
        with open(f'{prefix}.{rank}.json') as f:
            ranks.append(json.load(f))
    return ranks


@case
def tsar_one_worker_per_core_of_the_rank(t):
    """Two ranks bound one core each, each running TSAR on its default devices: one worker per
    rank, on that rank's core; no CPU oversubscribed."""
    ranks = tsar_ranks(t, [], t.env(SYMMER_ANALYZER='off'))
    for r in ranks:
        check(r['devices'] == 1, f'rank {r["rank"]} runs {r["devices"]} TSAR workers on one core')
        check(cpu_list(r['workers_before']) <= cpu_list(r['launch']),
              f'rank {r["rank"]} launched on {r["launch"]} ran TSAR work on {r["workers_before"]}')
    check(not cpu_list(ranks[0]['workers_before']) & cpu_list(ranks[1]['workers_before']),
          f'the ranks\' TSAR workers share CPUs: {ranks}')


@case
def tsar_workers_stay_inside_a_taskset_mask(t):
    """The job confined to CPU 1 by taskset, its two ranks unbound inside it: each rank's TSAR
    runs on its default devices -- one worker, on CPU 1 -- and nothing of it on CPU 0."""
    if not {0, 1} <= os.sched_getaffinity(0):
        raise Skip('needs CPUs 0 and 1')
    ranks = tsar_ranks(t, [], t.env(SYMMER_ANALYZER='off'), bind='none', wrap=('taskset', '-c', '1'))
    for r in ranks:
        check(r['devices'] == 1, f'rank {r["rank"]} runs {r["devices"]} TSAR workers in a 1-CPU mask')
        check(cpu_list(r['workers_before']) <= {1},
              f'rank {r["rank"]} confined to CPU 1 ran TSAR work on {r["workers_before"]}')


@case
def tsar_workers_follow_their_rank(t):
    """TSAR inside each rank (one device, on the rank's core); symmer swaps the two ranks: at
    their next passes TSAR's workers run on the rank's new CPU, and the slot names them."""
    env = t.env(SYMMER_ANALYZER='off')
    ranks = tsar_ranks(t, ['swap'], env, mpmd_env=[{'TSAR_DEVICES': 'cpu:0'}, {'TSAR_DEVICES': 'cpu:1'}])
    for r in ranks:
        check(r['moved_to'] != r['launch'], f'rank {r["rank"]} did not move: {r}')
        check(cpu_list(r['workers_after']) == cpu_list(r['moved_to']),
              f'rank {r["rank"]} moved to {r["moved_to"]}, its TSAR workers ran on {r["workers_after"]}')
        check(cpu_list(r['published']) == cpu_list(r['moved_to']),
              f'rank {r["rank"]} on {r["moved_to"]}: symmer believes its TSAR workers on {r["published"]}')


@case
def two_nodes(t):
    """SYMMER_NODE_ID makes the 2 ranks two nodes: one segment each, traffic by remote node,
    node summaries exchanged by the local rank 0s from inside MPI calls."""
    prefix = os.path.join(t.tmp, 'self')
    dump = os.path.join(t.tmp, 'dump.json')
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_figures'), prefix],
                             t.env(SYMMER_DUMP=dump, SYMMER_EAGER_LIMIT='16k', SYMMER_EXCHANGE_MS=20),
                             mpmd_env=[{'SYMMER_NODE_ID': 7}, {'SYMMER_NODE_ID': 9}])
    check(rc == 0, f'figures exited {rc}: {err}')
    for rank, node, other in ((0, 7, 9), (1, 9, 7)):
        d = load_dump(f'{dump}.node{node}')
        check(d['node_id'] == node and d['node_count'] == 2 and d['local_ranks'] == 1,
              f'node {node}: id {d["node_id"]}, {d["node_count"]} nodes, {d["local_ranks"]} local ranks')
        with open(f'{prefix}.{rank}.json') as f:
            me = json.load(f)
        r = rank_of(d, rank)
        check(r['local_peers'] == [], f'rank {rank} has local traffic {r["local_peers"]}')
        remote = r['remote_nodes']
        check(len(remote) == 1, f'rank {rank} remote traffic {remote}')
        check(remote[0]['bytes_sent'] == me['bytes_sent'] and remote[0]['bytes_recv'] == me['bytes_recv'],
              f'rank {rank} remote bytes {remote[0]}, program {me["bytes_sent"]}/{me["bytes_recv"]}')
        close(remote[0]['late_sender_ns'] * 1e-9, me['late_from_peer'], f'rank {rank} late sender by node',
              abs_slack=0.002)
        nodes = {n['node_id']: n for n in d['nodes']['summaries']}
        check(set(nodes) == {7, 9}, f'node {node} knows summaries of {sorted(nodes)}')
        check(d['nodes']['exchanges'] >= 2, f'node {node}: only {d["nodes"]["exchanges"]} exchanges')
        # The final exchange carries the other node's final figures.
        o = nodes[other]
        d_other = load_dump(f'{dump}.node{other}')
        r_other = rank_of(d_other, 1 - rank)
        check(o['bytes_sent_remote'] == r_other['bytes_sent'],
              f'summary of node {other}: {o["bytes_sent_remote"]} bytes sent, its dump says {r_other["bytes_sent"]}')
        check(o['worst_out_of_sync']['rank'] == 1 - rank, 'worst out-of-sync rank of the other node')


def bad_run(t, what, env, expect, program='shim_pingpong'):
    """Runs the ping-pong with `env`: exit 0, both ranks done, exactly one message containing
    `expect`, no segment left, nothing monitored."""
    safe = ''.join(c if c.isalnum() else '_' for c in what)
    out_prefix = os.path.join(t.tmp, 'done-' + safe)
    dump = os.path.join(t.tmp, 'dump-' + safe + '.json')
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, program), out_prefix], t.env(SYMMER_DUMP=dump, **env))
    check(rc == 0, f'{what}: job exited {rc}: {err}')
    for rank in (0, 1):
        check(os.path.exists(f'{out_prefix}.{rank}'), f'{what}: rank {rank} did not complete')
    lines = symmer_lines(err)
    check(len(lines) == 1, f'{what}: expected one message, got {lines}')
    check(expect in lines[0], f'{what}: message {lines[0]!r} does not mention {expect!r}')
    check(not os.path.exists(dump), f'{what}: the job was monitored anyway')
    return lines[0]


@case
def bad_environment(t):
    """Bad SYMMER_* values: one message naming the variable, the job completes unmonitored."""
    for var, value in (('SYMMER_PERIOD_MS', 'abc'), ('SYMMER_PERIOD_MS', '0'), ('SYMMER_NODE_ID', '-1'),
                       ('SYMMER_EAGER_LIMIT', 'lots'), ('SYMMER_JOB_ID', '0'), ('SYMMER_ANALYZER', 'daemonic'),
                       ('SYMMER_SHM_DIR', '/nonexistent/dir'), ('SYMMER_CLOCK', 'sundial'),
                       ('SYMMER_MONITOR', 'maybe'), ('SYMMER_PAPI', 'sometimes'), ('SYMMER_EXCHANGE_MS', '5')):
        line = bad_run(t, f'{var}={value}', {var: value}, var)
        check(value in line, f'message {line!r} does not show the value {value!r}')
    # Only one rank has the bad value: still one message, still nobody monitored, no hang.
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_pingpong'), os.path.join(t.tmp, 'mixed')],
                             t.env(SYMMER_DUMP=os.path.join(t.tmp, 'mixed.json')),
                             mpmd_env=[{}, {'SYMMER_PERIOD_MS': 'soon'}])
    check(rc == 0 and len(symmer_lines(err)) == 1, f'mixed configuration: rc {rc}, messages {symmer_lines(err)}')
    check(not os.path.exists(os.path.join(t.tmp, 'mixed.json')), 'mixed configuration was monitored')
    # Monitoring switched off: no message at all.
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_pingpong')], t.env(SYMMER_MONITOR='off'))
    check(rc == 0 and not symmer_lines(err), f'SYMMER_MONITOR=off: rc {rc}, {symmer_lines(err)}')


@case
def bad_arguments(t):
    """MPI refuses bad arguments on a communicator whose errors return: the application goes on,
    so must the shim (it never asks MPI about what MPI refused), and the job stays monitored."""
    out = os.path.join(t.tmp, 'done')
    dump = os.path.join(t.tmp, 'dump.json')
    rc, _, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_bad_arguments'), out], t.env(SYMMER_DUMP=dump))
    check(rc == 0, f'bad_arguments exited {rc}: {err}')
    for rank in (0, 1):
        with open(f'{out}.{rank}') as f:
            check(f.read().split() == [str(rank), 'ok', '4'], f'rank {rank}: MPI did not refuse all 4 calls')
    check(not symmer_lines(err), f'messages: {symmer_lines(err)}')
    for rank in (0, 1):
        r = rank_of(load_dump(dump), rank)
        # Only the good Sendrecv moved data; the refused calls were counted as calls, not traffic.
        check(r['bytes_sent'] == 4 and r['bytes_recv'] == 4 and r['untracked_requests'] == 0,
              f'rank {rank}: bytes {r["bytes_sent"]}/{r["bytes_recv"]}, untracked {r["untracked_requests"]}')


def segment_path(t, job_id, node_id=0):
    return os.path.join(t.shm, f'symmer-{os.geteuid()}-{job_id:016x}-{node_id}')


@case
def segment_conflicts(t):
    """A file already at the job's segment name: another user's, corrupt or truncated -> one
    message, unmonitored run; a crashed job's (its processes are dead) -> replaced, monitored."""
    job = 0x5eed
    path = segment_path(t, job)
    tool = os.path.join(t.tests, 'shim_segment_tool')
    # Corrupt (ours): refused, left alone.
    with open(path, 'wb') as f:
        f.write(b'not a segment' * 100)
    bad_run(t, 'corrupt', {'SYMMER_JOB_ID': hex(job)}, 'wrong magic')
    check(os.path.exists(path), 'the corrupt file was removed')
    os.unlink(path)
    # A crashed job's segment: replaced, the job is monitored, no message.
    made = subprocess.run([tool, 'stale', t.shm, f'{job:x}', '0', '2'], capture_output=True, text=True)
    check(made.returncode == 0 and made.stdout.strip() == path, f'segment tool: {made.stderr}{made.stdout}')
    dump = os.path.join(t.tmp, 'after-stale.json')
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_pingpong')], t.env(SYMMER_JOB_ID=hex(job), SYMMER_DUMP=dump))
    check(rc == 0 and not symmer_lines(err), f'stale segment: rc {rc}, {symmer_lines(err)}')
    check(os.path.exists(dump) and load_dump(dump)['app'] == 'shim_pingpong', 'the stale segment was not replaced')
    check(not os.path.exists(path), 'segment not removed at MPI_Finalize')
    # Truncated: refused.
    subprocess.run([tool, 'stale', t.shm, f'{job:x}', '0', '2'], check=True, capture_output=True)
    os.truncate(path, 1000)
    bad_run(t, 'truncated', {'SYMMER_JOB_ID': hex(job)}, 'truncated')
    os.unlink(path)
    # A segment whose header records another user as its owner: refused, left alone.
    made = subprocess.run([tool, 'foreign', t.shm, f'{job:x}', '0', '2'], capture_output=True, text=True)
    check(made.returncode == 0 and made.stdout.strip() == path, f'segment tool: {made.stderr}{made.stdout}')
    line = bad_run(t, 'foreign-owner', {'SYMMER_JOB_ID': hex(job)}, 'owner_uid')
    check(f'owner_uid = {os.geteuid() + 1000}' in line, f'message does not name the recorded owner: {line!r}')
    check(os.path.exists(path), "the other user's segment was removed")
    os.unlink(path)
    # Another user's file: left alone.
    if os.geteuid() == 0:
        with open(path, 'wb') as f:
            f.write(b'\0' * 4096)
        os.chown(path, 65534, 65534)
        bad_run(t, 'other-user', {'SYMMER_JOB_ID': hex(job)}, 'belongs to uid 65534')
        check(os.path.exists(path), "another user's file was removed")
        os.unlink(path)
    else:
        print('note: not root: the case of a file owned by another user needs chown, not run')


def ompi_env(t, **extra):
    """Environment for Open MPI's mpiexec (root allowed: CI runs as root)."""
    return t.env(OMPI_ALLOW_RUN_AS_ROOT=1, OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, OMPI_MCA_btl='self,vader',
                 **extra)


def need_ompi(t):
    app = os.path.join(t.tests, 'shim_pingpong_ompi')
    if not t.args.ompi_mpiexec or not os.path.exists(app) or not os.path.exists(t.shim_ompi):
        raise Skip('Open MPI (mpiexec.openmpi, libopenmpi-dev) not available')
    return app


def ompi_run(t, argv, env, timeout=120):
    return run([t.args.ompi_mpiexec, '-n', '2', '--bind-to', 'core'] + argv, env, timeout)


@case
def cross_mpi(t):
    """A shim preloaded into an application of the other MPI: one message, the job completes
    unmonitored (the ABI-neutral wrappers pass every call through unharmed)."""
    app_ompi = need_ompi(t)
    out = os.path.join(t.tmp, 'ompi-app')
    rc, _, err = ompi_run(t, [app_ompi, out], ompi_env(t, LD_PRELOAD=t.shim))
    check(rc == 0, f'Open MPI app with the MPICH shim exited {rc}: {err}')
    check(all(os.path.exists(f'{out}.{r}') for r in (0, 1)), 'Open MPI app did not complete')
    lines = symmer_lines(err)
    check(len(lines) == 1 and 'built for MPICH' in lines[0] and 'Open MPI' in lines[0], f'messages {lines}')
    out = os.path.join(t.tmp, 'mpich-app')
    rc, _, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_pingpong'), out], t.env(LD_PRELOAD=t.shim_ompi))
    check(rc == 0, f'MPICH app with the Open MPI shim exited {rc}: {err}')
    check(all(os.path.exists(f'{out}.{r}') for r in (0, 1)), 'MPICH app did not complete')
    lines = symmer_lines(err)
    check(len(lines) == 1 and 'built for Open MPI' in lines[0] and 'MPICH' in lines[0], f'messages {lines}')
    check(os.listdir(t.shm) == [], 'a segment was created')


@case
def openmpi(t):
    """symmer-run picks libsymmer-pmpi-ompi.so for an Open MPI application; its figures."""
    app_ompi = need_ompi(t)
    dump = os.path.join(t.tmp, 'dump.json')
    rc, _, err = run([os.path.join(t.bin, 'symmer-run'), '--dump', dump, t.args.ompi_mpiexec, '-n', '2',
                      '--bind-to', 'core', app_ompi, os.path.join(t.tmp, 'done')], ompi_env(t, LD_PRELOAD=None))
    check(rc == 0, f'symmer-run with Open MPI exited {rc}: {err}')
    check(not symmer_lines(err), f'messages: {symmer_lines(err)}')
    d = load_dump(dump)
    check(d['mpi_family'] == 'openmpi' and 'Open MPI' in d['mpi_library'], f'family {d["mpi_family"]}')
    for rank in (0, 1):
        r = rank_of(d, rank)
        p = peer(r, 1 - rank)
        check(r['bytes_sent'] == 102400 and p['bytes_sent'] == 102400 and p['bytes_recv'] == 102400,
              f'rank {rank} traffic {r["bytes_sent"]} / peer {p}')
        check(r['calls']['send'] == 100 and r['calls']['recv'] == 100 and r['calls']['collective'] == 1,
              f'rank {rank} calls {r["calls"]}')
        check(r['idle_ns'] > 0 and r['compute_ns'] > 0, 'times recorded')
    # Open MPI's Fortran library goes straight to PMPI_: the shim's Fortran bindings count it.
    fortran = os.path.join(t.tests, 'shim_fortran_pingpong_ompi')
    if os.path.exists(fortran):
        rc, _, err = run([os.path.join(t.bin, 'symmer-run'), '--dump', dump, t.args.ompi_mpiexec, '-n', '2',
                          '--bind-to', 'core', fortran], ompi_env(t, LD_PRELOAD=None))
        check(rc == 0, f'Fortran Open MPI program exited {rc}: {err}')
        check_fortran_dump(load_dump(dump))
    else:
        print('note: no Open MPI Fortran program built, its bindings are not tested')


@case
def launcher(t):
    """symmer-run: finds the MPICH application behind mpiexec, appends the shim to LD_PRELOAD;
    a program linked to no MPI runs unmonitored, unchanged, with one message."""
    run_bin = os.path.join(t.bin, 'symmer-run')
    app = os.path.join(t.tests, 'shim_pingpong')
    dump = os.path.join(t.tmp, 'dump.json')
    rc, out, err = run([run_bin, '--dump', dump, t.args.mpiexec, '-n', '2', '-bind-to', 'core', app,
                        os.path.join(t.tmp, 'done')], t.env(preload=False))
    check(rc == 0, f'symmer-run exited {rc}: {err}')
    d = load_dump(dump)
    check(d['mpi_family'] == 'mpich' and d['app'] == 'shim_pingpong' and len(d['ranks']) == 2, 'dump of the job')
    # Dry run: the decision, with an existing LD_PRELOAD kept in front.
    rc, out, err = run([run_bin, '--dry-run', t.args.mpiexec, '-n', '2', app],
                       t.env(preload=False, LD_PRELOAD='/nonexistent/first.so'))
    check(rc == 0, f'dry run exited {rc}: {err}')
    check(f'LD_PRELOAD=/nonexistent/first.so:{os.path.realpath(t.shim)}' in out, f'dry run said: {out}')
    check('(MPICH)' in out and app in out, f'dry run application: {out}')
    # Not an MPI program: runs as is, exit status passed through.
    rc, out, err = run([run_bin, os.path.join(t.tests, 'shim_not_mpi'), 'a', 'b'], t.env(preload=False))
    check(rc == 0 and out.strip() == 'not an MPI program, 2 arguments', f'not-MPI program: rc {rc}, {out}')
    check(len(err.strip().splitlines()) == 1 and 'running it unmonitored' in err, f'not-MPI message: {err}')
    rc, out, err = run([run_bin, os.path.join(t.tests, 'shim_not_mpi'), 'x'], t.env(preload=False))
    check(rc == 3, f'exit status not passed through: {rc}')
    rc, out, err = run([run_bin, '/nonexistent/program'], t.env(preload=False))
    check(rc == 127 and 'cannot run /nonexistent/program' in err, f'missing program: rc {rc}, {err}')
    # Bad options: one message naming what was wrong, exit status 2 (the manual page's).
    for bad, named in ((['--frobnicate'], '--frobnicate'), (['--domain', 'nodes'], 'nodes')):
        rc, out, err = run([run_bin, *bad, t.args.mpiexec, '-n', '2', app], t.env(preload=False))
        check(rc == 2 and named in err and 'cannot run' not in err,
              f'symmer-run {" ".join(bad)}: rc {rc}, {err}')
    # --report where nobody analysed the job (analyzer off; a launcher that does not exist):
    # it says so, never an empty report that claims nothing was seen.
    for options, command in ((['--analyzer', 'off'], [t.args.mpiexec]), ([], ['/nonexistent/mpiexec'])):
        rc, out, err = run([run_bin, '--report', *options, *command, '-n', '2', '-bind-to', 'core',
                            app], t.env(preload=False))
        check('no report:' in err and 'symptoms:' not in err,
              f'symmer-run --report {" ".join(options + command)}: rc {rc}, {err}')


@case
def launcher_installed(t):
    """The installed symmer-run finds the installed shim beside it (relative lookup, RPATH)."""
    prefix = os.path.join(t.tmp, 'prefix')
    rc, out, err = run(['cmake', '--install', t.build, '--prefix', prefix], t.env(preload=False), timeout=300)
    check(rc == 0, f'cmake --install failed: {err}')
    run_bin = os.path.join(prefix, 'bin', 'symmer-run')
    app = os.path.join(t.tests, 'shim_pingpong')
    rc, out, err = run([run_bin, '--dry-run', t.args.mpiexec, '-n', '2', app], t.env(preload=False))
    check(rc == 0 and os.path.realpath(prefix) in out, f'installed dry run: {out}{err}')
    dump = os.path.join(t.tmp, 'dump.json')
    rc, out, err = run([run_bin, '--dump', dump, t.args.mpiexec, '-n', '2', '-bind-to', 'core', app],
                       t.env(preload=False))
    check(rc == 0 and not symmer_lines(err), f'installed run: rc {rc}, {err}')
    check(len(load_dump(dump)['ranks']) == 2, 'installed shim did not monitor the job')


@case
def preload_everywhere(t):
    """The shims load harmlessly into processes without MPI, even with LD_BIND_NOW=1."""
    for shim in (t.shim, t.shim_ompi):
        if not os.path.exists(shim):
            continue
        for cmd in (['/bin/true'], ['/bin/sh', '-c', 'echo ok'], [t.args.mpiexec, '--version']):
            rc, out, err = run(cmd, t.env(preload=shim, LD_BIND_NOW=1))
            check(rc == 0 and not err.strip().startswith('symmer'), f'{shim} in {cmd}: rc {rc}, {err}')
    rc, out, err = t.mpiexec(2, [os.path.join(t.tests, 'shim_pingpong')], t.env(LD_BIND_NOW=1))
    check(rc == 0 and not symmer_lines(err), f'MPI job with LD_BIND_NOW: rc {rc}, {err}')


@case
def overhead_benchmark(t):
    """symmer-bench-overhead runs (a smoke run: --quick) and ends with its JSON line."""
    rc, out, err = run([os.path.join(t.bin, 'symmer-bench-overhead'), '--quick'], t.env(preload=False),
                       timeout=300)
    check(rc == 0, f'benchmark exited {rc}: {err}')
    last = json.loads(out.strip().splitlines()[-1])
    for kind in ('test', 'iprobe', 'pingpong'):
        check(kind in last['added_ns_per_call'], f'no {kind} in {last}')
        check(last['per_call'][kind]['without_ns'] > 0 and last['per_call'][kind]['with_ns'] > 0, f'{kind} timings')
        check(last['per_call'][kind]['with_pmpi_ns'] > 0, f'{kind}: no PMPI_ timing in the job with the shim')
        # --quick runs one job a variant: what is added is that job's MPI_X - PMPI_X
        check(last['added_ns_per_call_by_job'][kind] == [last['added_ns_per_call'][kind]],
              f'{kind}: added is not the in-job difference')
        check(kind in last['control_ns_per_call_without_shim'] and kind in last['added_ns_per_call_across_jobs'],
              f'{kind}: no control or across-jobs figure')
    check(last['app_seconds']['with'] > 0 and last['app_seconds']['without'] > 0, 'app timings')
    check(abs(last['app_overhead'] - (last['app_seconds']['with'] / last['app_seconds']['without'] - 1)) < 1e-9,
          'app overhead is not the ratio of the medians')
    check('app_overhead_paired' in last, 'no paired app overhead')
    check(isinstance(last['app_overhead_wrappers_in_job'], float)
          and isinstance(last['control_app_in_job_without_shim'], float), 'no in-job app overhead')
    # The job with the shim runs the embedded analyzer: its thread's CPU time is found.
    check(isinstance(last['analyzer_cpu_share'], float) and 0 <= last['analyzer_cpu_share'] < 1,
          f"analyzer CPU share {last.get('analyzer_cpu_share')}")


@case
def symmerctl_ranks(t):
    """symmerctl ranks lists a running job's ranks (table and JSON), reports corrupt and
    truncated segments, and removes a crashed job's segment (as the next job does)."""
    ctl = os.path.join(t.bin, 'symmerctl')
    tool = os.path.join(t.tests, 'shim_segment_tool')
    stale = subprocess.run([tool, 'stale', t.shm, 'dead', '0', '2'], capture_output=True, text=True).stdout.strip()
    corrupt = os.path.join(t.shm, f'symmer-{os.geteuid()}-{0xbad:016x}-0')
    with open(corrupt, 'wb') as f:
        f.write(b'\xff' * 2048)
    truncated = subprocess.run([tool, 'stale', t.shm, 'c0ffee', '0', '2'], capture_output=True,
                               text=True).stdout.strip()
    os.truncate(truncated, 600)
    foreign = subprocess.run([tool, 'foreign', t.shm, 'f0e1', '0', '2'], capture_output=True,
                             text=True).stdout.strip()
    # The job runs until the reads below are done (at most 60 s), however long load makes them.
    stop = os.path.join(t.tmp, 'stop')
    job = subprocess.Popen([t.args.mpiexec, '-bind-to', 'core', '-n', '2', os.path.join(t.tests, 'shim_pingpong'),
                            os.path.join(t.tmp, 'done'), '60000', stop],
                           env=t.env(SYMMER_JOB_ID='0x1234'), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    try:
        live = segment_path(t, 0x1234)
        deadline = time.time() + 30
        while not os.path.exists(live) and time.time() < deadline:
            time.sleep(0.02)
        check(os.path.exists(live), 'the job never created its segment')
        # The next segments made here (the tool's, the job's) removed the crashed one;
        # symmerctl removes one that crashed since.
        check(not os.path.exists(stale), "a crashed job's segment outlived the next segments made here")
        stale = subprocess.run([tool, 'stale', t.shm, 'dead2', '0', '2'], capture_output=True,
                               text=True).stdout.strip()
        time.sleep(0.2)
        rc, out, err = run([ctl, 'ranks', '--json', '--dir', t.shm], t.env(preload=False))
        check(rc == 0, f'symmerctl ranks --json exited {rc}: {err}')
        j = json.loads(out)
        jobs = [x for x in j['jobs'] if x['job_id'] == f'{0x1234:016x}']
        check(len(jobs) == 1 and len(jobs[0]['ranks']) == 2, f'live job not listed: {out[:500]}')
        check(all(r['state'] == 'active' and r['pid'] > 0 for r in jobs[0]['ranks']), 'ranks not active')
        check(stale in j['removed_stale'] and not os.path.exists(stale), f'stale segment not removed: {j["removed_stale"]}')
        problems = {p['path']: p['error'] for p in j['problems']}
        check('wrong magic' in problems.get(corrupt, ''), f'corrupt segment not reported: {problems}')
        check('truncated' in problems.get(truncated, ''), f'truncated segment not reported: {problems}')
        check('owner_uid' in problems.get(foreign, '') and os.path.exists(foreign),
              f"another user's segment not reported, or removed: {problems}")
        # Per window: two reads 0.3 s apart; the window's idle + compute is the rank's time.
        rc, out, err = run([ctl, 'ranks', '--json', '--dir', t.shm, '--window', '0.3'], t.env(preload=False))
        check(rc == 0, f'symmerctl ranks --json --window exited {rc}: {err}')
        jobs = [x for x in json.loads(out)['jobs'] if x['job_id'] == f'{0x1234:016x}']
        for r in jobs[0]['ranks']:
            w = r['window']
            close((w['idle_ns'] + w['compute_ns'] + w['other_mpi_ns']) * 1e-9, w['duration_ns'] * 1e-9,
                  f'rank {r["global_rank"]} window time', rel=0.10, abs_slack=0.03)
            check(w['bytes_sent'] > 0 and w['bytes_sent'] < r['bytes_sent'], f'window traffic {w}')
        rc, out, err = run([ctl, 'ranks', '--dir', t.shm, '--window', '0.2'], t.env(preload=False))
        check(rc == 0 and 'shim_pingpong' in out and f'{0x1234:016x}' in out, f'table: {out}{err}')
        rows = [l for l in out.splitlines() if 'shim_pingpong' in l]
        check(len(rows) == 2, f'table rows: {out}')
        # Cache misses: a count where PAPI has counters, else the reason there is none.
        counters = rank_of({'ranks': jobs[0]['ranks']}, 0)['counters']
        if counters != 'available':
            check(all(counters in row for row in rows), f'table does not say counters are {counters}: {out}')
        check('truncated' in err and 'wrong magic' in err, f'problems not reported: {err}')
    finally:
        open(stop, 'w').close()
        _, jerr = job.communicate(timeout=120)
    check(job.returncode == 0 and not symmer_lines(jerr), f'job: {job.returncode} {jerr}')
    rc, out, err = run([ctl, 'ranks', '--dir', t.shm], t.env(preload=False))
    check(rc == 0 and 'shim_pingpong' not in out, f'finished job still listed: {out}')


if __name__ == '__main__':
    sys.exit(CASES.main(['--build', '--mpiexec', '--ompi-mpiexec'], setup=Env, teardown=Env.close))

#!/usr/bin/env python3
"""Integration tests of the PMPI shim with a real mpiexec (ctest label mpi).

    run_shim_test.py --build <build dir> --mpiexec <mpiexec.mpich> <case>

Each case runs MPI programs (at most 2 ranks, pinned, never oversubscribed) with the shim
preloaded, then checks the node segment figures (SYMMER_DUMP) against what the programs
measured themselves, or checks that bad input gives one clear message and the job still
completes with exit code 0. Timings are compared as ratios with a 10% tolerance; nothing here
depends on how fast the machine is.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


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
        self.tmp = tempfile.mkdtemp(prefix='symmer-shim-test-')
        self.shm = os.path.join(self.tmp, 'shm')
        os.mkdir(self.shm)

    def env(self, preload=True, **extra):
        e = {k: v for k, v in os.environ.items() if not k.startswith('SYMMER_')}
        e.pop('LD_PRELOAD', None)
        e['SYMMER_SHM_DIR'] = self.shm
        if preload:
            e['LD_PRELOAD'] = self.shim if preload is True else preload
        for k, v in extra.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = str(v)
        return e

    def mpiexec(self, ranks, argv, env, timeout=120, mpmd_env=None):
        """Runs ranks (pinned one per core); mpmd_env: per-rank extra environment."""
        cmd = [self.args.mpiexec, '-bind-to', 'core']
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


def run(cmd, env, timeout=120):
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise Failure(f'{" ".join(cmd)} hung (killed after {timeout} s)\nstdout: {out}\nstderr: {err}')
    return p.returncode, out, err


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
                     ('collective', me['collectives'])):
            check(calls[k] == n, f'rank {rank} {k} calls: shim {calls[k]}, program {n}')
        # Late sender, attributed to the peer.
        close(peer(r, other)['late_sender_ns'] * 1e-9, me['late_from_peer'],
              f'rank {rank} late-sender wait for peer {other}', abs_slack=0.002)
        # Out of sync: compute while a rendezvous Isend was incomplete (rank 0 only).
        close(r['out_of_sync_ns'] * 1e-9, me['pending_compute'], f'rank {rank} out-of-sync compute',
              abs_slack=0.002)
    r0 = rank_of(d, 0)
    check(r0['out_of_sync_ns'] > 80e6, f'rank 0 out of sync {r0["out_of_sync_ns"]} ns, expected about 90 ms')
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
        print(out.strip())
        sys.exit(77)
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--build', required=True)
    ap.add_argument('--mpiexec', required=True)
    ap.add_argument('--ompi-mpiexec', default='')
    ap.add_argument('case', choices=sorted(CASES))
    args = ap.parse_args()
    t = Env(args)
    try:
        CASES[args.case](t)
    except Failure as e:
        print(f'FAIL {args.case}: {e}')
        print(f'(files kept in {t.tmp})')
        return 1
    shutil.rmtree(t.tmp, ignore_errors=True)
    print(f'PASS {args.case}')
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""symmerd under one hostile user: what it holds and how fast root is answered.

    bench_hostile.py --bin <build>/bin --tests <build>/tests [--connections 2000]
                     [--segments 20] [--seconds 20] [--requests 100]

A root symmerd runs on a private socket and segment directory. One unprivileged user (uid
64999, as root; this benchmark needs root) forges --segments segments of 4096 ranks on 1024
nodes (sparse files of 1 GiB each, valid headers, kept mapped by a live process) and keeps
--connections idle connections open to the socket, opening a new one whenever the daemon
closes one.
Meanwhile root asks `status` --requests times, each on a new connection, and the daemon's
resident memory (VmRSS) is sampled every 0.1 s. Progress on stderr; one JSON line on stdout:
the daemon's resident MiB before and at most under the attack, root's status times (median,
95th percentile, max, in ms), how many connections the attacker made, and the goals (64 MiB,
100 ms). Issue 15's goals: under 64 MiB and within 100 ms.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ATTACKER = 64999
HERE = os.path.dirname(os.path.abspath(__file__))
ATTACKER_SCRIPT = os.path.join(HERE, '..', '..', 'tests', 'integration', 'daemon', 'attacker.py')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tests', 'support'))
from symmer_testing.mpi_jobs import resident_mib  # noqa: E402


def ask(path, request, timeout=10):
    """One request on a new connection; (reply, seconds)."""
    start = time.monotonic()
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.settimeout(timeout)
    c.connect(path)
    c.sendall((json.dumps(request) + '\n').encode())
    data = b''
    while not data.endswith(b'\n'):
        chunk = c.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    c.close()
    return json.loads(data), time.monotonic() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--bin', required=True)
    p.add_argument('--tests', required=True)
    p.add_argument('--connections', type=int, default=2000)
    p.add_argument('--segments', type=int, default=20)
    p.add_argument('--seconds', type=float, default=20)
    p.add_argument('--requests', type=int, default=100)
    a = p.parse_args()
    if os.geteuid() != 0 or shutil.which('setpriv') is None or shutil.which('prlimit') is None:
        sys.exit('bench_hostile: needs root, setpriv and prlimit (the attacker is another user)')
    tmp = tempfile.mkdtemp(prefix='symmerd-bench-')
    os.chmod(tmp, 0o755)
    shm = os.path.join(tmp, 'shm')
    os.mkdir(shm)
    os.chmod(shm, 0o1777)
    sock = os.path.join(tmp, 'run', 'symmerd.sock')
    config = os.path.join(tmp, 'symmerd.toml')
    with open(config, 'w') as f:
        f.write(f'[daemon]\nsocket = "{sock}"\nsegment_dir = "{shm}"\n[analyzer]\nwindow_ms = 200\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith('SYMMER')}
    log = open(os.path.join(tmp, 'symmerd.log'), 'w')
    daemon = subprocess.Popen([os.path.join(a.bin, 'symmerd'), '--config', config], stdout=log,
                              stderr=subprocess.STDOUT, env=env)
    as_attacker = ['prlimit', f'--nofile={a.connections + 256}:{a.connections + 256}', 'setpriv',
                   f'--reuid={ATTACKER}', f'--regid={ATTACKER}', '--clear-groups']
    procs = []
    try:
        for _ in range(600):
            try:
                ask(sock, {'request': 'status'})
                break
            except OSError:
                time.sleep(0.05)
        before = resident_mib(daemon.pid)
        print(f'bench_hostile: symmerd pid {daemon.pid}, {before:.1f} MiB resident', file=sys.stderr)
        forger = subprocess.Popen([*as_attacker, os.path.join(a.tests, 'segment_attack'), 'forge',
                                   shm, str(a.segments), '4096', '1024'],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        procs.append(forger)
        forged = [forger.stdout.readline().strip() for _ in range(a.segments)]
        sizes = [os.stat(f).st_size for f in forged if f]
        print(f'bench_hostile: {len(sizes)} forged segments of {sizes[0] >> 20} MiB', file=sys.stderr)
        holder = subprocess.Popen([*as_attacker, sys.executable, ATTACKER_SCRIPT, 'flood',
                                   str(a.connections), sock, str(a.seconds)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        procs.append(holder)
        peak = [before]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], resident_mib(daemon.pid))
                time.sleep(0.1)

        sampler = threading.Thread(target=sample)
        sampler.start()
        time.sleep(1.5)  # the connections are open
        times, failed = [], 0
        end = time.monotonic() + a.seconds - 3
        interval = max(0.0, (a.seconds - 3) / a.requests)
        while len(times) < a.requests and time.monotonic() < end:
            try:
                reply, t = ask(sock, {'request': 'status'})
                if reply.get('ok'):
                    times.append(t * 1000)
                else:
                    failed += 1
            except OSError:
                failed += 1
            time.sleep(interval)
        out, _ = holder.communicate(timeout=a.seconds + 120)
        done.set()
        sampler.join()
        held = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        status, _ = ask(sock, {'request': 'status'})
        times.sort()
        result = {
            'benchmark': 'daemon_hostile',
            'connections': a.connections,
            'forged_segments': len(sizes),
            'forged_segment_mib': sizes[0] >> 20 if sizes else 0,
            'rss_mib_before': round(before, 1),
            'rss_mib_max': round(peak[0], 1),
            'status_requests': len(times),
            'status_failed': failed,
            'status_ms_median': round(statistics.median(times), 2) if times else None,
            'status_ms_p95': round(times[int(0.95 * (len(times) - 1))], 2) if times else None,
            'status_ms_max': round(times[-1], 2) if times else None,
            'attacker_connections_made': held.get('made'),
            'attacker_connections_open_at_end': held.get('open_at_end'),
            'segments_refused': len(status.get('problems', [])),
            'goal_rss_mib': 64,
            'goal_status_ms': 100,
        }
        print(json.dumps(result))
    finally:
        for proc in procs:
            if proc.poll() is None:
                if proc.stdin:
                    proc.stdin.close()
                proc.kill()
                proc.wait()
        daemon.terminate()
        daemon.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()

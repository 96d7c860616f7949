#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What a hostile local user does to symmerd, run as that user by run_daemon_test.py.

    attacker.py hold N SOCKET SECONDS   open N idle connections, print "connected"; then
                                        one JSON line: how many were refused at once and how
                                        many the daemon closed within SECONDS
    attacker.py flood N SOCKET SECONDS  keep N idle connections open for SECONDS, opening a
                                        new one whenever the daemon closes one; print one JSON
                                        line: connections made, and open at the end
    attacker.py fake-server SOCKET      listen at SOCKET first and answer "ok" to anything
"""
import json
import select
import socket
import sys
import time


def closed(c):
    """True when the daemon closed `c` (or sent a refusal and will): reads without waiting."""
    try:
        data = c.recv(4096, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        return True
    return data == b'' or b'"ok": false' in data or b'"ok":false' in data


def hold(n, path, seconds):
    conns = []
    for _ in range(n):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            c.connect(path)
        except OSError:
            c.close()
            continue
        conns.append(c)
    print('connected', flush=True)
    time.sleep(1.0)
    refused = [c for c in conns if closed(c)]
    open_ = [c for c in conns if c not in refused]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(not closed(c) for c in open_):
        time.sleep(0.2)
    later = sum(1 for c in open_ if closed(c))
    print(json.dumps({'opened': len(conns), 'refused_at_once': len(refused),
                      'held': len(open_), 'closed_later': later}), flush=True)


def flood(n, path, seconds):
    def connect():
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            c.connect(path)
            return c
        except OSError:
            c.close()
            return None

    conns = [c for c in (connect() for _ in range(n)) if c is not None]
    made = len(conns)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        alive = [c for c in conns if not closed(c)]
        for c in conns:
            if c not in alive:
                c.close()
        while len(alive) < n and time.monotonic() < end:
            c = connect()
            if c is None:
                break
            alive.append(c)
            made += 1
        conns = alive
        time.sleep(0.05)
    print(json.dumps({'made': made, 'open_at_end': len(conns)}), flush=True)


def fake_server(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(16)
    print('listening', flush=True)
    while True:
        c, _ = s.accept()
        if select.select([c], [], [], 5)[0]:
            c.recv(65536)
        c.sendall(b'{"ok": true, "paused": true}\n')
        c.close()


if __name__ == '__main__':
    what = sys.argv[1]
    if what == 'hold':
        hold(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    elif what == 'flood':
        flood(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    elif what == 'fake-server':
        fake_server(sys.argv[2])
    else:
        sys.exit(f'unknown: {what}')

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A 2-rank MPICH job whose node segment is corrupted while it runs (ctest label mpi).

    run_corruption_test.py --build <build dir> --mpiexec <mpiexec.mpich> <case>

The job (corrupt_job: Allreduce and ring Sendrecv steps) runs with the shim preloaded and its
embedded analyzer on; once its segment is complete and published, `segment_attack corrupt
<case>` changes the file as the job's owner could: random bytes, each header field absurd,
odd sequence words, random command words, truncation to zero or half, growth, removal, a
symlink in its place. The job must end by itself with exit code 0 and its correct result
(the sum it computes is checked against the one it must be), and say each distinct problem
at most once.
"""
import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../support'))
from symmer_testing.cases import Cases, check  # noqa: E402
from symmer_testing.mpi_jobs import JobFolder, last_json_line, run  # noqa: E402

CASES = Cases()
JOB_SECONDS = 100  # at most: the test stops the job once the corruption is done


class Env:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.folder = JobFolder('symmer-corrupt-test-')

    def close(self):
        self.folder.remove()


def corrupted_job(env, corruption):
    """Runs the job, corrupts its segment once it is published; returns (result, messages)."""
    import subprocess
    job = os.path.join(env.build, 'tests', 'corrupt_job')
    attack = os.path.join(env.build, 'tests', 'segment_attack')
    stop = os.path.join(env.folder.tmp, 'stop')
    cmd = [env.args.mpiexec, '-n', '2', '-bind-to', 'core', job, '--seconds', str(JOB_SECONDS),
           '--stop-file', stop]
    p = subprocess.Popen(cmd, env=env.folder.env(preload=os.path.join(env.build, 'lib',
                                                                      'libsymmer-pmpi.so'),
                                                 SYMMER_PERIOD_MS=5),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        # The segment is there once both ranks published (the magic is written last).
        deadline = time.monotonic() + 60
        path = None
        while time.monotonic() < deadline and path is None:
            names = [n for n in os.listdir(env.folder.shm) if n.startswith('symmer-')]
            if names:
                candidate = os.path.join(env.folder.shm, names[0])
                try:
                    with open(candidate, 'rb') as f:
                        if f.read(8) == b'SYMMSEG1':  # the magic, written last
                            path = candidate
                except OSError:
                    pass
            time.sleep(0.05)
        check(path is not None, 'the job made no segment')
        time.sleep(0.5)  # ranks publish, the embedded analyzer samples a few windows
        a = subprocess.run([attack, 'corrupt', corruption, path], capture_output=True, text=True,
                           timeout=60)
        check(a.returncode == 0, f'segment_attack: {a.stderr}')
        # The ranks meet the corruption at their next publishes, at the latest in MPI_Finalize.
        time.sleep(0.5)
        open(stop, 'w').close()
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, err = p.communicate()
        check(False, f'the job hung after "{corruption}"\nstdout: {out}\nstderr: {err}')
    check(p.returncode == 0, f'the job failed after "{corruption}" ({p.returncode}):\n{err}')
    result = last_json_line(out)
    check(result is not None and result['sum'] == result['expected'] and result['steps'] > 0,
          f'wrong result after "{corruption}": {result}\n{err}')
    messages = [line for line in err.splitlines() if line.startswith('symmer')]
    repeated = [m for m, n in collections.Counter(messages).items() if n > 1]
    check(not repeated, f'said more than once after "{corruption}": {repeated}\n{err}')
    return result, messages


def matrix_case(corruption, must_say=None):
    def body(env):
        _, messages = corrupted_job(env, corruption)
        if must_say:
            check(any(must_say in m for m in messages),
                  f'"{corruption}" not said ("{must_say}"): {messages}')
    body.__name__ = corruption.replace('-', '_')
    CASES.case(body)


matrix_case('random')
matrix_case('header-fields')
matrix_case('odd-seq', 'was written by someone else')
matrix_case('odd-summary')
matrix_case('commands')
matrix_case('truncate-zero', 'the job goes on unmonitored')
matrix_case('truncate-half', 'the job goes on unmonitored')
matrix_case('grow', 'was resized')
matrix_case('unlink', 'was removed')
matrix_case('symlink', 'was removed')

if __name__ == '__main__':
    sys.exit(CASES.main(['--build', '--mpiexec'], setup=Env, teardown=Env.close))

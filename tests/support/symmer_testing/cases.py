# SPDX-License-Identifier: BSD-3-Clause
"""Cases of one integration test script; ctest runs each as its own test (`script.py ... CASE`).

    from symmer_testing.cases import Cases, check

    CASES = Cases()

    @CASES.case
    def moves_the_rank(env):
        check(cond, 'what is wrong, with the figures that show it')

    sys.exit(CASES.main(['--bin', '--mpiexec'], setup=Env, teardown=Env.close))

A case fails by raising Failure (check does), is skipped by raising Skip (exit code 77, for
ctest's SKIP_RETURN_CODE) and passes by returning.
"""
import argparse


class Failure(Exception):
    """A case's check did not hold."""


class Skip(Exception):
    """The case cannot run here (the message says why)."""


def check(cond, what):
    """Fails the case with `what` unless `cond`."""
    if not cond:
        raise Failure(what)


class Cases:
    def __init__(self):
        self.cases = {}

    def case(self, fn):
        """Decorator: registers `fn(env)` under its name."""
        self.cases[fn.__name__] = fn
        return fn

    def main(self, options, setup=lambda args: args, teardown=None):
        """Parses `options` (each required, e.g. '--bin') and the case name, runs the case on
        setup(args), then teardown(env); returns the exit code: 0 ok, 1 failed, 77 skipped."""
        parser = argparse.ArgumentParser()
        for option in options:
            parser.add_argument(option, required=True)
        parser.add_argument('case', choices=sorted(self.cases))
        args = parser.parse_args()
        env = setup(args)
        try:
            self.cases[args.case](env)
        except Skip as e:
            print(f'skipped {args.case}: {e}')
            return 77
        except Failure as e:
            print(f'FAIL {args.case}: {e}')
            return 1
        finally:
            if teardown is not None:
                teardown(env)
        print(f'ok {args.case}')
        return 0

# SPDX-License-Identifier: BSD-3-Clause
"""Python helpers of the integration tests (tests/integration/*/). A test script puts
tests/support on sys.path first:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../support'))

    cases     one test script, many cases: each ctest test runs one (`script.py ... CASE`)
    mpi_jobs  MPI jobs under test: a private segment folder, a clean environment, results
"""

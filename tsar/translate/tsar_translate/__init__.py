# SPDX-License-Identifier: BSD-3-Clause
"""tsar-translate: OpenMP target loops annotated with #pragma tsar, co-scheduled by TSAR."""

#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on an embedded default.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release

echo "== The node model symmer and TSAR work from (build/bin/symmerctl topology)"
build/bin/symmerctl topology

echo
echo "== TSAR: one loop split across every device found, and the split it learns (build/bin/tsar-demo)"
build/bin/tsar-demo

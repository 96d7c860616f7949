#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bootstrap.sh: with everything installed it does nothing and says nothing; a normal
# user missing a package gets one message naming it and the command to run, exit 1, and
# nothing is installed. (A copy of the script with one impossible package stands in for a
# machine missing one.)
set -euo pipefail
source_dir=$1

out=$("$source_dir/scripts/bootstrap.sh" 2>&1) || { echo "FAIL: bootstrap exited $?: $out"; exit 1; }
[[ -z $out ]] || { echo "FAIL: bootstrap with every package installed printed: $out"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
sed 's/^packages=(/packages=(\n  symmer-test-no-such-package/' "$source_dir/scripts/bootstrap.sh" \
  >"$work/bootstrap.sh"
chmod 755 "$work/bootstrap.sh"
run_as_user=()
if [[ $(id -u) -eq 0 ]]; then
  run_as_user=(runuser -u nobody --)
fi
set +e
msg=$("${run_as_user[@]}" bash "$work/bootstrap.sh" 2>&1)
rc=$?
set -e
echo "non-root run (rc $rc): $msg"
[[ $rc -eq 1 ]] || { echo "FAIL: expected exit 1"; exit 1; }
[[ $(wc -l <<<"$msg") -eq 1 ]] || { echo "FAIL: expected one message line"; exit 1; }
[[ $msg == *"1 Debian package(s) missing: symmer-test-no-such-package."* ]] ||
  { echo "FAIL: the message does not name the missing package"; exit 1; }
[[ $msg == *"sudo apt-get install -y --no-install-recommends symmer-test-no-such-package"* ]] ||
  { echo "FAIL: the message does not give the command to run"; exit 1; }
echo "PASS"

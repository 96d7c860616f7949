#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench.sh ... --record: a run lands in docs/results/<question>/ under its date, node
# and the commit its program reports; a second run of the same question on the same node moves
# the first to archive/ and the index says which replaced it; scripts/results.py check agrees;
# a build from a dirty tree is not recorded. Runs a stand-in tsar-suite on a scratch index.
set -euo pipefail
src="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
results="$tmp/root/docs/results"
mkdir -p "$tmp/build/bin" "$results"
cat >"$results/README.md" <<'INDEX'
# Results

## Nodes

| node | machine |
| --- | --- |

## Questions

| question | what it answers |
| --- | --- |

## Files

| question | file | node | commit | command | superseded by |
| --- | --- | --- | --- | --- | --- |
INDEX
fake_suite() {  # fake_suite COMMIT: a tsar-suite that prints two JSON lines
  cat >"$tmp/build/bin/tsar-suite" <<FAKE
#!/bin/sh
[ "\$1" = --version ] && { echo "tsar-suite 0.1.0 (commit $1)"; exit 0; }
echo '{"kernel":"gemm","args":"'"\$*"'"}'
echo '{"summary":true}'
FAKE
  chmod +x "$tmp/build/bin/tsar-suite"
}
bench() {
  SYMMER_BUILD_DIR="$tmp/build" SYMMER_RESULTS_DIR="$results" \
    "$src/scripts/bench.sh" tsar --quick --kernels gemm --record tsar/suite-cpu-quick "$@"
}
fail() { echo "FAIL: $*"; exit 1; }
today="$(date -u +%F)"

fake_suite 0123456789ab
bench --node testnode --describe "the quick suite" --node-description "a test machine" >/dev/null
first="tsar/suite-cpu-quick/$today-testnode-0123456789ab.jsonl"
[[ -f "$results/$first" ]] || fail "no $first"
grep -q '"args":"--scale quick --kernels gemm"' "$results/$first" || fail "output not kept"
grep -qF "| tsar/suite-cpu-quick | [$(basename "$first")]($first) | testnode | 0123456789ab | \`scripts/bench.sh tsar --quick --kernels gemm\` |  |" \
  "$results/README.md" || fail "no index row: $(cat "$results/README.md")"
grep -qF "| testnode | a test machine |" "$results/README.md" || fail "node not described"

fake_suite fedcba987654
bench --node testnode >/dev/null
second="tsar/suite-cpu-quick/$today-testnode-fedcba987654.jsonl"
[[ -f "$results/$second" && -f "$results/archive/$first" && ! -e "$results/$first" ]] ||
  fail "the first run was not archived: $(cd "$results" && find . -type f)"
grep -qF "[$(basename "$first")](archive/$first) | testnode | 0123456789ab | \`scripts/bench.sh tsar --quick --kernels gemm\` | [$(basename "$second")]($second) |" \
  "$results/README.md" || fail "superseded row wrong: $(cat "$results/README.md")"
python3 "$src/scripts/results.py" check "$tmp/root" || fail "results.py check disagrees"

# A third run archives the second; the first's "superseded by" follows it into archive/.
fake_suite 00112233aabb
bench --node testnode >/dev/null
third="tsar/suite-cpu-quick/$today-testnode-00112233aabb.jsonl"
grep -qF "[$(basename "$first")](archive/$first) | testnode | 0123456789ab | \`scripts/bench.sh tsar --quick --kernels gemm\` | [$(basename "$second")](archive/$second) |" \
  "$results/README.md" || fail "the first row still points at the second's old place: $(cat "$results/README.md")"
python3 "$src/scripts/results.py" check "$tmp/root" || fail "results.py check disagrees"

fake_suite fedcba987654-dirty
if bench --node othernode --node-description "x" >/dev/null 2>"$tmp/err"; then
  fail "a dirty build was recorded"
fi
grep -q "committed build" "$tmp/err" || fail "no reason given: $(cat "$tmp/err")"
[[ ! -d "$results/tsar/suite-cpu-quick" ]] || [[ -z "$(find "$results/tsar" -name '*othernode*')" ]] ||
  fail "a file was written for the dirty build"

# check names what is wrong: a file the index does not list, a row whose file is gone.
touch "$results/tsar/suite-cpu-quick/stray.txt"
rm "$results/$third"
if python3 "$src/scripts/results.py" check "$tmp/root" 2>"$tmp/err"; then fail "check passed"; fi
grep -q "stray.txt: not in the index" "$tmp/err" || fail "stray file not named: $(cat "$tmp/err")"
grep -q "$third: listed but missing" "$tmp/err" || fail "missing file not named: $(cat "$tmp/err")"
echo "bench.sh --record: ok"

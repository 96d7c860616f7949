#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages, end to end: builds them with the package preset (prefix /usr, /etc),
# installs all five with dpkg into a fresh root, and checks what a site relies on:
# symmerd --check-config accepts the shipped configuration, which is a conffile; the systemd
# unit is in the unit directory and starts the installed symmerd; symmer-run and symmerctl run
# from the root; and programs build against the installed libtsar-dev with find_package(TSAR)
# and with pkg-config, and run.
#   packages_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src="$1" work="$2"
rm -rf "$work"
mkdir -p "$work"
# The preset's own folder, beside build/: the same relative paths let ccache reuse build/'s
# objects, so only what the /usr prefix changes is compiled again.
build="$src/build-package" root="$work/root"
unset LD_LIBRARY_PATH
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "== $*"; }

step "build the packages (cmake --preset package)"
(cd "$src" && cmake --preset package >"$work/configure.log") ||
  { cat "$work/configure.log"; fail "configure"; }
cmake --build "$build" -j2 >"$work/build.log" || { tail -50 "$work/build.log"; fail "build"; }
rm -rf "$build/packages"
(cd "$build" && cpack --config CPackConfig.cmake >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
mapfile -t debs < <(find "$build/packages" -maxdepth 1 -name '*.deb' | sort)
names=()
for d in "${debs[@]}"; do names+=("$(dpkg-deb -f "$d" Package)"); done
echo "packages: ${names[*]}"
for want in symmer symmerd libtsar0 libtsar-dev libsymmer-dev; do
  [[ " ${names[*]} " == *" $want "* ]] || fail "no package $want"
done

step "install them into a fresh root (dpkg --root)"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# Dependencies on Debian's libraries are satisfied by this machine, not by the empty root.
dpkg --root="$root" --force-depends --force-script-chrootless --log=/dev/null \
  --install "${debs[@]}" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --install"; }
dpkg --root="$root" --audit >/dev/null || true
depends="$(dpkg-deb -f "$build"/packages/symmerd_*.deb Depends)"
[[ "$depends" == *"symmer (="* && "$depends" == *libc6* ]] ||
  fail "symmerd's Depends lacks symmer or the shared-library dependencies: $depends"
conffiles="$(dpkg-query --root="$root" -W -f='${Conffiles}' symmerd)"
[[ "$conffiles" == *"/etc/symmer/symmerd.toml "* ]] || fail "symmerd.toml is not a conffile: $conffiles"
conffiles="$(dpkg-query --root="$root" -W -f='${Conffiles}' symmer)"
[[ "$conffiles" == *"/etc/symmer/symmer.toml "* ]] || fail "symmer.toml is not a conffile: $conffiles"
for f in usr/bin/symmer-run usr/bin/symmerd usr/bin/symmerctl usr/share/man/man8/symmerd.8 \
         usr/share/man/man5/symmerd.toml.5 usr/share/man/man1/symmer-run.1 \
         usr/share/doc/symmerd/copyright usr/include/tsar/tsar.h; do
  [[ -e "$root/$f" ]] || fail "$f is not installed"
done

step "the systemd unit starts the installed symmerd with the installed configuration"
unit="$root/usr/lib/systemd/system/symmerd.service"
[[ -f "$unit" ]] || unit="$root/lib/systemd/system/symmerd.service"
[[ -f "$unit" ]] || fail "no symmerd.service in the systemd unit directory"
grep -qx 'ExecStart=/usr/bin/symmerd --config /etc/symmer/symmerd.toml' "$unit" ||
  fail "the unit does not start /usr/bin/symmerd: $(grep ExecStart "$unit")"

step "symmerd --check-config with the shipped configuration"
out="$("$root/usr/bin/symmerd" --check-config --config "$root/etc/symmer/symmerd.toml")"
echo "$out"
[[ "$out" == *"configuration is valid"* ]] || fail "symmerd --check-config: $out"
"$root/usr/bin/symmerd" --version
"$root/usr/bin/symmerctl" topology --synthetic "pack:1 core:2 pu:1" | grep -q "2 core(s)" ||
  fail "installed symmerctl does not run"
out="$("$root/usr/bin/symmer-run" --dry-run --mpi mpich true 2>&1)" || fail "symmer-run: $out"
[[ "$out" == *"shim: $root/usr/lib/"*"/libsymmer-pmpi.so"* ]] ||
  fail "installed symmer-run does not find the installed shim: $out"

step "find_package(TSAR) and pkg-config tsar against the installed libtsar-dev"
cmake -S "$src/tests/integration/packages/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$root/usr" >"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; fail "find_package(TSAR)"; }
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; fail "consumer build"; }
"$work/consumer/consumer"
pcdir="$(dirname "$(find "$root/usr/lib" -name tsar.pc | head -1)")"
flags="$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs tsar)" || fail "pkg-config tsar"
# shellcheck disable=SC2086  # the flags are words
cc -std=c11 "$src/tests/integration/packages/consumer/main.c" $flags -o "$work/pc-consumer"
# tsar.pc sets no run path: the program finds libtsar as users' programs do.
LD_LIBRARY_PATH="$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir tsar)" "$work/pc-consumer"
rm -rf "$work"
echo "packages: ok"

#!/usr/bin/env bash
# Builds pimc's .debs (CPack), installs them with dpkg into an empty staging
# root, and uses them from there: the installed pimc compiles and validates
# its bundled model, and a C++ project builds against pimc-dev with
# find_package(pimc).
#   package.sh BUILD_DIR WORK_DIR CC CXX
set -euo pipefail
build=$1 work=$2 cc=$3 cxx=$4
rm -rf "$work" && mkdir -p "$work"
cpack --config "$build/CPackConfig.cmake" -B "$work/packages" > "$work/cpack.log"
root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
for deb in "$work"/packages/pimc_*.deb "$work"/packages/pimc-dev_*.deb; do
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "$(basename "$deb"): Depends: $depends"
  # Every dependency is a Debian package (installed here by setup.sh).
  for package in $(echo "$depends" | tr ',' '\n' | sed -E 's/\(.*\)//; s/ //g'); do
    [ "$package" = pimc ] || dpkg-query -W "$package" > /dev/null
  done
  # The staging root has no packages: its dependencies are this machine's.
  dpkg --root="$root" --force-depends --force-not-root --force-bad-path \
       --log=/dev/null -i "$deb" > /dev/null 2>> "$work/dpkg.log"
done
dpkg-deb -f "$work"/packages/pimc_*.deb Depends | grep -q "libllvm19.*libmlir-19"
"$root/usr/bin/pimc" --version
"$root/usr/bin/pimc" compile -q -o "$work/out" > "$work/compile.log"
# The bundled model, found from the installed binary's own path.
grep -q "^model            $root/usr/share/pimc/models/mlp-784-256-10/model.onnx (sha256 [0-9a-f]*...)$" "$work/compile.log"
ls "$work/out/arch.json" "$work/out/core_0.pim" > /dev/null
"$root/usr/bin/pimc" validate "$root/usr/share/pimc/models/mlp-784-256-10" | tail -n 1 | grep "^PASS"
ls "$root/usr/share/pimc/configs/chip-144.json" "$root/usr/bin/pimc-opt" > /dev/null

cmake -S "$(dirname "$0")/consumer" -B "$work/consumer" -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$root/usr" > "$work/consumer-configure.log"
cmake --build "$work/consumer" > "$work/consumer-build.log"
used=$("$work/consumer/pimc-consumer")
echo "$used"
test "$used" = "32 cores, network_mesh_4x8.json, 22 ns per flit from core 0 to 31"

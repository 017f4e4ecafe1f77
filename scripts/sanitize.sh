#!/usr/bin/env bash
# Builds pimc with ASan and UBSan in build-fuzz/ (the fuzz targets' build)
# and runs the whole test suite on it: any sanitizer report aborts the
# process and fails its test. The last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-fuzz/build.ninja ]; then
  cmake -G Ninja -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir -DPIMC_FUZZ=ON >/dev/null
fi
if ! cmake --build build-fuzz -j "$(nproc)"; then
  echo "0 passed, 1 failed"
  exit 1
fi
# Leaks are not checked: pimc leaves its IR to the process's exit on
# purpose (compile's keepIrAtExit). LLVM's headers poison the free part of
# an allocator's slab in pimc's instrumented code, which Debian's
# uninstrumented libMLIR then allocates from: user poisoning is off.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allow_user_poisoning=0
export UBSAN_OPTIONS=abort_on_error=1:print_stacktrace=1
PIMC_BUILD_DIR=build-fuzz scripts/test.sh

#!/usr/bin/env bash
# Builds the libFuzzer targets (ASan + UBSan) in build-fuzz/ and runs each for
# SECONDS (default 60) from the seed corpus that fuzz/make_corpus.py writes.
# A crash, a sanitizer report, a leak, a timeout or an out-of-memory is a
# finding: its reproducer is left in build-fuzz/findings/TARGET/. The last
# line is "N passed, N failed" (one per target).
#   scripts/fuzz.sh [SECONDS] [TARGET ...]     TARGET: onnx arch artifacts pim
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(onnx arch artifacts pim)
fail() { echo "$1"; echo "0 passed, ${#targets[@]} failed"; exit 1; }

if [ ! -f build-fuzz/build.ninja ]; then
  cmake -G Ninja -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir -DPIMC_FUZZ=ON >/dev/null || fail "cannot configure build-fuzz"
fi
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]/#/pimc-fuzz-}" || fail "cannot build the fuzz targets"
# The seeds of artifacts are programs that the ordinary build compiles.
scripts/build.sh >/dev/null || fail "cannot build pimc"
rm -rf build-fuzz/seeds && /usr/bin/python3 fuzz/make_corpus.py build-fuzz/seeds build/bin/pimc ||
  fail "cannot write the seed corpus"

passed=0 failed=0
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target findings=build-fuzz/findings/$target
  mkdir -p "$corpus" "$findings"
  # -rss_limit_mb: every input pimc reads is bounded well below it.
  if build-fuzz/bin/pimc-fuzz-"$target" "$corpus" build-fuzz/seeds/"$target" \
       -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
       -artifact_prefix="$findings/" -print_final_stats=1 \
       >build-fuzz/"$target".log 2>&1; then
    echo "fuzz $target: $(grep -E '^stat::number_of_executed_units' build-fuzz/"$target".log | awk '{print $2}') executions, $(grep -oE 'cov: [0-9]+' build-fuzz/"$target".log | tail -1), no finding"
    passed=$((passed + 1))
  else
    echo "fuzz $target: FINDING (build-fuzz/$target.log, reproducer in $findings/):"
    grep -E "ERROR: |runtime error|SUMMARY" build-fuzz/"$target".log | head -5
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

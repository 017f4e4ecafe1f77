#!/usr/bin/env bash
# Builds pimc if needed and runs the whole test suite (unit tests, lit tests of
# every dialect and pass, end-to-end validation on the functional simulator).
# The last line is "N passed, N failed".
# PIMC_BUILD_DIR names another build directory to test, built already
# (scripts/sanitize.sh's).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${PIMC_BUILD_DIR:-build}
if [ "$build" = build ] && ! scripts/build.sh; then
  echo "0 passed, 1 failed"
  exit 1
fi
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure --timeout 1800 | tee "$build"/ctest.log
status=${PIPESTATUS[0]}
summary=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$build"/ctest.log | tail -n 1)
failed=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/')
total=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/')
if [ -z "$summary" ]; then
  echo "0 passed, 1 failed"
  exit 1
fi
echo "$((total - failed)) passed, $failed failed"
exit "$status"

#!/usr/bin/env bash
# A sweep of two MLPs x two chips x both modes with Snakemake, end to end:
# every point validated, the CSV, table and plots written; a rerun does
# nothing, and a changed chip redoes only its own points.
#   two-mlps.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
source=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$source/test/e2e/make_mlp.py" "$work/mlp-a" 64 32 10 > /dev/null
/usr/bin/python3 "$source/test/e2e/make_mlp.py" "$work/mlp-b" 200 100 10 --seed 1 > /dev/null
describe() {
  cat > "$work/sweep.yaml" <<YAML
pimc: $build/bin/pimc
models:
  mlp-a: mlp-a
  mlp-b: mlp-b
arch:
  cores: [$1, 16]
  crossbars: 16
modes: [latency, throughput]
YAML
}
sweep() {
  snakemake -s "$source/sweep/Snakefile" --configfile "$work/sweep.yaml" \
    --directory "$work/out" --cores 2 "$@"
}
describe 4
sweep --quiet > "$work/snakemake.log" 2>&1 || { cat "$work/snakemake.log"; exit 1; }
/usr/bin/python3 - "$work/out" <<'PY'
import csv, os, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
points = sorted((r["model"], r["chip"], r["mode"]) for r in rows)
expected = sorted((m, "cores%d-crossbars16" % c, mode) for m in ("mlp-a", "mlp-b")
                  for c in (4, 16) for mode in ("latency", "throughput"))
assert points == expected, points
for r in rows:
    assert (r["status"], r["validation"]) == ("ok", "match"), r
    assert float(r["latency_ms"]) > 0 and float(r["energy_mj"]) > 0, r
    assert r["memory.physical_cores"] == r["cores"], r
    assert (r["samples_per_s"] != "") == (r["mode"] == "throughput"), r
table = open(os.path.join(out, "results.md")).read().splitlines()
assert len(table[0].split("|")) == 8 + 3, table[0]
assert any(line.startswith("| timing.latency_ns |") for line in table)
for headline in ("latency_ms", "energy_mj", "samples_per_s"):
    for ext in ("svg", "png"):
        assert os.path.getsize(os.path.join(out, "plots", "%s-vs-cores.%s" % (headline, ext))) > 1000
print("8 points: ok, validated; results.csv, results.md and 6 plots")
PY
# Cached: nothing to redo; a chip of 9 cores instead of 4 redoes its 4 points
# (and its architecture file and the gathering), no other.
sweep --dry-run --quiet > "$work/dry-run.log" 2>&1
grep -q "Nothing to be done" "$work/dry-run.log"
describe 9
sweep --dry-run --quiet 2>&1 | awk '$1 ~ /^(arch|point|gather|torchvision)$/ {print $1, $2}' \
  > "$work/jobs.log"
printf 'arch 1\ngather 1\npoint 4\n' | diff - "$work/jobs.log"
echo "rerun: only the 4 points of the changed chip"

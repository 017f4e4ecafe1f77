#!/usr/bin/env bash
# Makes the pictures of resnet18's HTML report that the README and
# docs/report.md show: exports resnet18 (random weights, seed 0), compiles it
# for the 144-core chip in a mode, writes its page, and takes a screenshot of
# its top in headless Chromium, reduced to a palette of 128 colours.
#   bench/report_screenshot.sh [latency|throughput] [OUT.png]
#   (default: latency, docs/images/resnet18-report.png or
#   docs/images/resnet18-throughput-report.png)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-latency}
case "$mode" in
  latency) default=resnet18-report.png ;;
  throughput) default=resnet18-throughput-report.png ;;
  *) echo "usage: $0 [latency|throughput] [OUT.png]" >&2; exit 2 ;;
esac
png=${2:-$root/docs/images/$default}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Paths relative to the work directory, so that the page names no path of
# this machine.
cp -r "$root/configs" "$work/configs"
cd "$work"
export PATH="$root/build/bin:$PATH"
/usr/bin/python3 "$root/bench/export_models.py" models resnet18 > /dev/null
pimc compile models/resnet18/model.onnx --arch configs/chip-144.json --mode="$mode" -o out -q \
  > /dev/null
pimc report out --html > /dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --user-data-dir="$work/profile" --window-size=1400,1900 \
  --screenshot="$work/shot.png" "file://$work/out/report.html" 2> /dev/null
mkdir -p "$(dirname "$png")"
/usr/bin/python3 - "$work/shot.png" "$png" <<'PY'
import sys
from PIL import Image
Image.open(sys.argv[1]).convert("RGB").quantize(colors=128).save(sys.argv[2], optimize=True)
PY
echo "wrote $png ($(stat -c %s "$png") bytes)"

#!/usr/bin/env bash
# Makes the picture of resnet18's HTML report that the README shows: exports
# resnet18 (random weights, seed 0), compiles it for the 144-core chip,
# writes its page, and takes a screenshot of its top in headless Chromium,
# reduced to a palette of 128 colours.
#   bench/report_screenshot.sh [OUT.png]   (default docs/images/resnet18-report.png)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
png=${1:-$root/docs/images/resnet18-report.png}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Paths relative to the work directory, so that the page names no path of
# this machine.
cp -r "$root/configs" "$work/configs"
cd "$work"
export PATH="$root/build/bin:$PATH"
/usr/bin/python3 "$root/bench/export_models.py" models resnet18 > /dev/null
pimc compile models/resnet18/model.onnx --arch configs/chip-144.json -o out -q > /dev/null
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

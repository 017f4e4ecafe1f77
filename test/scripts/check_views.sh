#!/usr/bin/env bash
# Draws the views of a compiled program and checks them: its trace against
# its report, its HTML page in headless Chromium, its report against the
# schema.
#   check_views.sh PIMC PYTHON OUT [check_html.py options]
set -euo pipefail
pimc=$1 python=$2 out=$3
shift 3
scripts=$(dirname "$0")
"$pimc" report "$out" --html --trace --csv > /dev/null
"$python" "$scripts/check_trace.py" "$out/trace.json" "$out/report.json"
"$python" "$scripts/check_html.py" "$out/report.html" "$@"
"$python" "$scripts/check_report.py" "$out/report.json"

#!/usr/bin/env bash
# Owed: the split at the big preset on an H200 (every call of 2026-12-06 was lent an H100). Stops
# at once, running nothing, unless the card is an H200; then the big preset at the defaults and
# with SPLIT=0 in turn, three rounds, and the big preset's record beside clblast and cl/per-op.
#   ../shared/device/stage; bash bench/results/2026-12-06-split/h200.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split-h200
if ! grep -q H200 "$o/gpu.txt"; then
  echo "not an H200: $(tail -1 "$o/gpu.txt")"
  exit 3
fi
settings_big 3 - SPLIT=0
step big-anchors 300 "${clgauge[@]}" mlp --device nvidia --backend cl,clblast --preset big \
  --iters 40 --print-every 20 --json "$o/big-anchors.json"

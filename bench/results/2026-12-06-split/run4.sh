#!/usr/bin/env bash
# The fourth call, the split's rule in the build (SPLIT on a GPU from batch 64 with din x hidden
# >= 2^24; launch G's update a row at a time): the big preset at the defaults and with SPLIT=0,
# three rounds in turn; the big preset's record beside clblast and cl/per-op; then shapes about
# the rule's edge with the fused launches (STRATEGY=0,PERSIST=0), SPLIT=0 then SPLIT=1.
#   ../shared/device/stage; bash bench/results/2026-12-06-split/run4.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split4
settings_big 3 - SPLIT=0
step big-anchors 300 "${clgauge[@]}" mlp --device nvidia --backend cl,clblast --preset big \
  --iters 40 --print-every 20 --json "$o/big-anchors.json"
settings_shapes "SPLIT=0 SPLIT=1" "64 4096 4096 8 200" "64 3000 3000 8 400" "96 4096 4096 8 200" \
  "32 5000 5000 8 200" "64 5000 5000 64 200" "64 8192 2048 8 200" "64 2048 8192 8 200" \
  "120 5000 5000 8 100" "64 1000 20000 8 100"

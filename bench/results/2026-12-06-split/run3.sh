#!/usr/bin/env bash
# The third call: the split iteration (SPLIT=1: launch G, the backward part in a build of its own
# with 4 x 4 blocks, then launch A, the forward part alone with 8 x 4 blocks and two row tiles per
# work-group) against main's one launch A (SPLIT=0, the default), both from the bundle's build:
# the big preset twice each in turn, then other settings of the split at the big preset, then
# nine shapes with the fused launches (STRATEGY=0,PERSIST=0), SPLIT=0 then SPLIT=1.
#   ../shared/device/stage; bash bench/results/2026-12-06-split/run3.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split3
settings_big 2 SPLIT=0 SPLIT=1
for p in TPG=1 RN=8 RN=8,TPG=1 GKC=32 GUR=1 GR=8; do
  variant_step "big-split1-${p//[=,]/}" main "${big_preset[@]}" --kernel-param "SPLIT=1,$p"
done
settings_shapes "SPLIT=0 SPLIT=1" "64 2048 2048 8 400" "128 2048 2048 8 400" "16 4096 4096 16 400" \
  "8 8192 8192 64 200" "96 5000 5000 8 200" "32 4096 512 8 400" "64 1024 128 8 400" \
  "256 2048 1024 16 400" "64 8192 8192 8 100"

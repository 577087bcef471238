#!/usr/bin/env bash
# Issue 10's mlp and linear targets with the build as committed, on whichever card is lent: the
# seed preset; cl/fused beside clblast and cl/per-op at the 17 shapes of 2026-12-04 and at 13
# more (the split's range, primes, past the presets); linear at every transfer. On an H200
# first the big preset at the defaults and with SPLIT=0, three rounds (the split's figure owed
# there), and at the end matmul's targets (cl/pipelined beside clblast at the issue's sizes).
#   ../shared/device/stage; bash bench/results/2026-12-06-close/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" close
h200=0
grep -q H200 "$o/gpu.txt" && h200=1
if [ $h200 = 1 ]; then
  settings_big 3 - SPLIT=0
fi
step big-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --preset big \
  --iters 120 --print-every 20 --json "$o/big-preset.json"
step seed-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --iters 2000 \
  --print-every 500 --json "$o/seed-preset.json"
mlp_grid 256x2048x1024x16 8x16x16x1 8x1024x1024x8 8x8192x8192x64 64x128x8192x1 64x8192x128x64 \
  64x16x5000x8 256x1024x1024x64 256x128x128x1 1024x16x16x1 1024x1024x1024x8 1024x128x8192x64 \
  1024x8192x1024x1 1024x5000x5000x64 256x5000x5000x8 \
  24x5000x5000x8 32x4096x4096x16 48x8192x2048x32 61x3001x4999x7 40x6000x1500x3 17x7919x4093x5 \
  100x5000x5000x8 128x4096x4096x1 13x211x8191x64 512x700x300x2 8x8192x16x1 1000x999x1001x50 \
  37x8192x8192x1
step linear 120 "${clgauge[@]}" linear --device nvidia --backend cl --variant fused \
  --transfer all --json "$o/linear.json"
if [ $h200 = 1 ]; then
  matmul_targets
fi

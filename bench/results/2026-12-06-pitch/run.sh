#!/usr/bin/env bash
# One call: the fused kernels with rows of w1, h1, dz1 and the partials on 128-byte lines (LDH,
# hidden rounded up to 32 floats) and launch R's new RC rule (the bundle's build), against the
# build before them (BUNDLE/clgauge-3e001eb, carried in the bundle), in turn at each setting:
# the big preset twice each (and the new build with RC=32, the pitch alone); 64 x 4992 x H x 8
# for H = 4992, 5000, 5032 (rows 32 bytes off a line, a last column block of 40) and 5096 (off,
# 104); the nine shapes of ../2026-12-06-r-waves/run2.sh once each.
#   bash bench/results/2026-12-06-pitch/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" pitch
versus clgauge-3e001eb
for round in 1 2; do
  for b in old new; do
    run big-$round $b "${big_preset[@]}"
  done
  run big-rc32-$round new "${big_preset[@]}" --kernel-param RC=32
done
for h in 4992 5000 5032 5096; do
  for b in old new; do
    run mlp-64-4992-$h-8 $b mlp --device nvidia --backend cl --variant fused --batch 64 \
      --din 4992 --hidden $h --dout 8 --iters 120 --print-every 40 \
      --kernel-param STRATEGY=0,PERSIST=0
  done
done
versus_shapes "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "8 4096 4096 8 200" \
  "1 2048 2048 1 400" "16 1024 8192 8 200" "32 2048 2048 8 400" "64 2048 2048 8 400" \
  "32 4096 512 8 400"
# the persistent path (the default at small shapes) with w1's rows padded: 100 floats to 128
run mlp-64-1000-100-8 new mlp --device nvidia --backend cl --variant fused --batch 64 --din 1000 \
  --hidden 100 --dout 8 --iters 400 --print-every 100

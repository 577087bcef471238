#!/usr/bin/env bash
# One call: launch A reading the update's first UR rows of old w1 during the g1 product's last
# chunk (BUNDLE/kd/wr0, written by variant.py beside this file from the checkout's cl/; correct on
# PoCL 3.1 at five shapes with two and three launches, clean under Oclgrind at 9 x 37 x 41 x 3)
# against main's kernels (embedded), in turn: the big preset three times each, five shapes once
# each, the big preset with UR=4 once each, then ptxas's register counts of both.
#   python3 bench/results/2026-12-06-wr0/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-wr0/run.sh BUNDLE OUT        (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" wr0
variants_big 3 main wr0
variants_shapes "main wr0" "64 2048 2048 8 400" "16 4096 4096 16 100" "256 2048 1024 16 200" \
  "8 1024 1024 8 800" "64 8192 8192 8 60"
for v in main wr0; do
  variant_step big-ur4-$v $v mlp --device nvidia --backend cl --variant fused --preset big \
    --iters 120 --print-every 40 --kernel-param UR=4
done
variants_regs "$o/big-main-1.json" main wr0

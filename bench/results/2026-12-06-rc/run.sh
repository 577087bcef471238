#!/usr/bin/env bash
# One call: the owed ../2026-12-06-r-waves/run2.sh (main's kernels at the defaults; what a HID of
# 5000 costs launch A), then launch R's columns per work-group (RC) where the default gives each
# of R's 256 work-items more than four of its NB x RC elements: RC 32 against 16 (16 against 8
# at batch 128; 32, 16, 8 at batch 96), the big preset paired twice, so that a rule "at most
# four elements per work-item" is measured where it would change the default.
#   bash bench/results/2026-12-06-rc/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bash "$here/results/2026-12-06-r-waves/run2.sh" "$1" "$2"
. "$here/steps.sh"
device_call "$1" "$2" rc
for round in 1 2; do
  for rc in 32 16; do
    step big-rc$rc-$round 120 "${clgauge[@]}" "${big_preset[@]}" --kernel-param RC=$rc \
      --json "$o/big-rc$rc-$round.json"
  done
done
for sh in "64 8192 8192 8 32 16" "64 4096 8192 64 32 16" "128 4096 4096 16 16 8" \
          "128 2048 8192 8 32 16 8" "96 5000 5000 8 32 16 8"; do
  set -- $sh
  for rc in ${@:5}; do
    step mlp-$1-$2-$3-$4-rc$rc 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --batch $1 --din $2 --hidden $3 --dout $4 --iters 100 --print-every 25 \
      --kernel-param STRATEGY=0,PERSIST=0,RC=$rc --json "$o/mlp-$1-$2-$3-$4-rc$rc.json"
  done
done

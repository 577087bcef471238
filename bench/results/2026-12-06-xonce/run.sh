#!/usr/bin/env bash
# One call, owed (written on 2026-12-06 with no device time left to run it): launch A with its
# block of x staged once per tile (BUNDLE/kd/xonce, written by variant.py beside this file from
# the checkout's cl/; correct on PoCL 3.1 at batch 1, 13 and 64 and clean under Oclgrind at
# 9 x 37 x 41 x 3) against main's kernels (embedded), in turn: the big preset three times each,
# then four shapes once each. At batch 128 and above the block does not fit NVIDIA's 48 KB of
# local memory beside the chunks (at 96 too); such records are refused, not wrong.
#   python3 bench/results/2026-12-06-xonce/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-xonce/run.sh BUNDLE OUT       (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" xonce
xonce=(--kernel-dir "$bundle/kd/xonce")
for round in 1 2 3; do
  step big-main-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
    --preset big --iters 120 --print-every 40 --json "$o/big-main-$round.json"
  step big-xonce-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
    --preset big --iters 120 --print-every 40 "${xonce[@]}" --json "$o/big-xonce-$round.json"
done
for sh in "64 2048 2048 8 400" "32 4096 512 8 400" "16 4096 4096 16 100" "64 4992 4992 8 120"; do
  set -- $sh
  args=(mlp --device nvidia --backend cl --variant fused --batch $1 --din $2 --hidden $3
        --dout $4 --iters $5 --print-every $(( $5 / 4 )) --kernel-param STRATEGY=0,PERSIST=0)
  step mlp-$1-$2-$3-$4-main 120 "${clgauge[@]}" "${args[@]}" --json "$o/mlp-$1-$2-$3-$4-main.json"
  step mlp-$1-$2-$3-$4-xonce 120 "${clgauge[@]}" "${args[@]}" "${xonce[@]}" \
    --json "$o/mlp-$1-$2-$3-$4-xonce.json"
done

#!/usr/bin/env bash
# The big preset's two products of w1's shape as plain SGEMMs (whichever GPU the device tool
# lends), for the plan of moving the forward product out of mlp launch A: h1 = x w1 (64 x 5000
# times 5000 x 5000) and w1's gradient x^T dz1 (5000 x 64 times 64 x 5000), on cl pipelined and
# clblast, three runs each.
#   bash bench/results/2026-12-05-h100-products/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" products
for round in 1 2 3; do
  step forward-$round 120 "${clgauge[@]}" matmul --device nvidia --backend cl,clblast \
    --variant pipelined,sgemm --n 5000 --m 64 --k 5000 --runs 10 --loops 20 \
    --json "$o/forward-$round.json"
  step gradient-$round 120 "${clgauge[@]}" matmul --device nvidia --backend cl,clblast \
    --variant pipelined,sgemm --n 5000 --m 5000 --k 64 --runs 10 --loops 20 \
    --json "$o/gradient-$round.json"
done

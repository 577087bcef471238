#!/usr/bin/env bash
# cl/fused's route near its rule's line (batch x dout >= 4096: the products step): five shapes
# of batch x dout 3186 to 7220, each as cl (per-op and fused at the defaults), as the fused
# kernels (STRATEGY=0) and as the products step (STRATEGY=1), three rounds in turn.
#   ../shared/device/stage; bash bench/results/2026-12-06-route/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" route
for round in 1 2 3; do
  for s in 63x100x500x64 190x87x65x38 54x46x367x59 64x186x1455x62 75x437x340x46; do
    IFS=x read -r n d h out <<< "$s"
    mlp=(mlp --device nvidia --backend cl --batch "$n" --din "$d" --hidden "$h" --dout "$out"
         --iters 400 --print-every 100)
    step "cl-$s-$round" 60 "${clgauge[@]}" "${mlp[@]}" --json "$o/cl-$s-$round.json"
    for k in 0 1; do
      step "strategy$k-$s-$round" 60 "${clgauge[@]}" "${mlp[@]}" --variant fused \
        --kernel-param STRATEGY=$k --json "$o/strategy$k-$s-$round.json"
    done
  done
done

#!/usr/bin/env bash
# One call: launch B's work-items as an override (--kernel-param WGB=N, the bundle's build): the
# default (256 on NVIDIA, where launch B's kernel reports fewer than 1024) against 512 and 128,
# and 1024, which the build refuses naming what launch B's kernel allows; at the big preset and
# at five shapes where launch B takes 13-250 us or where WGB moves the two/three-launch choice
# (1 x 2048 x 2048 x 1); then ptxas's registers of the fused program at the big preset's options
# (regs-big.txt) and with WGB 512 (regs-big-wgb512.txt).
#   bash bench/results/2026-12-06-wgb2/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" wgb2
for w in default 512 1024 128; do
  p=STRATEGY=0,PERSIST=0
  [ $w = default ] || p=$p,WGB=$w
  step big-wgb$w 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
    --preset big --iters 120 --print-every 40 --kernel-param $p --json "$o/big-wgb$w.json"
done
for sh in "8 8192 8192 64 40" "64 4096 8192 64 40" "256 2048 1024 16 200" "128 2048 8192 8 100" \
          "1 2048 2048 1 400"; do
  set -- $sh
  for w in default 512 128; do
    p=STRATEGY=0,PERSIST=0
    [ $w = default ] || p=$p,WGB=$w
    step mlp-$1-$2-$3-$4-wgb$w 120 "${clgauge[@]}" mlp --device nvidia --backend cl \
      --variant fused --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 \
      --print-every $(( $5 / 4 )) --kernel-param $p --json "$o/mlp-$1-$2-$3-$4-wgb$w.json"
  done
done
ptxas_regs "$o/big-wgbdefault.json" regs-big
ptxas_regs "$o/big-wgb512.json" regs-big-wgb512

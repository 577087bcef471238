#!/usr/bin/env bash
# Third call of the night, after the fix of the prefetch's loads and the pinned ramp: the linear
# and mlp Check suites on both drivers (PoCL 5.0 on the host among them); the crashing cases of
# call 2 through the command line on PoCL; linear resident, and pinned over the gather's threads,
# the group and the ramp; the big mlp preset over launch A's blocking.
#   bash bench/results/2026-12-04-h200-night/run3.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/night3 "$2/night3.tar.gz"
o=$steps_out
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
t=$bundle/build/tests
bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/gpu.txt" 2>&1
step test_linear 300 bash "$bundle/env.sh" "$t/test_linear"
pl=(linear --device pocl --backend cl --variant fused --transfer resident)
step pocl-base 120 "${b[@]}" "${pl[@]}" --samples 203 --features 37 --classes 5 --batch 8 \
  --epochs 2 --kernel-param PERSIST=1,PGROUPS=1
step pocl-seed 120 "${b[@]}" "${pl[@]}" --epochs 2 --kernel-param PERSIST=1,PGROUPS=1
step pocl-wg16 120 "${b[@]}" "${pl[@]}" --samples 203 --features 37 --classes 5 --batch 8 \
  --epochs 2 --kernel-param PERSIST=1,PGROUPS=1,WG_PERSIST=16

lin=(linear --device nvidia --backend cl --variant fused)
for r in 1 2; do
  step resident-$r 60 "${b[@]}" "${lin[@]}" --transfer resident --json "$o/resident-$r.json"
  step pinned-default-$r 60 "${b[@]}" "${lin[@]}" --transfer pinned \
    --json "$o/pinned-default-$r.json"
done
for th in 4 8 16; do
  for g in 16 32 64; do
    for ramp in 0 1; do
      n=t$th-g$g-r$ramp
      step pinned-$n 60 "${b[@]}" "${lin[@]}" --transfer pinned \
        --kernel-param THREADS=$th,GROUP=$g,RAMP=$ramp --json "$o/pinned-$n.json"
    done
  done
done
step resident-3 60 "${b[@]}" "${lin[@]}" --transfer resident --json "$o/resident-3.json"

big=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120 --print-every 40)
step big-default 120 "${b[@]}" "${big[@]}" --json "$o/big-default.json"
for kp in DZ1A=0 KC=32 KC=8 PF=1 R=4 TX=32,TY=8 TX=8,TY=32 VW=2; do
  n=$(echo "$kp" | tr ',=' '-_')
  step big-$n 120 "${b[@]}" "${big[@]}" --kernel-param "$kp" --json "$o/big-$n.json"
done
step test_mlp 300 bash "$bundle/env.sh" "$t/test_mlp"

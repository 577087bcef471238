#!/usr/bin/env bash
# Second call: the persistent mlp's two barriers (GSYNC 0: the generation read once per launch;
# 1: arrivals counted from zero, the last arrival the release) at the seed shape and at a shape
# too small to cost anything but the barriers and the phases' latency, by work-group count.
#   bash bench/results/2026-12-04-h200-evening/run2.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/call2 "$2/call2.tar.gz"
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
seed=(mlp --device nvidia --backend cl --variant fused --iters 2000 --print-every 500)
tiny=(mlp --device nvidia --backend cl --variant fused --batch 8 --din 16 --hidden 16 --dout 1
      --iters 2000 --print-every 500)
for gs in 0 1; do
  for g in 132 64; do
    step seed-gs$gs-g$g 60 "${b[@]}" "${seed[@]}" --kernel-param PERSIST=1,GSYNC=$gs,PGROUPS=$g \
      --json "$steps_out/seed-gs$gs-g$g.json"
  done
  for g in 1 8 32 132; do
    step tiny-gs$gs-g$g 60 "${b[@]}" "${tiny[@]}" --kernel-param PERSIST=1,GSYNC=$gs,PGROUPS=$g \
      --json "$steps_out/tiny-gs$gs-g$g.json"
  done
done
step seed-gs1-w3 60 "${b[@]}" "${seed[@]}" --update-w3 --kernel-param PERSIST=1,GSYNC=1 \
  --json "$steps_out/seed-gs1-w3.json"

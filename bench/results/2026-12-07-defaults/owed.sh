#!/usr/bin/env bash
# Two launches against three between batch x dout = 1024 and 2048 (steps d- at the default, w- with
# THREE=0, h- with THREE=1; cl/fused's launches, PERSIST=0), and on an H200 the figures owed there
# (h200_owed): the big preset, the seed preset, linear at every transfer (the grid barrier's
# leader, cl/grid_sync.cl) and matmul's targets.
#   ../shared/device/stage; bash bench/results/2026-12-07-defaults/owed.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" owed
for sh in "16 16 16 64" "24 16 16 64" "48 64 64 32" "40 100 100 40" "32 64 64 64"; do
  read -r n d h out <<< "$sh"
  for v in d:STRATEGY=0,PERSIST=0 w:STRATEGY=0,PERSIST=0,THREE=0 h:STRATEGY=0,PERSIST=0,THREE=1; do
    step "${v%%:*}-$n-$d-$h-$out" 60 "${clgauge[@]}" mlp --device nvidia --backend cl \
      --variant fused --batch "$n" --din "$d" --hidden "$h" --dout "$out" --iters 400 \
      --print-every 100 --kernel-param "${v#*:}" --json "$o/${v%%:*}-$n-$d-$h-$out.json"
  done
done
h200_owed

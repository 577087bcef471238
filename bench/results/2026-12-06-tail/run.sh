#!/usr/bin/env bash
# One call: launch R's work at launch A's tail (RT, the bundle's build; its default with three
# launches on a GPU) against main's build before it (BUNDLE/clgauge-4e77deb, carried in the
# bundle): the big preset twice each, then the new build with RT=0 (launch R as before) and with
# the tail's RC at 16 and 64 (32 is its default); ten shapes once each with the fused launches
# (STRATEGY=0,PERSIST=0), and the seed-sized 64 x 1000 x 100 x 8 at the defaults (the persistent
# path).
#   bash bench/results/2026-12-06-tail/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" tail
versus clgauge-4e77deb
versus_big 2
run big-RT0 new "${big_preset[@]}" --kernel-param RT=0
run big-RC16 new "${big_preset[@]}" --kernel-param RC=16
run big-RC64 new "${big_preset[@]}" --kernel-param RC=64
versus_shapes "64 4992 4992 8 120" "64 2048 2048 8 400" "128 2048 2048 8 400" "32 4096 512 8 400" \
  "16 4096 4096 16 100" "16 1024 8192 8 200" "8 4096 4096 8 200" "8 8192 8192 64 40" \
  "8 1024 1024 8 400" "1 2048 2048 1 400"
for b in old new; do
  run mlp-64-1000-100-8 $b mlp --device nvidia --backend cl --variant fused --batch 64 \
    --din 1000 --hidden 100 --dout 8 --iters 400 --print-every 100
done

#!/usr/bin/env bash
# After run.sh: the parts kept within one wave (96x96 blocks at n = 1229 to 1248 in 3 parts, no
# split at 1217 to 1228), the bundle's build against main's 6ad8059 (BUNDLE/clgauge-old) in turn
# (steps wave-old/-new); and mlp 1024 x 256 x 256 x 16's products step four times, the new build
# first (steps mlp-ROUND-new/-old). On an H200 first the figures owed there (h200_owed).
#   ../shared/device/stage; cp OLD_BUILD/clgauge .device/clgauge-old
#   bash bench/results/2026-12-07-matmul-tail/run2.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" tail2
versus clgauge-old
h200_owed
# shellcheck disable=SC2054 # the commas are one --sweep-n's
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet
    --sweep-n 1216,1217,1228,1229,1232,1240,1248)
for b in old new; do run wave $b "${mm[@]}"; done
mlp_shape 1024 256 256 16 400
shape=("${shape[@]/STRATEGY=0,PERSIST=0/STRATEGY=1}")
for round in 1 2; do
  for b in new old; do run "mlp-$round" $b "${shape[@]}"; done
done

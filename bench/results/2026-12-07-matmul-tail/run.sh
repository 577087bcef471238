#!/usr/bin/env bash
# matmul cl/pipelined with the last wave's blocks split along k where the model gains 1.15 times
# by it (the bundle's build) against main's 6ad8059 (BUNDLE/clgauge-old), each at its default, on
# one card, in turn: the sizes the new default splits and their neighbours (steps split-old/-new),
# n from 1024 to 1632 by 16 (steps by16-), the issue's sizes (targets-) and 777x1333x555 (rect-),
# and two mlp shapes whose products step builds the same kernel without the split (mlp-...). On an
# H200 first the figures owed there (h200_owed).
#   ../shared/device/stage; cp OLD_BUILD/clgauge .device/clgauge-old
#   bash bench/results/2026-12-07-matmul-tail/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" tail
versus clgauge-old
h200_owed
split=1056,1057,1088,1089,1152,1153,1216,1217,1232,1233,1248,1249,1536,1537,1600,1601
by16=$(python3 -c "print(','.join(str(n) for n in range(1024, 1633, 16)))")
# shellcheck disable=SC2054 # the commas are one --sweep-n's
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet)
for b in old new; do run split $b "${mm[@]}" --sweep-n "$split"; done
for b in old new; do run by16 $b "${mm[@]}" --sweep-n "$by16"; done
targets=1000,1023,1024,1025,2047,2048,2049,4095,4096
for b in old new; do run targets $b "${mm[@]}" --sweep-n "$targets"; done
for b in old new; do run rect $b "${mm[@]}" --m 777 --k 1333 --n 555; done
versus_products "512 2048 2048 64 100" "1024 256 256 16 400"

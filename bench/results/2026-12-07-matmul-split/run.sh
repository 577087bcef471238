#!/usr/bin/env bash
# matmul cl/pipelined with its last wave's blocks split along k (SPLITS, TAIL: split.patch beside
# this, applied to main's 6ad8059, as the bundle's build) against main's 6ad8059
# (BUNDLE/clgauge-old), each at its default, on one card, in turn: the
# square sizes on both sides of the old model's largest drops (steps pairs-old/-new), n and n+1 at
# every 128 from 1024 to 4224 (steps every128-old/-new), the issue's sizes and 777x1333x555
# (targets-, rect-), and two mlp shapes whose products step runs the same kernel (mlp-...). On an
# H200 first the figures owed there (h200_owed).
#   (with split.patch applied) ../shared/device/stage; cp OLD_BUILD/clgauge .device/clgauge-old
#   bash bench/results/2026-12-07-matmul-split/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" split
versus clgauge-old
h200_owed
pairs=1024,1025,1056,1057,1408,1409,1536,1537,1792,1793,2048,2049,2304,2305,2496,2497
pairs=$pairs,2880,2881,3200,3201,3584,3585,3840,3841,4096,4097
every=$(python3 -c "print(','.join('%d,%d' % (n, n + 1) for n in range(1024, 4225, 128)))")
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet)
for b in old new; do run pairs $b "${mm[@]}" --sweep-n "$pairs"; done
for b in old new; do run every128 $b "${mm[@]}" --sweep-n "$every"; done
for b in old new; do run targets $b "${mm[@]}" --sweep-n 1000,1023,1024,1025,2047,4095,4096; done
for b in old new; do run rect $b "${mm[@]}" --m 777 --k 1333 --n 555; done
versus_products "512 2048 2048 64 100" "1024 256 256 16 400"

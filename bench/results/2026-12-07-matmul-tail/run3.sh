#!/usr/bin/env bash
# The splits the default's model would make below its gain of 1.15 (its best split per size, as
# --kernel-param overrides of block and SPLITS) against the default at the same sizes (step
# default), the bundle's build alone: 96x96 in 3 parts at 1217 and 1228 (model gain 1.15), in 5
# at 1601 and 1616 (1.12); 128x64 in 3 at 1793 and 2305 (1.04, 1.06), in 4 at 2049 and 2100
# (1.09), in 16 at 2497, 2560 and 2881 (1.14, 1.14, 1.11). On an H200 first h200_owed.
#   ../shared/device/stage; bash bench/results/2026-12-07-matmul-tail/run3.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" tail3
h200_owed
# shellcheck disable=SC2054 # the commas are one option's
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet)
b96=MWG=96,NWG=96,KWG=16,WM=6,WN=6,VW=2,PAD=1 b128=MWG=128,NWG=64,KWG=16,WM=8,WN=8,VW=4,PAD=1
step default 120 "${clgauge[@]}" "${mm[@]}" \
  --sweep-n 1217,1228,1601,1616,1793,2305,2049,2100,2497,2560,2881 --json "$o/default.json"
for s in 96x3:1217,1228 96x5:1601,1616 128x3:1793,2305 128x4:2049,2100 128x16:2497,2560,2881; do
  b=${s%%x*} parts=${s#*x} parts=${parts%%:*} sizes=${s#*:}
  if [ "$b" = 96 ]; then p=$b96; else p=$b128; fi
  step "b$b-s$parts" 120 "${clgauge[@]}" "${mm[@]}" --sweep-n "$sizes" \
    --kernel-param "$p,SPLITS=$parts" --json "$o/b$b-s$parts.json"
done

#!/usr/bin/env bash
# matmul cl/pipelined's default on both sides of the square sizes where the default's model of
# wave quantisation (src/backends/cl/matmul_pipelined.c) foresees the largest drops in rate from
# one size to the next (n-1 and n; `sweep` step), then at four such pairs each of the model's five
# blocks as an override (steps `block-MWGxNWG`): what the blocks themselves reach there. On an
# H200 first the figures owed there (h200_owed).
#   ../shared/device/stage; bash bench/results/2026-12-07-matmul-cliffs/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" cliffs
h200_owed
pairs=1024,1025,1056,1057,1408,1409,1536,1537,1792,1793,2048,2049,2304,2305,2496,2497
pairs=$pairs,2880,2881,3200,3201,3584,3585,3840,3841,4096,4097
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet)
step sweep 300 "${clgauge[@]}" "${mm[@]}" --sweep-n "$pairs" --json "$o/sweep.json"
for b in 128,128,8,8,8,4 128,64,16,8,8,4 96,96,16,6,6,2 64,64,16,4,4,4 32,32,32,4,4,4; do
  IFS=, read -r mwg nwg kwg wm wn vw <<< "$b"
  step "block-${mwg}x$nwg" 120 "${clgauge[@]}" "${mm[@]}" --sweep-n 1056,1057,1408,1409,1536,1537,2048,2049 \
    --kernel-param "MWG=$mwg,NWG=$nwg,KWG=$kwg,WM=$wm,WN=$wn,VW=$vw,PAD=1" \
    --json "$o/block-${mwg}x$nwg.json"
done

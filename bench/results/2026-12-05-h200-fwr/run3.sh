#!/usr/bin/env bash
# Third H200 call: launch A's switches at nine shapes from batch 1 to 64 (STRATEGY=0, PERSIST=0:
# the fused launches wherever the default would take another path): the forward part from
# registers (FWR=2; the first call saw it gain at batch 8 and 16), register blocks of 8 x 4
# (RN=4), chunks in two local buffers (DB=1), and float4 against the default float2 reads
# (VW=4), the default and VW=4 twice each (float4 was 2-10% faster at batch 8 and 16 in one run
# each on 2026-12-05, float2 7-19% faster at batch 32 and 64); and 32 x 8 work-items (TX=32,TY=8):
# below batch 16 the default 16 rows of work-items hold one batch row each in the forward part
# (RM2 = 1, NC = 16), so that at batch 8 half of that part multiplies padding.
#   bash bench/results/2026-12-05-h200-fwr/run3.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" h200-fwr3
for sh in "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "8 4096 4096 8 200" \
          "1 2048 2048 1 400" "16 1024 8192 8 200" "32 2048 2048 8 400" "64 2048 2048 8 400" \
          "32 4096 512 8 400"; do
  set -- $sh
  n=$1-$2-$3-$4
  for kp in FWR=0 FWR=2 RN=4 DB=1 VW=4 TX=32,TY=8 FWR=0,VW=2 VW=4,FWR=0; do
    tag=$(echo "$kp" | tr ',=' '-_')
    step mlp-$n-$tag 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused --batch $1 \
      --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,PERSIST=0,$kp --json "$o/mlp-$n-$tag.json"
  done
done

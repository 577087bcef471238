#!/usr/bin/env bash
# The fourth H200 call of 2026-12-05: float2 reads (VW=2, the GPUs' default since c535f82)
# against float4 at fused shapes outside the four it was chosen from: batch 8, a narrow and a
# wide first layer.
#   bash bench/results/2026-12-05-h200/run3.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/h200-1205c "$2/h200-1205c.tar.gz"
o=$steps_out
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/gpu.txt" 2>&1
for sh in "8 1024 1024 8 400" "8 8192 8192 64 40" "64 16 5000 8 400" "64 128 8192 1 400" \
          "16 4096 4096 16 100"; do
  set -- $sh
  n=$1-$2-$3-$4
  for vw in 2 4; do
    step mlp-$n-vw$vw 120 "${b[@]}" mlp --device nvidia --backend cl --variant fused --batch $1 \
      --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param VW=$vw --json "$o/mlp-$n-vw$vw.json"
  done
done

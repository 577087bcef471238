#!/usr/bin/env bash
# Second H200 call: launch A with register blocks of R x RN (8 x 4, 4 x 8) at the big preset,
# with launch R's narrower column blocks (RC=16) and the forward part from registers (FWR=2);
# FWR=2 against FWR=0 at batch 1 to 64 (the first call saw it gain at 8 and 16), and float4
# against float2 reads (VW) at the same nine shapes, twice each; ptxas's register counts;
# cuBLAS on the big preset's two products (products.py).
#   bash bench/results/2026-12-05-h200-fwr/run2.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" h200-fwr2
regs() { # json tag
  local opts
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$1") || return
  step regs-$2 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" NVIDIA cl/mlp.cl -I cl $opts -cl-nv-verbose
}
step products 120 python3 "$here/results/2026-12-05-h200-fwr/products.py"
big=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120 --print-every 40)
for round in 1 2; do
  for kp in "" RN=4 R=4,RN=8 RN=4,RC=16 RN=4,FWR=2 RC=16 TX=32,TY=8,RN=4; do
    tag=${kp:-default}
    tag=${tag//=/_}
    tag=${tag//,/-}
    step big-$tag-$round 120 "${clgauge[@]}" "${big[@]}" ${kp:+--kernel-param $kp} \
      --json "$o/big-$tag-$round.json"
    [ $round = 1 ] && regs "$o/big-$tag-$round.json" big-$tag
  done
done
for sh in "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "8 4096 4096 8 200" \
          "1 2048 2048 1 400" "16 1024 8192 8 200" "32 2048 2048 8 400" "64 2048 2048 8 400" \
          "32 4096 512 8 400"; do
  set -- $sh
  n=$1-$2-$3-$4
  # VW=4 against the default VW=2 twice each: float4 was 2-10% faster at batch 8 and 16 in one
  # run each (2026-12-05), float2 7-19% faster at batch 32 and 64
  for kp in FWR=0 FWR=2 RN=4 VW=4 FWR=0,VW=2 VW=4,FWR=0; do
    tag=$(echo "$kp" | tr ',=' '-_')
    step mlp-$n-$tag 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused --batch $1 \
      --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,PERSIST=0,$kp --json "$o/mlp-$n-$tag.json"
  done
done

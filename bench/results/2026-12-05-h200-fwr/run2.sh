#!/usr/bin/env bash
# Second H200 call: launch A at the big preset with register blocks of R x RN (8 x 4, 4 x 8),
# launch R's narrower column blocks (RC=16), the forward part from registers (FWR=2) and its
# chunks in two local buffers (DB=1), the most promising twice; ptxas's register counts; cuBLAS
# on the big preset's two products (products.py). The nine shapes are run3.sh's.
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
round1=("" RN=4 R=4,RN=8 RN=4,RC=16 RN=4,FWR=2 RC=16 TX=32,TY=8,RN=4 DB=1 DB=1,RN=4
        DB=1,RC=16 DB=1,KC=8)
round2=("" RN=4 RC=16 DB=1)
for round in 1 2; do
  if [ $round = 1 ]; then kps=("${round1[@]}"); else kps=("${round2[@]}"); fi
  for kp in "${kps[@]}"; do
    tag=${kp:-default}
    tag=${tag//=/_}
    tag=${tag//,/-}
    step big-$tag-$round 120 "${clgauge[@]}" "${big[@]}" ${kp:+--kernel-param $kp} \
      --json "$o/big-$tag-$round.json"
    [ $round = 1 ] && regs "$o/big-$tag-$round.json" big-$tag
  done
done

#!/usr/bin/env bash
# Device call (asked for the H200, lent an H100 80GB HBM3: call1/ holds its "waves" part): the
# call owed by ../2026-12-05-h200-launch-a/run3.sh (the nine shapes and the big preset
# at the defaults, linear 20000 x 4096 batch 128 pinned with THREADS 4/8/16), then launch A's
# work-groups against the H200's 132 SMs at the big preset. At 16 x 16 work-items and 123
# registers an SM holds two groups: the 40 x 40 tiles of 128 x 128 take 6.06 waves of 264, so a
# seventh wave runs 16 groups. TX=8 (128 work-items, tiles 128 x 64) holds four per SM: 40 x 79
# tiles in 5.98 waves of 528, the row groups (and partials) as before. TPG=2 on top halves the
# partials (1580 groups, 2.99 waves if four still fit); DB=1 (146 registers: one group of 256 per
# SM, three of 128) and PF=1 at TX=8 too. Register counts from ptxas.
#   bash bench/results/2026-12-05-h100-waves/run.sh BUNDLE OUT [waves|owed]   (from the checkout's
#   root; either part alone, else both)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
part=${3:-both}
[ "$part" = waves ] || bash "$here/results/2026-12-05-h200-launch-a/run3.sh" "$1" "$2"
[ "$part" = owed ] && exit 0
device_call "$1" "$2" h200-waves
regs() { # json tag
  local opts
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$1") || return
  step regs-$2 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA cl/mlp.cl -I cl $opts -cl-nv-verbose
}
big=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120 --print-every 40)
for round in 1 2; do
  for p in TX=16 TX=8 TX=8,TPG=2 TX=8,RC=16 TX=8,DB=1 TX=8,PF=1; do
    step big-${p//[=,]/_}-$round 120 "${clgauge[@]}" "${big[@]}" --kernel-param $p \
      --json "$o/big-${p//[=,]/_}-$round.json"
  done
done
for p in TX=16 TX=8 TX=8,TPG=2 TX=8,DB=1; do regs "$o/big-${p//[=,]/_}-1.json" big-${p//[=,]/_}; done
for sh in "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "8 4096 4096 8 200" \
          "1 2048 2048 1 400" "16 1024 8192 8 200" "32 2048 2048 8 400" "64 2048 2048 8 400" \
          "32 4096 512 8 400" "256 2048 1024 16 200"; do
  set -- $sh
  n=$1-$2-$3-$4
  for p in TX=16 TX=8; do
    step mlp-$n-${p//=/_} 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,PERSIST=0,$p --json "$o/mlp-$n-${p//=/_}.json"
  done
done

#!/usr/bin/env bash
# Second call (an H100 80GB HBM3 again; call2/owed and call2/maxreg): the owed one
# (../2026-12-05-h200-launch-a/run3.sh), then the big preset with NVIDIA's register limit on the
# fused program: a trial build, not kept, whose override MAXREG=N added -cl-nv-maxrregcount=N to
# the fused program's build options (the records' build_options show it). The first call (call1)
# found that ptxas gave launch A 168 registers at 8 x 16 work-items and 217 with DB=1, so that
# those settings did not hold the groups per SM they were meant to. Each setting twice, with the
# default beside it; register counts from ptxas (which the limit, in that form, did not change).
#   bash bench/results/2026-12-05-h100-waves/run2.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
bash "$here/results/2026-12-05-h200-launch-a/run3.sh" "$1" "$2"
device_call "$1" "$2" h200-waves2
regs() { # json tag
  local opts
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$1") || return
  step regs-$2 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA cl/mlp.cl -I cl $opts -cl-nv-verbose
}
big=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120 --print-every 40)
sets=(TX=16 DB=1,MAXREG=128 TX=8,MAXREG=128 TX=8,DB=1,MAXREG=128 KC=32,MAXREG=128
      PF=1,MAXREG=128 DB=1,KC=8,MAXREG=128)
for round in 1 2; do
  for p in "${sets[@]}"; do
    step big-${p//[=,]/_}-$round 120 "${clgauge[@]}" "${big[@]}" --kernel-param $p \
      --json "$o/big-${p//[=,]/_}-$round.json"
  done
done
for p in "${sets[@]}"; do regs "$o/big-${p//[=,]/_}-1.json" big-${p//[=,]/_}; done

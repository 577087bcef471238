#!/usr/bin/env bash
# One call after run2.sh: its cap was written -cl-nv-maxrregcount=N, which NVIDIA's compiler
# takes without a word and ignores (ptxas's counts unchanged, 80 included); the extension's
# syntax is -cl-nv-maxrregcount N. The big preset once for each cap and scheme, then ptxas's counts.
#   bash bench/results/2026-12-06-fwpf/run3.sh BUNDLE OUT       (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" regcap2
configs=("main 0 main ''" "r128 128 main ''" "pf 128 main ,PF=1" "pff 128 pff ''"
         "db 128 main ,DB=1" "kc32 128 main ,KC=32" "r80 80 main ''" "r64 64 main ''")
for c in "${configs[@]}"; do
  eval "set -- $c"
  args=()
  [ "$3" = main ] || args+=(--kernel-dir "$bundle/kd/$3")
  [ "$2" = 0 ] && extra= || extra="-cl-nv-maxrregcount $2"
  step big-$1 120 env CG_FUSED_EXTRA_OPTIONS="$extra" bash "$bundle/env.sh" \
    "$bundle/clgauge-extra" mlp --device nvidia --backend cl --variant fused --preset big \
    --iters 120 --print-every 40 --kernel-param "STRATEGY=0,PERSIST=0$4" "${args[@]}" \
    --json "$o/big-$1.json"
  dir=cl; [ "$3" = main ] || dir=$bundle/kd/$3
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$o/big-$1.json") || continue
  step regs-$1 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA "$dir/mlp.cl" -I "$dir" $opts -cl-nv-verbose
done

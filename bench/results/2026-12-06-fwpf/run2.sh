#!/usr/bin/env bash
# One call: launch A under a register cap. NVIDIA's compiler takes -cl-nv-maxrregcount=N
# (cl_nv_compiler_options); BUNDLE/clgauge-extra is main's build with extra-options.patch beside
# this file (CG_FUSED_EXTRA_OPTIONS appended to the fused program's build options, an
# experiment's hook, not in main). At 128 registers (main's kernel uses 128), the prefetching and
# double-buffered schemes that need more (PF=1, DB=1, KC=32, and kd/pff) spill the excess to
# local memory instead of halving the groups per SM; at 80, three groups of 256 fit an SM. The big
# preset twice each in turn, two shapes once each, then ptxas's counts from each record's options.
#   python3 bench/results/2026-12-06-fwpf/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-fwpf/run2.sh BUNDLE OUT       (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" regcap
cap() { # name maxrreg(0: none) kernel-dir(main: embedded) params
  local name=$1 r=$2 kd=$3 params=$4 args=()
  [ "$kd" = main ] || args+=(--kernel-dir "$bundle/kd/$kd")
  [ "$r" = 0 ] && extra= || extra=-cl-nv-maxrregcount=$r
  shift 4
  step "$name" 120 env CG_FUSED_EXTRA_OPTIONS="$extra" bash "$bundle/env.sh" \
    "$bundle/clgauge-extra" mlp --device nvidia --backend cl --variant fused "$@" \
    --kernel-param "STRATEGY=0,PERSIST=0$params" "${args[@]}" --json "$o/$name.json"
}
configs=("main 0 main ''" "r128 128 main ''" "pf 128 main ,PF=1" "db 128 main ,DB=1"
         "kc32 128 main ,KC=32" "pff 128 pff ''" "dbf 128 dbf ''" "r80 80 main ''")
for round in 1 2; do
  for c in "${configs[@]}"; do
    eval "set -- $c"
    cap big-$1-$round $2 $3 "$4" --preset big --iters 120 --print-every 40
  done
done
for sh in "64 2048 2048 8 400" "16 4096 4096 16 100"; do
  set -- $sh
  b=$1 d=$2 h=$3 d2=$4 it=$5
  for c in "${configs[@]}"; do
    eval "set -- $c"
    cap mlp-$b-$d-$h-$d2-$1 $2 $3 "$4" --batch $b --din $d --hidden $h --dout $d2 --iters $it \
      --print-every $(( it / 4 ))
  done
done
for c in "${configs[@]}"; do
  eval "set -- $c"
  dir=cl; [ "$3" = main ] || dir=$bundle/kd/$3
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$o/big-$1-1.json") || continue
  step regs-$1 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA "$dir/mlp.cl" -I "$dir" $opts -cl-nv-verbose
done

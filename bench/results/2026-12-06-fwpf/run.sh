#!/usr/bin/env bash
# One call: launch A's forward part with its next chunk prefetched (BUNDLE/kd/pff) or double
# buffered (BUNDLE/kd/dbf), both written by variant.py beside this file from the checkout's cl/,
# against main's kernels (embedded), in turn: the big preset three times each, then five shapes
# once each; then ptxas's register counts of the three at the big preset.
#   python3 bench/results/2026-12-06-fwpf/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-fwpf/run.sh BUNDLE OUT        (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" fwpf
kd() { [ "$1" = main ] || echo --kernel-dir "$bundle/kd/$1"; }
for round in 1 2 3; do
  for v in main pff dbf; do
    step big-$v-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --preset big --iters 120 --print-every 40 $(kd $v) --json "$o/big-$v-$round.json"
  done
done
for sh in "64 2048 2048 8 400" "256 2048 1024 16 200" "16 4096 4096 16 100" "8 1024 1024 8 800" \
          "512 1024 1024 8 200"; do
  set -- $sh
  for v in main pff dbf; do
    step mlp-$1-$2-$3-$4-$v 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,PERSIST=0 $(kd $v) --json "$o/mlp-$1-$2-$3-$4-$v.json"
  done
done
opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$o/big-main-1.json")
for v in main pff dbf; do
  dir=cl; [ $v = main ] || dir=$bundle/kd/$v
  step regs-$v 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA "$dir/mlp.cl" -I "$dir" $opts -cl-nv-verbose
done

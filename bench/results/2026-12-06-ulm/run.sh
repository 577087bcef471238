#!/usr/bin/env bash
# One call: launch A's update and forward part through a local half-tile (BUNDLE/kd/ulm, written
# by variant.py beside this file from the checkout's cl/; correct on PoCL 3.1 at ten shapes and
# clean under Oclgrind at 9 x 37 x 41 x 3) against main's kernels (embedded), in turn: the big
# preset three times each, then five shapes of one row chunk (batch 64 and below) once each, then
# ptxas's register counts of both.
#   python3 bench/results/2026-12-06-ulm/variant.py .device   (after ../shared/device/stage)
#   bash bench/results/2026-12-06-ulm/run.sh BUNDLE OUT        (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" ulm
kd() { [ "$1" = main ] || echo --kernel-dir "$bundle/kd/$1"; }
for round in 1 2 3; do
  for v in main ulm; do
    step big-$v-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --preset big --iters 120 --print-every 40 $(kd $v) --json "$o/big-$v-$round.json"
  done
done
for sh in "64 2048 2048 8 400" "16 4096 4096 16 100" "32 4096 512 8 400" "8 1024 1024 8 800" \
          "64 8192 8192 8 60"; do
  set -- $sh
  for v in main ulm; do
    step mlp-$1-$2-$3-$4-$v 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,PERSIST=0 $(kd $v) --json "$o/mlp-$1-$2-$3-$4-$v.json"
  done
done
opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$o/big-main-1.json")
for v in main ulm; do
  dir=cl; [ $v = main ] || dir=$bundle/kd/$v
  step regs-$v 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA "$dir/mlp.cl" -I "$dir" $opts -cl-nv-verbose
done

#!/usr/bin/env bash
# H200, second call: launch A's w1 update a row of the block at a time (the staged build: the
# row's reads, then its writes) against every read before any write (.device/allfirst, the first
# call's new build, 162 registers) and the build before both (.device/before, 206f6cb); the big
# preset, and five shapes of the first call at the default and RN=4, with all three builds in turn;
# ptxas's register counts of the staged build at the big preset and at 8 x 4096 x 4096 x 8.
# Then linear pinned beside resident at three shapes beyond the default, twice each.
#   bash bench/results/2026-12-05-h200-launch-a/run2.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" h200-launch-a2
row=("${clgauge[@]}")
all=(bash "$bundle/env.sh" "$bundle/allfirst/clgauge")
old=(bash "$bundle/env.sh" "$bundle/before/clgauge")
cp "$bundle/before/commit" "$o/before-commit.txt"
cp "$bundle/allfirst/commit" "$o/allfirst-commit.txt"
pick() { case $1 in row) bin=("${row[@]}") ;; all) bin=("${all[@]}") ;; old) bin=("${old[@]}") ;; esac; }
regs() { # json tag
  local opts
  opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$1") || return
  step regs-$2 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
    NVIDIA cl/mlp.cl -I cl $opts -cl-nv-verbose
}
for b in row all old; do
  pick $b
  step big-$b 120 "${bin[@]}" mlp --device nvidia --backend cl --variant fused --preset big \
    --iters 120 --print-every 40 --json "$o/big-$b.json"
done
regs "$o/big-row.json" big-row
for sh in "8 4096 4096 8 200" "8 8192 8192 64 40" "16 4096 4096 16 100" "32 2048 2048 8 400" \
          "64 2048 2048 8 400"; do
  set -- $sh
  n=$1-$2-$3-$4
  for kp in FWR=0 RN=4; do
    for b in row all old; do
      pick $b
      tag=$b-$(echo "$kp" | tr ',=' '-_')
      step mlp-$n-$tag 120 "${bin[@]}" mlp --device nvidia --backend cl --variant fused \
        --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
        --kernel-param STRATEGY=0,PERSIST=0,$kp --json "$o/mlp-$n-$tag.json"
    done
  done
  [ $n = 8-4096-4096-8 ] && regs "$o/mlp-$n-row-FWR_0.json" $n-row
done
# linear's pinned against resident at shapes beyond the default (issue 10: within 1.5 times)
for sh in "50000 256 10 64" "20000 4096 16 128" "10000 1000 10 8"; do
  set -- $sh
  for round in 1 2; do
    for tr in resident pinned; do
      step linear-$1-$2-$3-$4-$tr-$round 90 "${row[@]}" linear --device nvidia --backend cl \
        --variant fused --samples $1 --features $2 --classes $3 --batch $4 --transfer $tr \
        --json "$o/linear-$1-$2-$3-$4-$tr-$round.json"
    done
  done
done

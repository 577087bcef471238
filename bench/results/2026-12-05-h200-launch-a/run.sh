#!/usr/bin/env bash
# H200: launch A's w1 update with every read of the tile before any write (the staged build)
# against the build before it (.device/before, from ../2026-12-05-h200-pinned/before.sh 206f6cb),
# in the same call: the big preset (default and RC=16) twice each, interleaved; the nine shapes of
# ../2026-12-05-h200-fwr/run3.sh at the default and RN=4 with both builds, and RN=4,FWR=2 with the
# new one; ptxas's register counts of the new build at the big preset.
#   bash bench/results/2026-12-05-h200-launch-a/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" h200-launch-a
new=("${clgauge[@]}")
old=(bash "$bundle/env.sh" "$bundle/before/clgauge")
cp "$bundle/before/commit" "$o/before-commit.txt"
big=(mlp --device nvidia --backend cl --variant fused --preset big --iters 120 --print-every 40)
for round in 1 2; do
  for kp in "" RC=16; do
    tag=${kp:-default}
    tag=${tag//=/_}
    step big-new-$tag-$round 120 "${new[@]}" "${big[@]}" ${kp:+--kernel-param $kp} \
      --json "$o/big-new-$tag-$round.json"
    step big-old-$tag-$round 120 "${old[@]}" "${big[@]}" ${kp:+--kernel-param $kp} \
      --json "$o/big-old-$tag-$round.json"
  done
done
opts=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d['records'] if r['variant']=='fused'][0]['kernel']['build_options'])" "$o/big-new-default-1.json")
step regs-big-new 60 env CUDA_CACHE_DISABLE=1 bash "$bundle/env.sh" "$bundle/build/cl_build_log" \
  NVIDIA cl/mlp.cl -I cl $opts -cl-nv-verbose
for sh in "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "8 4096 4096 8 200" \
          "1 2048 2048 1 400" "16 1024 8192 8 200" "32 2048 2048 8 400" "64 2048 2048 8 400" \
          "32 4096 512 8 400"; do
  set -- $sh
  n=$1-$2-$3-$4
  for run in new:FWR=0 old:FWR=0 new:RN=4 old:RN=4 new:RN=4,FWR=2; do
    b=${run%%:*} kp=${run#*:}
    if [ "$b" = new ]; then bin=("${new[@]}"); else bin=("${old[@]}"); fi
    tag=$b-$(echo "$kp" | tr ',=' '-_')
    step mlp-$n-$tag 120 "${bin[@]}" mlp --device nvidia --backend cl --variant fused --batch $1 \
      --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,PERSIST=0,$kp --json "$o/mlp-$n-$tag.json"
  done
done

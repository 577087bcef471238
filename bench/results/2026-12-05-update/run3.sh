#!/usr/bin/env bash
# After run.sh: UR=2 gained at the big preset (RN=8) and WPF=2 at the shapes of batch 16 or
# less (RN=4). This call: linear at the default shape first (resident, pinned and pinned with
# STREAM=1, six rounds); then a rule by RN at eleven shapes, two rounds interleaved: batch above
# 16 with the default and UR=2; batch 16 or less with those, WPF=2 and UR=2,WPF=2. Run with a
# bundle staged from 32761b4, where WPF 2 was the plain-load read-ahead (WPF 1 since 11b980a).
#   bash bench/results/2026-12-05-update/run3.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" rule
lin=(linear --device nvidia --backend cl --variant fused)
for round in 1 2 3 4 5 6; do
  step resident-$round 60 "${clgauge[@]}" "${lin[@]}" --transfer resident \
    --json "$o/resident-$round.json"
  step pinned-$round 60 "${clgauge[@]}" "${lin[@]}" --transfer pinned --json "$o/pinned-$round.json"
  step pinned-stream-$round 60 "${clgauge[@]}" "${lin[@]}" --transfer pinned \
    --kernel-param STREAM=1 --json "$o/pinned-stream-$round.json"
done
for round in 1 2; do
  for sh in "64 5000 5000 8 120" "32 2048 2048 8 400" "64 2048 2048 8 400" "128 2048 2048 8 300" \
            "32 4096 512 8 400" "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" \
            "8 4096 4096 8 200" "1 2048 2048 1 400" "16 1024 8192 8 200"; do
    read -r nb din hid dout iters <<< "$sh"
    n=$nb-$din-$hid-$dout
    settings=(default UR=2)
    [ "$nb" -le 16 ] && settings+=(WPF=2 UR=2,WPF=2)
    for p in "${settings[@]}"; do
      kp=STRATEGY=0,PERSIST=0; [ "$p" = default ] || kp=$kp,$p
      step mlp-$n-${p//[=,]/_}-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl \
        --variant fused --batch "$nb" --din "$din" --hidden "$hid" --dout "$dout" \
        --iters "$iters" --print-every $(( iters / 4 )) --kernel-param "$kp" \
        --json "$o/mlp-$n-${p//[=,]/_}-$round.json"
    done
  done
done

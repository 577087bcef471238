#!/usr/bin/env bash
# Launch A's w1 update waiting on device memory, row after row of each work-item's block: UR rows
# read before they are written (2, 4; 1 is the default), the tile prefetched at its start with
# OpenCL's prefetch (WPF=1) or read there with plain loads (WPF=2), each alone and with UR=2;
# launch R's RC=16; STAGE=0 with KC 16 and 32. The big preset twice each (interleaved), ptxas's
# registers of each, whether the driver's binary has any prefetch instruction, and four other
# shapes once each (RC=8 too there). Ran on a bundle staged from 32761b4 (h100/call1/); the
# prefetch is gone since 11b980a, where WPF 1 became the plain loads and 2 is refused.
#   bash bench/results/2026-12-05-update/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" update
settings=(default UR=2 UR=4 WPF=1 WPF=2 UR=2,WPF=1 UR=2,WPF=2 RC=16 STAGE=0 STAGE=0,KC=32)
for round in 1 2; do
  for p in "${settings[@]}"; do
    kp=STRATEGY=0,PERSIST=0; [ "$p" = default ] || kp=$kp,$p
    step big-${p//[=,]/_}-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl \
      --variant fused --preset big --iters 120 --print-every 40 --kernel-param "$kp" \
      --json "$o/big-${p//[=,]/_}-$round.json"
  done
done
for p in "${settings[@]}"; do
  ptxas_regs "$o/big-${p//[=,]/_}-1.json" regs-big-${p//[=,]/_}
done
{ grep -rl "prefetch" "$o/cache"
  grep -rhao "prefetch[a-zA-Z0-9.]*" "$o/cache" | sort | uniq -c; } > "$o/prefetch-in-binaries.txt" 2>&1
for sh in "64 2048 2048 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "16 1024 8192 8 200"; do
  read -r nb din hid dout iters <<< "$sh"
  n=$nb-$din-$hid-$dout
  for p in default UR=2 UR=4 WPF=1 WPF=2 RC=16 RC=8; do
    kp=STRATEGY=0,PERSIST=0; [ "$p" = default ] || kp=$kp,$p
    step mlp-$n-${p//[=,]/_} 120 "${clgauge[@]}" mlp --device nvidia --backend cl \
      --variant fused --batch "$nb" --din "$din" --hidden "$hid" --dout "$dout" --iters "$iters" \
      --print-every $(( iters / 4 )) --kernel-param "$kp" --json "$o/mlp-$n-${p//[=,]/_}.json"
  done
done

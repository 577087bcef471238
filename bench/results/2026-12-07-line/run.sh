#!/usr/bin/env bash
# Where the products step should start now that launch B spreads its rows over work-groups: at
# shapes on both sides of the line of cg_fused_strategy (src/backends/cl/mlp_fused_config.c; batch
# x dout >= 4096, or batch >= 128 with batch x din x hidden >= 2^26), cl/fused with the fused
# kernels as the default would run them (STRATEGY=0: the persistent kernel where it fits), with
# the launches alone (STRATEGY=0,PERSIST=0) and with the products step (STRATEGY=1), steps k-, l-
# and p-N-D-H-O, from batch 256 up, then below; then three launches at small layers, and the seed
# preset.
#   ../shared/device/stage   # the working tree's build in BUNDLE/build
#   bash bench/results/2026-12-07-line/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" line
# batch din hidden dout iters
shapes=("256 256 256 16 200" "256 4096 4096 8 16" "256 64 64 64 200" "256 1024 1024 32 100"
        "256 2048 1024 16 100" "341 205 7584 7 60" "384 512 512 32 200" "384 2048 2048 8 40"
        "446 2452 2359 2 28" "512 256 256 16 200" "512 1024 1024 8 100" "512 64 64 64 200"
        "512 4096 1024 1 28" "512 2048 2048 64 28" "572 27 700 16 200" "633 946 2222 22 40"
        "768 256 256 16 200" "768 1024 1024 32 60"
        "1024 64 64 64 200" "1024 16 16 1 200" "1024 256 256 16 200" "1024 128 4096 8 60"
        "64 8192 128 64 200" "128 512 512 64 200" "96 1000 1000 48 200" "128 4096 4096 8 28"
        "64 16 16 64 200" "128 64 64 64 200" "32 4096 4096 64 40" "128 8192 8192 32 8"
        "100 300 300 41 200")
for sh in "${shapes[@]}"; do
  read -r n d h out it <<< "$sh"
  for v in k:STRATEGY=0 l:STRATEGY=0,PERSIST=0 p:STRATEGY=1; do
    step "${v%%:*}-$n-$d-$h-$out" 120 "${clgauge[@]}" mlp --device nvidia --backend cl \
      --variant fused --batch "$n" --din "$d" --hidden "$h" --dout "$out" --iters "$it" \
      --print-every $(( it / 4 )) --kernel-param "${v#*:}" --json "$o/${v%%:*}-$n-$d-$h-$out.json"
  done
done
# small layers, where the rule may give two launches (launch B one work-group): three launches
# and launch B's rows over work-groups (THREE=1), steps t-N-D-H-O
for sh in "64 16 16 64 200" "128 64 64 64 200" "256 64 64 64 200" "512 64 64 64 200" \
          "1024 64 64 64 200" "1024 16 16 1 200" "572 27 700 16 200"; do
  read -r n d h out it <<< "$sh"
  step "t-$n-$d-$h-$out" 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
    --batch "$n" --din "$d" --hidden "$h" --dout "$out" --iters "$it" --print-every $(( it / 4 )) \
    --kernel-param STRATEGY=0,PERSIST=0,THREE=1 --json "$o/t-$n-$d-$h-$out.json"
done
# the seed preset as the H100 calls of 2026-12-06 ran it (2000 iterations read back four times),
# after the grid barrier's leader became the group's last work-item (cl/grid_sync.cl)
step seed-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --iters 2000 \
  --print-every 500 --json "$o/seed-preset.json"
# on an H200, the big preset's figures owed there (big_preset_owed)
if grep -q H200 "$o/gpu.txt"; then big_preset_owed; fi

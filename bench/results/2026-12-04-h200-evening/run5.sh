#!/usr/bin/env bash
# Fifth call, on main after the merges of the evening: linear's persistent epoch with the
# prefetch and the counting barrier, pinned through it, the products step's routing at the one
# shape where cl/fused lost (and beside the old routing at the others), the seed and big mlp
# presets, the first run from process start, and the Check suites on the device.
# In two parts, a call each (part a: linear, the products step at its losing shape, the presets;
# part b: linear again with the pinned group of 32, the other products shapes, coldstart, the
# Check suites).
#   bash bench/results/2026-12-04-h200-evening/run5.sh BUNDLE OUT a|b
set -uo pipefail
bundle=$1 part=$3
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/call5$part "$2/call5$part.tar.gz"
o=$steps_out
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/gpu.txt" 2>&1
lin=(linear --device nvidia --backend cl --variant fused)
if [ "$part" = a ]; then
for r in 1 2; do
  step linear-all-$r 120 "${b[@]}" linear --device nvidia --backend cl,clblast --transfer all \
    --json "$o/linear-all-$r.json"
done
for kp in PREFETCH=0 SYNC=0 PREFETCH=0,SYNC=0 PGROUPS=8 PGROUPS=24 PGROUPS=32 WG_PERSIST=128; do
  n=$(echo "$kp" | tr ',=' '-_')
  step linear-resident-$n 60 "${b[@]}" "${lin[@]}" --transfer resident --kernel-param "$kp" \
    --json "$o/linear-resident-$n.json"
done
for kp in PERSIST=0 GROUP=16 GROUP=32 GROUP=64; do
  n=$(echo "$kp" | tr ',=' '-_')
  step linear-pinned-$n 60 "${b[@]}" "${lin[@]}" --transfer pinned --kernel-param "$kp" \
    --json "$o/linear-pinned-$n.json"
done
wide=(mlp --device nvidia --batch 1024 --din 128 --hidden 8192 --dout 64 --iters 40 --print-every 10)
step mlp-wide 180 "${b[@]}" "${wide[@]}" --backend cl,clblast --json "$o/mlp-wide.json"
for kp in STRATEGY=1,SPLITK=0,DZ1P=0,LOSSG=1 STRATEGY=1,SPLITK=0 STRATEGY=1,DZ1P=0 \
          STRATEGY=1,LOSSG=1 STRATEGY=1,SPLITS=8 STRATEGY=1,SPLITS=32; do
  n=$(echo "$kp" | tr ',=' '-_')
  step mlp-wide-$n 120 "${b[@]}" "${wide[@]}" --backend cl --variant fused --kernel-param "$kp" \
    --json "$o/mlp-wide-$n.json"
done
step mlp-seed 90 "${b[@]}" mlp --device nvidia --backend cl,clblast --iters 2000 --print-every 500 \
  --json "$o/mlp-seed.json"
step mlp-big 120 "${b[@]}" mlp --device nvidia --preset big --backend cl,clblast --iters 120 \
  --print-every 20 --json "$o/mlp-big.json"
exit 0
fi
# part b, after the pinned groups' default went from 8 to 32 batches
step linear-all-3 120 "${b[@]}" linear --device nvidia --backend cl,clblast --transfer all \
  --json "$o/linear-all-3.json"
while read -r n d h out it; do
  step mlp-$n-$d-$h-$out 240 "${b[@]}" mlp --device nvidia --backend cl,clblast --batch "$n" \
    --din "$d" --hidden "$h" --dout "$out" --iters "$it" --print-every $((it / 4)) \
    --json "$o/mlp-$n-$d-$h-$out.json"
  step mlp-$n-$d-$h-$out-old 240 "${b[@]}" mlp --device nvidia --backend cl --variant fused \
    --batch "$n" --din "$d" --hidden "$h" --dout "$out" --iters "$it" --print-every $((it / 4)) \
    --kernel-param STRATEGY=1,SPLITK=0,DZ1P=0,LOSSG=1 --json "$o/mlp-$n-$d-$h-$out-old.json"
done <<'SHAPES'
256 1024 1024 64 200
256 2048 1024 16 200
1024 1024 1024 8 100
64 8192 128 64 200
256 5000 5000 8 40
SHAPES
step coldstart 300 "${b[@]}" coldstart --device nvidia --workload matmul,mlp
for t in test_mlp test_linear test_grid; do
  step $t 300 bash "$bundle/env.sh" "$bundle/build/tests/$t"
done

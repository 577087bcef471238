#!/usr/bin/env bash
# Launch B as work-groups of BROWS rows of the batch (g3 and the w3 update then in launch R), from
# a build of the working tree carried as BUNDLE/brows/clgauge beside the bundle's own (main's): at
# shapes where launch B's one work-group computes 3 x batch x dout^2 multiply-adds (63 x 100 x 500
# x 64 among them, where cl/fused lost to cl/per-op on 2026-12-06), main's build, then BROWS from
# the batch (one work-group) down to 1, all with THREE=1; two shapes with WGB 256 too; then the
# shapes beside clblast and cl/per-op (mlp_grid). On an H200 first the big preset's figures owed.
#   ../shared/device/stage
#   cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/b --target clgauge
#   mkdir -p .device/brows && cp /tmp/b/clgauge .device/brows/
#   bash bench/results/2026-12-07-brows/run.sh BUNDLE OUT [SHAPES]
# SHAPES: the first that many of the list (all eight by default; WGB 256 only with all).
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" brows
rows=(bash "$1/env.sh" "$1/brows/clgauge")
grep -q H200 "$o/gpu.txt" && big_preset_owed
shapes=("63 100 500 64 400" "54 46 367 59 400" "64 5000 5000 8 120" "40 300 300 64 400"
        "64 186 1455 62 400" "88 264 932 26 400" "32 64 256 64 400" "256 2048 1024 16 200")
count=${3:-${#shapes[@]}}
all=$(( count >= ${#shapes[@]} ))
shapes=("${shapes[@]:0:$count}")
for sh in "${shapes[@]}"; do
  mlp_shape $sh
  read -r n d h out it <<< "$sh"
  step "main-$n-$d-$h-$out" 120 "${clgauge[@]}" "${shape[@]}" --json "$o/main-$n-$d-$h-$out.json"
  for br in $n 16 8 4 2 1; do
    step "br$br-$n-$d-$h-$out" 120 "${rows[@]}" "${shape[@]}" \
      --kernel-param "THREE=1,BROWS=$br" --json "$o/br$br-$n-$d-$h-$out.json"
  done
done
grid=()
for sh in "${shapes[@]}"; do read -r n d h out it <<< "$sh"; grid+=("${n}x${d}x${h}x${out}"); done
mlp_grid "${grid[@]}"
[ "$all" = 1 ] || exit 0
for sh in "63 100 500 64 400" "40 300 300 64 400"; do
  mlp_shape $sh
  read -r n d h out it <<< "$sh"
  for br in 16 4 2; do
    step "br$br-wgb256-$n-$d-$h-$out" 120 "${rows[@]}" "${shape[@]}" \
      --kernel-param "THREE=1,BROWS=$br,WGB=256" --json "$o/br$br-wgb256-$n-$d-$h-$out.json"
  done
done

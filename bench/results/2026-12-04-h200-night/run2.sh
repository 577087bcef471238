#!/usr/bin/env bash
# Second call of the night. Part 1, the PoCL 5.0 crash of linear's persistent kernel on the
# H200's host (call 1: signal 11 inside the kernel's code, PERSIST=1,PGROUPS=1 at 203x37x5x8),
# through the command line, one change at a time: work-group size, prefetch, barrier, shape,
# PoCL's work-group method; the mlp's persistent kernel on the same driver; the crashing case's
# kernel files (PoCL's temporary files kept) for a disassembly. Part 2, pinned on the H200 with
# the gather on 1, 2, 4 and 8 host threads, beside resident, twice.
#   bash bench/results/2026-12-04-h200-night/run2.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/night2 "$2/night2.tar.gz"
o=$steps_out
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
pre=
[ -f "$bundle/segv.so" ] && pre=$(cd "$bundle" && pwd)/segv.so
small=(--samples 203 --features 37 --classes 5 --batch 8 --epochs 2)
pl=(linear --device pocl --backend cl --variant fused --transfer resident)
pocl() { # name env... -- args...
  local name=$1 e=()
  shift
  while [ "$1" != -- ]; do e+=("$1"); shift; done
  shift
  step "$name" 120 env LD_PRELOAD=$pre "${e[@]}" "${b[@]}" "$@"
}
pocl base -- "${pl[@]}" "${small[@]}" --kernel-param PERSIST=1,PGROUPS=1
for kp in WG_PERSIST=16 WG_PERSIST=32 WG_PERSIST=128 PREFETCH=0 SYNC=0 PREFETCH=0,SYNC=0; do
  pocl "base-$(echo "$kp" | tr ',=' '-_')" -- "${pl[@]}" "${small[@]}" \
    --kernel-param PERSIST=1,PGROUPS=1,$kp
done
pocl shape-13-70-5-4 -- "${pl[@]}" --samples 13 --features 70 --classes 5 --batch 4 --epochs 2 \
  --kernel-param PERSIST=1,PGROUPS=1
pocl shape-seed -- "${pl[@]}" --epochs 2 --kernel-param PERSIST=1,PGROUPS=1
pocl pgroups-2 -- "${pl[@]}" "${small[@]}" --kernel-param PERSIST=2,PGROUPS=2
pocl pinned -- linear --device pocl --backend cl --variant fused --transfer pinned "${small[@]}" \
  --kernel-param PERSIST=1,PGROUPS=1,GROUP=3
for m in cbs loopvec loops; do
  pocl "method-$m" POCL_WORK_GROUP_METHOD=$m -- "${pl[@]}" "${small[@]}" \
    --kernel-param PERSIST=1,PGROUPS=1
done
pocl mlp-persistent -- mlp --device pocl --backend cl --variant fused --batch 9 --din 23 \
  --hidden 37 --dout 3 --iters 4 --kernel-param PERSIST=1,PGROUPS=1
pocl mlp-persistent-2 -- mlp --device pocl --backend cl --variant fused --batch 9 --din 23 \
  --hidden 37 --dout 3 --iters 4 --kernel-param PERSIST=2,PGROUPS=2
# the crashing case once more, its kernel's files kept, then packed
mkdir -p "$o/kept"
pocl base-kept POCL_LEAVE_KERNEL_COMPILER_TEMP_FILES=1 POCL_CACHE_DIR="$o/kept" \
  XDG_CACHE_HOME="$o/kept/xdg" -- \
  "${pl[@]}" "${small[@]}" --kernel-param PERSIST=1,PGROUPS=1
tar -C "$o" -czf "$2/kept.tar.gz" kept
rm -rf "$o/kept"

bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/gpu.txt" 2>&1
lin=(linear --device nvidia --backend cl --variant fused)
for r in 1 2; do
  step resident-$r 60 "${b[@]}" "${lin[@]}" --transfer resident --json "$o/resident-$r.json"
  for t in 1 2 4 8; do
    step pinned-t$t-$r 60 "${b[@]}" "${lin[@]}" --transfer pinned --kernel-param THREADS=$t \
      --json "$o/pinned-t$t-$r.json"
  done
  step pinned-default-$r 60 "${b[@]}" "${lin[@]}" --transfer pinned --json "$o/pinned-default-$r.json"
done

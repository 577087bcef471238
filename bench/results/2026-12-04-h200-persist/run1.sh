#!/usr/bin/env bash
# First H200 call of the persistent paths: linear (persistent against launches, groups and
# work-group sizes) and the mlp before its persistent path. Run from the repository root:
#   bash .device-persist/run1.sh   (logs and JSON under $OUT)
set -u
D=.device-persist
B="bash $D/env.sh $D/build/clgauge"
o=${OUT:-/tmp/out}
mkdir -p "$o/r"
cd "$o/r" >/dev/null && cd - >/dev/null
run() { # name, args...
  local name=$1; shift
  echo "== $name: clgauge $*" | tee -a "$o/r/log.txt"
  timeout 120 $B "$@" --json "$o/r/$name.json" >> "$o/r/log.txt" 2>&1
  echo "rc $?" >> "$o/r/log.txt"
}
bash $D/env.sh nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/r/gpu.txt" 2>&1
run linear_all linear --backend cl --transfer all --device nvidia
run linear_launches linear --backend cl --variant fused --transfer resident --device nvidia --kernel-param PERSIST=0
for g in 8 16 64 132; do
  run linear_pgroups$g linear --backend cl --variant fused --transfer resident --device nvidia --kernel-param PGROUPS=$g
done
for wg in 128 512 1024; do
  run linear_wg$wg linear --backend cl --variant fused --transfer resident --device nvidia --kernel-param WG_PERSIST=$wg
done
run linear_unchecked132 linear --backend cl --variant fused --transfer resident --device nvidia --kernel-param PERSIST=2,PGROUPS=132
run mlp_before mlp --backend cl,clblast --device nvidia
tar -C "$o" -czf "$o/run1.tar.gz" r && rm -rf "$o/r"

#!/usr/bin/env bash
# One call on the H200 for issues 10 and 13 at main after the split of cl/matmul.cl (the
# pipelined kernel built alone) and coldstart --variant: the first verified result per cl
# variant of matmul and the default coldstart, the mlp at the seed, big and products shapes,
# linear resident's persistent epoch at other work-group sizes, and the Check suites on the
# device. Run from the repository root on the device machine:
#   bash bench/results/2026-12-04-h200-close/run.sh BUNDLE OUT
set -uo pipefail
bundle=$1 dest=$2 out=$2/work
mkdir -p "$out"
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
step() { # name timeout command...
  local name=$1 limit=$2 t0
  shift 2
  t0=$(date +%s%N)
  echo "== $name ($(date -u +%T))" | tee -a "$out/steps.log"
  timeout "$limit" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  echo "   rc $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/steps.log"
  # what has run so far comes back even if a later step runs past the call's limit
  tar -C "$out" -czf "$dest/close.tar.gz" --exclude=./cache .
}
export XDG_CACHE_HOME=$out/cache
mkdir -p "$out/cache"
date -u > "$out/date.txt"
nvidia-smi > "$out/gpu.txt" 2>&1
step devices 30 "${b[@]}" list
for v in pipelined tiled regblock naive; do
  step coldstart-matmul-$v 60 "${b[@]}" coldstart --device nvidia --workload matmul --backend cl \
    --variant $v --json "$out/coldstart-matmul-$v.json"
done
for r in 1 2; do
  step coldstart-$r 120 "${b[@]}" coldstart --device nvidia --workload matmul,mlp \
    --json "$out/coldstart-$r.json"
done
step mlp 60 "${b[@]}" mlp --device nvidia --backend cl,clblast --json "$out/mlp.json"
step mlp-big 90 "${b[@]}" mlp --device nvidia --backend cl,clblast --preset big --iters 120 \
  --print-every 20 --json "$out/mlp-big.json"
for s in "1024 128 8192 64 40" "64 8192 128 64 200"; do
  set -- $s
  step mlp-$1x$2x$3x$4 60 "${b[@]}" mlp --device nvidia --backend cl,clblast --batch $1 --din $2 \
    --hidden $3 --dout $4 --iters $5 --print-every $(($5 / 4)) --json "$out/mlp-$1x$2x$3x$4.json"
done
step linear 60 "${b[@]}" linear --device nvidia --backend cl --variant fused \
  --transfer resident,pinned --json "$out/linear.json"
for wg in 64 128; do
  for g in 16 32; do
    step linear-wg$wg-g$g 30 "${b[@]}" linear --device nvidia --backend cl --variant fused \
      --transfer resident --kernel-param PERSIST=1,PGROUPS=$g,WG_PERSIST=$wg \
      --json "$out/linear-wg$wg-g$g.json"
  done
done
# the suites on every device there (the H200 and PoCL on the host)
for t in grid matmul mlp linear saxpy; do
  step test_$t 100 bash "$bundle/env.sh" "$bundle/build/tests/test_$t"
done
rm -rf "$out/cache"

#!/usr/bin/env bash
# One call on the H200 after the merges of 2026-12-04 (the first run's thread, the pipelined
# block from the compute units, CLBlast tuned by its own tuner, the persistent paths, the mlp's
# strategies): the default suite as scripts/run runs it (timed), linear and mlp with and without
# the persistent paths, matmul at the cliff sizes and odd shapes against CLBlast untuned and
# tuned. Run from the repository root on the device machine:
#   bash bench/results/2026-12-04-h200-final/run.sh BUNDLE OUT
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
  tar -C "$out" -czf "$dest/final.tar.gz" --exclude=./cache .
}
export XDG_CACHE_HOME=$out/cache
mkdir -p "$out/cache"
tuner=/tmp/device-root/usr/bin/clblast_tuner_xgemm
step devices 30 "${b[@]}" list
# the default suite on the default device (the first GPU), as scripts/run runs it
step suite 90 "${b[@]}" suite --json "$out/suite.json"
step linear 60 "${b[@]}" linear --device nvidia --backend cl,clblast --transfer all \
  --json "$out/linear.json"
for g in 16 8 32 64 132; do
  step linear-persist-g$g 30 "${b[@]}" linear --device nvidia --backend cl --variant fused \
    --transfer resident --kernel-param PERSIST=1,PGROUPS=$g --json "$out/linear-persist-g$g.json"
done
step mlp 60 "${b[@]}" mlp --device nvidia --backend cl,clblast --json "$out/mlp.json"
step mlp-persist 30 "${b[@]}" mlp --device nvidia --backend cl --variant fused \
  --kernel-param PERSIST=1 --json "$out/mlp-persist.json"
step mlp-big 90 "${b[@]}" mlp --device nvidia --backend cl,clblast --preset big --iters 400 \
  --print-every 40 --json "$out/mlp-big.json"
step mlp-256 60 "${b[@]}" mlp --device nvidia --backend cl,clblast --batch 256 --din 2048 \
  --hidden 1024 --dout 16 --iters 400 --print-every 40 --json "$out/mlp-256.json"
step matmul-sweep 120 "${b[@]}" matmul --device nvidia --backend cl,clblast --variant pipelined,sgemm \
  --sweep-n 1000,1023,1024,1025,1500,2047,2048,2049,4095,4096 --no-tuned --json "$out/matmul-sweep.json"
for r in "777 1333 555" "1537 999 2049" "333 4097 1031" "97 4099 131"; do
  set -- $r
  step "matmul-$1x$2x$3" 40 "${b[@]}" matmul --device nvidia --backend cl,clblast \
    --variant pipelined,sgemm --m $1 --k $2 --n $3 --no-tuned --json "$out/matmul-$1x$2x$3.json"
done
[ -x "$tuner" ] || dpkg -x "$bundle"/debs/clblast-utils_*.deb /tmp/device-root
step tune-clblast 120 "${b[@]}" tune --device nvidia --workload matmul --backend clblast --set n=1024 \
  --fraction 4 --budget-s 90 --clblast-tuner "$tuner" --tuning-file "$out/tuning.json"
for n in 1000 1024 1025; do
  step "matmul-clblast-tuned-$n" 40 "${b[@]}" matmul --device nvidia --backend clblast --n $n \
    --tuning-file "$out/tuning.json" --json "$out/matmul-clblast-tuned-$n.json"
done
rm -rf "$out/cache"

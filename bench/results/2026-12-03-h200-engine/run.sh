#!/usr/bin/env bash
# The seed figures before and after the one-engine restructuring, on the H200, alternating the
# two builds so that both see the same host: .device-base (e3ac23f) and .device (this commit).
#   bash bench/results/2026-12-03-h200-engine/run.sh OUTDIR
set -uo pipefail
out=${1:-$OUT}
work=$(mktemp -d)
mkdir -p "$out"
run() { # NAME BUNDLE clgauge-args...
  local name=$1 bundle=$2
  shift 2
  echo "### $bundle/build/clgauge $* --json $name.json" | tee "$work/$name.txt"
  bash "$bundle/env.sh" "$bundle/build/clgauge" "$@" --json "$work/$name.json" >> "$work/$name.txt" 2>&1
  echo "exit $?" >> "$work/$name.txt"
}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$work/date.txt"
bash .device/env.sh .device/build/clgauge list > "$work/devices.txt" 2>&1
for round in 1 2; do
  for b in base new; do
    bundle=.device; [ $b = base ] && bundle=.device-base
    run "matmul-$b-$round" $bundle matmul --device nvidia --backend clblast,cl --variant regblock,sgemm --quiet
    run "mlp-$b-$round" $bundle mlp --device nvidia --backend cl --variant fused --quiet
    run "linear-$b-$round" $bundle linear --device nvidia --backend cl --transfer resident --quiet
  done
done
# the new build only: saxpy's figures and a sweep
run saxpy-new .device saxpy --device nvidia --quiet
run saxpy-n2e26-new .device saxpy --device nvidia --n 67108864 --backend clblast,cl --quiet
run mlp-sweep-new .device mlp --device nvidia --sweep-hidden 64,512,2048 --iters 200 --print-every 20 --quiet
tar -C "$work" -cf "$out/bench.tar" .
# then every workload's suite on NVIDIA and PoCL
for t in matmul mlp linear saxpy report; do
  [ -x .device/build/tests/test_$t ] || continue
  bash .device/env.sh .device/build/tests/test_$t > "$work/test_$t.log" 2>&1
  echo "exit $?" >> "$work/test_$t.log"
  tar -C "$work" -cf "$out/tests.tar" $(cd "$work" && ls test_*.log)
done

#!/usr/bin/env bash
# On the H200 after the reliability fixes to the kernels (linear.cl's global barrier, mlp.cl):
# the seed figures against the build before the engine (.device-base, e3ac23f), every suite,
# the default suite's results, and the PyTorch seeds on CUDA and the host CPU beside them.
#   bash bench/results/2026-12-03-h200-final/run.sh OUTDIR
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
for round in 1 2; do
  for b in base new; do
    bundle=.device; [ $b = base ] && bundle=.device-base
    run "matmul-$b-$round" $bundle matmul --device nvidia --backend clblast,cl --variant regblock,sgemm --quiet
    run "mlp-$b-$round" $bundle mlp --device nvidia --backend cl --quiet
    run "linear-$b-$round" $bundle linear --device nvidia --backend cl --transfer all --quiet
  done
done
run suite .device suite --device nvidia --quiet
run mlp-sweep .device mlp --device nvidia --sweep-hidden 16,64,256,1024,2048,5000 --iters 200 --print-every 20 --quiet
echo "### python3 bench/pytorch_seeds.py --json pytorch.json" > "$work/pytorch.txt"
PYTHONUNBUFFERED=1 timeout 240 python3 bench/pytorch_seeds.py --json "$work/pytorch.json" >> "$work/pytorch.txt" 2>&1
echo "exit $?" >> "$work/pytorch.txt"
bash .device/env.sh .device/build/clgauge compare "$work/suite.json" "$work/pytorch.json" > "$work/compare.txt" 2>&1
echo "exit $?" >> "$work/compare.txt"
tar -C "$work" -cf "$out/bench.tar" .
for t in matmul mlp linear saxpy; do
  bash .device/env.sh .device/build/tests/test_$t > "$work/test_$t.log" 2>&1
  echo "exit $?" >> "$work/test_$t.log"
  tar -C "$work" -cf "$out/tests.tar" $(cd "$work" && ls test_*.log)
done

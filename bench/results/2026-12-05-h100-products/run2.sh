#!/usr/bin/env bash
# The second call: cuBLAS at the same two products (cublas.py), and the pipelined kernel with
# other blockings at each, two rounds: is there a blocking much faster at a 64-row A?
#   bash bench/results/2026-12-05-h100-products/run2.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" products2
step cublas 120 python3 "$here/results/2026-12-05-h100-products/cublas.py" "$o/cublas.json"
for round in 1 2; do
  for p in "MWG=32,NWG=32,KWG=32,WM=4,WN=4" "MWG=64,NWG=64,KWG=16,WM=4,WN=4" \
           "MWG=64,NWG=128,KWG=16,WM=8,WN=8" "MWG=32,NWG=128,KWG=16,WM=4,WN=8" \
           "MWG=64,NWG=64,KWG=32,WM=8,WN=4" "MWG=16,NWG=128,KWG=32,WM=2,WN=8" \
           "MWG=32,NWG=64,KWG=32,WM=4,WN=8" "MWG=64,NWG=32,KWG=32,WM=4,WN=2"; do
    t=${p//,/_}
    step forward-$t-$round 120 "${clgauge[@]}" matmul --device nvidia --backend cl \
      --variant pipelined --n 5000 --m 64 --k 5000 --runs 10 --loops 20 --kernel-param "$p" \
      --json "$o/forward-$t-$round.json"
  done
  for p in "MWG=128,NWG=64,KWG=16,WM=8,WN=8" "MWG=128,NWG=128,KWG=16,WM=8,WN=8" \
           "MWG=64,NWG=64,KWG=16,WM=4,WN=4" "MWG=96,NWG=96,KWG=16,WM=6,WN=6,VW=2" \
           "MWG=128,NWG=64,KWG=32,WM=8,WN=8" "MWG=64,NWG=128,KWG=16,WM=8,WN=8"; do
    t=${p//,/_}
    step gradient-$t-$round 120 "${clgauge[@]}" matmul --device nvidia --backend cl \
      --variant pipelined --n 5000 --m 5000 --k 64 --runs 10 --loops 20 --kernel-param "$p" \
      --json "$o/gradient-$t-$round.json"
  done
done

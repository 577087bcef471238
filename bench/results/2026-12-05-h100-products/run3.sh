#!/usr/bin/env bash
# The third call: the GPU default's five blocks at short k (64 and 256) for m = n = 2048, 4096
# and 5000, beside the default's own pick, one round: does the wave model's choice hold when k
# is short?
#   bash bench/results/2026-12-05-h100-products/run3.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" products3
for n in 2048 4096 5000; do
  for k in 64 256; do
    for p in default "MWG=128,NWG=128,KWG=8,WM=8,WN=8,VW=4" "MWG=128,NWG=64,KWG=16,WM=8,WN=8,VW=4" \
             "MWG=96,NWG=96,KWG=16,WM=6,WN=6,VW=2" "MWG=64,NWG=64,KWG=16,WM=4,WN=4,VW=4" \
             "MWG=32,NWG=32,KWG=32,WM=4,WN=4,VW=4"; do
      t=${p//,/_}
      param=()
      [ "$p" = default ] || param=(--kernel-param "$p")
      step short-k-$n-$k-$t 120 "${clgauge[@]}" matmul --device nvidia --backend cl \
        --variant pipelined --n $n --k $k --runs 10 --loops 20 "${param[@]}" \
        --json "$o/short-k-$n-$k-$t.json"
    done
  done
done

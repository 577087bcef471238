#!/usr/bin/env bash
# The split kernel with kconst.py's function in builds with -DSPLIT_TAIL only (ktail.py) against
# main's kernels, two rounds: at n and n+1 where the default drops by more than 15% (steps
# ROUND-pairs-VARIANT), at more sizes it splits (ROUND-split-VARIANT), at sizes it does not split
# (ROUND-whole-VARIANT), at 777x1333x555 (ROUND-777-VARIANT); then, with main's kernels, the
# 96x96 block at the sizes n+1 of those pairs in 1 to 8 parts, more parts than one wave holds
# among them, which the default refuses (waves-SPLITS). On an H200 first the figures owed there
# (h200_owed).
#   ../shared/device/stage; mkdir -p BUNDLE/kd/ktail; cp cl/*.cl BUNDLE/kd/ktail/
#   python3 bench/results/2026-12-07-matmul-ktail/ktail.py cl/matmul.cl BUNDLE/kd/ktail/matmul.cl
#   bash bench/results/2026-12-07-matmul-ktail/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" ktail
h200_owed
pairs=1056,1057,1248,1249,1536,1537,1792,1793,2048,2049,2496,2497,2560,2561
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet)
for round in 1 2; do
  for v in main ktail; do
    variant_step "$round-pairs-$v" "$v" "${mm[@]}" --sweep-n "$pairs"
    variant_step "$round-split-$v" "$v" "${mm[@]}" --sweep-n 1072,1217,1601
    variant_step "$round-whole-$v" "$v" "${mm[@]}" --sweep-n 1024,4096
    variant_step "$round-777-$v" "$v" "${mm[@]}" --n 555 --m 777 --k 1333
  done
done
for parts in 1 2 3 4 6 8; do
  variant_step "waves-$parts" main "${mm[@]}" --sweep-n 1057,1249,1537,1793,2049,2561 \
    --kernel-param "MWG=96,NWG=96,KWG=16,WM=6,WN=6,VW=2,PAD=1,SPLITS=$parts"
done

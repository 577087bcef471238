#!/usr/bin/env bash
# The split kernel with the block's product in a function (kconst.py: whole blocks take k from 0
# to K as constants, as the unsplit kernel does) and that with whole blocks and parts interleaved
# in the groups' order (kinter.py) against main's kernels, in turn, two rounds:
# at n and n+1 where the default drops by more than 15% (steps ROUND-pairs-VARIANT), at more
# sizes it splits (ROUND-split-VARIANT), at sizes it does not split (ROUND-whole-VARIANT: the
# unsplit kernel through the function), at 777x1333x555 (ROUND-777-VARIANT), and with splits the
# default does not make (ROUND-forced-N-VARIANT: 1793 96x96 in 4 parts, 2049 128x64 in 4;
# ROUND-k128-VARIANT: 1536 and 2560 128x128 in 8);
# then cuBLAS at the same pairs (step cublas, cublas_pairs.py). On an H200 first the figures
# owed there (h200_owed).
#   ../shared/device/stage; mkdir -p BUNDLE/kd/kconst; cp cl/*.cl BUNDLE/kd/kconst/
#   python3 bench/results/2026-12-07-matmul-kconst/kconst.py cl/matmul.cl BUNDLE/kd/kconst/matmul.cl
#   mkdir -p BUNDLE/kd/kinter; cp cl/*.cl BUNDLE/kd/kinter/; python3 \
#     bench/results/2026-12-07-matmul-kconst/kinter.py BUNDLE/kd/kconst/matmul.cl BUNDLE/kd/kinter/matmul.cl
#   bash bench/results/2026-12-07-matmul-kconst/run.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" kconst
h200_owed
pairs=1056,1057,1248,1249,1536,1537,1792,1793,2048,2049,2496,2497,2560,2561
mm=(matmul --device nvidia --backend cl --variant pipelined --runs 5 --no-tuned --quiet)
for round in 1 2; do
  for v in main kconst kinter; do
    variant_step "$round-pairs-$v" "$v" "${mm[@]}" --sweep-n "$pairs"
    variant_step "$round-split-$v" "$v" "${mm[@]}" --sweep-n 1072,1217,1601
    variant_step "$round-whole-$v" "$v" "${mm[@]}" --sweep-n 1024,4096
    variant_step "$round-777-$v" "$v" "${mm[@]}" --n 555 --m 777 --k 1333
    variant_step "$round-forced-1793-$v" "$v" "${mm[@]}" --n 1793 \
      --kernel-param MWG=96,NWG=96,KWG=16,WM=6,WN=6,VW=2,PAD=1,SPLITS=4
    variant_step "$round-forced-2049-$v" "$v" "${mm[@]}" --n 2049 \
      --kernel-param MWG=128,NWG=64,KWG=16,WM=8,WN=8,VW=4,PAD=1,SPLITS=4
    variant_step "$round-k128-$v" "$v" "${mm[@]}" --sweep-n 1536,2560 \
      --kernel-param MWG=128,NWG=128,KWG=8,WM=8,WN=8,VW=4,PAD=1,SPLITS=8
  done
done
step cublas 120 python3 "$here/results/2026-12-07-matmul-kconst/cublas_pairs.py" "$o/cublas.json"
